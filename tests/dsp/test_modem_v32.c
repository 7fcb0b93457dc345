/*
 * V.32bis through the engine (smdsp_modem_*, dsp/modem.c at both ends),
 * back to back over the in-memory line (no echo: the echo canceller is
 * another block's), 160-sample blocks at 8 kHz, 4 KiB of random bytes each
 * way compared byte by byte:
 * - after V.8 (V.8's V.32 mode chosen by both) and without V.8 (the answer
 *   tone, then V.32bis's automode: AC, AA), with V.42 and with V.42bis:
 *   CONNECT at 14400 both ways;
 * - the rates offered: a caller limited to 9600 (max_rate), an answerer
 *   with V.32 only (4800, 9600), a caller whose min_rate no rate of the
 *   answerer's meets (training fails, both hang up);
 * - fallback to V.22bis against a peer without V.32bis, either role, with
 *   and without V.8: 2400 intact;
 * - a line that gets worse in the data (noise from the first KiB on): a
 *   rate renegotiation (no retrain), CONNECTED again at a lower rate, the
 *   data still intact through V.42;
 * - a peer that goes silent in the data: carrier lost at once, hang-up
 *   after carrier_loss_ms (1.4 s), cause carrier lost;
 * - a 2-wire line (a G.168 hybrid at each end) behind an I/O loop whose
 *   output lead is far longer than a block, as the driver's ring has:
 *   given that lead (echo_latency), each engine's canceller cancels its
 *   echo and the call runs at 14400 intact, also when the lead grows in
 *   the data (smdsp_modem_tx_fill()); an echo further back than the lead
 *   (an audio path beyond the ring) is found at the start-up's tones and
 *   cancelled there; four_wire leaves the canceller off; a line without
 *   echo leaves the latency where it was (no echo found).
 * Every case prints one "RESULT" line.
 * Usage: test_modem_v32 [name-substring]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/modem.h>
#include "check.h"
#include "tutil.h"
#include "line.h"
#include "chars.h"

#define BLK	160
#define NB	4096
#define MAXPH	64

static const char *const pname[] = { "onhook", "offhook", "dialing", "waiting", "answer-tone", "v8",
				     "training", "connected", "retrain", "carrier-lost", "hungup", "probing" };

struct end {
	struct smdsp_modem *m;
	int caller;
	uint8_t out[NB];
	size_t nout;
	uint8_t in[NB + 2048];
	size_t nin;
	int phases[MAXPH];
	uint32_t args[MAXPH];
	int nphases;
	unsigned int first_rate;	/* the first CONNECTED's rate */
	unsigned int retrains;		/* RETRAIN phases */
	unsigned int rate_changes;	/* CONNECTED again at another rate, without a RETRAIN before */
	int v42_ev;
	int v8_ev;
	long connected_at;
	int hung;
	uint32_t hung_cause;
	struct smdsp_modem_stats st;
};

struct mcfg {
	uint32_t mods;
	int v8, v42;
	unsigned int bis_dirs;
	unsigned int min_rate, max_rate;
};

/* lat, four: the configuration's echo_latency and four_wire */
static void end_init(struct end *e, int caller, const struct mcfg *mc, uint64_t seed, unsigned int lat,
		     bool four)
{
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
	e->m = smdsp_modem_create(&c);
	if (!e->m) {
		printf("FAIL smdsp_modem_create\n");
		exit(1);
	}
	e->caller = caller;
	e->v42_ev = -1;
	e->v8_ev = -1;
	e->connected_at = -1;
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
			if (ev.phase == SMDSP_PHASE_CONNECTED && e->connected_at >= 0 && e->nphases >= 2 &&
			    e->phases[e->nphases - 2] == SMDSP_PHASE_CONNECTED && ev.arg != e->args[e->nphases - 2])
				e->rate_changes++;
			if (ev.phase == SMDSP_PHASE_CONNECTED && e->connected_at < 0) {
				e->connected_at = now + BLK;
				e->first_rate = ev.arg;
			}
			if (ev.phase == SMDSP_PHASE_RETRAIN)
				e->retrains++;
			if (ev.phase == SMDSP_PHASE_HUNGUP) {
				e->hung = 1;
				e->hung_cause = ev.arg;
			}
		} else if (ev.type == SMDSP_EV_V42) {
			e->v42_ev = (int)ev.arg;
		} else if (ev.type == SMDSP_EV_V8) {
			e->v8_ev = (int)ev.arg;
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
};

