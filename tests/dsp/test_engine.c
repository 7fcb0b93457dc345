/*
 * The whole stack through the engine (smdsp_modem_*): V.8, V.21/V.22/V.22bis
 * and V.42 LAPM or async 8N1, back to back over the in-memory line in
 * 160-sample blocks at 8 kHz. Ours against SpanDSP 0.0.6 in both roles
 * (SpanDSP's modem with its v42 stacked on it, its V.8 in front) and ours
 * against ours: training completes and 4 KiB of random bytes each way arrive
 * intact. Also V.8 and V.42 meeting peers without them (fallbacks), and a
 * starved caller whose processing is skipped for 300 ms mid-transfer: with
 * V.42 the data still arrives intact (retransmissions counted), without it
 * the loss is reported and the call goes on.
 *
 * Ours offering V.32bis against SpanDSP's V.22bis (which has no V.32bis),
 * with and without V.8: V.22bis at 2400.
 *
 * Every case prints one "RESULT" line (parsed by tests/dsp/test_engine.py).
 * Usage: test_engine [--delay SAMPLES] [--loss DB] [--seed N] [name-substring]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include "refs.h"
#include <smdsp/modem.h>
#include "tutil.h"
#include "line.h"
#include "chars.h"

#define BLK	160
#define NB	4096
#define MAXPH	64

enum { MOD_V21, MOD_V22, MOD_V22BIS };
static const char *const mod_name[] = { "v21", "v22", "v22bis" };
static const char *const pname[] = { "onhook", "offhook", "dialing", "waiting", "answer-tone", "v8",
				     "training", "connected", "retrain", "carrier-lost", "hungup", "probing" };

/* ---- our engine ---- */

struct ours {
	struct smdsp_modem *m;
	int caller;
	uint8_t out[NB];
	size_t nout;
	uint8_t in[NB + 2048];
	size_t nin;
	int phases[MAXPH];
	uint32_t args[MAXPH];
	int nphases;
	int v42_ev;		/* -1: no SMDSP_EV_V42 */
	int v8_ev;		/* -1: no SMDSP_EV_V8 */
	long connected_at;	/* samples; -1 never */
	int hung;
	uint32_t hung_cause;
	struct smdsp_modem_stats st;
};

/* V.42bis offered by both engines (SMDSP_V42BIS_DIR_*), and text to send instead of noise */
static unsigned int bis_dirs;
static int text_data;
/* our engine offers V.32bis too (V.8's V.32 mode, or its automode without V.8) */
static int ours_v32;
/* our engine offers V.34 too (V.8's V.34 mode) */
static int ours_v34;

static void fill_text(uint8_t *out, size_t n, size_t skip)
{
	FILE *f = fopen("README.md", "rb");
	size_t got = 0;

	if (f && !fseek(f, (long)skip, SEEK_SET))
		got = fread(out, 1, n, f);
	if (f)
		fclose(f);
	CHECK(got == n, "README.md: %zu bytes of text", got);
}

static void ours_init(struct ours *o, int caller, int mod, int v8, int v42, uint64_t seed)
{
	struct smdsp_modem_config c;

	memset(o, 0, sizeof(*o));
	memset(&c, 0, sizeof(c));
	c.sample_rate = 8000;
	c.modulations = mod == MOD_V21 ? SMDSP_MODEM_V21 :
			mod == MOD_V22 ? SMDSP_MODEM_V22 : SMDSP_MODEM_V22BIS;
	if (ours_v32)
		c.modulations |= SMDSP_MODEM_V32BIS;
	if (ours_v34)
		c.modulations |= SMDSP_MODEM_V34;
	c.flags = (v8 ? SMDSP_MODEM_FLAG_V8 : 0) | (v42 ? SMDSP_MODEM_FLAG_V42 : 0) |
		  SMDSP_MODEM_FLAG_BLIND;
	c.tone_plan = SMDSP_CALLPROG_PLAN_NA;
	c.v42bis_dirs = bis_dirs;
	o->m = smdsp_modem_create(&c);
	if (!o->m) {
		printf("FAIL smdsp_modem_create\n");
		exit(1);
	}
	o->caller = caller;
	o->v42_ev = -1;
	o->v8_ev = -1;
	o->connected_at = -1;
	fill_random(o->out, NB, seed);
	if (text_data)
		fill_text(o->out, NB, caller ? 0 : NB);
	/* straight to the line: no exchange in these tests */
	if (caller)
		CHECK(smdsp_modem_dial(o->m, "") == 0, "dial");
	else
		CHECK(smdsp_modem_answer(o->m) == 0, "answer");
}

static void ours_service(struct ours *o, long now)
{
	struct smdsp_modem_event ev;

	if (o->nout < NB && smdsp_modem_rate(o->m))
		o->nout += smdsp_modem_write(o->m, o->out + o->nout, (unsigned int)(NB - o->nout));
	o->nin += smdsp_modem_read(o->m, o->in + o->nin, (unsigned int)(sizeof(o->in) - o->nin));
	while (smdsp_modem_get_event(o->m, &ev)) {
		if (ev.type == SMDSP_EV_PHASE) {
			if (o->nphases < MAXPH) {
				o->phases[o->nphases] = ev.phase;
				o->args[o->nphases++] = ev.arg;
			}
			if (ev.phase == SMDSP_PHASE_CONNECTED && o->connected_at < 0)
				o->connected_at = now;
			if (ev.phase == SMDSP_PHASE_HUNGUP) {
				o->hung = 1;
				o->hung_cause = ev.arg;
			}
		} else if (ev.type == SMDSP_EV_V42) {
			o->v42_ev = (int)ev.arg;
		} else if (ev.type == SMDSP_EV_V8) {
			o->v8_ev = (int)ev.arg;
		}
	}
}

