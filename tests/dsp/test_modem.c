/*
 * The modem engine end to end over a simulated exchange: dial tone, DTMF
 * dialling (recognised by SpanDSP's DTMF receiver in the exchange), ring
 * signal and ringback, answer tone, V.22bis training, 4 KiB of bytes each
 * way through the byte-stream API, hang-up and carrier loss; ours against
 * ours and against SpanDSP in both roles; phase events and period lengths.
 */
#include <stdio.h>
#include <string.h>
#include "refs.h"
#include <smdsp/modem.h>
#include <smdsp/pump.h>
#include "tutil.h"
#include "line.h"
#include "chars.h"

#define NB 4096
#define BLK 160

enum { EX_IDLE, EX_DIALTONE, EX_DIGITS, EX_RINGING, EX_CONNECTED };

struct exch {
	int state;
	dtmf_rx_state_t *drx;
	char digits[32];
	int ndigits;
	long t;			/* samples in this state */
	long since_digit;
	struct line *line;
	int rings_sent;
};

static void ex_digits(void *user, const char *d, int len)
{
	struct exch *x = user;

	while (len-- > 0 && x->ndigits < 31)
		x->digits[x->ndigits++] = *d++;
	x->since_digit = 0;
}

static void gen_tone(int16_t *out, int n, long t0, double f1, double f2, double dbm0, int on_ms, int off_ms)
{
	double a = 32767.0 * pow(10, (dbm0 - 3.14) / 20);
	int i;

	for (i = 0; i < n; i++) {
		long t = t0 + i;
		long pos = off_ms ? t % ((on_ms + off_ms) * 8) : 0;

		out[i] = pos < on_ms * 8 || !off_ms ?
			 t_sat16(a * (sin(2 * M_PI * f1 * t / 8000) + (f2 > 0 ? sin(2 * M_PI * f2 * t / 8000) : 0))) : 0;
	}
}

/* 20 Hz ring bursts as a codec would see them (clipped) */
static void gen_ring(int16_t *out, int n, long t0)
{
	int i;

	for (i = 0; i < n; i++) {
		long t = t0 + i;

		out[i] = t % 48000 < 16000 ? t_sat16(60000 * sin(2 * M_PI * 20 * t / 8000)) : 0;
	}
}

/*
 * One block through the exchange. a_off/b_off: hook states. Returns what A and
 * B receive.
 */
static void ex_block(struct exch *x, int a_off, int b_off, const int16_t *a_tx, int16_t *a_rx,
		     const int16_t *b_tx, int16_t *b_rx)
{
	memset(a_rx, 0, BLK * 2);
	memset(b_rx, 0, BLK * 2);
	switch (x->state) {
	case EX_IDLE:
		if (a_off) {
			x->state = EX_DIALTONE;
			x->t = 0;
		}
		break;
	case EX_DIALTONE:
	case EX_DIGITS:
		dtmf_rx(x->drx, a_tx, BLK);
		if (x->state == EX_DIALTONE)
			gen_tone(a_rx, BLK, x->t, 350, 440, -16, 0, 0);
		if (x->ndigits)
			x->state = EX_DIGITS;
		x->since_digit += BLK;
		if (x->state == EX_DIGITS && x->since_digit > 8000 * 3 / 2) {
			x->state = EX_RINGING;
			x->t = 0;
		}
		break;
	case EX_RINGING:
		gen_tone(a_rx, BLK, x->t, 440, 480, -19, 2000, 4000);
		if (!b_off)
			gen_ring(b_rx, BLK, x->t);
		if (b_off) {
			x->state = EX_CONNECTED;
			x->t = 0;
		}
		break;
	case EX_CONNECTED:
		line_process(x->line, a_off ? a_tx : b_rx, a_rx, b_off ? b_tx : a_rx, b_rx, BLK);
		if (!a_off)
			memset(b_rx, 0, BLK * 2);
		if (!b_off)
			memset(a_rx, 0, BLK * 2);
		break;
	}
	x->t += BLK;
}

