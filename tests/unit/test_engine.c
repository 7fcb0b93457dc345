/*
 * User-space tests of what the driver asks of the modem engine
 * (dsp/modem.c) beyond the data pump's own tests: the dial string's ','
 * pauses and 'W' waits, and smdsp_modem_tx_fill(), the transmitter going
 * on when the driver's output lead grows.  Built from the very sources the
 * module uses.  Prints one line per failed check, a few figures and a final
 * "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/modem.h>
#include <smdsp/dtmf.h>
#include <smdsp/tone.h>
#include "check.h"

#define RATE	8000
#define PERIOD	100
#define MS(ms)	((long)(ms) * (RATE / 1000))

/* -- dialling ------------------------------------------------------------- */

enum rx_kind { RX_SILENCE, RX_DIALTONE, RX_BUSY };

struct dial_run {
	char digits[64];	/* what a DTMF receiver made of the output */
	long onset[64];		/* sample where each tone burst started */
	int nbursts;
	long waiting_at;	/* WAITING phase, -1: never */
	long hungup_at;
	int cause;
};

/*
 * Dial str on hook -> off hook blind, the line giving rx from rx_from_ms
 * on, until WAITING, a hang-up or limit_ms.
 */
static struct dial_run dial(const struct smdsp_modem_config *cfg,
			    const char *str, enum rx_kind rx_kind,
			    long rx_from_ms, long limit_ms)
{
	struct smdsp_modem *m = smdsp_modem_create(cfg);
	struct smdsp_dtmf_rx *drx = smdsp_dtmf_rx_create();
	struct smdsp_tone *line;
	struct smdsp_tone_desc d;
	struct smdsp_modem_event ev;
	struct dial_run r;
	int16_t rx[PERIOD], tx[PERIOD];
	long t, quiet = MS(100);
	int i, nd = 0;

	memset(&r, 0, sizeof(r));
	r.waiting_at = -1;
	r.hungup_at = -1;
	r.cause = -1;
	memset(&d, 0, sizeof(d));
	if (rx_kind == RX_DIALTONE) {
		d.freq_mhz[0] = 350000;
		d.freq_mhz[1] = 440000;
		d.on_ms = 60000;
	} else {
		d.freq_mhz[0] = 480000;
		d.freq_mhz[1] = 620000;
		d.on_ms = 500;
		d.off_ms = 500;
	}
	d.level_dbm0_10[0] = -130;
	d.level_dbm0_10[1] = -130;
	line = smdsp_tone_create(&d);
	CHECK(m && drx && line && smdsp_modem_dial(m, str) == 0);
	if (!m || !drx || !line)
		goto out;
	for (t = 0; t < MS(limit_ms); t += PERIOD) {
		if (rx_kind != RX_SILENCE && t >= MS(rx_from_ms))
			smdsp_tone_process(line, rx, PERIOD);
		else
			memset(rx, 0, sizeof(rx));
		smdsp_modem_process(m, rx, tx, PERIOD);
		for (i = 0; i < PERIOD; i++) {
			if (!tx[i]) {
				quiet++;
				continue;
			}
			if (quiet >= MS(20) && r.nbursts < 64)
				r.onset[r.nbursts++] = t + i;
			quiet = 0;
		}
		smdsp_dtmf_rx_process(drx, tx, PERIOD);
		nd += smdsp_dtmf_rx_get(drx, r.digits + nd,
					(int)sizeof(r.digits) - 1 - nd);
		while (smdsp_modem_get_event(m, &ev)) {
			if (ev.type != SMDSP_EV_PHASE)
				continue;
			if (ev.phase == SMDSP_PHASE_WAITING)
				r.waiting_at = t + PERIOD;
			if (ev.phase == SMDSP_PHASE_HUNGUP) {
				r.hungup_at = t + PERIOD;
				r.cause = (int)ev.arg;
			}
		}
		if (r.waiting_at >= 0 || r.hungup_at >= 0)
			break;
	}
	r.digits[nd] = '\0';
out:
	smdsp_tone_free(line);
	smdsp_dtmf_rx_free(drx);
	smdsp_modem_free(m);
	return r;
}

/*
 * Within the engine's 5 ms timer granularity and a period: phases are
 * seen at the end of the period they happened in.
 */
static int near(long got, long want_ms)
{
	long d = got - MS(want_ms);

	return d >= -MS(5) && d <= MS(5) + PERIOD;
}