static void ours_block(struct ours *o, const int16_t *rx, int16_t *tx, long now)
{
	CHECK(smdsp_modem_process(o->m, rx, tx, BLK) == 0, "process");
	ours_service(o, now + BLK);
}

static int ours_has_phase(const struct ours *o, int ph)
{
	int i;

	for (i = 0; i < o->nphases; i++)
		if (o->phases[i] == ph)
			return 1;
	return 0;
}

static void print_phases(const char *who, const struct ours *o)
{
	int i;

	printf("  %s:", who);
	for (i = 0; i < o->nphases; i++) {
		printf(" %s", pname[o->phases[i]]);
		if (o->phases[i] == SMDSP_PHASE_CONNECTED || o->phases[i] == SMDSP_PHASE_HUNGUP)
			printf("(%u)", o->args[i]);
	}
	printf("\n");
}

/* ---- SpanDSP's modem, with its V.8 in front and its V.42 on top ---- */

enum { SP_WAIT, SP_ANS, SP_V8, SP_MODEM };

struct span {
	int caller, mod, v42, v8;
	long t;
	int stage;
	long stage_t;
	v22bis_state_t *v22;
	fsk_tx_state_t *ftx;
	fsk_rx_state_t *frx;
	int v21_tx_on;
	int v21_data;		/* like DCD: no data before the far carrier is there */
	long v21_carrier;	/* samples of the far V.21 carrier, caller side */
	int ans_heard;
	long ans_off_at;
	modem_connect_tones_tx_state_t *ans;
	modem_connect_tones_rx_state_t *ans_rx;
	v8_state_t *v8s;
	v8_parms_t v8res;
	int v8_status;
	int lapm;		/* V.8 agreed on LAPM */
	v42_state_t *v42s;
	int v42_connects;
	uint8_t out[NB];
	size_t v42_pos;		/* bytes handed to V.42 */
	uint8_t in[NB + 4096];
	size_t nin;		/* V.42: bytes delivered */
	int mismatch;
	const uint8_t *expect;
	struct char_src src;
	struct char_sink sink;
	int trained;
};

static int sp_v42_get(void *user, uint8_t *buf, int max)
{
	struct span *s = user;
	size_t n = NB - s->v42_pos;

	if (n > (size_t)max)
		n = (size_t)max;
	memcpy(buf, s->out + s->v42_pos, n);
	s->v42_pos += n;
	return (int)n;
}

static void sp_v42_put(void *user, const uint8_t *buf, int len)
{
	struct span *s = user;
	int i;

	if (!buf || len < 0)
		return;
	for (i = 0; i < len; i++) {
		if (s->nin < sizeof(s->in))
			s->in[s->nin] = buf[i];
		if (s->nin >= NB || buf[i] != s->expect[s->nin])
			s->mismatch = 1;
		s->nin++;
	}
}

static void sp_v42_status(void *user, int status)
{
	struct span *s = user;

	if (status == SIG_STATUS_LINK_CONNECTED)
		s->v42_connects++;
}

static int sp_get_bit(void *user)
{
	struct span *s = user;

	if (s->frx && !s->v21_data)
		return 1;
	if (s->v42s)
		return v42_tx_bit(s->v42s) & 1;
	return char_src_get_bit(&s->src);
}

static void sp_put_bit(void *user, int bit)
{
	struct span *s = user;

	if (bit < 0) {
		if (getenv("ENGINE_DEBUG"))
			printf("    [%.3f s] SpanDSP status %d\n", s->t / 8000.0, bit);
		if (bit == SIG_STATUS_TRAINING_SUCCEEDED)
			s->trained = 1;
		if (bit == SIG_STATUS_CARRIER_UP && s->frx)
			s->v21_carrier = 1;
		if (bit == SIG_STATUS_CARRIER_DOWN && s->frx)
			s->v21_carrier = 0;
		return;
	}
	if (s->v42s)
		v42_rx_bit(s->v42s, bit);
	else
		char_sink_put_bit(&s->sink, bit);
}

static void sp_status(void *user, int st)
{
	sp_put_bit(user, st);
}

static void sp_v8_result(void *user, v8_parms_t *r)
{
	struct span *s = user;

	s->v8_status = r->status;
	if (r->status == V8_STATUS_V8_CALL || r->status == V8_STATUS_V8_OFFERED)
		s->v8res = *r;
}

static void sp_ans_tone(void *user, int code, int level, int delay)
{
	struct span *s = user;

	(void)level;
	(void)delay;
	if (getenv("ENGINE_DEBUG"))
		printf("    [%.3f s] SpanDSP tone %d\n", s->t / 8000.0, code);
	if (code == MODEM_CONNECT_TONES_NONE) {
		if (s->ans_heard)
			s->ans_off_at = s->t;
	} else if (code > 0) {
		s->ans_heard = 1;
	}
}

