// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 through the engine (smdsp_modem_*, dsp/modem.c at both ends), back
 * to back over the in-memory line (tests/dsp/common/line.c), 100-sample
 * blocks at 8 kHz (the driver's period), 4 KiB of random bytes each way
 * compared byte by byte:
 * - V.8 (CM/JM naming V.34) into V.34's phase 2 at both ends, then phases
 *   3 and 4 and the data: CONNECT at the rate phase 2 and the MPs settle
 *   (33600 on a clean line: each receiver's choice from its trained error,
 *   see doc/v34.md; each end's smdsp_modem_rate() its
 *   receive direction's rate, the stats' tx_rate the far end's rx_rate),
 *   with V.42, with V.42bis and with plain async, 4-wire and 2-wire (the
 *   echo canceller in the call path, its latency the period), and on a
 *   telephone-band line (30 ms one way, 50 ppm);
 * - +MS's limits: max_rate 19200 at either end keeps both directions at
 *   or under 19200; min_rate above what the other end allows fails the
 *   training;
 * - a V.34 end against an end without V.34 (V.32bis and V.22bis only)
 *   lands in V.32bis at 14400, each end calling and answering;
 * - a far end that goes silent after V.8 (its processing stopped), or
 *   sends noise from there: the other end hangs up by itself, training
 *   failed, in bounded time; one that goes silent in the data: carrier lost
 *   at once, hung up (carrier lost) within two seconds, with V.42 and in
 *   plain async, nothing of the silence delivered as data;
 * - a 2-wire line (a G.168 hybrid at each end, a far echo) behind an I/O
 *   loop whose output lead is far longer than a block: given that lead
 *   (echo_latency) the cancellers cancel the echo and the data arrives
 *   intact, also when the lead grows in the data (smdsp_modem_tx_fill()
 *   keeps V.34's signal going, its canceller in step);
 * - a second call on the same engines, 2-wire after 4-wire, another
 *   max_rate: V.34's object configured again in place.
 * Every case prints one "RESULT" line.
 * Usage: test_modem_v34 [name-substring]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <smdsp/modem.h>
#include "check.h"
#include "tutil.h"
#include "line.h"
#include "chars.h"
#include "chan.h"
#include "v34fault.h"
#include <smdsp/private/modem.h>
#include <smdsp/private/v34.h>

#define BLK	100
#define NB	4096
#define MAXPH	64
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALL_MODS (SMDSP_MODEM_V21 | SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS | SMDSP_MODEM_V32BIS)
#define V34_MODS (ALL_MODS | SMDSP_MODEM_V34)

static const char *const pname[] = { "onhook", "offhook", "dialing", "waiting", "answer-tone", "v8",
				     "training", "connected", "retrain", "carrier-lost", "hungup", "probing" };

struct end {
	struct smdsp_modem *m;
	uint8_t out[NB];
	size_t nout;
	uint8_t in[NB + 2048];
	size_t nin;
	int phases[MAXPH];
	uint32_t args[MAXPH];
	int nphases;
	unsigned int first_rate;	/* the first CONNECTED's rate */
	int v42_ev;
	long training_at;		/* V.8's end: the first PROBING or TRAINING, samples */
	/* V.34's state (enum smdsp_v34_state) at the block that entered PROBING, TRAINING (-1: none) */
	int v34_at_probing, v34_at_training;
	long connected_at;
	int hung;
	long hung_at;
	uint32_t hung_cause;
	struct smdsp_modem_stats st;
};

struct mcfg {
	uint32_t mods;
	int v8, v42;
	unsigned int bis_dirs;
	unsigned int min_rate, max_rate;
};

/* reuse: e->m is kept (its last call hung up) and configured for this one */
static void end_init(struct end *e, int caller, const struct mcfg *mc, uint64_t seed, unsigned int lat,
		     bool four, bool reuse)
{
	struct smdsp_modem *keep = reuse ? e->m : NULL;
	struct smdsp_modem_config c;

	memset(e, 0, sizeof(*e));
	memset(&c, 0, sizeof(c));
	c.sample_rate = 8000;
	c.modulations = mc->mods;
	c.flags = (mc->v8 ? SMDSP_MODEM_FLAG_V8 : 0) | (mc->v42 ? SMDSP_MODEM_FLAG_V42 : 0) |
		  SMDSP_MODEM_FLAG_BLIND;
	c.tone_plan = SMDSP_CALLPROG_PLAN_NA;
	c.v42bis_dirs = mc->bis_dirs;
	c.min_rate = mc->min_rate;
	c.max_rate = mc->max_rate;
	c.echo_latency = lat;
	c.four_wire = four;
	if (keep) {
		e->m = keep;
		CHECK(smdsp_modem_configure(e->m, &c) == 0, "configure");
	} else {
		e->m = smdsp_modem_create(&c);
	}
	if (!e->m) {
		printf("FAIL smdsp_modem_create\n");
		exit(1);
	}
	e->v42_ev = -1;
	e->training_at = -1;
	e->v34_at_probing = -1;
	e->v34_at_training = -1;
	e->connected_at = -1;
	e->hung_at = -1;
	fill_random(e->out, NB, seed);
	if (caller)
		CHECK(smdsp_modem_dial(e->m, "") == 0, "dial");
	else
		CHECK(smdsp_modem_answer(e->m) == 0, "answer");
}

static void end_block(struct end *e, const int16_t *rx, int16_t *tx, long now)
{
	struct smdsp_modem_event ev;

	CHECK(smdsp_modem_process(e->m, rx, tx, BLK) == 0, "process");
	if (e->nout < NB && smdsp_modem_rate(e->m))
		e->nout += smdsp_modem_write(e->m, e->out + e->nout, (unsigned int)(NB - e->nout));
	e->nin += smdsp_modem_read(e->m, e->in + e->nin, (unsigned int)(sizeof(e->in) - e->nin));
	while (smdsp_modem_get_event(e->m, &ev)) {
		if (ev.type == SMDSP_EV_PHASE) {
			if (e->nphases < MAXPH) {
				e->phases[e->nphases] = ev.phase;
				e->args[e->nphases++] = ev.arg;
			}
			if ((ev.phase == SMDSP_PHASE_PROBING || ev.phase == SMDSP_PHASE_TRAINING) &&
			    e->training_at < 0)
				e->training_at = now + BLK;
			if (ev.phase == SMDSP_PHASE_PROBING || ev.phase == SMDSP_PHASE_TRAINING) {
				struct smdsp_modem_stats st;

				smdsp_modem_get_stats(e->m, &st);
				if (ev.phase == SMDSP_PHASE_PROBING)
					e->v34_at_probing = (int)st.v34_state;
				else
					e->v34_at_training = (int)st.v34_state;
			}
			if (ev.phase == SMDSP_PHASE_CONNECTED && e->connected_at < 0) {
				e->connected_at = now + BLK;
				e->first_rate = ev.arg;
			}
			if (ev.phase == SMDSP_PHASE_HUNGUP && !e->hung) {
				e->hung = 1;
				e->hung_at = now + BLK;
				e->hung_cause = ev.arg;
			}
		} else if (ev.type == SMDSP_EV_V42) {
			e->v42_ev = (int)ev.arg;
		}
	}
}

static void print_phases(const char *who, const struct end *e)
{
	int i;

	printf("  %s:", who);
	for (i = 0; i < e->nphases; i++) {
		printf(" %s", pname[e->phases[i]]);
		if (e->phases[i] == SMDSP_PHASE_CONNECTED || e->phases[i] == SMDSP_PHASE_HUNGUP)
			printf("(%u)", e->args[i]);
	}
	printf("\n");
}

struct res {
	size_t a_got, b_got, a_junk, b_junk;
	unsigned int rate_a, rate_b;	/* at the end */
	double secs;
	double cpu;			/* s of CPU in both engines */
	long off_at;			/* the silent end's last block (samples; -1: none) */
};

static const char *filter;

static double cpu_s(void)
{
	return (double)clock() / CLOCKS_PER_SEC;
}

/*
 * The I/O loop of a driver whose output is written lead samples after the
 * input it answers (test_modem_v32.c's): what an end sends reaches the line
 * lead - BLK samples later than in this test's own loop. grow_at: once A
 * has received that many bytes, the lead grows by grow samples, which
 * smdsp_modem_tx_fill() fills, as the driver's core does.
 */
#define LEAD_MAX 8192

struct lead {
	int16_t q[LEAD_MAX];
	unsigned int head, len;
};

static void lead_push(struct lead *d, const int16_t *x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && d->len < LEAD_MAX; i++, d->len++)
		d->q[(d->head + d->len) % LEAD_MAX] = x[i];
}

static void lead_pop(struct lead *d, int16_t *x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		x[i] = d->len ? d->q[d->head] : 0;
		if (d->len) {
			d->head = (d->head + 1) % LEAD_MAX;
			d->len--;
		}
	}
}

struct loop {
	const struct line_cfg *lc;	/* NULL: 6 dB of loss, -70 dBm0 of noise, no echo */
	unsigned int lead;		/* 0 or BLK: this test's own loop */
	size_t grow_at;
	unsigned int grow;
	unsigned int echo_latency;	/* both ends' configuration */
	bool four_wire;
	bool reuse;			/* the ends' engines from their last call (hung up) */
	/* 1: B stops at its first TRAINING, 2: A does, 3: B once A has 1 KiB, 4: B noise from its TRAINING */
	int silent;
	double seconds;			/* line time at most (0: 60) */
	unsigned int faults;		/* enum v34_fault: phase 2's faults on the line, A calling */
};

/* white noise at about -15 dBm0: a far end gone mad */
static void noise_block(int16_t *x, uint64_t *seed)
{
	int i;

	for (i = 0; i < BLK; i++)
		x[i] = t_sat16(4000.0 * t_gauss(seed));
}

/* A calls B over lp's line and loop; both_hang: until both have hung up. */
static void run_loop(const char *name, const struct mcfg *ca, const struct mcfg *cb, int both_hang,
		     const struct loop *lp, struct end *a, struct end *b, struct res *r)
{
	static const struct line_cfg plain = { .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300,
					       .delay = 80, .seed = 7 };
	struct line *l = line_create(lp->lc ? lp->lc : &plain);
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 }, fill[LEAD_MAX];
	static struct lead la, lb;
	size_t last_a = 0, last_b = 0;
	long now, idle = 0, end = (long)(8000 * (lp->seconds > 0 ? lp->seconds : 60));
	bool grown = false, a_on = true, b_on = true;
	uint64_t nseed = 5;
	double t0 = cpu_s();
	struct v34_faults f;

	memset(r, 0, sizeof(*r));
	r->off_at = -1;
	memset(&la, 0, sizeof(la));
	memset(&lb, 0, sizeof(lb));
	if (lp->lead > BLK) {
		memset(fill, 0, sizeof(fill));
		lead_push(&la, fill, lp->lead - BLK);
		lead_push(&lb, fill, lp->lead - BLK);
	}
	end_init(a, 1, ca, 11, lp->echo_latency, lp->four_wire, lp->reuse);
	end_init(b, 0, cb, 22, lp->echo_latency, lp->four_wire, lp->reuse);
	v34_faults_init(&f, lp->faults);
	for (now = 0; now < end; now += BLK) {
		if (lp->grow && !grown && a->nin >= lp->grow_at) {
			smdsp_modem_tx_fill(a->m, fill, lp->grow);
			lead_push(&la, fill, lp->grow);
			smdsp_modem_tx_fill(b->m, fill, lp->grow);
			lead_push(&lb, fill, lp->grow);
			grown = true;
		}
		if (b_on && (((lp->silent == 1 || lp->silent == 4) && b->training_at >= 0) ||
			     (lp->silent == 3 && a->nin >= 1024))) {
			b_on = false;
			r->off_at = now;
		}
		if (a_on && lp->silent == 2 && a->training_at >= 0) {
			a_on = false;
			r->off_at = now;
		}
		if (a_on)
			end_block(a, ar, at, now);
		else
			memset(at, 0, sizeof(at));
		if (b_on)
			end_block(b, br, bt, now);
		else if (lp->silent == 4)
			noise_block(bt, &nseed);
		else
			memset(bt, 0, sizeof(bt));
		if (lp->faults)
			v34_faults_apply(&f, now, at, bt, &a->m->v34->p2, &b->m->v34->p2, BLK);
		lead_push(&la, at, BLK);
		lead_pop(&la, at, BLK);
		lead_push(&lb, bt, BLK);
		lead_pop(&lb, bt, BLK);
		line_process(l, at, ar, bt, br, BLK);
		if (lp->silent && ((a_on && a->hung) || (b_on && b->hung)))
			break;
		if ((a->nin >= NB && b->nin >= NB) || (a->hung && b->hung))
			break;
		if ((a->hung || b->hung) && !both_hang)
			break;
		if (a->nin != last_a || b->nin != last_b) {
			last_a = a->nin;
			last_b = b->nin;
			idle = 0;
		} else if (a->nout == NB && b->nout == NB) {
			/* everything sent and nothing more coming: what is missing is lost */
			idle += BLK;
			if (idle >= 15 * 8000)
				break;
		}
	}
	r->cpu = cpu_s() - t0;
	r->secs = now / 8000.0;
	smdsp_modem_get_stats(a->m, &a->st);
	smdsp_modem_get_stats(b->m, &b->st);
	r->a_got = match_data(b->out, NB, a->in, a->nin, &r->a_junk);
	r->b_got = match_data(a->out, NB, b->in, b->nin, &r->b_junk);
	r->rate_a = smdsp_modem_rate(a->m);
	r->rate_b = smdsp_modem_rate(b->m);
	printf("%s: A received %zu bytes, B %zu, in %.1f s of line (%.2f s of CPU)\n", name, a->nin, b->nin,
	       r->secs, r->cpu);
	print_phases("A", a);
	print_phases("B", b);
	printf("RESULT name=%s rate=%u/%u first=%u/%u tx_rate=%u/%u rx_rate=%u/%u baud=%u:%u/%u:%u got=%zu/%zu junk=%zu/%zu connect=%.2f/%.2f v42ev=%d/%d v8=%#x/%#x v34=%u:%u/%u:%u rtd=%d/%d mse_db=%.1f/%.1f echo_latency=%d/%d erle_db=%.1f/%.1f retx=%u/%u hung=%d/%d secs=%.1f\n",
	       name, r->rate_a, r->rate_b, a->first_rate, b->first_rate, a->st.tx_rate, b->st.tx_rate,
	       a->st.rx_rate, b->st.rx_rate, a->st.tx_baud, a->st.rx_baud, b->st.tx_baud, b->st.rx_baud,
	       r->a_got, r->b_got, r->a_junk, r->b_junk, a->connected_at / 8000.0, b->connected_at / 8000.0,
	       a->v42_ev, b->v42_ev, a->st.v8.selected, b->st.v8.selected, a->st.v34_state, a->st.v34_fail,
	       b->st.v34_state, b->st.v34_fail, a->st.v34_rtd, b->st.v34_rtd, a->st.v34_mse_db10 / 10.0,
	       b->st.v34_mse_db10 / 10.0, a->st.echo_latency, b->st.echo_latency,
	       a->st.echo_erle_db_q8 / 256.0, b->st.echo_erle_db_q8 / 256.0, a->st.v42.retransmissions,
	       b->st.v42.retransmissions, a->hung, b->hung, r->secs);
	if (getenv("V34_VERBOSE"))
		printf("  V.42 frames tx %u/%u rx %u/%u crc %u/%u bad %u/%u; V.34 bits sent %u/%u received %u/%u\n",
		       a->st.v42.frames_tx, b->st.v42.frames_tx, a->st.v42.frames_rx, b->st.v42.frames_rx,
		       a->st.v42.crc_errors, b->st.v42.crc_errors, a->st.v42.bad_frames, b->st.v42.bad_frames,
		       a->st.v34.bits_sent, b->st.v34.bits_sent, a->st.v34.bits_received, b->st.v34.bits_received);
	line_free(l);
}