static void ex_init(struct exch *x, double loss)
{
	struct line_cfg lc = { .loss_db = loss, .noise_dbm0 = -200, .echo_db = -200, .delay = 120 };

	memset(x, 0, sizeof(*x));
	x->drx = dtmf_rx_init(NULL, ex_digits, x);
	x->line = line_create(&lc);
}

static void ex_free(struct exch *x)
{
	dtmf_rx_free(x->drx);
	line_free(x->line);
}

struct side {
	struct smdsp_modem *m;
	uint8_t out[NB], in[NB + 64];
	size_t nout, nin;
	int phases[32];
	uint32_t args[32];
	int nphases;
	int rings;
	int period_onhook, period_other;
	uint32_t connected_ms;
};

static void side_pump(struct side *s)
{
	struct smdsp_modem_event ev;

	if (s->nout < NB && smdsp_modem_rate(s->m))
		s->nout += smdsp_modem_write(s->m, s->out + s->nout, (unsigned int)(NB - s->nout));
	s->nin += smdsp_modem_read(s->m, s->in + s->nin, (unsigned int)(sizeof(s->in) - s->nin));
	while (smdsp_modem_get_event(s->m, &ev)) {
		if (ev.type == SMDSP_EV_PHASE && s->nphases < 32) {
			s->phases[s->nphases] = ev.phase;
			s->args[s->nphases++] = ev.arg;
			if (ev.phase == SMDSP_PHASE_CONNECTED)
				s->connected_ms = ev.time_ms;
		}
		if (ev.type == SMDSP_EV_RING)
			s->rings = (int)ev.arg;
	}
	if (smdsp_modem_phase(s->m) == SMDSP_PHASE_ONHOOK)
		s->period_onhook = (int)smdsp_modem_period(s->m);
	else
		s->period_other = (int)smdsp_modem_period(s->m);
}

static const char *pname[] = { "onhook", "offhook", "dialing", "waiting", "answer-tone", "v8",
			       "training", "connected", "retrain", "carrier-lost", "hungup", "probing" };

static void print_phases(const char *who, const struct side *s)
{
	int i;

	printf("  %s:", who);
	for (i = 0; i < s->nphases; i++) {
		printf(" %s", pname[s->phases[i]]);
		if (s->phases[i] == SMDSP_PHASE_CONNECTED || s->phases[i] == SMDSP_PHASE_HUNGUP)
			printf("(%u)", s->args[i]);
	}
	printf("\n");
}

static int has_sequence(const struct side *s, const int *seq, int n)
{
	int i, k = 0;

	for (i = 0; i < s->nphases && k < n; i++)
		if (s->phases[i] == seq[k])
			k++;
	return k == n;
}

static struct smdsp_modem *new_modem(unsigned int rings, enum smdsp_callprog_plan plan)
{
	struct smdsp_modem_config c = { .sample_rate = 8000, .auto_answer_rings = rings, .tone_plan = plan };

	return smdsp_modem_create(&c);
}