static void span_start_modem(struct span *s)
{
	s->stage = SP_MODEM;
	s->stage_t = 0;
	if (s->v42) {
		/* after V.8 with LAPM there is no detection phase */
		s->v42s = v42_init(NULL, s->caller, !s->lapm, sp_v42_get, sp_v42_put, s);
		v42_set_status_callback(s->v42s, sp_v42_status, s);
		/* SpanDSP 0.0.6: nothing happens until v42_restart() */
		v42_restart(s->v42s);
	}
	if (s->mod == MOD_V21) {
		s->ftx = fsk_tx_init(NULL, &preset_fsk_specs[s->caller ? FSK_V21CH1 : FSK_V21CH2],
				     sp_get_bit, s);
		/* synchronous bit timing for HDLC, start-bit timing for characters */
		s->frx = fsk_rx_init(NULL, &preset_fsk_specs[s->caller ? FSK_V21CH2 : FSK_V21CH1],
				     s->v42 ? FSK_FRAME_MODE_SYNC : FSK_FRAME_MODE_ASYNC, sp_put_bit, s);
		fsk_rx_signal_cutoff(s->frx, -40);
		s->v21_tx_on = !s->caller;
		s->v21_carrier = 0;
	} else {
		s->v22 = v22bis_init(NULL, s->mod == MOD_V22 ? 1200 : 2400, 0, s->caller, sp_get_bit, s,
				     sp_put_bit, s);
		v22bis_set_modem_status_handler(s->v22, sp_status, s);
	}
}

static void span_init(struct span *s, int caller, int mod, int v8, int v42, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->caller = caller;
	s->mod = mod;
	s->v8 = v8;
	s->v42 = v42;
	s->ans_off_at = -1;
	fill_random(s->out, NB, seed);
	char_src_init(&s->src, s->out, NB, 40);
	char_sink_init(&s->sink, s->in, sizeof(s->in));
	if (v8) {
		v8_parms_t p;

		memset(&p, 0, sizeof(p));
		p.modem_connect_tone = MODEM_CONNECT_TONES_ANSAM_PR;
		p.send_ci = 1;
		p.v92 = -1;
		p.call_function = V8_CALL_V_SERIES;
		p.modulations = V8_MOD_V22 | V8_MOD_V21;
		p.protocol = v42 ? V8_PROTOCOL_LAPM_V42 : V8_PROTOCOL_NONE;
		p.nsf = -1;
		p.t66 = -1;
		s->v8s = v8_init(NULL, caller, &p, sp_v8_result, s);
	}
	if (caller) {
		/*
		 * SpanDSP's modems have no V.25 call establishment (its V.22bis
		 * caller even trains on ANSam): its own tone detector stands in,
		 * and the modem starts when the answer tone is over.
		 */
		s->stage = v8 ? SP_V8 : SP_WAIT;
		if (!v8)
			s->ans_rx = modem_connect_tones_rx_init(NULL, MODEM_CONNECT_TONES_ANS_PR,
								sp_ans_tone, s);
	} else {
		s->stage = SP_WAIT;
		/* SpanDSP's V.22bis answerer sends no answer tone of its own */
		s->ans = modem_connect_tones_tx_init(NULL, MODEM_CONNECT_TONES_ANS);
	}
}

static void span_free(struct span *s)
{
	if (s->v22)
		v22bis_free(s->v22);
	if (s->ftx)
		fsk_tx_free(s->ftx);
	if (s->frx)
		fsk_rx_free(s->frx);
	if (s->ans)
		modem_connect_tones_tx_free(s->ans);
	if (s->ans_rx)
		modem_connect_tones_rx_free(s->ans_rx);
	if (s->v8s)
		v8_free(s->v8s);
	if (s->v42s)
		v42_free(s->v42s);
}

static void span_block(struct span *s, const int16_t *rx, int16_t *tx)
{
	int k;

	memset(tx, 0, BLK * sizeof(*tx));
	switch (s->stage) {
	case SP_WAIT:
		if (s->caller) {
			modem_connect_tones_rx(s->ans_rx, rx, BLK);
			if (s->ans_off_at >= 0)
				span_start_modem(s);
			break;
		}
		/* the answerer's billing delay */
		if (s->stage_t >= 16000) {
			s->stage = s->v8 ? SP_V8 : SP_ANS;
			s->stage_t = 0;
		}
		break;
	case SP_ANS:
		modem_connect_tones_tx(s->ans, tx, BLK);
		if (s->stage_t + BLK >= 26400)
			span_start_modem(s);
		break;
	case SP_V8:
		k = v8_tx(s->v8s, tx, BLK);
		if (k < BLK)
			memset(tx + k, 0, (size_t)(BLK - k) * sizeof(*tx));
		v8_rx(s->v8s, rx, BLK);
		if (s->v8_status == V8_STATUS_V8_CALL) {
			s->lapm = s->v8res.protocol == V8_PROTOCOL_LAPM_V42 && s->v42;
			span_start_modem(s);
		}
		break;
	case SP_MODEM:
		if (s->v22) {
			v22bis_rx(s->v22, rx, BLK);
			k = v22bis_tx(s->v22, tx, BLK);
			if (k < BLK)
				memset(tx + k, 0, (size_t)(BLK - k) * sizeof(*tx));
			break;
		}
		fsk_rx(s->frx, rx, BLK);
		if (s->v21_carrier)
			s->v21_carrier += BLK;
		/* caller: the answerer's mark for 300 ms; answerer: data once the caller is there */
		if (!s->v21_tx_on && s->v21_carrier > 2400)
			s->v21_tx_on = 1;
		if (s->v21_carrier > 2400)
			s->v21_data = 1;
		if (s->v21_tx_on)
			fsk_tx(s->ftx, tx, BLK);
		break;
	}
	s->t += BLK;
	s->stage_t += BLK;
}

/* SpanDSP's received bytes intact in order (async: junk in front allowed, see skip) */
static size_t span_got(struct span *s, const uint8_t *want, int skip_odp, size_t *junk)
{
	const uint8_t *g = s->sink.data;
	size_t n = s->sink.len;

	*junk = 0;
	if (s->v42s)
		return s->mismatch ? 0 : (s->nin < NB ? s->nin : NB);
	/* a V.42 caller's ODP characters before it fell back are no data */
	while (skip_odp && n && (g[0] == 0x11 || g[0] == 0x91 || g[0] == 0xff)) {
		g++;
		n--;
		(*junk)++;
	}
	{
		size_t j;
		size_t r = match_data(want, NB, g, n, &j);

		*junk += j;
		return r;
	}
}