static void done(struct end *a, struct end *b)
{
	smdsp_modem_free(a->m);
	smdsp_modem_free(b->m);
}

static int selected(const char *name)
{
	return !filter || strstr(name, filter);
}

/*
 * 4 KiB each way intact, nobody hung up, V.42 up (or plain async), each
 * end's rate its receive direction's and the other end's transmit rate,
 * both between lo and hi.
 */
static void check_call(const char *name, const struct end *a, const struct end *b, const struct res *r,
		       unsigned int lo, unsigned int hi, int v42)
{
	CHECK(r->a_got == NB && r->b_got == NB && !r->a_junk && !r->b_junk,
	      "%s: intact %zu/%zu, junk %zu/%zu", name, r->a_got, r->b_got, r->a_junk, r->b_junk);
	CHECK(r->rate_a >= lo && r->rate_a <= hi && r->rate_b >= lo && r->rate_b <= hi,
	      "%s: rates %u/%u, want %u-%u", name, r->rate_a, r->rate_b, lo, hi);
	CHECK(a->first_rate == r->rate_a && b->first_rate == r->rate_b, "%s: first rates %u/%u, now %u/%u",
	      name, a->first_rate, b->first_rate, r->rate_a, r->rate_b);
	CHECK(a->st.rx_rate == r->rate_a && b->st.rx_rate == r->rate_b && a->st.tx_rate == b->st.rx_rate &&
	      b->st.tx_rate == a->st.rx_rate, "%s: tx/rx rates %u/%u and %u/%u", name, a->st.tx_rate,
	      a->st.rx_rate, b->st.tx_rate, b->st.rx_rate);
	CHECK(!a->hung && !b->hung, "%s: hung up (%u/%u)", name, a->hung_cause, b->hung_cause);
	if (v42)
		CHECK(a->v42_ev == 1 && b->v42_ev == 1 && a->st.link == SMDSP_LINK_V42 &&
		      b->st.link == SMDSP_LINK_V42, "%s: V.42 %d/%d", name, a->v42_ev, b->v42_ev);
	else
		CHECK(a->st.link == SMDSP_LINK_ASYNC && b->st.link == SMDSP_LINK_ASYNC, "%s: async", name);
}