static const char *filter;

/*
 * The I/O loop of a driver whose output is written lead samples after the
 * input it answers: what an end sends reaches the line lead - BLK samples
 * later than it would in this test's own loop (a block). grow_at: once A
 * has received that many bytes, the lead grows by grow samples, which
 * smdsp_modem_tx_fill() fills, as the driver's core does.
 */
#define LEAD_MAX 8192

struct lead {
	int16_t q[LEAD_MAX];
	unsigned int head, len;		/* what the line has still to take */
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
	const struct line_cfg *lc;	/* NULL: 6 dB of loss, no echo */
	unsigned int lead;		/* 0 or BLK: this test's own loop */
	size_t grow_at;
	unsigned int grow;
	unsigned int echo_latency;	/* both ends' configuration */
	bool four_wire;
};

/*
 * A calls B over a line with loss_db of loss each way; noise_dbm0 (> -200)
 * is added at both receivers once A has received 1 KiB. both_hang: the
 * call goes on until both ends have hung up. lp: the line and the loop
 * (NULL: the plain line, no lead).
 */
static void run_loop(const char *name, const struct mcfg *ca, const struct mcfg *cb, double noise_dbm0,
		     int both_hang, const struct loop *lp, struct end *a, struct end *b, struct res *r)
{
	struct line_cfg plain = { .loss_db = 6, .noise_dbm0 = -300, .echo_db = -300, .delay = 80,
				  .seed = 7 };
	struct line *l = line_create(lp && lp->lc ? lp->lc : &plain);
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 }, fill[LEAD_MAX];
	static struct lead la, lb;
	double rms = 32767.0 * pow(10, (noise_dbm0 - 3.14) / 20) / sqrt(2);
	uint64_t nseed = 99;
	size_t last_a = 0, last_b = 0;
	long now, idle = 0;
	int j, noisy = 0, grown = 0;

	memset(r, 0, sizeof(*r));
	memset(&la, 0, sizeof(la));
	memset(&lb, 0, sizeof(lb));
	if (lp && lp->lead > BLK) {
		memset(fill, 0, sizeof(fill));
		lead_push(&la, fill, lp->lead - BLK);
		lead_push(&lb, fill, lp->lead - BLK);
	}
	end_init(a, 1, ca, 11, lp ? lp->echo_latency : 0, lp && lp->four_wire);
	end_init(b, 0, cb, 22, lp ? lp->echo_latency : 0, lp && lp->four_wire);
	for (now = 0; now < 8000L * 60; now += BLK) {
		if (lp && lp->grow && !grown && a->nin >= lp->grow_at) {
			smdsp_modem_tx_fill(a->m, fill, lp->grow);
			lead_push(&la, fill, lp->grow);
			smdsp_modem_tx_fill(b->m, fill, lp->grow);
			lead_push(&lb, fill, lp->grow);
			grown = 1;
		}
		end_block(a, ar, at, now);
		end_block(b, br, bt, now);
		lead_push(&la, at, BLK);
		lead_pop(&la, at, BLK);
		lead_push(&lb, bt, BLK);
		lead_pop(&lb, bt, BLK);
		line_process(l, at, ar, bt, br, BLK);
		if (noise_dbm0 > -200 && a->nin >= 1024)
			noisy = 1;
		for (j = 0; noisy && j < BLK; j++) {
			ar[j] = t_sat16(ar[j] + rms * t_gauss(&nseed));
			br[j] = t_sat16(br[j] + rms * t_gauss(&nseed));
		}
		if ((a->nin >= NB && b->nin >= NB) || (a->hung && b->hung))
			break;
		/* a hang-up ends the call, unless both are to hang up */
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
	r->secs = now / 8000.0;
	smdsp_modem_get_stats(a->m, &a->st);
	smdsp_modem_get_stats(b->m, &b->st);
	r->a_got = match_data(b->out, NB, a->in, a->nin, &r->a_junk);
	r->b_got = match_data(a->out, NB, b->in, b->nin, &r->b_junk);
	r->rate_a = smdsp_modem_rate(a->m);
	r->rate_b = smdsp_modem_rate(b->m);
	printf("%s: A received %zu bytes, B %zu, in %.1f s\n", name, a->nin, b->nin, r->secs);
	print_phases("A", a);
	print_phases("B", b);
	printf("RESULT name=%s rate=%u/%u first=%u/%u got=%zu/%zu junk=%zu/%zu connect=%.2f/%.2f "
	       "v42ev=%d/%d v8=%#x/%#x retrains=%u/%u retx=%u/%u hung=%d/%d secs=%.1f\n",
	       name, r->rate_a, r->rate_b, a->first_rate, b->first_rate, r->a_got, r->b_got, r->a_junk,
	       r->b_junk, a->connected_at / 8000.0, b->connected_at / 8000.0, a->v42_ev, b->v42_ev,
	       a->st.v8.selected, b->st.v8.selected, a->retrains, b->retrains,
	       a->st.v42.retransmissions, b->st.v42.retransmissions, a->hung, b->hung, r->secs);
	printf("RESULT name=%s echo_latency=%d/%d erle_db=%.1f/%.1f\n", name, a->st.echo_latency,
	       b->st.echo_latency, a->st.echo_erle_db_q8 / 256.0, b->st.echo_erle_db_q8 / 256.0);
	line_free(l);
}