/* ---- cases ---- */

struct res {
	long samples;
	size_t a_got, b_got;		/* bytes intact in order at A and at B */
	size_t a_junk, b_junk;
	int rate_a, rate_b;
};

static const char *filter;
/* --delay N --loss DB --seed N: other lines and data, for a stress sweep */
static int line_delay = 80;
static double line_loss = 10;
static uint64_t seed_base;

static struct line *new_line(void)
{
	struct line_cfg lc = { .loss_db = line_loss, .noise_dbm0 = -200, .echo_db = -200,
			       .delay = line_delay };

	return line_create(&lc);
}

static int selected(const char *name)
{
	return !filter || strstr(name, filter);
}

static void stats_line(const char *who, const struct ours *o)
{
	const struct smdsp_modem_stats *st = &o->st;

	printf("  %s: link %s v42 %s v8 %s/%#x/lapm %d, carrier losses %u, framing errors %u, "
	       "retx %u rej %u/%u srej %u/%u crc %u t401 %u frames %u/%u\n", who,
	       st->link == SMDSP_LINK_V42 ? "v42" : st->link == SMDSP_LINK_ASYNC ? "async" : "none",
	       st->v42_status >= 0 ? smdsp_v42_status_name(st->v42_status) : "-",
	       st->v8_used ? (st->v8.status == 1 ? "done" : "other") : "-", st->v8.selected,
	       st->v8.lapm, st->carrier_losses, st->async_rx.framing_errors,
	       st->v42.retransmissions, st->v42.rej_tx, st->v42.rej_rx, st->v42.srej_tx,
	       st->v42.srej_rx, st->v42.crc_errors, st->v42.t401_expiries, st->v42.frames_tx,
	       st->v42.frames_rx);
}

static void result_line(const char *name, int ok, const struct res *r, const struct ours *a,
			const struct ours *b, size_t a_recv, size_t b_recv)
{
	uint32_t retx = 0, rej = 0, srej = 0, crc = 0, losses = 0, fe = 0;
	const struct ours *o[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		if (!o[i])
			continue;
		retx += o[i]->st.v42.retransmissions;
		rej += o[i]->st.v42.rej_tx + o[i]->st.v42.rej_rx;
		srej += o[i]->st.v42.srej_tx + o[i]->st.v42.srej_rx;
		crc += o[i]->st.v42.crc_errors;
		losses += o[i]->st.carrier_losses;
		fe += o[i]->st.async_rx.framing_errors;
	}
	printf("RESULT name=%s ok=%d rate=%d/%d got=%zu/%zu recv=%zu/%zu junk=%zu/%zu secs=%.1f "
	       "connect=%.2f/%.2f link=%s/%s v42ev=%d/%d v8ev=%d/%d retx=%u rej=%u srej=%u crc=%u "
	       "carrier_losses=%u framing=%u\n",
	       name, ok, r->rate_a, r->rate_b, r->a_got, r->b_got, a_recv, b_recv, r->a_junk, r->b_junk,
	       r->samples / 8000.0,
	       a && a->connected_at >= 0 ? a->connected_at / 8000.0 : -1.0,
	       b && b->connected_at >= 0 ? b->connected_at / 8000.0 : -1.0,
	       a ? (a->st.link == SMDSP_LINK_V42 ? "v42" : "async") : "span",
	       b ? (b->st.link == SMDSP_LINK_V42 ? "v42" : "async") : "span",
	       a ? a->v42_ev : -9, b ? b->v42_ev : -9, a ? a->v8_ev : -9, b ? b->v8_ev : -9,
	       retx, rej, srej, crc, losses, fe);
}

static int want_rate(int mod)
{
	return mod == MOD_V21 ? 300 : mod == MOD_V22 ? 1200 : 2400;
}

static long max_samples(int mod)
{
	/* 4 KiB at 300 bit/s is 137 s; set-up and V.42 overhead on top */
	return 8000L * (mod == MOD_V21 ? 200 : mod == MOD_V22 ? 70 : 45);
}

/*
 * Ours against ours. starve: skip A's processing for 300 ms (twice) once it
 * has received 1 KiB and again at 2.5 KiB.
 */