static void blind(struct smdsp_modem_config *c, unsigned int comma_ms,
		  unsigned int dialtone_ms)
{
	memset(c, 0, sizeof(*c));
	c->flags = SMDSP_MODEM_FLAG_BLIND;
	c->comma_ms = comma_ms;
	c->dialtone_wait_ms = dialtone_ms;
}

static void test_pauses(void)
{
	struct smdsp_modem_config c;
	struct dial_run r;

	/* A digit is 70 ms on, 70 ms off; blind dialling starts after 2 s. */
	blind(&c, 1000, 0);
	r = dial(&c, "1,2", RX_SILENCE, 0, 20000);
	printf("'1,2' S8=1: digits '%s', bursts at %ld %ld ms, waiting at %ld ms\n",
	       r.digits, r.onset[0] / 8, r.onset[1] / 8, r.waiting_at / 8);
	CHECK(!strcmp(r.digits, "12") && r.nbursts == 2);
	CHECK(near(r.onset[0], 2000) && near(r.onset[1], 2000 + 140 + 1000));
	CHECK(near(r.waiting_at, 2000 + 280 + 1000));

	/* Two commas, two pauses; a leading one pauses before the first. */
	blind(&c, 500, 0);
	r = dial(&c, ",1,,2", RX_SILENCE, 0, 20000);
	CHECK(!strcmp(r.digits, "12") && r.nbursts == 2);
	CHECK(near(r.onset[0], 2000 + 500) &&
	      near(r.onset[1], 2000 + 500 + 140 + 1000));

	/* The default is 2 s; a trailing comma pauses before waiting. */
	blind(&c, 0, 0);
	r = dial(&c, "12,", RX_SILENCE, 0, 20000);
	CHECK(!strcmp(r.digits, "12"));
	CHECK(near(r.waiting_at, 2000 + 280 + 2000));
	blind(&c, 3000, 0);
	r = dial(&c, "1,2", RX_SILENCE, 0, 20000);
	CHECK(near(r.onset[1], 2000 + 140 + 3000));

	/* More digits than the DTMF generator queues, all of them. */
	blind(&c, 0, 0);
	r = dial(&c, "0123456789*#ABCD9876543210DCBA#*0123456", RX_SILENCE, 0,
		 30000);
	CHECK(!strcmp(r.digits, "0123456789*#ABCD9876543210DCBA#*0123456"));
	CHECK(near(r.waiting_at, 2000 + 39 * 140));
	/* What is not a digit is no tone and no pause. */
	r = dial(&c, "1!-2", RX_SILENCE, 0, 20000);
	CHECK(!strcmp(r.digits, "12") && near(r.waiting_at, 2000 + 280));
}

static void test_wait(void)
{
	struct smdsp_modem_config c;
	struct dial_run r;

	/* No second dial tone: NO DIALTONE once the wait is over. */
	blind(&c, 0, 3000);
	r = dial(&c, "1W2", RX_SILENCE, 0, 20000);
	printf("'1W2' silent line: digits '%s', hung up at %ld ms, cause %d\n",
	       r.digits, r.hungup_at / 8, r.cause);
	CHECK(!strcmp(r.digits, "1") && r.waiting_at < 0);
	CHECK(r.cause == SMDSP_CAUSE_NO_DIALTONE);
	CHECK(near(r.hungup_at, 2000 + 140 + 3000));
	/* Its default is 5 s. */
	blind(&c, 0, 0);
	r = dial(&c, "1W2", RX_SILENCE, 0, 20000);
	CHECK(r.cause == SMDSP_CAUSE_NO_DIALTONE &&
	      near(r.hungup_at, 2000 + 140 + 5000));

	/* A dial tone from 3 s on: recognised after 1 s, then the rest. */
	blind(&c, 0, 5000);
	r = dial(&c, "1W2", RX_DIALTONE, 3000, 20000);
	printf("'1W2' dial tone at 3 s: digits '%s', bursts at %ld %ld ms, "
	       "waiting at %ld ms\n", r.digits, r.onset[0] / 8,
	       r.nbursts > 1 ? r.onset[1] / 8 : -1, r.waiting_at / 8);
	CHECK(!strcmp(r.digits, "12") && r.hungup_at < 0);
	CHECK(r.nbursts == 2 && r.onset[1] >= MS(4000) &&
	      r.onset[1] <= MS(4100));
	CHECK(r.waiting_at > r.onset[1]);
	/*
	 * A dial tone at once ends the blind wait after 1 s; 'W' first wants
	 * another second of it.
	 */
	r = dial(&c, "W5", RX_DIALTONE, 0, 20000);
	CHECK(!strcmp(r.digits, "5") && r.nbursts == 1 &&
	      r.onset[0] >= MS(2000) && r.onset[0] <= MS(2100));
	/* A busy tone instead: BUSY. */
	r = dial(&c, "1W2", RX_BUSY, 2500, 20000);
	printf("'1W2' busy: digits '%s', hung up at %ld ms, cause %d\n",
	       r.digits, r.hungup_at / 8, r.cause);
	CHECK(!strcmp(r.digits, "1") && r.cause == SMDSP_CAUSE_BUSY);

	/* Bad timings are refused like the others. */
	c.comma_ms = 255001;
	CHECK(smdsp_modem_create(&c) == NULL);
	blind(&c, 0, 255001);
	CHECK(smdsp_modem_create(&c) == NULL);
	blind(&c, 0, 0);
	c.blind_wait_ms = 255001;
	CHECK(smdsp_modem_create(&c) == NULL);
	c.blind_wait_ms = 500;
	r = dial(&c, "7", RX_SILENCE, 0, 20000);
	CHECK(near(r.onset[0], 500));
}