static void ours_to_ours(void)
{
	struct exch x;
	struct side a, b;
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	long i, hang_at = -1;
	static const int seq_a[] = { SMDSP_PHASE_OFFHOOK, SMDSP_PHASE_DIALING, SMDSP_PHASE_WAITING,
				     SMDSP_PHASE_ANSWER_TONE, SMDSP_PHASE_TRAINING, SMDSP_PHASE_CONNECTED,
				     SMDSP_PHASE_HUNGUP, SMDSP_PHASE_ONHOOK };
	static const int seq_b[] = { SMDSP_PHASE_ANSWER_TONE, SMDSP_PHASE_TRAINING, SMDSP_PHASE_CONNECTED,
				     SMDSP_PHASE_CARRIER_LOST, SMDSP_PHASE_HUNGUP, SMDSP_PHASE_ONHOOK };

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ex_init(&x, 12);
	a.m = new_modem(0, SMDSP_CALLPROG_PLAN_NA);
	b.m = new_modem(2, SMDSP_CALLPROG_PLAN_NA);
	fill_random(a.out, NB, 1);
	fill_random(b.out, NB, 2);
	CHECK(smdsp_modem_dial(a.m, "5551234") == 0, "dial refused");
	CHECK(smdsp_modem_dial(a.m, "1") == -EBUSY, "second dial accepted");
	for (i = 0; i < 50 * 90; i++) {
		smdsp_modem_process(a.m, ar, at, BLK);
		smdsp_modem_process(b.m, br, bt, BLK);
		ex_block(&x, smdsp_modem_offhook(a.m), smdsp_modem_offhook(b.m), at, ar, bt, br);
		side_pump(&a);
		side_pump(&b);
		if (hang_at < 0 && a.nin >= NB && b.nin >= NB) {
			hang_at = i;
			smdsp_modem_hangup(a.m);
		}
		/* B holds a lost carrier for 1.4 s (S10) before it hangs up */
		if (hang_at >= 0 && i > hang_at + 120)
			break;
	}
	printf("engine ours->ours (NA tones, 12 dB loss): dialled '%s', B heard %d rings, A connected "
	       "at %.1f s, bytes intact %zu/%d and %zu/%d\n", x.digits, b.rings,
	       a.connected_ms / 1000.0, match_prefix(b.out, a.in, a.nin < NB ? a.nin : NB), NB,
	       match_prefix(a.out, b.in, b.nin < NB ? b.nin : NB), NB);
	print_phases("A", &a);
	print_phases("B", &b);
	CHECK(!strcmp(x.digits, "5551234"), "exchange got digits '%s'", x.digits);
	CHECK(b.rings == 2, "rings %d", b.rings);
	CHECK(has_sequence(&a, seq_a, 8), "A phase sequence");
	CHECK(has_sequence(&b, seq_b, 6), "B phase sequence");
	CHECK(a.nin >= NB && match_prefix(b.out, a.in, NB) == NB, "A received %zu", a.nin);
	CHECK(b.nin >= NB && match_prefix(a.out, b.in, NB) == NB, "B received %zu", b.nin);
	CHECK(smdsp_modem_phase(a.m) == SMDSP_PHASE_ONHOOK && smdsp_modem_phase(b.m) == SMDSP_PHASE_ONHOOK,
	      "not back on hook");
	CHECK(a.period_onhook == 20 && a.period_other == 100, "periods %d %d", a.period_onhook,
	      a.period_other);
	smdsp_modem_free(a.m);
	smdsp_modem_free(b.m);
	ex_free(&x);
}