static void ours_ours(int mod, int v8, int v42, int starve)
{
	char name[64];
	struct ours a, b;
	struct line *l;
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	struct res r;
	long now, skip_left = 0, idle = 0;
	int starves = 0, ok;
	size_t junk, last_a = 0, last_b = 0;

	snprintf(name, sizeof(name), "ours_ours_%s%s%s%s%s%s", v8 ? "v8_" : "", mod_name[mod],
		 v42 ? "_v42" : "", bis_dirs ? "bis" : "", text_data ? "_text" : "",
		 starve ? "_starved" : "");
	if (starve)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "_%dms", starve * 20);
	if (!selected(name))
		return;
	memset(&r, 0, sizeof(r));
	ours_init(&a, 1, mod, v8, v42, seed_base + 11);
	ours_init(&b, 0, mod, v8, v42, seed_base + 22);
	l = new_line();
	for (now = 0; now < max_samples(mod); now += BLK) {
		if (starve && !skip_left && ((starves == 0 && a.nin >= 1024) ||
					     (starves == 1 && a.nin >= 2560))) {
			skip_left = starve;
			starves++;
		}
		if (skip_left) {
			/* A's context did not run: nothing sent, what came in is gone */
			memset(at, 0, sizeof(at));
			skip_left--;
		} else {
			ours_block(&a, ar, at, now);
		}
		ours_block(&b, br, bt, now);
		line_process(l, at, ar, bt, br, BLK);
		if (a.nin >= NB && b.nin >= NB)
			break;
		if (a.hung || b.hung)
			break;
		/* everything sent and nothing more coming: what is missing is lost */
		if (a.nin != last_a || b.nin != last_b) {
			last_a = a.nin;
			last_b = b.nin;
			idle = 0;
		} else if (a.nin && b.nin && a.nout == NB && b.nout == NB &&
			   (idle += BLK) >= 10 * 8000) {
			break;
		}
	}
	/* what is still on its way */
	r.samples = now;
	smdsp_modem_get_stats(a.m, &a.st);
	smdsp_modem_get_stats(b.m, &b.st);
	r.a_got = match_data(b.out, NB, a.in, a.nin, &junk);
	r.a_junk = junk;
	r.b_got = match_data(a.out, NB, b.in, b.nin, &junk);
	r.b_junk = junk;
	r.rate_a = (int)smdsp_modem_rate(a.m);
	r.rate_b = (int)smdsp_modem_rate(b.m);
	printf("%s:", name);
	if (starve)
		printf(" A starved twice for %d ms", starve * 20);
	printf(" (A received %zu bytes, B %zu)\n", a.nin, b.nin);
	print_phases("A", &a);
	print_phases("B", &b);
	stats_line("A", &a);
	stats_line("B", &b);
	if (!starve || v42) {
		ok = r.a_got == NB && r.b_got == NB && !r.a_junk && !r.b_junk &&
		     r.rate_a == want_rate(mod) && r.rate_b == want_rate(mod) && !a.hung && !b.hung;
		CHECK(r.a_got == NB && r.b_got == NB, "%s: intact %zu/%zu", name, r.a_got, r.b_got);
		CHECK(!r.a_junk && !r.b_junk, "%s: junk %zu/%zu", name, r.a_junk, r.b_junk);
	} else {
		/* no error correction: the gap costs data, and the call goes on */
		ok = (r.a_got < NB || r.b_got < NB) && !a.hung && !b.hung &&
		     r.rate_a == want_rate(mod) && r.rate_b == want_rate(mod);
		CHECK(r.a_got < NB || r.b_got < NB, "%s: starving lost nothing?", name);
	}
	CHECK(!a.hung && !b.hung, "%s: hung up (%u/%u)", name, a.hung_cause, b.hung_cause);
	CHECK(r.rate_a == want_rate(mod) && r.rate_b == want_rate(mod), "%s: rates %d/%d", name,
	      r.rate_a, r.rate_b);
	if (v42) {
		CHECK(a.v42_ev == 1 && b.v42_ev == 1, "%s: V.42 events %d/%d", name, a.v42_ev,
		      b.v42_ev);
		CHECK(a.st.link == SMDSP_LINK_V42 && b.st.link == SMDSP_LINK_V42, "%s: link", name);
	} else {
		CHECK(a.st.link == SMDSP_LINK_ASYNC && b.st.link == SMDSP_LINK_ASYNC, "%s: link", name);
	}
	if (v8) {
		CHECK(ours_has_phase(&a, SMDSP_PHASE_V8) && ours_has_phase(&b, SMDSP_PHASE_V8),
		      "%s: no V.8 phase", name);
		CHECK(a.v8_ev == 1 && b.v8_ev == 1, "%s: V.8 %d/%d", name, a.v8_ev, b.v8_ev);
		CHECK(a.st.v8.lapm == v42 && b.st.v8.lapm == v42, "%s: V.8 LAPM", name);
	}
	if (bis_dirs) {
		CHECK(a.st.v42.v42bis_dirs == bis_dirs && b.st.v42.v42bis_dirs == bis_dirs &&
		      a.st.v42.v42bis_p1 == 2048 && a.st.v42.v42bis_p2 == 32,
		      "%s: V.42bis agreed %u/%u, %u, %u", name, a.st.v42.v42bis_dirs,
		      b.st.v42.v42bis_dirs, a.st.v42.v42bis_p1, a.st.v42.v42bis_p2);
		printf("  V.42bis: A %u -> %u bytes, B %u -> %u bytes\n", a.st.v42.v42bis_tx_in,
		       a.st.v42.v42bis_tx_out, b.st.v42.v42bis_tx_in, b.st.v42.v42bis_tx_out);
	}
	if (starve) {
		CHECK(b.st.carrier_losses >= 2, "%s: B saw %u carrier losses", name,
		      b.st.carrier_losses);
		if (v42)
			CHECK(a.st.v42.retransmissions + b.st.v42.retransmissions > 0,
			      "%s: no retransmission", name);
	}
	result_line(name, ok, &r, &a, &b, a.nin, b.nin);
	smdsp_modem_free(a.m);
	smdsp_modem_free(b.m);
	line_free(l);
}

/*
 * Ours against SpanDSP. ours_caller: our engine calls. o_v8/o_v42: what our
 * engine runs; s_v8/s_v42: what SpanDSP runs. starve: as in ours_ours().
 */