/* the one-way delay of lp's line (samples, the line's own 16 left out) */
static int line_delay(const struct loop *lp)
{
	if (!lp->lc)
		return 80;
	return lp->lc->delay;
}

/* where phase p first came in e's phases (-1: never), and how often */
static int phase_at(const struct end *e, int p, int *count)
{
	int i, at = -1;

	*count = 0;
	for (i = 0; i < e->nphases; i++) {
		if (e->phases[i] != p)
			continue;
		if (at < 0)
			at = i;
		(*count)++;
	}
	return at;
}

/*
 * V.8, then V.34's phase 2 as PROBING, phases 3 and 4 as TRAINING, the data
 * as CONNECTED, each once and in this order; PROBING while V.34 was in its
 * phase 2, TRAINING once it had left it.
 */
static void check_v34_phases(const char *name, const char *who, const struct end *e)
{
	int n8, np, nt, nc;
	int v8 = phase_at(e, SMDSP_PHASE_V8, &n8);
	int pr = phase_at(e, SMDSP_PHASE_PROBING, &np);
	int tr = phase_at(e, SMDSP_PHASE_TRAINING, &nt);
	int co = phase_at(e, SMDSP_PHASE_CONNECTED, &nc);

	CHECK(v8 >= 0 && pr == v8 + 1 && tr == pr + 1 && co == tr + 1 && n8 == 1 && np == 1 && nt == 1,
	      "%s: %s's phases v8 %d (x%d), probing %d (x%d), training %d (x%d), connected %d", name, who,
	      v8, n8, pr, np, tr, nt, co);
	CHECK(e->v34_at_probing == SMDSP_V34_PHASE2 && e->v34_at_training >= SMDSP_V34_PHASE3 &&
	      e->v34_at_training != SMDSP_V34_FAILED, "%s: %s's V.34 states %d at probing, %d at training",
	      name, who, e->v34_at_probing, e->v34_at_training);
}

