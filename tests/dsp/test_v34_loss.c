// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's data mode between two of our ends (dsp/v34.c) when the line loses
 * level in the call: the far signal a few dB weaker from one block on, the
 * noise as it was or higher, the echoes (which arise at each end) as they
 * were, so that on a 2-wire line the echo-to-signal ratio worsens by the
 * loss step; and when it gains level (a negative step: the far signal
 * stronger, the rest as it was), alone, twice, or and back.
 *
 * Each call runs from silence to the data mode, carries a PRBS both ways,
 * and 1.5 s into the data the line's loss steps up (in some a second time
 * 2-6 s later, in some with the noise rising too). Then, for every call,
 * 2-wire and 4-wire:
 * - a loss alone (the noise as it was: the rate still fits, the receivers
 *   need only follow the level): no retrain and no renegotiation down;
 *   with the noise rising too (the line's rate is lower now): no retrain
 *   either where the sync outlives the level's measurement (one where it
 *   does not), the level followed and then at least one renegotiation down,
 *   the rate lower both ways; at most two renegotiations (down, back up),
 *   three with the noise rising (each end's own step down, one back up),
 *   all of it within T_SETTLE of the step;
 * - then STEADY seconds of data both ways with no retrain, no
 *   renegotiation and no bit wrong (from T_STEP_ERR after a step, or half a
 *   second into a new data mode): each sink checks the PRBS's own
 *   recurrence (a bit against the ones 18 and 23 before it), which a gap
 *   at a renegotiation breaks only at its edge and a wrong bit always.
 * Seen so before the receivers followed the level: each loss alone
 * retrained, 12 dB on 4-wire ended the call (the far end taken for gone),
 * and a second step that fell in the retrain failed it. Before a rate that
 * no longer fitted after the level was followed was renegotiated down,
 * each loss with the noise rising retrained once (the decisions at the
 * lattice's floor, then the sync lost).
 *
 * Options: --quick (the first call of each kind), --case=text (the calls
 * whose name holds it), -v (each end's state every half second), -vv (each
 * end's line at each state change too), -vvv (the states every 50 ms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34.h>
#include "line.h"
#include "chan.h"
#include "check.h"
#include "v34rule.h"

#define LEVEL (-120)
#define BLK 80
#define STEP_AT 12000L			/* samples into the data mode */
#define T_SETTLE (8000L * 20)		/* the step's retrain or renegotiations done within */
#define STEADY (8000L * 12)		/* then steady data for this long */
#define JUDGE_AFTER 4000L		/* a fresh data mode's first half second not judged */
#define STEP2_GAP (8000L * 6)		/* a second step this long after the first, unless the case says */
#define T_STEP_ERR 8000L		/* the step's own errors (before the level is followed) not judged */

static int verbose;
static bool quick;
static const char *only;

/* ---- the data: a PRBS each way, checked by its own recurrence ---- */

struct src {
	uint32_t s;
};

static int src_bit(void *user)
{
	struct src *p = user;
	int b = (int)(((p->s >> 22) ^ (p->s >> 17)) & 1);

	p->s = (p->s << 1) | (uint32_t)b;
	return b;
}

struct sink {
	uint32_t hist;			/* the last bits received */
	unsigned long n;
	unsigned long judged, bad;	/* bits from `from` on, those against the recurrence */
	unsigned long early;		/* those wrong before the last return to the data mode */
	long from;			/* the sample from which bits are judged (-1: none) */
	const long *now;
};

static void sink_bit(void *user, int bit)
{
	struct sink *k = user;
	int want = (int)(((k->hist >> 22) ^ (k->hist >> 17)) & 1);

	k->hist = (k->hist << 1) | (uint32_t)bit;
	if (++k->n > 23 && k->from >= 0 && *k->now >= k->from) {
		k->judged++;
		k->bad += bit != want;
	}
}

/* ---- one call ---- */

struct lcase {
	const char *name;
	bool two_wire;
	int max_baud;			/* the highest symbol rate offered */
	struct line_cfg line;
	double step_db;			/* the loss added */
	double step2_db;		/* and step2_gap later, this much more (0: none) */
	double noise_dbm0;		/* the noise then (<= -200: the line's) */
	/*
	 * the retrains allowed: none for a loss alone (the far signal weaker,
	 * the noise as it was: the rate still fits, the receivers need only
	 * follow the level), nor where the noise rose too (the rate
	 * renegotiated down); one where the case says why
	 */
	unsigned int retrains;
	long step2_gap;			/* samples (0: STEP2_GAP) */
	bool down;			/* the noise rose with the loss: the rate renegotiated down both ways */
};

/* samples from the first step to the second (0: no second step) */
static long step2_gap(const struct lcase *c)
{
	if (!c->step2_db)
		return 0;
	return c->step2_gap ? c->step2_gap : STEP2_GAP;
}

struct end_out {
	struct smdsp_v34_stats s0, stats;	/* at the step, at the end */
	struct src src;
	struct sink sink;
	enum smdsp_v34_state st;
};

struct out {
	struct end_out e[2];
	long data_at, step_at, back_at, end_at;	/* back_at: both in data the last time */
	long now;
	bool left_late;			/* an end left the data after T_SETTLE */
};

static void show(struct smdsp_v34 *m[2], long t, const char *why)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct smdsp_v34_stats st;

		smdsp_v34_get_stats(m[i], &st);
		printf("  %7.2f s %s %s %-7s rx %5u tx %5u mse %5.1f wmse %5.1f renegs %u retrains %u levels %u sync %u/%u\n",
		       t / 8000.0, why, i ? "ans " : "call", smdsp_v34_state_name(smdsp_v34_state(m[i])),
		       st.rx.rate, st.tx.rate, st.mse_db10 / 10.0, st.wmse_db10 / 10.0, st.renegs, st.retrains,
		       st.level_steps, st.sync_misses, st.bad_superframes);
	}
}

static void run(const struct lcase *c, struct out *o)
{
	struct smdsp_v34_config cfg[2];
	struct smdsp_v34 *m[2];
	struct line *l = line_create(&c->line);
	int16_t tx[2][BLK], rx[2][BLK] = { { 0 } };
	enum smdsp_v34_state prev[2] = { SMDSP_V34_STATES, SMDSP_V34_STATES };
	long t, limit = 8000L * 40;
	bool both = false;
	int i;

	memset(o, 0, sizeof(*o));
	o->data_at = -1;
	o->step_at = -1;
	o->back_at = -1;
	for (i = 0; i < 2; i++) {
		struct end_out *e = &o->e[i];

		memset(&cfg[i], 0, sizeof(cfg[i]));
		cfg[i].calling = i == 0;
		cfg[i].level_dbm0_10 = LEVEL;
		cfg[i].far_level_dbm0_10 = LEVEL;
		v34_info0_upto(c->max_baud, &cfg[i].info0);
		cfg[i].two_wire = c->two_wire;
		cfg[i].echo_latency = c->two_wire ? BLK : 0;
		e->src.s = 0x2bcdefu + 0x3333u * (uint32_t)i;
		e->sink.from = -1;
		e->sink.now = &o->now;
		cfg[i].get_bit = src_bit;
		cfg[i].get_user = &e->src;
		cfg[i].put_bit = sink_bit;
		cfg[i].put_user = &e->sink;
		m[i] = smdsp_v34_create(&cfg[i]);
	}
	CHECK(m[0] && m[1] && l);
	if (!m[0] || !m[1] || !l)
		goto out;
	for (t = 0; t < limit; t += BLK) {
		bool data;

		o->now = t;
		for (i = 0; i < 2; i++)
			smdsp_v34_process(m[i], rx[i], tx[i], BLK);
		data = smdsp_v34_state(m[0]) == SMDSP_V34_DATA && smdsp_v34_state(m[1]) == SMDSP_V34_DATA;
		if (data && o->data_at < 0)
			o->data_at = t;
		if (data && !both) {
			o->back_at = t;
			if (o->step_at >= 0)
				for (i = 0; i < 2; i++) {
					struct sink *k = &o->e[i].sink;

					k->early += k->bad;
					k->bad = 0;
					k->judged = 0;
					k->from = t + JUDGE_AFTER;
				}
		}
		if (!data && o->step_at >= 0 && t > o->step_at + T_SETTLE + step2_gap(c))
			o->left_late = true;
		if (!data)
			for (i = 0; i < 2; i++)
				o->e[i].sink.from = -1;
		both = data;
		for (i = 0; i < 2; i++) {
			enum smdsp_v34_state st = smdsp_v34_state(m[i]);

			if (verbose > 1 && st != prev[i]) {
				char b[300];

				smdsp_v34_print(m[i], b, sizeof(b));
				printf("  %7.2f s: %s\n", t / 8000.0, b);
			}
			prev[i] = st;
			if (st == SMDSP_V34_FAILED)
				limit = t;
		}
		if (o->step_at < 0 && o->data_at >= 0 && t >= o->data_at + STEP_AT) {
			o->step_at = t;
			for (i = 0; i < 2; i++) {
				smdsp_v34_get_stats(m[i], &o->e[i].s0);
				o->e[i].sink.from = t + T_STEP_ERR;
			}
			line_set(l, c->line.loss_db + c->step_db,
				 c->noise_dbm0 > -200 ? c->noise_dbm0 : c->line.noise_dbm0);
			limit = t + T_SETTLE + STEADY;
			if (verbose)
				show(m, t, "step");
		}
		if (c->step2_db && o->step_at >= 0 && t == o->step_at + step2_gap(c)) {
			line_set(l, c->line.loss_db + c->step_db + c->step2_db,
				 c->noise_dbm0 > -200 ? c->noise_dbm0 : c->line.noise_dbm0);
			for (i = 0; i < 2; i++)
				if (o->e[i].sink.from >= 0 && o->e[i].sink.from < t + T_STEP_ERR) {
					o->e[i].sink.early += o->e[i].sink.bad;
					o->e[i].sink.bad = 0;
					o->e[i].sink.judged = 0;
					o->e[i].sink.from = t + T_STEP_ERR;
				}
			limit += step2_gap(c);
			if (verbose)
				show(m, t, "step");
		}
		/* steady for STEADY after the last return to data: done */
		if (o->step_at >= 0 && data && t >= o->back_at + STEADY + JUDGE_AFTER &&
		    t >= o->step_at + STEADY + step2_gap(c))
			break;
		if (verbose && o->data_at >= 0 && (t - o->data_at) % (verbose > 2 ? 400 : 4000) == 0)
			show(m, t, "    ");
		line_process(l, tx[0], rx[0], tx[1], rx[1], BLK);
	}
	o->end_at = t;
	for (i = 0; i < 2; i++) {
		o->e[i].st = smdsp_v34_state(m[i]);
		smdsp_v34_get_stats(m[i], &o->e[i].stats);
	}
out:
	for (i = 0; i < 2; i++)
		smdsp_v34_free(m[i]);
	line_free(l);
}

static void judge(const struct lcase *c, const struct out *o)
{
	const struct end_out *a = &o->e[0], *b = &o->e[1];
	int i;

	printf("%-44s: %s/%s at %.1f s; c->a %u -> %u, a->c %u -> %u; mse %.1f/%.1f dB; renegs %u retrains %u;"
	       " back %.1f s after the step, steady %.1f s; bits %lu/%lu, %lu/%lu wrong (%lu/%lu before);"
	       " level steps %u/%u\n",
	       c->name, smdsp_v34_state_name(a->st), smdsp_v34_state_name(b->st), o->end_at / 8000.0,
	       a->s0.tx.rate, a->stats.tx.rate, b->s0.tx.rate, b->stats.tx.rate, a->stats.mse_db10 / 10.0,
	       b->stats.mse_db10 / 10.0, a->stats.renegs - a->s0.renegs, a->stats.retrains - a->s0.retrains,
	       o->back_at >= 0 && o->step_at >= 0 ? (o->back_at - o->step_at) / 8000.0 : -1.0,
	       (o->end_at - o->back_at) / 8000.0, a->sink.judged, b->sink.judged, a->sink.bad, b->sink.bad,
	       a->sink.early, b->sink.early, a->stats.level_steps, b->stats.level_steps);
	CHECK(o->step_at >= 0, "%s: never in the data mode", c->name);
	if (o->step_at < 0)
		return;
	for (i = 0; i < 2; i++) {
		const struct end_out *e = &o->e[i];
		unsigned int renegs = e->stats.renegs - e->s0.renegs, retrains = e->stats.retrains - e->s0.retrains;

		CHECK(e->st == SMDSP_V34_DATA, "%s: end %d %s", c->name, i, smdsp_v34_state_name(e->st));
		CHECK(retrains <= c->retrains && renegs <= (c->down ? 3u : 2u), "%s: end %d: %u retrains, %u renegotiations",
		      c->name, i, retrains, renegs);
		/* the data carried (at least half its rate over the steady time) and not a bit wrong */
		CHECK(e->sink.judged > (unsigned long)o->e[1 - i].stats.tx.rate * (STEADY / 8000) / 2,
		      "%s: end %d: %lu bits judged", c->name, i, e->sink.judged);
		CHECK(e->sink.bad == 0, "%s: end %d: %lu of %lu bits wrong", c->name, i, e->sink.bad,
		      e->sink.judged);
		/* the noise rose too: a renegotiation (no retrain), the rate now lower both ways */
		if (c->down)
			CHECK(renegs >= 1 && e->stats.tx.rate < e->s0.tx.rate && e->stats.rx.rate < e->s0.rx.rate,
			      "%s: end %d: %u renegotiations, rates %u/%u -> %u/%u", c->name, i, renegs, e->s0.tx.rate,
			      e->s0.rx.rate, e->stats.tx.rate, e->stats.rx.rate);
		/* a step alone is followed by one move, and nothing else moves the level (no false alarm) */
		if (!c->retrains)
			CHECK(e->stats.level_steps == (c->step2_db ? 2u : 1u), "%s: end %d: %u level moves", c->name,
			      i, e->stats.level_steps);
	}
	CHECK(!o->left_late && o->back_at <= o->step_at + T_SETTLE && o->end_at - o->back_at >= STEADY,
	      "%s: back in data %.1f s after the step, then %.1f s steady", c->name,
	      (o->back_at - o->step_at) / 8000.0, (o->end_at - o->back_at) / 8000.0);
}

/* 2-wire: a G.168 hybrid at each end (its echo the near one), no far echo; the clocks 30 ppm apart unless said */
#define WIRE2_PPM(loss, noise, seed_, ppm_) { .loss_db = (loss), .noise_dbm0 = (noise), .echo_db = -999, \
	.delay = 8 * 20, .ppm = (ppm_), .seed = (seed_), .channel = CHAN_TELEPHONE, .hybrid = 3, .hybrid_erl_db = 12 }
