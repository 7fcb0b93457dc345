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
 *   retrain, a lower rate, the data still intact through V.42;
 * - a peer that goes silent in the data: carrier lost at once, hang-up
 *   after carrier_loss_ms (1.4 s), cause carrier lost.
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
				     "training", "connected", "retrain", "carrier-lost", "hungup" };

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

static void end_init(struct end *e, int caller, const struct mcfg *mc, uint64_t seed)
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
 * A calls B over a line with loss_db of loss each way; noise_dbm0 (> -200)
 * is added at both receivers once A has received 1 KiB. both_hang: the
 * call goes on until both ends have hung up.
 */
static void run(const char *name, const struct mcfg *ca, const struct mcfg *cb, double noise_dbm0,
		int both_hang, struct end *a, struct end *b, struct res *r)
{
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -300, .echo_db = -300, .delay = 80,
			       .seed = 7 };
	struct line *l = line_create(&lc);
	int16_t at[BLK], ar[BLK] = { 0 }, bt[BLK], br[BLK] = { 0 };
	double rms = 32767.0 * pow(10, (noise_dbm0 - 3.14) / 20) / sqrt(2);
	uint64_t nseed = 99;
	size_t last_a = 0, last_b = 0;
	long now, idle = 0;
	int j, noisy = 0;

	memset(r, 0, sizeof(*r));
	end_init(a, 1, ca, 11);
	end_init(b, 0, cb, 22);
	for (now = 0; now < 8000L * 60; now += BLK) {
		end_block(a, ar, at, now);
		end_block(b, br, bt, now);
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

/* The line gets worse in the data: a retrain, a lower rate, V.42 keeps the data intact. */
static void worse_line(void)
{
	const char *name = "worse_line_retrain";
	struct mcfg c = { ALL_MODS, 1, 1, 0, 0, 0 };
	struct end a, b;
	struct res r;

	if (!selected(name))
		return;
	/* the signal at -19 dBm0 after the loss: an SNR of 21 dB */
	run(name, &c, &c, -40, 0, &a, &b, &r);
	CHECK(r.a_got == NB && r.b_got == NB && !r.a_junk && !r.b_junk, "%s: intact %zu/%zu", name,
	      r.a_got, r.b_got);
	CHECK(a.first_rate == 14400 && b.first_rate == 14400, "%s: first %u/%u", name, a.first_rate,
	      b.first_rate);
	CHECK(a.retrains >= 1 && b.retrains >= 1, "%s: retrains %u/%u", name, a.retrains, b.retrains);
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
	end_init(&a, 1, &c, 11);
	end_init(&b, 0, &c, 22);
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

int main(int argc, char **argv)
{
	if (argc > 1)
		filter = argv[1];
	clean_calls();
	no_common_rate();
	worse_line();
	peer_vanishes();
	return t_report("test_modem_v32");
}