/* -- transmit fill -------------------------------------------------------- */

static void test_fill_basic(void)
{
	struct smdsp_modem_config c;
	struct smdsp_modem *a, *b;
	int16_t rx[800] = { 0 }, ta[800], tb[800];
	int i, same = 1, nonzero = 0;

	blind(&c, 0, 0);
	a = smdsp_modem_create(&c);
	b = smdsp_modem_create(&c);
	/* On hook: silence. */
	for (i = 0; i < 800; i++)
		tb[i] = 1;
	smdsp_modem_tx_fill(b, tb, 800);
	for (i = 0; i < 800; i++)
		nonzero += tb[i] != 0;
	CHECK(nonzero == 0);
	smdsp_modem_tx_fill(NULL, tb, 800);
	smdsp_modem_tx_fill(b, NULL, 800);
	smdsp_modem_tx_fill(b, tb, 0);

	/*
	 * Inside a DTMF digit, a fill is what the next process call would
	 * have sent: 2 s blind, then the digit's 70 ms.
	 */
	smdsp_modem_dial(a, "8");
	smdsp_modem_dial(b, "8");
	for (i = 0; i < 20; i++) {
		smdsp_modem_process(a, rx, ta, 800);
		smdsp_modem_process(b, rx, tb, 800);
	}
	smdsp_modem_process(a, rx, ta, 120);
	smdsp_modem_process(b, rx, tb, 120);
	CHECK(smdsp_modem_phase(a) == SMDSP_PHASE_DIALING);
	smdsp_modem_process(a, rx, ta, 300);
	smdsp_modem_tx_fill(b, tb, 300);
	for (i = 0; i < 300; i++) {
		same &= ta[i] == tb[i];
		nonzero += ta[i] != 0;
	}
	CHECK(same && nonzero > 200);
	smdsp_modem_free(a);
	smdsp_modem_free(b);
}

/* A line of two sample FIFOs between two engines. */
#define FIFO	65536

struct fifo {
	int16_t s[FIFO];
	unsigned int head, tail;
};

static void push(struct fifo *f, const int16_t *x, unsigned int n)
{
	while (n--) {
		/* 12 dB of loss, as a line would have */
		f->s[f->head++ % FIFO] = (int16_t)(*x++ / 4);
	}
}

static void pop(struct fifo *f, int16_t *x, unsigned int n)
{
	while (n--)
		*x++ = f->head != f->tail ? f->s[f->tail++ % FIFO] : 0;
}

struct end {
	struct smdsp_modem *m;
	uint8_t out[2048], in[2048];
	unsigned int nout, nin;
	unsigned int phases[16];
	unsigned int retrains, losses, hangups;
	int connected;
};

static struct fifo ab, ba;

static unsigned int v42_errs(const struct smdsp_modem_stats *st)
{
	return st->v42.crc_errors + st->v42.bad_frames + st->v42.aborts +
	       st->v42.retransmissions;
}

static void end_events(struct end *e)
{
	struct smdsp_modem_event ev;

	while (smdsp_modem_get_event(e->m, &ev)) {
		if (ev.type != SMDSP_EV_PHASE)
			continue;
		if (ev.phase < 16)
			e->phases[ev.phase]++;
		if (ev.phase == SMDSP_PHASE_CONNECTED)
			e->connected = 1;
		e->retrains += ev.phase == SMDSP_PHASE_RETRAIN;
		e->losses += ev.phase == SMDSP_PHASE_CARRIER_LOST;
		e->hangups += ev.phase == SMDSP_PHASE_HUNGUP;
	}
}