#define WIRE2(loss, noise, seed_) WIRE2_PPM(loss, noise, seed_, 30)
#define WIRE4_PPM(loss, noise, seed_, ppm_) { .loss_db = (loss), .noise_dbm0 = (noise), .echo_db = -999, \
	.delay = 8 * 20, .ppm = (ppm_), .seed = (seed_), .channel = CHAN_TELEPHONE }
#define WIRE4(loss, noise, seed_) WIRE4_PPM(loss, noise, seed_, 30)

static const struct lcase cases[] = {
	{ "2-wire, loss +6 dB, no noise", true, 3429, WIRE2(3, -300, 3), 6, 0, -300, 0, 0, false },
	{ "4-wire, loss +6 dB, no noise", false, 3429, WIRE4(3, -300, 3), 6, 0, -300, 0, 0, false },
	{ "2-wire, loss +3 dB, no noise", true, 3429, WIRE2(3, -300, 5), 3, 0, -300, 0, 0, false },
	{ "2-wire, loss +9 dB, no noise", true, 3429, WIRE2(3, -300, 7), 9, 0, -300, 0, 0, false },
	{ "2-wire, loss +12 dB, no noise", true, 3429, WIRE2(0, -300, 9), 12, 0, -300, 0, 0, false },
	{ "2-wire, loss +6 dB, noise -50 dBm0", true, 3429, WIRE2(3, -300, 11), 6, 0, -50, 0, 0, true },
	/*
	 * 21 dB left at 33,600: the superframe sync goes before the level's
	 * move is measured, and a sync lost is a retrain's (as with the far
	 * echo below); with phase 3's PP and TRN as the real modems send them
	 * this call lost it so, with the old ones it renegotiated down
	 */
	{ "2-wire, loss +9 dB, noise -45 dBm0", true, 3429, WIRE2(3, -60, 13), 9, 0, -45, 1, 0, false },
	{ "4-wire, loss +12 dB, no noise", false, 3429, WIRE4(0, -300, 15), 12, 0, -300, 0, 0, false },
	{ "4-wire, loss +9 dB, noise -50 dBm0", false, 3429, WIRE4(3, -60, 17), 9, 0, -50, 0, 0, true },
	{ "2-wire, two steps of +5 dB", true, 3429, WIRE2(0, -300, 19), 5, 5, -300, 0, 0, false },
	{ "4-wire, two steps of +5 dB", false, 3429, WIRE4(0, -300, 21), 5, 5, -300, 0, 0, false },
	/*
	 * The second step sooner and later, smaller and larger, the clocks
	 * further apart either way: each step's hold must move the sampling
	 * instants at the clocks' whole rate (before it did, the 2-wire
	 * +5/+5 dB call and all three at 60 ppm retrained).
	 */
	{ "2-wire, two steps of +3 dB 2 s apart", true, 3429, WIRE2(0, -300, 25), 3, 3, -300, 0, 8000L * 2, false },
	{ "2-wire, two steps of +6 dB 5 s apart", true, 3429, WIRE2(0, -300, 27), 6, 6, -300, 0, 8000L * 5, false },
	{ "2-wire, +3 dB then +6 dB 5 s apart", true, 3429, WIRE2(0, -300, 29), 3, 6, -300, 0, 8000L * 5, false },
	{ "4-wire, two steps of +6 dB 2 s apart", false, 3429, WIRE4(0, -300, 31), 6, 6, -300, 0, 8000L * 2, false },
	{ "2-wire, two steps of +5 dB, clocks -60 ppm", true, 3429, WIRE2_PPM(0, -300, 33, -60), 5, 5, -300, 0, 0, false },
	{ "2-wire, two steps of +6 dB 2 s apart, clocks 60 ppm", true, 3429, WIRE2_PPM(0, -300, 35, 60), 6, 6, -300,
	  0, 8000L * 2, false },
	{ "4-wire, two steps of +3 dB 5 s apart, clocks -60 ppm", false, 3429, WIRE4_PPM(0, -300, 37, -60), 3, 3,
	  -300, 0, 8000L * 5, false },
	/*
	 * One retrain here: the step falls in a renegotiation and the decoder
	 * loses its sync (a slip) before the level is followed, which a
	 * renegotiation does not mend (tried: it failed)
	 */
	{ "2-wire, far echo, 3000 baud, loss +6 dB, noise -55 dBm0", true, 3000, { .loss_db = 10, .noise_dbm0 = -55,
	  .echo_db = -999, .delay = 8 * 60, .ppm = 100, .seed = 23, .channel = CHAN_TELEPHONE, .hybrid = 5,
	  .hybrid_erl_db = 10, .far_echo_db = 28, .far_echo_delay = 2 * (8 * 60 + 16), .far_hybrid = 6,
	  .far_echo_hz = 5 }, 6, 0, -300, 1, 0, false },
	/* the level rises (the loss falls): seen so before the receivers followed it, 3-4 renegotiations, 6-9 dB ended lower */
	{ "2-wire, gain 3 dB, no noise", true, 3429, WIRE2(9, -300, 41), -3, 0, -300, 0, 0, false },
	{ "2-wire, gain 6 dB, no noise", true, 3429, WIRE2(9, -300, 43), -6, 0, -300, 0, 0, false },
	{ "4-wire, gain 6 dB, no noise", false, 3429, WIRE4(9, -300, 45), -6, 0, -300, 0, 0, false },
	{ "2-wire, gain 9 dB, no noise", true, 3429, WIRE2(12, -300, 47), -9, 0, -300, 0, 0, false },
	{ "2-wire, gain 6 dB, noise -55 dBm0", true, 3429, WIRE2(9, -55, 49), -6, 0, -300, 0, 0, false },
	{ "2-wire, gain 6 dB then loss 6 dB 2 s apart, clocks 60 ppm", true, 3429, WIRE2_PPM(9, -300, 51, 60), -6, 6,
	  -300, 0, 8000L * 2, false },
	{ "4-wire, gain 4 dB twice 5 s apart, clocks -60 ppm", false, 3429, WIRE4_PPM(9, -300, 53, -60), -4, -4, -300, 0,
	  8000L * 5, false },
};

int main(int argc, char **argv)
{
	static struct out o;
	bool two_done = false, four_done = false;
	unsigned int n;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-v"))
			verbose = 1;
		else if (!strcmp(argv[a], "-vv"))
			verbose = 2;
		else if (!strcmp(argv[a], "-vvv"))
			verbose = 3;
		else if (!strcmp(argv[a], "--quick"))
			quick = true;
		else if (!strncmp(argv[a], "--case=", 7))
			only = argv[a] + 7;
	}
	for (n = 0; n < SMDSP_ARRAY_SIZE(cases); n++) {
		const struct lcase *c = &cases[n];

		if (only && !strstr(c->name, only))
			continue;
		if (quick && (c->two_wire ? two_done : four_done))
			continue;
		if (c->two_wire)
			two_done = true;
		else
			four_done = true;
		run(c, &o);
		judge(c, &o);
	}
	return t_report("test_v34_loss");
}