static void ours_span(const char *tag, int ours_caller, int mod, int o_v8, int o_v42, int s_v8,
		      int s_v42, int starve)
{
	char name[80];
	struct ours o;
	struct span s;
	struct line *l;
	int16_t ot[BLK], orx[BLK] = { 0 }, st_[BLK], srx[BLK] = { 0 };
	struct res r;
	long now, skip_left = 0;
	int starves = 0, ok, v42_both = o_v42 && s_v42, fallback = o_v42 && !s_v42;
	size_t o_got, s_got, o_junk, s_junk;

	snprintf(name, sizeof(name), "%s_%s%s%s", ours_caller ? "ours_calls_span" : "span_calls_ours",
		 tag, mod_name[mod], starve ? "_starved" : "");
	if (starve)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "_%dms", starve * 20);
	if (!selected(name))
		return;
	memset(&r, 0, sizeof(r));
	ours_init(&o, ours_caller, mod, o_v8, o_v42, seed_base + 33);
	span_init(&s, !ours_caller, mod, s_v8, s_v42, seed_base + 44);
	s.expect = o.out;
	l = new_line();
	for (now = 0; now < max_samples(mod); now += BLK) {
		if (starve && !skip_left && ((starves == 0 && o.nin >= 1024) ||
					     (starves == 1 && o.nin >= 2560))) {
			skip_left = starve;
			starves++;
		}
		if (skip_left) {
			memset(ot, 0, sizeof(ot));
			skip_left--;
		} else {
			ours_block(&o, orx, ot, now);
		}
		span_block(&s, srx, st_);
		if (ours_caller)
			line_process(l, ot, orx, st_, srx, BLK);
		else
			line_process(l, st_, srx, ot, orx, BLK);
		s_got = s.v42s ? s.nin : s.sink.len;
		if (o.nin >= NB &&
		    span_got(&s, o.out, fallback, &s_junk) == NB)
			break;
		if (o.hung)
			break;
	}
	r.samples = now;
	smdsp_modem_get_stats(o.m, &o.st);
	o_got = match_data(s.out, NB, o.in, o.nin, &o_junk);
	s_got = span_got(&s, o.out, fallback, &s_junk);
	r.rate_a = (int)smdsp_modem_rate(o.m);
	r.rate_b = s.v22 ? v22bis_get_current_bit_rate(s.v22) : 300;
	r.a_got = o_got;
	r.b_got = s_got;
	r.a_junk = o_junk;
	r.b_junk = s_junk;
	printf("%s: ours %s (V.8 %d, V.42 %d), SpanDSP (V.8 %d, V.42 %d)%s\n", name,
	       ours_caller ? "calling" : "answering", o_v8, o_v42, s_v8, s_v42,
	       starve ? ", ours starved twice" : "");
	print_phases("ours", &o);
	stats_line("ours", &o);
	printf("  SpanDSP: stage %d, V.8 status %d (modes %#x, protocol %d), v42 connects %d, "
	       "received %zu%s\n", s.stage, s.v8_status, s.v8res.modulations, s.v8res.protocol,
	       s.v42_connects, s.v42s ? s.nin : s.sink.len, s.mismatch ? " MISMATCH" : "");
	ok = o_got == NB && s_got == NB && !o_junk && !o.hung && r.rate_a == want_rate(mod);
	CHECK(o_got == NB, "%s: ours received %zu intact (junk %zu)", name, o_got, o_junk);
	CHECK(!o_junk, "%s: junk in front %zu", name, o_junk);
	CHECK(s_got == NB, "%s: SpanDSP received %zu intact", name, s_got);
	CHECK(!o.hung, "%s: ours hung up, cause %u", name, o.hung_cause);
	CHECK(r.rate_a == want_rate(mod), "%s: rate %d", name, r.rate_a);
	if (v42_both) {
		ok = ok && o.v42_ev == 1 && o.st.link == SMDSP_LINK_V42 && !s.mismatch;
		CHECK(o.v42_ev == 1 && o.st.link == SMDSP_LINK_V42, "%s: V.42 not up (%d)", name,
		      o.v42_ev);
		CHECK(s.v42_connects > 0 && !s.mismatch, "%s: SpanDSP V.42", name);
	} else if (fallback) {
		ok = ok && o.v42_ev == 0 && o.st.link == SMDSP_LINK_ASYNC;
		CHECK(o.v42_ev == 0 && o.st.link == SMDSP_LINK_ASYNC, "%s: no fallback (%d)", name,
		      o.v42_ev);
	} else {
		ok = ok && o.st.link == SMDSP_LINK_ASYNC;
		CHECK(o.st.link == SMDSP_LINK_ASYNC, "%s: link", name);
	}
	if (o_v8 && s_v8) {
		ok = ok && ours_has_phase(&o, SMDSP_PHASE_V8) && o.v8_ev == 1 &&
		     s.v8_status == V8_STATUS_V8_CALL;
		CHECK(ours_has_phase(&o, SMDSP_PHASE_V8) && o.v8_ev == 1, "%s: our V.8 (%d)", name,
		      o.v8_ev);
		CHECK(s.v8_status == V8_STATUS_V8_CALL, "%s: SpanDSP V.8 status %d", name,
		      s.v8_status);
		CHECK(o.st.v8.lapm == v42_both, "%s: V.8 LAPM %d", name, o.st.v8.lapm);
	} else if (o_v8) {
		/* the peer has no V.8: the V.25 start-up */
		ok = ok && o.v8_ev == 2;
		CHECK(o.v8_ev == 2, "%s: V.8 should find no V.8 peer (%d)", name, o.v8_ev);
	}
	if (starve) {
		ok = ok && o.st.v42.retransmissions > 0;
		CHECK(o.st.v42.retransmissions + o.st.v42.rej_rx + o.st.v42.srej_rx > 0,
		      "%s: no recovery", name);
	}
	result_line(name, ok, &r, &o, NULL, o.nin, s.v42s ? s.nin : s.sink.len);
	smdsp_modem_free(o.m);
	span_free(&s);
	line_free(l);
}