/* Both ends in V.34 after V.8, in its data mode, its figures in the stats; delay: the line's one way. */
static void check_v34(const char *name, const struct end *a, const struct end *b, int delay)
{
	int rt = 2 * (delay + 16);

	check_v34_phases(name, "A", a);
	check_v34_phases(name, "B", b);

	CHECK(a->st.v8_used && b->st.v8_used && a->st.v8.selected == SMDSP_V8_MOD_V34 &&
	      b->st.v8.selected == SMDSP_V8_MOD_V34, "%s: V.8 chose %#x/%#x", name, a->st.v8.selected,
	      b->st.v8.selected);
	CHECK(a->st.v34_used && b->st.v34_used && a->st.v34_state == SMDSP_V34_DATA &&
	      b->st.v34_state == SMDSP_V34_DATA, "%s: V.34 %u/%u states %u/%u", name, a->st.v34_used,
	      b->st.v34_used, a->st.v34_state, b->st.v34_state);
	/* the symbol rates are phase 2's, the same at both ends */
	CHECK(a->st.tx_baud >= 2400 && a->st.tx_baud <= 3429 && a->st.tx_baud == b->st.rx_baud &&
	      a->st.rx_baud == b->st.tx_baud, "%s: symbol rates %u:%u/%u:%u", name, a->st.tx_baud,
	      a->st.rx_baud, b->st.tx_baud, b->st.rx_baud);
	/* the line's round trip (its own 16 samples each way), and each end's block (it answers in the next) */
	CHECK(a->st.v34_rtd >= rt && a->st.v34_rtd < rt + 3 * BLK && b->st.v34_rtd >= rt &&
	      b->st.v34_rtd < rt + 3 * BLK,
	      "%s: round trips %d/%d samples", name, a->st.v34_rtd, b->st.v34_rtd);
	CHECK(a->st.v34_mse_db10 >= 200 && b->st.v34_mse_db10 >= 200, "%s: MSE %d/%d (tenths of dB)", name,
	      a->st.v34_mse_db10, b->st.v34_mse_db10);
}