static void end_data(struct end *e)
{
	unsigned int k;

	if (!e->connected)
		return;
	if (e->nout < sizeof(e->out)) {
		k = smdsp_modem_write(e->m, e->out + e->nout,
				      sizeof(e->out) - e->nout);
		e->nout += k;
	}
	e->nin += smdsp_modem_read(e->m, e->in + e->nin,
				   sizeof(e->in) - e->nin);
}

struct link_res {
	unsigned int a_ok, b_ok;	/* bytes intact, in order */
	unsigned int retrains, losses, hangups, fills, filled;
	unsigned int v42_errs;		/* both ends' bad frames, resent ones */
	int connected;
};

/*
 * A calls B; every gap_every periods, from the start or once both are
 * connected (in_data), A's output gets gap extra samples: its
 * transmitter's (fill) or zeros (a hole, what the driver left before).
 * B hears A's signal as it went out.
 */
static struct link_res call(int v42, int fill, unsigned int gap,
			    unsigned int gap_every, int in_data, unsigned int seed)
{
	struct smdsp_modem_config c;
	struct smdsp_modem_stats st;
	struct end a, b;
	struct link_res r;
	int16_t rx[PERIOD], tx[PERIOD], g[1000];
	unsigned int i, k;
	long t;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&r, 0, sizeof(r));
	memset(&ab, 0, sizeof(ab));
	memset(&ba, 0, sizeof(ba));
	memset(&c, 0, sizeof(c));
	c.modulations = SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22;
	c.flags = SMDSP_MODEM_FLAG_BLIND | (v42 ? SMDSP_MODEM_FLAG_V42 : 0);
	a.m = smdsp_modem_create(&c);
	b.m = smdsp_modem_create(&c);
	for (i = 0; i < sizeof(a.out); i++) {
		seed = seed * 1103515245u + 12345u;
		a.out[i] = (uint8_t)(seed >> 16);
		b.out[i] = (uint8_t)(seed >> 8);
	}
	smdsp_modem_dial(a.m, "");
	smdsp_modem_answer(b.m);
	/* 20 ms each way */
	memset(g, 0, sizeof(g));
	push(&ab, g, 160);
	push(&ba, g, 160);
	for (t = 0, i = 0; t < MS(40000); t += PERIOD, i++) {
		pop(&ba, rx, PERIOD);
		smdsp_modem_process(a.m, rx, tx, PERIOD);
		push(&ab, tx, PERIOD);
		/* the driver's lead grows by a ring (1 s) at most */
		if ((!in_data || (a.connected && b.connected)) &&
		    i % gap_every == 0 && r.filled + gap <= 8000) {
			if (fill)
				smdsp_modem_tx_fill(a.m, g, gap);
			else
				memset(g, 0, gap * sizeof(*g));
			push(&ab, g, gap);
			r.fills++;
			r.filled += gap;
		}
		pop(&ab, rx, PERIOD);
		smdsp_modem_process(b.m, rx, tx, PERIOD);
		push(&ba, tx, PERIOD);
		end_events(&a);
		end_events(&b);
		end_data(&a);
		end_data(&b);
		if (a.nin == sizeof(a.in) && b.nin == sizeof(b.in))
			break;
	}
	for (k = 0; k < b.nin && b.in[k] == a.out[k]; k++)
		;
	r.b_ok = k;
	for (k = 0; k < a.nin && a.in[k] == b.out[k]; k++)
		;
	r.a_ok = k;
	r.connected = a.connected && b.connected;
	r.retrains = a.retrains + b.retrains;
	r.losses = a.losses + b.losses;
	r.hangups = a.hangups + b.hangups;
	smdsp_modem_get_stats(a.m, &st);
	r.v42_errs = v42_errs(&st);
	smdsp_modem_get_stats(b.m, &st);
	r.v42_errs += v42_errs(&st);
	smdsp_modem_free(a.m);
	smdsp_modem_free(b.m);
	return r;
}

static void show(const char *what, const struct link_res *r)
{
	printf("%s: connected %d, %u/%u bytes intact (A->B/B->A), %u retrains, "
	       "%u carrier losses, %u hang-ups, %u V.42 errors, "
	       "%u gaps of %u samples in all\n",
	       what, r->connected, r->b_ok, r->a_ok, r->retrains, r->losses,
	       r->hangups, r->v42_errs, r->fills, r->filled);
}