/*
 * V.42 on, the answerer vanishes mid-transfer: the caller reports the lost
 * carrier at once, holds it for 1.4 s (S10) and hangs up; nothing but intact
 * bytes reached the user.
 */
static void peer_vanishes(void)
{
	const char *name = "ours_ours_v22bis_v42_peer_vanishes";
	struct ours a, b;
	struct line *l;
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	long now, gone_at = -1, lost_at = -1, hung_at = -1;
	int i, ok;

	if (!selected(name))
		return;
	ours_init(&a, 1, MOD_V22BIS, 0, 1, seed_base + 55);
	ours_init(&b, 0, MOD_V22BIS, 0, 1, seed_base + 66);
	l = new_line();
	for (now = 0; now < 8000L * 40 && !a.hung; now += BLK) {
		ours_block(&a, ar, at, now);
		if (gone_at < 0 && a.nin >= 2048)
			gone_at = now;
		if (gone_at < 0)
			ours_block(&b, br, bt, now);
		else
			memset(bt, 0, sizeof(bt));
		line_process(l, at, ar, bt, br, BLK);
		if (lost_at < 0 && ours_has_phase(&a, SMDSP_PHASE_CARRIER_LOST))
			lost_at = now;
	}
	hung_at = a.hung ? now : -1;
	smdsp_modem_get_stats(a.m, &a.st);
	printf("%s: B gone at %.2f s, A reported carrier lost %.0f ms after the silence reached it, "
	       "hung up %.0f ms after that (cause %u), received %zu bytes intact of %zu\n", name,
	       gone_at / 8000.0, (lost_at - gone_at - line_delay) / 8.0, (hung_at - lost_at) / 8.0, a.hung_cause,
	       match_prefix(b.out, a.in, a.nin), a.nin);
	print_phases("A", &a);
	/* the silence reaches A one line delay later */
	ok = gone_at > 0 && lost_at > gone_at && lost_at - gone_at <= line_delay + 8 * 200 && a.hung &&
	     a.hung_cause == SMDSP_CAUSE_CARRIER_LOST && hung_at - lost_at >= 8 * 1300 &&
	     hung_at - lost_at <= 8 * 1600 && match_prefix(b.out, a.in, a.nin) == a.nin &&
	     smdsp_modem_phase(a.m) == SMDSP_PHASE_ONHOOK;
	CHECK(ok, "%s: lost %ld hung %ld cause %u", name, lost_at, hung_at, a.hung_cause);
	printf("RESULT name=%s ok=%d lost_ms=%.0f hold_ms=%.0f cause=%u intact=%d\n", name, ok,
	       (lost_at - gone_at - line_delay) / 8.0, (hung_at - lost_at) / 8.0, a.hung_cause,
	       match_prefix(b.out, a.in, a.nin) == a.nin);
	/* the same modem takes the next call with another configuration */
	{
		struct smdsp_modem_config c = { .sample_rate = 8000, .flags = SMDSP_MODEM_FLAG_V8 };
		struct smdsp_modem_config bad = { .sample_rate = 16000 };

		CHECK(smdsp_modem_configure(a.m, &c) == 0, "configure on hook");
		CHECK(smdsp_modem_configure(a.m, &bad) == -EINVAL, "configure 16 kHz");
		CHECK(smdsp_modem_answer(a.m) == 0, "answer");
		CHECK(smdsp_modem_configure(a.m, &c) == -EBUSY, "configure off hook");
		for (i = 0; i < 200; i++)
			ours_block(&a, ar, at, now);
		smdsp_modem_get_stats(a.m, &a.st);
		CHECK(a.st.v8_used && a.st.v42_status == -1 && !a.st.carrier_losses,
		      "stats of the new call: v8 %u v42 %d losses %u", a.st.v8_used,
		      a.st.v42_status, a.st.carrier_losses);
	}
	smdsp_modem_free(a.m);
	smdsp_modem_free(b.m);
	line_free(l);
}

/* The next call on the same two engines: V.8 and V.42 blocks reset in place, fresh statistics. */
static void ours_restart(struct ours *o, uint64_t seed)
{
	struct smdsp_modem *m = o->m;
	int caller = o->caller;

	memset(o, 0, sizeof(*o));
	o->m = m;
	o->caller = caller;
	o->v42_ev = -1;
	o->v8_ev = -1;
	o->connected_at = -1;
	fill_random(o->out, NB, seed);
	if (caller)
		CHECK(smdsp_modem_dial(o->m, "") == 0, "dial again");
	else
		CHECK(smdsp_modem_answer(o->m) == 0, "answer again");
}