static void clean_calls(void)
{
	/*
	 * 2-wire: a G.168 hybrid at each end (m3, ERL 10 dB) and a far echo 28
	 * dB down a round trip later, shifted 2 Hz; both ends' cancellers at
	 * the period
	 */
	static const struct line_cfg echo = { .loss_db = 6, .noise_dbm0 = -65, .echo_db = -300, .delay = 80,
					      .seed = 9, .hybrid = 3, .hybrid_erl_db = 10, .far_echo_db = 28,
					      .far_echo_delay = 192, .far_echo_hz = 2.0, .far_hybrid = 4 };
	/* the telephone band's response, 10 dB of loss, noise 38 dB under the signal, clocks 50 ppm apart */
	static const struct line_cfg tel = { .loss_db = 10, .noise_dbm0 = -61, .echo_db = -300, .delay = 240,
					     .seed = 11, .ppm = 50, .channel = CHAN_TELEPHONE };
	static const struct loop four = { .four_wire = true };
	static const struct loop two = { .lead = 0 };
	static const struct loop two_echo = { .lc = &echo };
	static const struct loop four_tel = { .lc = &tel, .four_wire = true };
	static const struct {
		const char *name;
		struct mcfg a, b;
		const struct loop *lp;
		unsigned int lo, hi;	/* each end's rate */
	} cases[] = {
		{ "v34_v42_4wire", { V34_MODS, 1, 1, 0, 0, 0 }, { V34_MODS, 1, 1, 0, 0, 0 }, &four, 31200, 33600 },
		{ "v34_v42bis_2wire", { V34_MODS, 1, 1, SMDSP_V42BIS_DIR_BOTH, 0, 0 },
		  { V34_MODS, 1, 1, SMDSP_V42BIS_DIR_BOTH, 0, 0 }, &two, 24000, 33600 },
		{ "v34_v42_2wire_echo", { V34_MODS, 1, 1, 0, 0, 0 }, { V34_MODS, 1, 1, 0, 0, 0 }, &two_echo,
		  24000, 33600 },
		{ "v34_v42_telephone_4wire", { V34_MODS, 1, 1, 0, 0, 0 }, { V34_MODS, 1, 1, 0, 0, 0 }, &four_tel,
		  21600, 33600 },
		{ "v34_async_4wire", { V34_MODS, 1, 0, 0, 0, 0 }, { V34_MODS, 1, 0, 0, 0, 0 }, &four, 28800,
		  33600 },
		{ "v34_caller_max_19200", { V34_MODS, 1, 1, 0, 0, 19200 }, { V34_MODS, 1, 1, 0, 0, 0 }, &four,
		  2400, 19200 },
		{ "v34_answerer_max_19200", { V34_MODS, 1, 1, 0, 0, 0 }, { V34_MODS, 1, 1, 0, 0, 20000 },
		  &four, 2400, 19200 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct end a, b;
		struct res r;

		if (!selected(cases[i].name))
			continue;
		run_loop(cases[i].name, &cases[i].a, &cases[i].b, 0, cases[i].lp, &a, &b, &r);
		check_call(cases[i].name, &a, &b, &r, cases[i].lo, cases[i].hi, cases[i].a.v42);
		check_v34(cases[i].name, &a, &b, line_delay(cases[i].lp));
		/* 4-wire: no canceller; 2-wire: at the period (no lead given) */
		if (cases[i].lp->four_wire)
			CHECK(a.st.echo_latency == -1 && b.st.echo_latency == -1, "%s: echo latency %d/%d",
			      cases[i].name, a.st.echo_latency, b.st.echo_latency);
		else
			CHECK(a.st.echo_latency == BLK && b.st.echo_latency == BLK, "%s: echo latency %d/%d",
			      cases[i].name, a.st.echo_latency, b.st.echo_latency);
		/* an echo to cancel (without one, the ERLE measures nothing) */
		if (cases[i].lp->lc && cases[i].lp->lc->hybrid)
			CHECK(a.st.echo_erle_db_q8 >= 20 * 256 && b.st.echo_erle_db_q8 >= 20 * 256,
			      "%s: ERLE %.1f/%.1f dB", cases[i].name, a.st.echo_erle_db_q8 / 256.0,
			      b.st.echo_erle_db_q8 / 256.0);
		if (cases[i].a.bis_dirs)
			CHECK(a.st.v42.v42bis_dirs == cases[i].a.bis_dirs &&
			      b.st.v42.v42bis_dirs == cases[i].a.bis_dirs, "%s: V.42bis %u/%u", cases[i].name,
			      a.st.v42.v42bis_dirs, b.st.v42.v42bis_dirs);
		/* 4 KiB at 14400 take V.32bis about 11 s with its start-up; V.34 at twice the rate and more */
		if (cases[i].lo >= 24000)
			CHECK(r.secs < 13, "%s: %.1f s", cases[i].name, r.secs);
		done(&a, &b);
	}
}

/* A V.34 end against one without V.34: V.8 picks V.32bis, 14400 both ways. */
static void v32bis_peer(void)
{
	static const struct loop four = { .four_wire = true };
	static const struct {
		const char *name;
		struct mcfg a, b;
	} cases[] = {
		{ "v34_caller_v32bis_answerer", { V34_MODS, 1, 1, 0, 0, 0 }, { ALL_MODS, 1, 1, 0, 0, 0 } },
		{ "v32bis_caller_v34_answerer", { ALL_MODS, 1, 1, 0, 0, 0 }, { V34_MODS, 1, 1, 0, 0, 0 } },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct end a, b;
		struct res r;

		if (!selected(cases[i].name))
			continue;
		run_loop(cases[i].name, &cases[i].a, &cases[i].b, 0, &four, &a, &b, &r);
		check_call(cases[i].name, &a, &b, &r, 14400, 14400, 1);
		CHECK(a.st.v8.selected == SMDSP_V8_MOD_V32 && b.st.v8.selected == SMDSP_V8_MOD_V32 &&
		      !a.st.v34_used && !b.st.v34_used, "%s: V.8 chose %#x/%#x, V.34 %u/%u", cases[i].name,
		      a.st.v8.selected, b.st.v8.selected, a.st.v34_used, b.st.v34_used);
		/* no V.34, no probing */
		CHECK(a.v34_at_probing < 0 && b.v34_at_probing < 0, "%s: probing %d/%d", cases[i].name,
		      a.v34_at_probing, b.v34_at_probing);
		done(&a, &b);
	}
}

/* The caller will take 26400 at least, the answerer sends at most 21600: both hang up. */
static void min_rate_refused(void)
{
	static const struct loop four = { .four_wire = true };
	const char *name = "v34_min_rate_refused";
	struct mcfg ca = { SMDSP_MODEM_V34, 1, 1, 0, 26400, 0 };
	struct mcfg cb = { SMDSP_MODEM_V34, 1, 1, 0, 0, 21600 };
	struct end a, b;
	struct res r;

	if (!selected(name))
		return;
	run_loop(name, &ca, &cb, 1, &four, &a, &b, &r);
	CHECK(a.hung && a.hung_cause == SMDSP_CAUSE_TRAINING_FAILED && a.connected_at < 0,
	      "%s: caller hung %d cause %u", name, a.hung, a.hung_cause);
	/* the answerer connected, then lost the caller */
	CHECK(b.hung && (b.hung_cause == SMDSP_CAUSE_CARRIER_LOST ||
			 b.hung_cause == SMDSP_CAUSE_TRAINING_FAILED) && b.hung_at - a.hung_at < 8000 * 4,
	      "%s: answerer hung %d cause %u %.1f s after", name, b.hung, b.hung_cause,
	      (b.hung_at - a.hung_at) / 8000.0);
	done(&a, &b);
}

/*
 * A far end that stops after V.8 (it went on hook, its processing stopped)
 * or sends only noise from there: the other ends the call by itself,
 * training failed, within phase 2's limits (no INFO0 after its
 * retransmissions: about 8 s; an answerer that heard the INFO0 but no
 * reversal, about 18 s).
 */
/*
 * The call modem misses the answer modem's INFO1a (lost, or its CRC bad):
 * it goes back to phase 2 while the answer modem is already training, which
 * follows it back.  The engine reports what runs: the answer modem's
 * PROBING, TRAINING, PROBING again, TRAINING, then the data; the call
 * modem's phases as in a clean call; the call intact at a clean call's rates.
 */
static void info1a_missed(void)
{
	static const struct {
		const char *name;
		unsigned int fault;
		bool four;
	} cases[] = { { "v34_info1a_lost_4wire", V34F_INFO1A_LOST, true },
		      { "v34_info1a_bad_2wire", V34F_INFO1A_BAD, false } };
	struct mcfg c = { V34_MODS, 1, 1, 0, 0, 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct loop lp = { .four_wire = cases[i].four, .faults = cases[i].fault, .seconds = 60 };
		struct end a, b;
		struct res r;
		int n8, np, nt, nc, v8, k;

		if (!selected(cases[i].name))
			continue;
		run_loop(cases[i].name, &c, &c, 0, &lp, &a, &b, &r);
		check_call(cases[i].name, &a, &b, &r, cases[i].four ? 28800 : 24000, 33600, 1);
		check_v34_phases(cases[i].name, "A", &a);
		v8 = phase_at(&b, SMDSP_PHASE_V8, &n8);
		phase_at(&b, SMDSP_PHASE_PROBING, &np);
		phase_at(&b, SMDSP_PHASE_TRAINING, &nt);
		k = phase_at(&b, SMDSP_PHASE_CONNECTED, &nc);
		CHECK(v8 >= 0 && n8 == 1 && np == 2 && nt == 2 && nc == 1 && k == v8 + 5 &&
		      b.phases[v8 + 1] == SMDSP_PHASE_PROBING && b.phases[v8 + 2] == SMDSP_PHASE_TRAINING &&
		      b.phases[v8 + 3] == SMDSP_PHASE_PROBING && b.phases[v8 + 4] == SMDSP_PHASE_TRAINING,
		      "%s: B's phases v8 at %d, probing x%d, training x%d, connected at %d", cases[i].name, v8, np,
		      nt, k);
		CHECK(b.m->v34->st.p3_left == 1 && a.m->v34->st.p3_left == 0, "%s: phase 3 left %u/%u",
		      cases[i].name, a.m->v34->st.p3_left, b.m->v34->st.p3_left);
		printf("RESULT name=%s connect=%.2f/%.2f rate=%u/%u\n", cases[i].name, a.connected_at / 8000.0,
		       b.connected_at / 8000.0, r.rate_a, r.rate_b);
		done(&a, &b);
	}
}

static void silent_after_v8(void)
{
	static const struct {
		const char *name;
		int silent;
	} cases[] = { { "v34_answerer_gone_after_v8", 1 }, { "v34_caller_gone_after_v8", 2 },
		      { "v34_answerer_noise_after_v8", 4 } };
	struct mcfg c = { V34_MODS, 1, 1, 0, 0, 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct loop lp = { .four_wire = true, .silent = cases[i].silent, .seconds = 40 };
		struct end a, b;
		struct res r;
		const struct end *left;
		long from;
		int hung, n;

		if (!selected(cases[i].name))
			continue;
		run_loop(cases[i].name, &c, &c, 0, &lp, &a, &b, &r);
		/* the end left on the line, and when the other went */
		left = &b;
		from = a.training_at;
		if (cases[i].silent != 2) {
			left = &a;
			from = b.training_at;
		}
		printf("RESULT name=%s hung_after=%.2f cause=%u v34_fail=%u\n", cases[i].name,
		       (left->hung_at - from) / 8000.0, left->hung_cause, left->st.v34_fail);
		CHECK(from > 0 && left->hung && left->hung_cause == SMDSP_CAUSE_TRAINING_FAILED &&
		      left->connected_at < 0 && left->st.v34_used && left->st.v34_fail == SMDSP_V34_FAIL_PHASE2,
		      "%s: hung %d cause %u V.34 fail %u", cases[i].name, left->hung, left->hung_cause,
		      left->st.v34_fail);
		CHECK(left->hung_at - from <= 8000 * 25, "%s: hung up %.1f s after", cases[i].name,
		      (left->hung_at - from) / 8000.0);
		/* phase 2 failed: the call ended from PROBING, never TRAINING */
		hung = phase_at(left, SMDSP_PHASE_HUNGUP, &n);
		CHECK(left->v34_at_probing == SMDSP_V34_PHASE2 && left->v34_at_training < 0 && hung >= 1 &&
		      left->phases[hung - 1] == SMDSP_PHASE_PROBING,
		      "%s: the hang-up (phase %d) from %d; V.34 %d at probing, %d at training", cases[i].name,
		      hung, hung >= 1 ? left->phases[hung - 1] : -1, left->v34_at_probing, left->v34_at_training);
		done(&a, &b);
	}
}

/*
 * The answerer stops in the data: the caller's carrier lost at once, then
 * its hang-up (carrier lost). With V.42 and without: in plain async, where
 * no FCS sorts the silence's decisions out, the caller's user gets a
 * prefix of what the answerer sent and not a character more (the decoder
 * loses the far frames' sync on the silence and v34.c, the level gone
 * too, fails the data mode at once).
 */
static void peer_vanishes(void)
{
	static const struct {
		const char *name;
		int v42;
	} cases[] = { { "v34_peer_vanishes", 1 }, { "v34_peer_vanishes_async", 0 } };
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		const char *name = cases[k].name;
		struct mcfg c = { V34_MODS, 1, cases[k].v42, 0, 0, 0 };
		struct loop lp = { .four_wire = true, .silent = 3, .seconds = 40 };
		struct end a, b;
		struct res r;
		long lost = -1;
		int i;

		if (!selected(name))
			continue;
		run_loop(name, &c, &c, 0, &lp, &a, &b, &r);
		for (i = 0; i + 1 < a.nphases; i++)
			if (a.phases[i] == SMDSP_PHASE_CARRIER_LOST && a.phases[i + 1] == SMDSP_PHASE_HUNGUP)
				lost = i;
		printf("RESULT name=%s connected=%.2f gone=%.2f hung_after=%.2f cause=%u v34_fail=%u junk=%zu\n",
		       name, a.connected_at / 8000.0, r.off_at / 8000.0, (a.hung_at - r.off_at) / 8000.0,
		       a.hung_cause, a.st.v34_fail, r.a_junk);
		CHECK(a.connected_at > 0 && a.first_rate >= 24000 && r.off_at > a.connected_at,
		      "%s: not connected (%u) before B went", name, a.first_rate);
		CHECK(lost >= 0, "%s: no carrier lost just before the hang-up", name);
		/* v34.c's second of bad decisions, and their average's time to fall */
		CHECK(a.hung_at - r.off_at <= 8000 * 2, "%s: hung up %.2f s after B went", name,
		      (a.hung_at - r.off_at) / 8000.0);
		CHECK(a.hung && a.hung_cause == SMDSP_CAUSE_CARRIER_LOST && a.st.v34_fail == SMDSP_V34_FAIL_LOST,
		      "%s: hung %d cause %u V.34 fail %u", name, a.hung, a.hung_cause, a.st.v34_fail);
		/* what B sent before it went, a prefix of its bytes, and nothing after */
		CHECK(r.a_got >= 1024 && r.a_junk == 0, "%s: %zu bytes of B's, then %zu of junk", name, r.a_got,
		      r.a_junk);
		done(&a, &b);
	}
}