/* Our engine calls a SpanDSP V.22bis answerer (which gets its ANS from modem_connect_tones_tx). */
static void ours_calls_spandsp(void)
{
	struct exch x;
	struct side a;
	v22bis_state_t *sp;
	modem_connect_tones_tx_state_t *ans;
	struct char_src src;
	struct char_sink sink;
	static uint8_t sp_out[NB], sp_in[NB + 64];
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	long i, b_t = -1;
	int b_off = 0;
	size_t junk;

	memset(&a, 0, sizeof(a));
	ex_init(&x, 10);
	a.m = new_modem(0, SMDSP_CALLPROG_PLAN_ETSI);
	fill_random(a.out, NB, 3);
	fill_random(sp_out, NB, 4);
	char_src_init(&src, sp_out, NB, 40);
	char_sink_init(&sink, sp_in, sizeof(sp_in));
	sp = v22bis_init(NULL, 2400, V22BIS_GUARD_TONE_1800HZ, 0, char_src_get_bit, &src, char_sink_put_bit,
			 &sink);
	ans = modem_connect_tones_tx_init(NULL, MODEM_CONNECT_TONES_ANS);
	smdsp_modem_dial(a.m, "42");
	for (i = 0; i < 50 * 80; i++) {
		smdsp_modem_process(a.m, ar, at, BLK);
		/* B: answers after 2 ring cycles, 2 s of silence, 3.3 s of ANS, then V.22bis */
		if (x.state == EX_RINGING && x.t >= 12 * 8000)
			b_off = 1;
		if (b_off && b_t < 0)
			b_t = 0;
		memset(bt, 0, sizeof(bt));
		if (b_t >= 0) {
			if (b_t >= 16000 && b_t < 16000 + 26400)
				modem_connect_tones_tx(ans, bt, BLK);
			else if (b_t >= 16000 + 26400) {
				v22bis_rx(sp, br, BLK);
				v22bis_tx(sp, bt, BLK);
			}
			b_t += BLK;
		}
		ex_block(&x, smdsp_modem_offhook(a.m), b_off, at, ar, bt, br);
		side_pump(&a);
		if (a.nin >= NB && sink.len >= NB)
			break;
	}
	printf("engine ours calling SpanDSP (ETSI plan): A connected at %.1f s (rate %u), bytes intact "
	       "%zu/%d and %zu/%d\n", a.connected_ms / 1000.0, smdsp_modem_rate(a.m),
	       match_prefix(sp_out, a.in, a.nin < NB ? a.nin : NB), NB,
	       match_data(a.out, NB, sp_in, sink.len, &junk), NB);
	print_phases("A", &a);
	CHECK(smdsp_modem_rate(a.m) == 2400, "rate %u", smdsp_modem_rate(a.m));
	CHECK(a.nin >= NB && match_prefix(sp_out, a.in, NB) == NB, "A received %zu", a.nin);
	CHECK(match_data(a.out, NB, sp_in, sink.len, &junk) == NB, "SpanDSP received %zu", sink.len);
	smdsp_modem_free(a.m);
	v22bis_free(sp);
	modem_connect_tones_tx_free(ans);
	ex_free(&x);
}

/* A SpanDSP V.22bis caller (the exchange dials for it) reaches our auto-answering engine. */
static void spandsp_calls_ours(void)
{
	struct exch x;
	struct side b;
	v22bis_state_t *sp;
	struct char_src src;
	struct char_sink sink;
	static uint8_t sp_out[NB], sp_in[NB + 64];
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	long i;
	size_t junk;

	memset(&b, 0, sizeof(b));
	ex_init(&x, 10);
	b.m = new_modem(1, SMDSP_CALLPROG_PLAN_NA);
	fill_random(b.out, NB, 5);
	fill_random(sp_out, NB, 6);
	char_src_init(&src, sp_out, NB, 40);
	char_sink_init(&sink, sp_in, sizeof(sp_in));
	sp = v22bis_init(NULL, 2400, 0, 1, char_src_get_bit, &src, char_sink_put_bit, &sink);
	x.state = EX_RINGING;	/* the SpanDSP caller has dialled */
	for (i = 0; i < 50 * 60; i++) {
		smdsp_modem_process(b.m, br, bt, BLK);
		v22bis_rx(sp, ar, BLK);
		v22bis_tx(sp, at, BLK);
		ex_block(&x, 1, smdsp_modem_offhook(b.m), at, ar, bt, br);
		side_pump(&b);
		if (b.nin >= NB && sink.len >= NB)
			break;
	}
	printf("engine ours answering SpanDSP: B heard %d ring(s), connected at %.1f s (rate %u), bytes "
	       "intact %zu/%d and %zu/%d\n", b.rings, b.connected_ms / 1000.0, smdsp_modem_rate(b.m),
	       match_prefix(sp_out, b.in, b.nin < NB ? b.nin : NB), NB,
	       match_data(b.out, NB, sp_in, sink.len, &junk), NB);
	print_phases("B", &b);
	CHECK(smdsp_modem_rate(b.m) == 2400, "rate %u", smdsp_modem_rate(b.m));
	CHECK(b.nin >= NB && match_prefix(sp_out, b.in, NB) == NB, "B received %zu", b.nin);
	CHECK(match_data(b.out, NB, sp_in, sink.len, &junk) == NB, "SpanDSP received %zu", sink.len);
	smdsp_modem_free(b.m);
	v22bis_free(sp);
	ex_free(&x);
}