static void run(const char *name, const struct mcfg *ca, const struct mcfg *cb, double noise_dbm0,
		int both_hang, struct end *a, struct end *b, struct res *r)
{
	run_loop(name, ca, cb, noise_dbm0, both_hang, NULL, a, b, r);
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

#define ALL_MODS (SMDSP_MODEM_V21 | SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS | SMDSP_MODEM_V32BIS)

/* Both ends at rate, 4 KiB each way intact, V.42 up (or plain async), nobody hung up. */
static void check_call(const char *name, const struct end *a, const struct end *b, const struct res *r,
		       unsigned int rate, int v42)
{
	CHECK(r->a_got == NB && r->b_got == NB && !r->a_junk && !r->b_junk,
	      "%s: intact %zu/%zu, junk %zu/%zu", name, r->a_got, r->b_got, r->a_junk, r->b_junk);
	CHECK(r->rate_a == rate && r->rate_b == rate && a->first_rate == rate && b->first_rate == rate,
	      "%s: rates %u/%u (first %u/%u), want %u", name, r->rate_a, r->rate_b, a->first_rate,
	      b->first_rate, rate);
	CHECK(!a->hung && !b->hung, "%s: hung up (%u/%u)", name, a->hung_cause, b->hung_cause);
	if (v42)
		CHECK(a->v42_ev == 1 && b->v42_ev == 1 && a->st.link == SMDSP_LINK_V42 &&
		      b->st.link == SMDSP_LINK_V42, "%s: V.42 %d/%d", name, a->v42_ev, b->v42_ev);
	else
		CHECK(a->st.link == SMDSP_LINK_ASYNC && b->st.link == SMDSP_LINK_ASYNC, "%s: async", name);
	CHECK(!a->retrains && !b->retrains, "%s: retrains %u/%u on a clean line", name, a->retrains,
	      b->retrains);
}

static void clean_calls(void)
{
	static const struct {
		const char *name;
		struct mcfg a, b;
		unsigned int rate;
		unsigned int v8_mode;	/* V.8's choice, 0: no V.8 */
	} cases[] = {
		{ "v8_v42_14400", { ALL_MODS, 1, 1, 0, 0, 0 }, { ALL_MODS, 1, 1, 0, 0, 0 }, 14400,
		  SMDSP_V8_MOD_V32 },
		{ "automode_v42_14400", { ALL_MODS, 0, 1, 0, 0, 0 }, { ALL_MODS, 0, 1, 0, 0, 0 }, 14400, 0 },
		{ "v8_v42bis_14400", { ALL_MODS, 1, 1, SMDSP_V42BIS_DIR_BOTH, 0, 0 },
		  { ALL_MODS, 1, 1, SMDSP_V42BIS_DIR_BOTH, 0, 0 }, 14400, SMDSP_V8_MOD_V32 },
		{ "automode_async_14400", { ALL_MODS, 0, 0, 0, 0, 0 }, { ALL_MODS, 0, 0, 0, 0, 0 }, 14400, 0 },
		{ "caller_max_9600", { ALL_MODS, 1, 1, 0, 0, 9600 }, { ALL_MODS, 1, 1, 0, 0, 0 }, 9600,
		  SMDSP_V8_MOD_V32 },
		{ "answerer_v32_only", { ALL_MODS, 0, 1, 0, 0, 0 },
		  { SMDSP_MODEM_V32 | SMDSP_MODEM_V22BIS, 0, 1, 0, 0, 0 }, 9600, 0 },
		{ "answerer_12000_max", { ALL_MODS, 0, 1, 0, 7200, 0 }, { ALL_MODS, 0, 1, 0, 0, 12000 }, 12000,
		  0 },
		/* fallback to V.22bis: a peer without V.32bis */
		{ "fallback_v8_answerer_v22bis", { ALL_MODS, 1, 1, 0, 0, 0 },
		  { SMDSP_MODEM_DEFAULT, 1, 1, 0, 0, 0 }, 2400, SMDSP_V8_MOD_V22 },
		{ "fallback_answerer_v22bis", { ALL_MODS, 0, 1, 0, 0, 0 },
		  { SMDSP_MODEM_DEFAULT, 0, 1, 0, 0, 0 }, 2400, 0 },
		{ "fallback_caller_v22bis", { SMDSP_MODEM_DEFAULT, 0, 1, 0, 0, 0 },
		  { ALL_MODS, 0, 1, 0, 0, 0 }, 2400, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct end a, b;
		struct res r;

		if (!selected(cases[i].name))
			continue;
		run(cases[i].name, &cases[i].a, &cases[i].b, -300, 0, &a, &b, &r);
		check_call(cases[i].name, &a, &b, &r, cases[i].rate, cases[i].a.v42);
		if (cases[i].v8_mode)
			CHECK(a.st.v8_used && b.st.v8_used && a.st.v8.selected == cases[i].v8_mode &&
			      b.st.v8.selected == cases[i].v8_mode, "%s: V.8 chose %#x/%#x", cases[i].name,
			      a.st.v8.selected, b.st.v8.selected);
		else
			CHECK(!a.st.v8_used && !b.st.v8_used, "%s: V.8 ran", cases[i].name);
		if (cases[i].a.bis_dirs)
			CHECK(a.st.v42.v42bis_dirs == cases[i].a.bis_dirs &&
			      b.st.v42.v42bis_dirs == cases[i].a.bis_dirs, "%s: V.42bis %u/%u", cases[i].name,
			      a.st.v42.v42bis_dirs, b.st.v42.v42bis_dirs);
		if (cases[i].rate == 14400)
			/* 4 KiB and LAPM's overhead at 14400: a V.22bis call needs about 17 s */
			CHECK(r.secs < 14, "%s: %.1f s", cases[i].name, r.secs);
		if (cases[i].rate >= 9600)
			/* 2-wire by default, at the period; no echo on this line, none found */
			CHECK(a.st.echo_latency == BLK && b.st.echo_latency == BLK,
			      "%s: echo latency %d/%d", cases[i].name, a.st.echo_latency,
			      b.st.echo_latency);
		done(&a, &b);
	}
}

/* No rate both ends offer: training fails, both hang up. */
static void no_common_rate(void)
{
	const char *name = "no_common_rate";
	struct mcfg ca = { ALL_MODS, 1, 1, 0, 12000, 0 };
	struct mcfg cb = { ALL_MODS, 1, 1, 0, 0, 9600 };
	struct end a, b;
	struct res r;

	if (!selected(name))
		return;
	run(name, &ca, &cb, -300, 1, &a, &b, &r);
	CHECK(a.hung && b.hung && a.hung_cause == SMDSP_CAUSE_TRAINING_FAILED &&
	      b.hung_cause == SMDSP_CAUSE_TRAINING_FAILED && a.connected_at < 0 && b.connected_at < 0,
	      "%s: hung %d/%d causes %u/%u", name, a.hung, b.hung, a.hung_cause, b.hung_cause);
	done(&a, &b);
}

/*
 * The line gets worse in the data: a rate renegotiation (V.32bis's, no
 * retrain), CONNECTED again at a lower rate, V.42 keeps the data intact.
 */
static void worse_line(void)
{
	const char *name = "worse_line_reneg";
	struct mcfg c = { ALL_MODS, 1, 1, 0, 0, 0 };
	/*
	 * The line has no echo: 4-wire ends, as before the cancellers (2-wire,
	 * their longer start-up leaves 4 KiB done before 1 s of low SNR has
	 * passed; with 16 KiB they retrain to 9600 alike).
	 */
	struct loop four = { NULL, 0, 0, 0, 0, true };
	struct end a, b;
	struct res r;

	if (!selected(name))
		return;
	/* the signal at -19 dBm0 after the loss: an SNR of 21 dB */
	run_loop(name, &c, &c, -40, 0, &four, &a, &b, &r);
	CHECK(r.a_got == NB && r.b_got == NB && !r.a_junk && !r.b_junk, "%s: intact %zu/%zu", name,
	      r.a_got, r.b_got);
	CHECK(a.first_rate == 14400 && b.first_rate == 14400, "%s: first %u/%u", name, a.first_rate,
	      b.first_rate);
	CHECK(!a.retrains && !b.retrains && a.rate_changes >= 1 && b.rate_changes >= 1,
	      "%s: retrains %u/%u, rate changes %u/%u", name, a.retrains, b.retrains, a.rate_changes,
	      b.rate_changes);
	CHECK(r.rate_a == r.rate_b && r.rate_a >= 4800 && r.rate_a < 14400, "%s: rates after %u/%u", name,
	      r.rate_a, r.rate_b);
	CHECK(!a.hung && !b.hung, "%s: hung up (%u/%u)", name, a.hung_cause, b.hung_cause);
	done(&a, &b);
}

/*
 * The answerer goes silent in the data (its processing stopped): the caller
 * reports the carrier lost at once and hangs up after carrier_loss_ms.
 */
static void peer_vanishes(void)
{
	const char *name = "peer_vanishes";
	struct mcfg c = { ALL_MODS, 1, 1, 0, 0, 0 };
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -300, .echo_db = -300, .delay = 80,
			       .seed = 7 };
	struct line *l;
	struct end a, b;
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	long now, gone = -1, lost = -1;
	int i;

	if (!selected(name))
		return;
	l = line_create(&lc);
	end_init(&a, 1, &c, 11, 0, false);
	end_init(&b, 0, &c, 22, 0, false);
	for (now = 0; now < 8000L * 40 && !a.hung; now += BLK) {
		end_block(&a, ar, at, now);
		if (gone < 0) {
			end_block(&b, br, bt, now);
			if (a.nin >= 1024)
				gone = now;
		} else {
			memset(bt, 0, sizeof(bt));
		}
		line_process(l, at, ar, bt, br, BLK);
		for (i = 0; lost < 0 && i < a.nphases; i++)
			if (a.phases[i] == SMDSP_PHASE_CARRIER_LOST)
				lost = now;
	}
	print_phases("A", &a);
	printf("RESULT name=%s gone=%.2f lost_ms=%.0f hung_ms=%.0f cause=%u\n", name, gone / 8000.0,
	       (lost - gone) / 8.0, (now - gone) / 8.0, a.hung_cause);
	CHECK(gone > 0 && a.first_rate == 14400, "%s: not connected at 14400 (%u)", name, a.first_rate);
	CHECK(lost >= gone && lost - gone <= 8 * 300, "%s: carrier lost %.0f ms after", name,
	      (lost - gone) / 8.0);
	CHECK(a.hung && a.hung_cause == SMDSP_CAUSE_CARRIER_LOST && now - gone >= 8 * 1400 &&
	      now - gone <= 8 * 2000, "%s: hung %d cause %u after %.0f ms", name, a.hung,
	      a.hung_cause, (now - gone) / 8.0);
	done(&a, &b);
	line_free(l);
}

/*
 * The driver's loop: a ring's output lead (2048 samples: a quarter of
 * ring_samples=8192) and a hybrid at each end (G.168 m3 at an ERL of 10 dB:
 * a residual echo 10 dB under the far signal after 6 dB of loss, which
 * 14400 cannot run at), no far echo.
 */
static void echo_behind_a_lead(void)
{
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300, .delay = 80,
			       .seed = 7, .hybrid = 3, .hybrid_erl_db = 10 };
	struct mcfg c = { ALL_MODS, 0, 1, 0, 0, 0 };
	struct loop lp = { &lc, 2048, 0, 0, 2048, false };
	struct line_cfg clean = lc;
	struct end a, b;
	struct res r;

	if (selected("echo_lead_given")) {
		run_loop("echo_lead_given", &c, &c, -300, 0, &lp, &a, &b, &r);
		check_call("echo_lead_given", &a, &b, &r, 14400, 1);
		CHECK(a.st.echo_latency == 2048 && b.st.echo_latency == 2048,
		      "echo_lead_given: the canceller's latency %d/%d, want 2048", a.st.echo_latency,
		      b.st.echo_latency);
		CHECK(a.st.echo_erle_db_q8 >= 20 * 256 && b.st.echo_erle_db_q8 >= 20 * 256,
		      "echo_lead_given: ERLE %.1f/%.1f dB", a.st.echo_erle_db_q8 / 256.0,
		      b.st.echo_erle_db_q8 / 256.0);
		done(&a, &b);
	}
	if (selected("echo_lead_grows")) {
		/* 300 samples more lead in the data: filled, the canceller's line keeps step */
		lp.grow_at = 1024;
		lp.grow = 300;
		run_loop("echo_lead_grows", &c, &c, -300, 0, &lp, &a, &b, &r);
		check_call("echo_lead_grows", &a, &b, &r, 14400, 1);
		CHECK(!a.st.v42.retransmissions && !b.st.v42.retransmissions,
		      "echo_lead_grows: retransmissions %u/%u", a.st.v42.retransmissions,
		      b.st.v42.retransmissions);
		done(&a, &b);
		lp.grow_at = 0;
		lp.grow = 0;
	}
	if (selected("echo_beyond_lead")) {
		/*
		 * an audio path 1500 samples long beyond the lead the engine is
		 * told: the start-up finds the echo there (the block it came
		 * back in, less NEAR_BACK)
		 */
		lp.lead = 2048 + 1500;
		run_loop("echo_beyond_lead", &c, &c, -300, 0, &lp, &a, &b, &r);
		lp.lead = 2048;
		check_call("echo_beyond_lead", &a, &b, &r, 14400, 1);
		CHECK(a.st.echo_latency >= 3548 - 112 && a.st.echo_latency <= 3548 &&
		      b.st.echo_latency >= 3548 - 112 && b.st.echo_latency <= 3548,
		      "echo_beyond_lead: latency %d/%d, the echo at 3548", a.st.echo_latency,
		      b.st.echo_latency);
		CHECK(a.st.echo_erle_db_q8 >= 20 * 256 && b.st.echo_erle_db_q8 >= 20 * 256,
		      "echo_beyond_lead: ERLE %.1f/%.1f dB", a.st.echo_erle_db_q8 / 256.0,
		      b.st.echo_erle_db_q8 / 256.0);
		done(&a, &b);
	}
	if (selected("four_wire_option")) {
		clean.hybrid = 0;
		lp.lc = &clean;
		lp.four_wire = true;
		run_loop("four_wire_option", &c, &c, -300, 0, &lp, &a, &b, &r);
		check_call("four_wire_option", &a, &b, &r, 14400, 1);
		CHECK(a.st.echo_latency == -1 && b.st.echo_latency == -1 && !a.st.echo_erle_db_q8,
		      "four_wire_option: a canceller ran (%d/%d)", a.st.echo_latency, b.st.echo_latency);
		done(&a, &b);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		filter = argv[1];
	clean_calls();
	no_common_rate();
	worse_line();
	peer_vanishes();
	echo_behind_a_lead();
	return t_report("test_modem_v32");
}