/*
 * The driver's loop: an output lead of 2048 samples (a quarter of
 * ring_samples=8192) and a G.168 hybrid at each end (m3, ERL 10 dB); both
 * ends told the lead. No far echo: V.34 places its far window at phase 2's
 * round trip less our own latency, and the far end's lead (another 256 ms
 * here) is in that round trip too, where a hardware modem has a few ms.
 */
static void echo_behind_a_lead(void)
{
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -65, .echo_db = -300, .delay = 80, .seed = 7,
			       .hybrid = 3, .hybrid_erl_db = 10 };
	struct mcfg c = { V34_MODS, 1, 1, 0, 0, 0 };
	struct loop lp = { .lc = &lc, .lead = 2048, .echo_latency = 2048 };
	struct end a, b;
	struct res r;

	if (selected("v34_echo_lead_given")) {
		run_loop("v34_echo_lead_given", &c, &c, 0, &lp, &a, &b, &r);
		check_call("v34_echo_lead_given", &a, &b, &r, 24000, 33600, 1);
		CHECK(a.st.v34_state == SMDSP_V34_DATA && b.st.v34_state == SMDSP_V34_DATA,
		      "v34_echo_lead_given: states %u/%u", a.st.v34_state, b.st.v34_state);
		CHECK(a.st.echo_latency == 2048 && b.st.echo_latency == 2048 &&
		      a.st.echo_erle_db_q8 >= 20 * 256 && b.st.echo_erle_db_q8 >= 20 * 256,
		      "v34_echo_lead_given: latency %d/%d, ERLE %.1f/%.1f dB", a.st.echo_latency,
		      b.st.echo_latency, a.st.echo_erle_db_q8 / 256.0, b.st.echo_erle_db_q8 / 256.0);
		done(&a, &b);
	}
	if (selected("v34_echo_lead_grows")) {
		/* 300 samples more lead in the data: filled, V.34's symbols and its canceller in step */
		lp.grow_at = 1024;
		lp.grow = 300;
		run_loop("v34_echo_lead_grows", &c, &c, 0, &lp, &a, &b, &r);
		check_call("v34_echo_lead_grows", &a, &b, &r, 24000, 33600, 1);
		CHECK(a.st.v42.retransmissions <= 2 && b.st.v42.retransmissions <= 2,
		      "v34_echo_lead_grows: retransmissions %u/%u", a.st.v42.retransmissions,
		      b.st.v42.retransmissions);
		done(&a, &b);
	}
}

/* +MS's limits at configure: V.34's rates reach 33600, no further. */
static void configure_limits(void)
{
	struct smdsp_modem_config c = { .sample_rate = 8000, .modulations = SMDSP_MODEM_V34 };
	struct smdsp_modem *m;

	if (!selected("configure"))
		return;
	m = smdsp_modem_create(&c);
	CHECK(m != NULL, "create");
	if (!m)
		return;
	c.max_rate = 33600;
	CHECK(smdsp_modem_configure(m, &c) == 0, "max_rate 33600 refused");
	c.max_rate = 33601;
	CHECK(smdsp_modem_configure(m, &c) == -EINVAL, "max_rate 33601 taken");
	c.max_rate = 19200;
	c.min_rate = 21600;
	CHECK(smdsp_modem_configure(m, &c) == -EINVAL, "min_rate over max_rate taken");
	smdsp_modem_free(m);
}

/*
 * Two calls on the same engines: a 4-wire V.34 call, both hang up, then a
 * 2-wire one with V.42bis and a lower max_rate (V.34's object configured
 * again in place): the second as good as a first.
 */