/* Dialling into a busy line, and into silence (no dial tone). */
static void failures(void)
{
	struct smdsp_modem *m = new_modem(0, SMDSP_CALLPROG_PLAN_NA);
	int16_t rx[BLK], tx[BLK];
	struct smdsp_modem_event ev;
	uint32_t cause = 99;
	long i, t;

	smdsp_modem_dial(m, "1");
	memset(rx, 0, sizeof(rx));
	for (i = 0; i < 50 * 8; i++) {
		smdsp_modem_process(m, rx, tx, BLK);
		while (smdsp_modem_get_event(m, &ev))
			if (ev.type == SMDSP_EV_PHASE && ev.phase == SMDSP_PHASE_HUNGUP)
				cause = ev.arg;
	}
	printf("engine: no dial tone -> hung up, cause %u\n", cause);
	CHECK(cause == SMDSP_CAUSE_NO_DIALTONE, "cause %u", cause);
	cause = 99;
	smdsp_modem_dial(m, "1");
	for (i = 0, t = 0; i < 50 * 20; i++, t += BLK) {
		if (smdsp_modem_phase(m) == SMDSP_PHASE_OFFHOOK || smdsp_modem_phase(m) == SMDSP_PHASE_DIALING)
			gen_tone(rx, BLK, t, 350, 440, -16, 0, 0);
		else
			gen_tone(rx, BLK, t, 480, 620, -20, 500, 500);
		smdsp_modem_process(m, rx, tx, BLK);
		while (smdsp_modem_get_event(m, &ev))
			if (ev.type == SMDSP_EV_PHASE && ev.phase == SMDSP_PHASE_HUNGUP)
				cause = ev.arg;
	}
	printf("engine: busy -> hung up, cause %u\n", cause);
	CHECK(cause == SMDSP_CAUSE_BUSY, "cause %u", cause);
	smdsp_modem_free(m);
}

static void pump_api(void)
{
	struct smdsp_pump_config c = { .sample_rate = 8000 };
	struct smdsp_pump_config lb = { .sample_rate = 48000, .flags = SMDSP_PUMP_FLAG_LOOPBACK };
	struct smdsp_pump_config other = { .sample_rate = 16000 };
	struct smdsp_pump_config bad = { .sample_rate = 0 };
	struct smdsp_pump *p = smdsp_pump_create(&c), *q = smdsp_pump_create(&lb);
	struct smdsp_pump *o = smdsp_pump_create(&other);
	int16_t rx[100], tx[100];
	int i;

	CHECK(p && smdsp_pump_modem(p), "pump with modem");
	CHECK(q && !smdsp_pump_modem(q), "loopback pump");
	CHECK(smdsp_pump_create(&bad) == NULL, "rate 0 accepted");
	/* the modem needs 8 kHz: at other rates the pump is a pass-through */
	CHECK(o && !smdsp_pump_modem(o), "16 kHz pump");
	for (i = 0; i < 100; i++)
		rx[i] = (int16_t)(i * 300);
	CHECK(smdsp_pump_process(q, rx, tx, 100) == 0 && !memcmp(rx, tx, sizeof(rx)), "loopback");
	CHECK(smdsp_pump_process(p, rx, tx, 100) == 0, "process");
	CHECK(smdsp_modem_period(smdsp_pump_modem(p)) == 20, "on-hook period");
	CHECK(smdsp_pump_process(o, rx, tx, 100) == 0 && !memcmp(rx, tx, sizeof(rx)), "16 kHz pass-through");
	smdsp_pump_free(p);
	smdsp_pump_free(q);
	smdsp_pump_free(o);
}

int main(void)
{
	pump_api();
	ours_to_ours();
	ours_calls_spandsp();
	spandsp_calls_ours();
	failures();
	return t_report("test_modem");
}