static void two_calls(void)
{
	const char *name = "ours_ours_v8_v22bis_v42_two_calls";
	struct ours a, b;
	struct line *l;
	int16_t at[BLK], ar[BLK], bt[BLK], br[BLK];
	long now, t0 = 0;
	int call, ok = 1;
	size_t ga[2] = { 0 }, gb[2] = { 0 };
	uint32_t frames[2] = { 0 }, retx[2] = { 0 };

	if (!selected(name))
		return;
	ours_init(&a, 1, MOD_V22BIS, 1, 1, seed_base + 77);
	ours_init(&b, 0, MOD_V22BIS, 1, 1, seed_base + 88);
	for (call = 0; call < 2; call++) {
		l = new_line();
		memset(ar, 0, sizeof(ar));
		memset(br, 0, sizeof(br));
		if (call) {
			ours_restart(&a, seed_base + 99);
			ours_restart(&b, seed_base + 111);
		}
		for (now = t0; now < t0 + 8000L * 45; now += BLK) {
			ours_block(&a, ar, at, now);
			ours_block(&b, br, bt, now);
			line_process(l, at, ar, bt, br, BLK);
			if (a.nin >= NB && b.nin >= NB)
				break;
		}
		smdsp_modem_get_stats(a.m, &a.st);
		ga[call] = match_prefix(b.out, a.in, a.nin < NB ? a.nin : NB);
		gb[call] = match_prefix(a.out, b.in, b.nin < NB ? b.nin : NB);
		frames[call] = a.st.v42.frames_tx;
		retx[call] = a.st.v42.retransmissions;
		ok = ok && ga[call] == NB && gb[call] == NB && a.v8_ev == 1 && a.v42_ev == 1 &&
		     a.st.link == SMDSP_LINK_V42 && a.st.v8.lapm;
		/* A hangs up; B notices the lost carrier and goes on hook too */
		smdsp_modem_hangup(a.m);
		for (; now < t0 + 8000L * 60 && smdsp_modem_phase(b.m) != SMDSP_PHASE_ONHOOK;
		     now += BLK) {
			ours_block(&a, ar, at, now);
			ours_block(&b, br, bt, now);
			line_process(l, at, ar, bt, br, BLK);
		}
		ok = ok && smdsp_modem_phase(a.m) == SMDSP_PHASE_ONHOOK &&
		     smdsp_modem_phase(b.m) == SMDSP_PHASE_ONHOOK;
		t0 = now;
		line_free(l);
	}
	printf("%s: intact %zu/%zu then %zu/%zu, A's frames sent %u then %u, retransmissions %u/%u\n",
	       name, ga[0], gb[0], ga[1], gb[1], frames[0], frames[1], retx[0], retx[1]);
	/* statistics start again with each call: about the same frame count twice */
	ok = ok && frames[1] > 0 && frames[1] < frames[0] + frames[0] / 4 &&
	     frames[0] < frames[1] + frames[1] / 4;
	CHECK(ok, "%s", name);
	printf("RESULT name=%s ok=%d got1=%zu/%zu got2=%zu/%zu frames=%u/%u\n", name, ok, ga[0], gb[0],
	       ga[1], gb[1], frames[0], frames[1]);
	smdsp_modem_free(a.m);
	smdsp_modem_free(b.m);
}

int main(int argc, char **argv)
{
	int mod, v42, caller;

	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--delay") && i + 1 < argc)
			line_delay = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--loss") && i + 1 < argc)
			line_loss = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed_base = strtoull(argv[++i], NULL, 0);
		else
			filter = argv[i];
	}
	for (mod = MOD_V21; mod <= MOD_V22BIS; mod++) {
		for (v42 = 0; v42 <= 1; v42++) {
			for (caller = 1; caller >= 0; caller--)
				ours_span(v42 ? "v42_" : "", caller, mod, 0, v42, 0, v42, 0);
			ours_ours(mod, 0, v42, 0);
		}
	}
	/* V.8 leading into V.22bis */
	for (v42 = 0; v42 <= 1; v42++) {
		for (caller = 1; caller >= 0; caller--)
			ours_span(v42 ? "v8_v42_" : "v8_", caller, MOD_V22BIS, 1, v42, 1, v42, 0);
		ours_ours(MOD_V22BIS, 1, v42, 0);
	}
	ours_ours(MOD_V21, 1, 1, 0);
	/* peers without V.42 or V.8 */
	for (caller = 1; caller >= 0; caller--) {
		ours_span("v42_nopeer_", caller, MOD_V22BIS, 0, 1, 0, 0, 0);
		ours_span("v8_nopeer_", caller, MOD_V22BIS, 1, 0, 0, 0, 0);
	}
	/*
	 * A starved caller: its processing skipped twice mid-transfer (blocks
	 * of silence to the peer, what came in is gone). SpanDSP's V.22bis
	 * receiver re-handshakes after about 40 ms without carrier, so the
	 * gap is one period (20 ms) against it.
	 */
	ours_ours(MOD_V22BIS, 0, 1, 15);
	ours_ours(MOD_V22BIS, 0, 1, 50);
	ours_ours(MOD_V22BIS, 0, 0, 15);
	ours_span("v42_", 1, MOD_V22BIS, 0, 1, 0, 1, 1);
	ours_span("v42_", 0, MOD_V22BIS, 0, 1, 0, 1, 1);
	/* text through V.42, then through V.42 and V.42bis both ways */
	text_data = 1;
	ours_ours(MOD_V22BIS, 0, 1, 0);
	bis_dirs = SMDSP_V42BIS_DIR_BOTH;
	ours_ours(MOD_V22BIS, 0, 1, 0);
	bis_dirs = 0;
	text_data = 0;
	/* ours with V.32bis against SpanDSP's V.22bis (no V.32bis): V.22bis, either role */
	ours_v32 = 1;
	for (caller = 1; caller >= 0; caller--) {
		ours_span("v32auto_v42_", caller, MOD_V22BIS, 0, 1, 0, 1, 0);
		ours_span("v32_v8_v42_", caller, MOD_V22BIS, 1, 1, 1, 1, 0);
	}
	ours_v32 = 0;
	/*
	 * ours with V.34 against SpanDSP's V.22bis after V.8, either role: its
	 * JM echoes our CM (V.34 named), so our caller's V.22bis listens beside
	 * V.34's phase 2 and wins; its CM names none, so our answerer's JM
	 * picks V.22bis
	 */
	ours_v34 = 1;
	for (caller = 1; caller >= 0; caller--)
		ours_span("v34_v8_v42_", caller, MOD_V22BIS, 1, 1, 1, 1, 0);
	ours_v34 = 0;
	peer_vanishes();
	two_calls();
	return t_report("test_engine");
}