static void second_call(void)
{
	struct mcfg c1 = { V34_MODS, 1, 1, 0, 0, 0 };
	struct mcfg c2 = { V34_MODS, 1, 1, SMDSP_V42BIS_DIR_BOTH, 0, 24000 };
	struct loop lp = { .four_wire = true };
	struct smdsp_modem_event ev;
	struct end a, b;
	struct res r;

	if (!selected("v34_second_call"))
		return;
	run_loop("v34_second_call_1", &c1, &c1, 0, &lp, &a, &b, &r);
	check_call("v34_second_call_1", &a, &b, &r, 24000, 33600, 1);
	smdsp_modem_hangup(a.m);
	smdsp_modem_hangup(b.m);
	/* the first call's last events (its hang-up) are not the second's */
	while (smdsp_modem_get_event(a.m, &ev) || smdsp_modem_get_event(b.m, &ev))
		;
	lp.four_wire = false;
	lp.reuse = true;
	run_loop("v34_second_call_2", &c2, &c2, 0, &lp, &a, &b, &r);
	check_call("v34_second_call_2", &a, &b, &r, 2400, 24000, 1);
	check_v34("v34_second_call_2", &a, &b, 80);
	CHECK(a.st.echo_latency == BLK && b.st.echo_latency == BLK &&
	      a.st.v42.v42bis_dirs == SMDSP_V42BIS_DIR_BOTH, "v34_second_call_2: latency %d/%d, V.42bis %u",
	      a.st.echo_latency, b.st.echo_latency, a.st.v42.v42bis_dirs);
	done(&a, &b);
}

/*
 * smdsp_v34_configure(): create's checks, 2-wire only on an object made
 * 2-wire, the new configuration taken with a reset, a refused one changing
 * nothing.
 */
static void v34_configure(void)
{
	struct smdsp_v34_phase2_config p;
	struct smdsp_v34_config c;
	struct smdsp_v34_stats st;
	struct smdsp_v34 *four, *two;
	int16_t rx[80] = { 0 }, tx[80];
	char line[200];

	if (!selected("configure"))
		return;
	smdsp_v34_phase2_default_config(&p);
	memset(&c, 0, sizeof(c));
	c.level_dbm0_10 = -130;
	c.far_level_dbm0_10 = p.far_level_dbm0_10;
	c.info0 = p.info0;
	four = smdsp_v34_create(&c);
	c.two_wire = true;
	c.echo_latency = 100;
	two = smdsp_v34_create(&c);
	CHECK(four && two, "create");
	if (!four || !two)
		return;
	CHECK(smdsp_v34_configure(four, &c) == -EINVAL, "2-wire taken by a 4-wire object");
	smdsp_v34_process(two, rx, tx, 80);
	c.calling = true;
	c.max_rate = 19200;
	CHECK(smdsp_v34_configure(two, &c) == 0, "2-wire refused by a 2-wire object");
	smdsp_v34_get_stats(two, &st);
	smdsp_v34_print(two, line, sizeof(line));
	CHECK(st.now == 0 && smdsp_v34_state(two) == SMDSP_V34_PHASE2 && strstr(line, "v34 call "),
	      "not reset to a call modem: %s", line);
	c.two_wire = false;
	CHECK(smdsp_v34_configure(two, &c) == 0, "4-wire refused by a 2-wire object");
	c.max_rate = 20000;
	CHECK(smdsp_v34_configure(two, &c) == -EINVAL, "max_rate 20000 taken");
	c.max_rate = 0;
	c.level_dbm0_10 = -50;
	CHECK(smdsp_v34_configure(two, &c) == -EINVAL, "level -5 dBm0 taken");
	c.level_dbm0_10 = -130;
	c.echo_latency = -1;
	CHECK(smdsp_v34_configure(two, &c) == -EINVAL, "latency -1 taken");
	CHECK(smdsp_v34_configure(NULL, &c) == -EINVAL && smdsp_v34_configure(two, NULL) == -EINVAL, "NULL");
	smdsp_v34_print(two, line, sizeof(line));
	CHECK(strstr(line, "v34 call ") != NULL, "a refused configuration changed it: %s", line);
	smdsp_v34_free(four);
	smdsp_v34_free(two);
}

/*
 * A long call (60 s of line time, or --long=SECONDS): V.34's only clock is
 * the sample count, cut here into the driver's 100-sample periods, which no
 * symbol rate divides (3429 baud: 42.86 symbols a period). Data both ways
 * all along (a byte stream each way, checked as it comes), on a 2-wire line
 * whose far clock runs 50 ppm fast. What must not drift: each transmitter's
 * bits against its line time (exactly the rate's, a data frame's worth at
 * most apart), and what is in flight between a transmitter and the far
 * receiver (the same 15 s into the data as at the end: no growing lead).
 * And the receivers' error at the end within 2 dB of what it was 15 s into
 * the data: an echo canceller whose taps gather the far signal's noise as
 * it tracks, or an equaliser sliding off its span behind the clocks'
 * offset, loses it steadily (it fell 5 dB in 80 s, doc/v34.md). The
 * benchmark's 10-minute form (--long=600) prints the error as it goes.
 */
static unsigned long long_s = 60;
/* --long=SECONDS: the benchmark's form, figures printed as it goes, not judged */
static bool bench;

struct stream {
	uint64_t tx_seed, rx_seed;	/* what we send, what the far end sends */
	uint64_t sent, got, bad;
};

static uint8_t stream_byte(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint8_t)(*seed >> 56);
}