static void test_fill_link(void)
{
	static const unsigned int gaps[] = { 40, 100, 333, 800 };
	struct link_res f, z;
	unsigned int i, v42;
	char name[64];

	for (v42 = 0; v42 < 2; v42++) {
		for (i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
			/* From the handshake on, then through the data. */
			f = call(v42, 1, gaps[i], 23, 0, 7 + i);
			snprintf(name, sizeof(name), "%s fill %u from the start",
				 v42 ? "V.42" : "async", gaps[i]);
			show(name, &f);
			CHECK(f.connected && f.b_ok == 2048 && f.a_ok == 2048);
			CHECK(f.retrains == 0 && f.losses == 0 && f.hangups == 0);
			CHECK(f.v42_errs == 0 && f.fills >= 5);
			/* Into the data, and the same as holes. */
			f = call(v42, 1, gaps[i], 7, 1, 7 + i);
			snprintf(name, sizeof(name), "%s fill %u in data",
				 v42 ? "V.42" : "async", gaps[i]);
			show(name, &f);
			CHECK(f.connected && f.b_ok == 2048 && f.a_ok == 2048);
			CHECK(f.retrains == 0 && f.losses == 0 && f.hangups == 0);
			CHECK(f.v42_errs == 0 && f.fills >= 5);
			z = call(v42, 0, gaps[i], 7, 1, 7 + i);
			snprintf(name, sizeof(name), "%s hole %u in data",
				 v42 ? "V.42" : "async", gaps[i]);
			show(name, &z);
			/*
			 * Async loses characters at each; V.42 repairs the
			 * data, with retransmissions, or drops the link.
			 */
			if (!v42)
				CHECK(z.b_ok < 2048);
			else
				CHECK(z.b_ok < 2048 || z.retrains || z.losses ||
				      z.v42_errs);
		}
	}
}

/*
 * A V.42 caller and an answerer without it that echoes what it gets, like
 * a host's login line or smline's echo service: the caller's detection
 * pattern (ODP, DC1 with either parity) comes back and must not reach the
 * caller's DTE as data.
 */
static void test_odp_echo(void)
{
	struct smdsp_modem_config ca, cb;
	struct smdsp_modem_stats st;
	struct end a, b;
	int16_t rx[PERIOD], tx[PERIOD], g[160];
	uint8_t buf[256];
	unsigned int i, k, junk = 0;
	long t;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&ab, 0, sizeof(ab));
	memset(&ba, 0, sizeof(ba));
	memset(&ca, 0, sizeof(ca));
	ca.modulations = SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22;
	ca.flags = SMDSP_MODEM_FLAG_BLIND | SMDSP_MODEM_FLAG_V42;
	cb = ca;
	cb.flags = 0;
	a.m = smdsp_modem_create(&ca);
	b.m = smdsp_modem_create(&cb);
	for (i = 0; i < sizeof(a.out); i++)
		a.out[i] = (uint8_t)('a' + i % 26);
	smdsp_modem_dial(a.m, "");
	smdsp_modem_answer(b.m);
	memset(g, 0, sizeof(g));
	push(&ab, g, 160);
	push(&ba, g, 160);
	for (t = 0; t < MS(60000) && a.nin < sizeof(a.in); t += PERIOD) {
		pop(&ba, rx, PERIOD);
		smdsp_modem_process(a.m, rx, tx, PERIOD);
		push(&ab, tx, PERIOD);
		pop(&ab, rx, PERIOD);
		smdsp_modem_process(b.m, rx, tx, PERIOD);
		push(&ba, tx, PERIOD);
		end_events(&a);
		end_events(&b);
		end_data(&a);
		/* B echoes */
		k = smdsp_modem_read(b.m, buf, sizeof(buf));
		smdsp_modem_write(b.m, buf, k);
	}
	for (k = 0; k < a.nin && a.in[k] != a.out[0]; k++)
		junk++;
	for (i = 0; i + k < a.nin && a.in[k + i] == a.out[i]; i++)
		;
	smdsp_modem_get_stats(a.m, &st);
	printf("V.42 caller, echoing answerer without V.42: link %u, %u bytes "
	       "in front, %u of %u echoed intact, %u ODP echoes dropped\n",
	       st.link, junk, i, a.nin, st.odp_echoed);
	CHECK(a.connected && st.link == SMDSP_LINK_ASYNC);
	CHECK(junk == 0 && i == sizeof(a.in));
	CHECK(st.odp_echoed > 10);
	smdsp_modem_free(a.m);
	smdsp_modem_free(b.m);
}

int main(void)
{
	test_pauses();
	test_wait();
	test_fill_basic();
	test_fill_link();
	test_odp_echo();
	return t_report("test_engine");
}