static void long_block(struct smdsp_modem *m, struct stream *st, const int16_t *rx, int16_t *tx)
{
	struct smdsp_modem_event ev;
	uint8_t buf[512];
	unsigned int i, n;

	CHECK(smdsp_modem_process(m, rx, tx, BLK) == 0, "process");
	while (smdsp_modem_get_event(m, &ev))
		;
	if (smdsp_modem_phase(m) == SMDSP_PHASE_CONNECTED) {
		uint64_t seed = st->tx_seed;

		for (i = 0; i < sizeof(buf); i++)
			buf[i] = stream_byte(&seed);
		n = smdsp_modem_write(m, buf, sizeof(buf));
		for (i = 0; i < n; i++)
			stream_byte(&st->tx_seed);
		st->sent += n;
	}
	while ((n = smdsp_modem_read(m, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			st->bad += buf[i] != stream_byte(&st->rx_seed);
		st->got += n;
	}
}

/* bits a transmitter sent against its line time since its data began, and in flight to the far end */
static void long_mark(const struct smdsp_modem_stats *a, const struct smdsp_modem_stats *b, long long *dev_a,
		      long long *dev_b, long long *fly_ab, long long *fly_ba)
{
	*dev_a = (long long)a->v34.bits_sent -
		 (long long)((uint64_t)(a->v34.now - a->v34.tx_data_at) * a->tx_rate / 8000);
	*dev_b = (long long)b->v34.bits_sent -
		 (long long)((uint64_t)(b->v34.now - b->v34.tx_data_at) * b->tx_rate / 8000);
	*fly_ab = (long long)a->v34.bits_sent - (long long)b->v34.bits_received;
	*fly_ba = (long long)b->v34.bits_sent - (long long)a->v34.bits_received;
}

static void long_call(void)
{
	static const struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -65, .echo_db = -300, .delay = 160,
					    .ppm = 50, .seed = 17, .hybrid = 3, .hybrid_erl_db = 10 };
	static const struct mcfg mc = { V34_MODS, 1, 1, 0, 0, 0 };
	struct line *l;
	struct end *a, *b;
	struct stream sa = { 101, 202, 0, 0, 0 }, sb = { 202, 101, 0, 0, 0 };
	struct smdsp_modem_stats as, bs;
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	long long d_a, d_b, f_ab, f_ba, f_ab1 = 0, f_ba1 = 0;
	long now, end = (long)long_s * 8000, mark = -1, data_at = -1;
	int mse_a = 0, mse_b = 0;
	unsigned int rate_a = 0, rate_b = 0;
	double t0 = cpu_s();

	if (!selected("v34_long"))
		return;
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	l = line_create(&lc);
	if (!a || !b || !l) {
		printf("FAIL no memory\n");
		exit(1);
	}
	end_init(a, 1, &mc, 11, 0, false, false);
	end_init(b, 0, &mc, 22, 0, false, false);
	for (now = 0; now < end && !a->hung && !b->hung; now += BLK) {
		long_block(a->m, &sa, ar, at);
		long_block(b->m, &sb, br, bt);
		line_process(l, at, ar, bt, br, BLK);
		if (!rate_a && smdsp_modem_phase(a->m) == SMDSP_PHASE_CONNECTED &&
		    smdsp_modem_phase(b->m) == SMDSP_PHASE_CONNECTED) {
			rate_a = smdsp_modem_rate(a->m);
			rate_b = smdsp_modem_rate(b->m);
			/* 15 s of data on, the in-flight bits to compare the end's with */
			mark = now + 15 * 8000;
			data_at = now;
		}
		if (now == mark) {
			smdsp_modem_get_stats(a->m, &as);
			smdsp_modem_get_stats(b->m, &bs);
			long_mark(&as, &bs, &d_a, &d_b, &f_ab1, &f_ba1);
			mse_a = as.v34_mse_db10;
			mse_b = bs.v34_mse_db10;
		}
		if (bench && now % (30 * 8000) == 0 && rate_a) {
			smdsp_modem_get_stats(a->m, &as);
			smdsp_modem_get_stats(b->m, &bs);
			printf("v34_long: %4ld s: receivers' error %d.%d/%d.%d dB, rates %u/%u, renegotiations %u/%u\n",
			       now / 8000, as.v34_mse_db10 / 10, as.v34_mse_db10 % 10, bs.v34_mse_db10 / 10,
			       bs.v34_mse_db10 % 10, as.rx_rate, bs.rx_rate, as.v34.renegs, bs.v34.renegs);
		}
		a->hung = smdsp_modem_phase(a->m) == SMDSP_PHASE_ONHOOK && rate_a;
		b->hung = smdsp_modem_phase(b->m) == SMDSP_PHASE_ONHOOK && rate_b;
	}
	smdsp_modem_get_stats(a->m, &as);
	smdsp_modem_get_stats(b->m, &bs);
	long_mark(&as, &bs, &d_a, &d_b, &f_ab, &f_ba);
	printf("v34_long: %lu s of line (%.2f s of CPU), %u/%u bit/s; ", long_s, cpu_s() - t0, rate_a, rate_b);
	printf("bytes A->B %llu sent %llu got %llu bad, ", (unsigned long long)sa.sent,
	       (unsigned long long)sb.got, (unsigned long long)sb.bad);
	printf("B->A %llu sent %llu got %llu bad; ", (unsigned long long)sb.sent, (unsigned long long)sa.got,
	       (unsigned long long)sa.bad);
	printf("retransmissions %u/%u; bits sent against line time %+lld/%+lld; ", as.v42.retransmissions,
	       bs.v42.retransmissions, d_a, d_b);
	printf("in flight A->B %lld -> %lld, B->A %lld -> %lld; receivers' error %.1f/%.1f -> %.1f/%.1f dB (15 s in -> the end)\n",
	       f_ab1, f_ab, f_ba1, f_ba, mse_a / 10.0, mse_b / 10.0, as.v34_mse_db10 / 10.0, bs.v34_mse_db10 / 10.0);
	if (bench)
		goto out;
	CHECK(rate_a >= 28800 && rate_b >= 28800 && !a->hung && !b->hung, "v34_long: rates %u/%u, hung %d/%d",
	      rate_a, rate_b, a->hung, b->hung);
	CHECK(smdsp_modem_rate(a->m) == rate_a && smdsp_modem_rate(b->m) == rate_b &&
	      as.v34.renegs == 0 && as.v34.retrains == 0, "v34_long: the rate moved: %u/%u, %u renegotiations",
	      smdsp_modem_rate(a->m), smdsp_modem_rate(b->m), as.v34.renegs);
	/* the stream whole both ways, and nearly all of the line's rate used */
	CHECK(sa.bad == 0 && sb.bad == 0 && sb.got + 16384 >= sa.sent && sa.got + 16384 >= sb.sent,
	      "v34_long: bytes lost or wrong");
	CHECK(data_at >= 0 && sb.got * 8 > (uint64_t)rate_a * (uint64_t)(end - data_at) / 8000 * 8 / 10,
	      "v34_long: only %llu bytes A->B", (unsigned long long)sb.got);
	/* each transmitter's bits exactly its rate's over its line time (a data frame, 13 mapping frames, at most apart) */
	CHECK(llabs(d_a) <= 13 * 8 * 18 && llabs(d_b) <= 13 * 8 * 18, "v34_long: bits against line time %+lld/%+lld",
	      d_a, d_b);
	/* in flight: the line's delay, the far receiver's and the decoder's, the same at the end as a minute in */
	CHECK(mark >= 0 && f_ab > 0 && f_ba > 0 && llabs(f_ab - f_ab1) <= 2 * 8 * 18 && llabs(f_ba - f_ba1) <= 2 * 8 * 18,
	      "v34_long: in flight %lld -> %lld, %lld -> %lld", f_ab1, f_ab, f_ba1, f_ba);
	/*
	 * the receivers' error held: at the end no more than 2 dB worse than
	 * 15 s into the data (an error still improving then is no loss: since
	 * the caller's answer tone detector hears through a notch on its own
	 * CI, whose echo this line's hybrids return, the call starts a little
	 * differently and went 40.9/41.6 -> 43.0/41.9 dB, where it had gone
	 * 41.8/42.2 -> 43.0/42.0)
	 */
	CHECK(mark >= 0 && mse_a > 0 && mse_b > 0 && as.v34_mse_db10 >= mse_a - 20 &&
	      bs.v34_mse_db10 >= mse_b - 20, "v34_long: receivers' error %d/%d -> %d/%d (tenths of dB)",
	      mse_a, mse_b, as.v34_mse_db10, bs.v34_mse_db10);
out:
	line_free(l);
	smdsp_modem_free(a->m);
	smdsp_modem_free(b->m);
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--long=", 7)) {
			long_s = strtoul(argv[i] + 7, NULL, 10);
			bench = true;
			filter = "v34_long";
		} else {
			filter = argv[i];
		}
	}
	configure_limits();
	v34_configure();
	clean_calls();
	v32bis_peer();
	min_rate_refused();
	silent_after_v8();
	info1a_missed();
	peer_vanishes();
	echo_behind_a_lead();
	second_call();
	long_call();
	return t_report("test_modem_v34");
}
