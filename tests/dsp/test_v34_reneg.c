// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's data mode between two of our ends (dsp/v34.c) over the line model:
 * rate renegotiation, the cleardown and retrains, 4-wire and 2-wire.
 *
 * Each call runs from silence to the data mode (as test_v34_call), carries
 * a PRBS both ways, and at a set time one end acts:
 * - renegotiates to a lower max_rate (the caller, the answerer; 4-wire and a
 *   2-wire line): both ends return to the data mode with both directions at
 *   the rate asked for, each end counts one renegotiation, no retrain, and
 *   every bit sent is delivered in order, none wrong, except for a bounded
 *   gap at the renegotiation (the bits in the far decoder's delay);
 * - hears noise rise at its receiver (4-wire, 2-wire): it renegotiates its
 *   direction down by itself, the other direction keeps its rate, and the
 *   data is intact from the renegotiation's end on;
 * - retrains (the caller, the answerer, a 2-wire line): both ends leave the
 *   data, go through phase 2 again and return to the data within a bounded
 *   time, the data intact after it;
 * - clears down (the caller 4-wire, the answerer 2-wire): both ends CLEARED
 *   (not FAILED) within a bounded time, silent after it;
 * - hears noise at the far end's level instead of its signal for 1.5 s (a
 *   line fault: sync lost, the level still there): it retrains, and both
 *   ends return to the data;
 * - renegotiates while the far end vanishes: FAILED (reneg) within its time
 *   limit;
 * - with no_auto, the noise that made it renegotiate does not, and a third
 *   of the bits arrive wrong;
 * - hears noise rise for a few seconds, then fall (4-wire, 2-wire): its
 *   direction down by itself, then back up by itself within a bounded time
 *   of the noise's end, the other direction kept, no bit wrong from the
 *   last step down on (across the climb); the rates against time printed;
 * - a steady line for a minute of data (4-wire, 2-wire): no renegotiation;
 * - trains in -45 or -50 dBm0 of noise that goes 2 s into the data (4-wire,
 *   2-wire): both directions climb above the trained rate and phase 2's
 *   projection by themselves within a bounded time, no retrain, no bit
 *   wrong from the noise's end on; the noise kept: no renegotiation;
 * - asks for anything outside the data mode: refused; the cleardown's MP
 *   (both rates 0) packs and reads back, one rate 0 alone does not pack.
 * The sent and delivered bits are recorded and aligned: the bits lost,
 * inserted and wrong across each event are printed and bounded.
 * Options: --quick (the first call of each kind), --case=text (the calls
 * whose name holds it), -v (each end's line at each state change), -vv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34.h>
#include <smdsp/v34_mp.h>
#include "line.h"
#include "chan.h"
#include "tutil.h"
#include "check.h"
#include "v34rule.h"

#define LEVEL (-120)
#define FAULT 12000		/* samples of a line fault: the far signal replaced by noise for 1.5 s */
#define BLK 80
#define MAXBITS (80 * 33600)

static int verbose;
static bool quick;			/* --quick: the first call of each kind only */
static const char *only;		/* --case=text: only the calls whose name holds it */

static bool skip(const char *name, unsigned int n)
{
	return (only && !strstr(name, only)) || (quick && n);
}

/* ---- the data: a PRBS each way, every bit recorded ---- */

struct prbs {
	uint32_t s;
};

static int prbs_bit(struct prbs *p)
{
	int b = (int)(((p->s >> 22) ^ (p->s >> 17)) & 1);

	p->s = (p->s << 1) | (uint32_t)b;
	return b;
}

struct src {
	struct prbs p;
	uint8_t *bits;
	unsigned long n;
};

static int src_bit(void *user)
{
	struct src *s = user;
	int b = prbs_bit(&s->p);

	if (s->n < MAXBITS)
		s->bits[s->n] = (uint8_t)b;
	s->n++;
	return b;
}

struct sink {
	uint8_t *bits;
	uint32_t *at;			/* the sample each bit arrived in */
	unsigned long n;
	const long *now;
};

static void sink_bit(void *user, int bit)
{
	struct sink *k = user;

	if (k->n < MAXBITS) {
		k->bits[k->n] = (uint8_t)bit;
		k->at[k->n] = (uint32_t)*k->now;
	}
	k->n++;
}

/*
 * The delivered bits against the sent ones: in order from the first, a
 * mismatch is a gap (bits lost) or an insertion where the next ALIGN bits
 * match again at another offset, else a wrong bit. Bits arriving before
 * `from` are not judged (a line made too noisy on purpose).
 */
#define ALIGN 64
#define SEARCH 20000

struct align {
	unsigned long judged, lost, inserted, wrong, gaps;
};

static bool match_at(const struct src *s, const struct sink *k, unsigned long i, long off)
{
	unsigned long j;

	if ((long)i + off < 0 || i + ALIGN > k->n || (unsigned long)((long)i + off) + ALIGN > s->n)
		return false;
	for (j = 0; j < ALIGN; j++)
		if (k->bits[i + j] != s->bits[(long)i + off + j])
			return false;
	return true;
}

static void align(const struct src *s, const struct sink *k, uint32_t from, struct align *a)
{
	unsigned long i, n = k->n < MAXBITS ? k->n : MAXBITS, calm = 0;
	long off = 0, d;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < n; i++) {
		if ((long)i + off < (long)s->n && k->bits[i] == s->bits[(long)i + off]) {
			if (k->at[i] >= from)
				a->judged++;
			continue;
		}
		/* a wrong bit where the stream goes on, or within a burst already searched: no slip */
		if (i < calm || match_at(s, k, i + 1, off)) {
			if (k->at[i] >= from) {
				a->wrong++;
				a->judged++;
			}
			continue;
		}
		/* lost bits first (the usual gap), then inserted ones */
		for (d = 1; d < SEARCH; d++)
			if (match_at(s, k, i, off + d) || match_at(s, k, i, off - d))
				break;
		if (d < SEARCH && i + ALIGN <= n) {
			d = match_at(s, k, i, off + d) ? d : -d;
			if (k->at[i] >= from) {
				a->gaps++;
				if (d > 0)
					a->lost += (unsigned long)d;
				else
					a->inserted += (unsigned long)-d;
			}
			off += d;
			i--;
			continue;
		}
		if (k->at[i] >= from) {
			if (verbose > 1 && a->wrong < 5)
				printf("  wrong bit %lu (of %lu) at sample %u\n", i, n, k->at[i]);
			a->wrong++;
			a->judged++;
		}
		calm = i + ALIGN;
	}
}

/* ---- one call ---- */

/* ACT_QUIET: the line's own noise goes (line_set(): its loss kept, no noise) */
enum act { ACT_NONE, ACT_RENEG, ACT_NOISE, ACT_RETRAIN, ACT_CLEAR, ACT_VANISH, ACT_FAULT, ACT_QUIET };

struct scen {
	const char *name;
	struct line_cfg line;
	bool two_wire;
	int max_baud;			/* 2-wire: the highest symbol rate offered */
	unsigned int max_rate;		/* both ends' configuration (0: 33600) */
	int who;			/* 0: the call modem acts, 1: the answer modem */
	enum act act;
	unsigned int rate;		/* ACT_RENEG, ACT_VANISH: the max_rate asked for */
	double noise_dbm0;		/* ACT_NOISE: white noise added at who's receiver */
	long noise_for;			/* ... for this many samples (0: to the end) */
	long until;			/* run to this many samples after the act (0: until both settle) */
	long act_after;			/* the act this many samples into the data (0: 1.5 s) */
	unsigned int far_limit;		/* the other end renegotiates to this max_rate ... */
	long far_at;			/* ... this many samples after the act (the first time it can) */
	bool no_auto;
};

struct end_out {
	enum smdsp_v34_state st;
	enum smdsp_v34_fail fail;
	struct smdsp_v34_stats s0, stats;	/* at the act, at the end */
	struct src src;
	struct sink sink;
	struct align al;
	long silent_from;		/* its tx all zero from this sample on (-1: never) */
	bool left_data;			/* was in a state other than DATA after the act */
	long left_at;			/* ... first (-1: never) */
};

/* each end's receiving rate (and state) every TL_STEP samples from the act on */
#define TL_STEP 2000
#define TL_MAX 800

struct tl_point {
	long t;
	unsigned int rate[2];		/* the call modem's rx rate, the answer modem's */
	enum smdsp_v34_state st[2];
	int wmse[2];			/* their receivers' error (dB x 10) */
};

/* both ends back in the data mode: when, each end's receiving rate then */
#define EV_MAX 16

struct ev {
	long t;
	unsigned int rate[2];
};

struct out {
	struct tl_point tl[TL_MAX];
	unsigned int ntl;
	struct ev ev[EV_MAX];
	unsigned int nev;
	bool far_done;			/* far_limit asked for */
	struct end_out e[2];		/* the call modem, the answer modem */
	long data_at, act_at, done_at;	/* both in data; the act; both back in data (or CLEARED/FAILED) */
	long back_at;			/* both back in the data mode the last time */
	unsigned int trained[2];	/* each end's receiving rate when both were first in the data mode */
	long end_at;
};

static uint8_t bits_buf[4][MAXBITS];
static uint32_t at_buf[2][MAXBITS];

static bool settled(enum smdsp_v34_state st)
{
	return st == SMDSP_V34_DATA || st == SMDSP_V34_CLEARED || st == SMDSP_V34_FAILED;
}

static void run(const struct scen *sc, struct out *o)
{
	struct smdsp_v34_config cfg[2];
	struct smdsp_v34 *m[2];
	struct line *l = line_create(&sc->line);
	int16_t tx[2][BLK], rx[2][BLK] = { { 0 } };
	long t, total = 8000L * 40 + sc->until, after_done = -1;
	uint64_t gseed = 99;
	double nrms = 32767.0 * pow(10, (sc->noise_dbm0 - 3.14) / 20) / sqrt(2);
	/* the far signal's level at the receiver: ours less the line's loss */
	double frms = 32767.0 * pow(10, (LEVEL / 10.0 - sc->line.loss_db - 3.14) / 20) / sqrt(2);
	enum smdsp_v34_state prev[2] = { SMDSP_V34_STATES, SMDSP_V34_STATES };
	bool both_data = false;
	int i, k;

	memset(o, 0, sizeof(*o));
	o->data_at = -1;
	o->act_at = -1;
	o->done_at = -1;
	for (i = 0; i < 2; i++) {
		struct end_out *e = &o->e[i];

		memset(&cfg[i], 0, sizeof(cfg[i]));
		cfg[i].calling = i == 0;
		cfg[i].level_dbm0_10 = LEVEL;
		cfg[i].far_level_dbm0_10 = LEVEL;
		cfg[i].max_rate = sc->max_rate;
		v34_info0_upto(sc->two_wire ? sc->max_baud : 3429, &cfg[i].info0);
		cfg[i].two_wire = sc->two_wire;
		cfg[i].echo_latency = sc->two_wire ? BLK : 0;
		cfg[i].no_auto = sc->no_auto;
		/*
		 * no_auto's line is judged at minimum shaping without the nonlinear
		 * encoder, as its noise was chosen: the rule's expanded shaping
		 * (0.2 dB more distance) halves the bits it gets wrong
		 */
		if (sc->no_auto) {
			cfg[i].nonlinear = SMDSP_V34_ASK_NO;
			cfg[i].shaping = SMDSP_V34_ASK_NO;
		}
		e->src.p.s = 0x1abcdeu + 0x1111u * (uint32_t)i + (uint32_t)sc->line.seed;
		e->src.bits = bits_buf[i];
		e->sink.bits = bits_buf[2 + i];
		e->sink.at = at_buf[i];
		e->sink.now = &o->end_at;
		e->silent_from = -1;
		e->left_at = -1;
		cfg[i].get_bit = src_bit;
		cfg[i].get_user = &e->src;
		cfg[i].put_bit = sink_bit;
		cfg[i].put_user = &e->sink;
		m[i] = smdsp_v34_create(&cfg[i]);
	}
	CHECK(m[0] && m[1] && l);
	if (!m[0] || !m[1] || !l)
		return;
	for (t = 0; t < total; t += BLK) {
		o->end_at = t;
		for (i = 0; i < 2; i++)
			smdsp_v34_process(m[i], rx[i], tx[i], BLK);
		for (i = 0; i < 2; i++) {
			enum smdsp_v34_state st = smdsp_v34_state(m[i]);
			bool quiet = true;

			for (k = 0; k < BLK; k++)
				quiet &= !tx[i][k];
			if (!quiet)
				o->e[i].silent_from = -1;
			else if (o->e[i].silent_from < 0)
				o->e[i].silent_from = t;
			if (o->act_at >= 0 && st != SMDSP_V34_DATA && !o->e[i].left_data) {
				o->e[i].left_data = true;
				o->e[i].left_at = t;
			}
			if (verbose && st != prev[i]) {
				char b[300];

				smdsp_v34_print(m[i], b, sizeof(b));
				printf("  %6ld ms: %s\n", t / 8, b);
			}
			prev[i] = st;
		}
		if (smdsp_v34_state(m[0]) == SMDSP_V34_DATA && smdsp_v34_state(m[1]) == SMDSP_V34_DATA) {
			if (o->data_at < 0) {
				o->data_at = t;
				for (i = 0; i < 2; i++) {
					struct smdsp_v34_stats st;

					smdsp_v34_get_stats(m[i], &st);
					o->trained[i] = st.rx.rate;
				}
			}
			if (!both_data) {
				o->back_at = t;
				if (o->act_at >= 0 && o->nev < EV_MAX) {
					struct ev *v = &o->ev[o->nev++];

					v->t = t;
					for (i = 0; i < 2; i++) {
						struct smdsp_v34_stats st;

						smdsp_v34_get_stats(m[i], &st);
						v->rate[i] = st.rx.rate;
					}
				}
			}
			both_data = true;
		} else {
			both_data = false;
		}
		/* the act 1.5 s into the data, or act_after */
		if (o->act_at < 0 && o->data_at >= 0 && t >= o->data_at + (sc->act_after ? sc->act_after : 12000)) {
			struct smdsp_v34 *w = m[sc->who];
			int rc = 0;

			o->act_at = t;
			for (i = 0; i < 2; i++)
				smdsp_v34_get_stats(m[i], &o->e[i].s0);
			if (sc->act == ACT_RENEG || sc->act == ACT_VANISH)
				rc = smdsp_v34_renegotiate(w, sc->rate);
			else if (sc->act == ACT_RETRAIN)
				rc = smdsp_v34_retrain(w);
			else if (sc->act == ACT_CLEAR)
				rc = smdsp_v34_cleardown(w);
			else if (sc->act == ACT_QUIET)
				line_set(l, sc->line.loss_db, -300);
			CHECK(rc == 0, "%s: the act refused (%d)", sc->name, rc);
			/* asked twice: the second is not in the data mode any more, or the same */
		}
		/* done: both ends left the data mode (the vanished one need not) and are back or ended */
		if (o->act_at >= 0 && o->done_at < 0 && settled(smdsp_v34_state(m[0])) &&
		    settled(smdsp_v34_state(m[1])) && o->e[sc->who].left_data &&
		    (o->e[1 - sc->who].left_data || sc->act == ACT_VANISH)) {
			o->done_at = t;
			after_done = t + 8000 * 3;
		}
		if (sc->far_limit && o->act_at >= 0 && t >= o->act_at + sc->far_at && !o->far_done)
			o->far_done = smdsp_v34_renegotiate(m[1 - sc->who], sc->far_limit) == 0;
		if (o->act_at >= 0 && (t - o->act_at) % TL_STEP == 0 && o->ntl < TL_MAX) {
			struct tl_point *p = &o->tl[o->ntl++];

			p->t = t;
			for (i = 0; i < 2; i++) {
				struct smdsp_v34_stats st;

				smdsp_v34_get_stats(m[i], &st);
				p->rate[i] = st.rx.rate;
				p->st[i] = smdsp_v34_state(m[i]);
				p->wmse[i] = st.wmse_db10;
			}
		}
		if (sc->until ? o->act_at >= 0 && t >= o->act_at + sc->until :
		    (after_done >= 0 && t >= after_done) ||
		    (o->act_at >= 0 && t >= o->act_at + 8000L * (sc->no_auto ? 6 : 20)))
			break;
		if (sc->act == ACT_VANISH && o->act_at >= 0)
			memset(tx[1 - sc->who], 0, sizeof(tx[0]));
		line_process(l, tx[0], rx[0], tx[1], rx[1], BLK);
		/* the fault: who hears noise at the far end's level instead of its signal */
		if (sc->act == ACT_FAULT && o->act_at >= 0 && t < o->act_at + FAULT)
			for (k = 0; k < BLK; k++)
				rx[sc->who][k] = (int16_t)lrint(frms * t_gauss(&gseed));
		if (sc->act == ACT_NOISE && o->act_at >= 0 && (!sc->noise_for || t < o->act_at + sc->noise_for))
			for (k = 0; k < BLK; k++)
				rx[sc->who][k] = (int16_t)lrint(fmax(-32768, fmin(32767, rx[sc->who][k] +
											  nrms * t_gauss(&gseed))));
	}
	o->end_at = t;
	for (i = 0; i < 2; i++) {
		struct end_out *e = &o->e[i];

		e->st = smdsp_v34_state(m[i]);
		e->fail = smdsp_v34_fail(m[i]);
		smdsp_v34_get_stats(m[i], &e->stats);
		if (verbose) {
			char b[300];

			smdsp_v34_print(m[i], b, sizeof(b));
			printf("  end: %s\n", b);
		}
		smdsp_v34_free(m[i]);
	}
	line_free(l);
}

/* the far end's bits at end i's sink, judged from sample `from` on */
static void judge_bits(struct out *o, uint32_t from)
{
	int i;

	for (i = 0; i < 2; i++)
		align(&o->e[1 - i].src, &o->e[i].sink, from, &o->e[i].al);
}

static void print_out(const struct scen *sc, const struct out *o)
{
	const struct end_out *c = &o->e[0], *a = &o->e[1];

	printf("%-44s: %s/%s", sc->name, smdsp_v34_state_name(c->st), smdsp_v34_state_name(a->st));
	if (c->fail || a->fail)
		printf(" (%s/%s)", smdsp_v34_fail_name(c->fail), smdsp_v34_fail_name(a->fail));
	printf(" %.2f s after the act; c->a %u -> %u, a->c %u -> %u bit/s; mse %.1f/%.1f dB;",
	       o->done_at >= 0 ? (o->done_at - o->act_at) / 8000.0 : -1.0, c->s0.tx.rate, c->stats.tx.rate,
	       a->s0.tx.rate, a->stats.tx.rate, c->stats.mse_db10 / 10.0, a->stats.mse_db10 / 10.0);
	printf(" renegs %u/%u retrains %u/%u;", c->stats.renegs, a->stats.renegs, c->stats.retrains,
	       a->stats.retrains);
	printf(" bits c<-a %lu (lost %lu in %lu gaps, +%lu, %lu wrong),", c->al.judged, c->al.lost, c->al.gaps,
	       c->al.inserted, c->al.wrong);
	printf(" a<-c %lu (lost %lu in %lu gaps, +%lu, %lu wrong)\n", a->al.judged, a->al.lost, a->al.gaps,
	       a->al.inserted, a->al.wrong);
}

/* where a scenario's bits are judged from */
enum judge_from {
	FROM_START,		/* the whole call */
	FROM_ACT,		/* the act */
	FROM_BEFORE_ACT,	/* half a second before the act */
	FROM_FRESH,		/* FRESH after the data came back (the whole call if it never settled) */
};

/*
 * After a retrain the data is judged from half a second on: a fresh
 * training on tel4 at phase 2's 24000 bit/s carries a burst of errors in
 * its first quarter second (the call's own start does too), which is phase
 * 2's rate and the training's, not the retrain's
 */
#define FRESH 4000

/* one scenario run, its bits judged from `f` on, its line printed */
static void run_judged(const struct scen *sc, struct out *o, enum judge_from f)
{
	long from = 0;

	run(sc, o);
	if (f == FROM_ACT)
		from = o->act_at;
	else if (f == FROM_BEFORE_ACT)
		from = o->act_at - 4000;
	else if (f == FROM_FRESH && o->done_at >= 0)
		from = o->back_at + FRESH;
	judge_bits(o, (uint32_t)from);
	print_out(sc, o);
}

/* both ends in the data mode at the end, carrying data both ways */
static void check_data(const struct scen *sc, const struct out *o, unsigned long max_lost,
		       unsigned long max_inserted, unsigned long wrong_per_1e4)
{
	int i;

	for (i = 0; i < 2; i++) {
		const struct end_out *e = &o->e[i];

		CHECK(e->st == SMDSP_V34_DATA, "%s: end %d %s (%s)", sc->name, i, smdsp_v34_state_name(e->st),
		      smdsp_v34_fail_name(e->fail));
		/* 3 s of data after the event, most of it judged */
		CHECK(e->al.judged > 2UL * o->e[1 - i].stats.tx.rate, "%s: end %d: %lu bits judged", sc->name, i,
		      e->al.judged);
		CHECK(e->al.wrong * 10000 <= e->al.judged * wrong_per_1e4 && e->al.inserted <= max_inserted &&
		      e->al.lost <= max_lost,
		      "%s: end %d: %lu wrong, %lu inserted, %lu lost", sc->name, i, e->al.wrong, e->al.inserted,
		      e->al.lost);
	}
}

static const struct line_cfg tel4 = {
	.loss_db = 10, .noise_dbm0 = -50, .echo_db = -999, .delay = 8 * 30, .ppm = 50, .seed = 7,
	.channel = CHAN_TELEPHONE
};

static const struct line_cfg bass4 = {
	.loss_db = 12, .noise_dbm0 = -50, .echo_db = -999, .delay = 8 * 150, .ppm = -100, .seed = 13,
	.channel = CHAN_BASS_CUT
};

/* 2-wire: a G.168 hybrid at the near end, the far hybrid's echo a round trip later */
static struct line_cfg wire2(int delay_ms, int hybrid, double erl, double far_db, double hz, uint64_t seed)
{
	struct line_cfg l = {
		.loss_db = 10, .noise_dbm0 = -55, .echo_db = -999, .delay = 8 * delay_ms, .ppm = 100,
		.seed = seed, .channel = CHAN_TELEPHONE, .hybrid = hybrid, .hybrid_erl_db = erl,
		.far_echo_db = far_db, .far_hybrid = 1 + hybrid % 8, .far_echo_hz = hz,
	};

	l.far_echo_delay = 2 * (l.delay + 16);
	return l;
}

/* the gap a renegotiation leaves: the far decoder's delay, 8 mapping frames (at most 8 x 166 bits) */
#define RENEG_LOST 1400

static void test_reneg(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, the call modem to 14400", .line = tel4, .who = 0, .act = ACT_RENEG,
		  .rate = 14400 },
		{ .name = "4-wire, the answer modem to 9600", .line = bass4, .who = 1, .act = ACT_RENEG,
		  .rate = 9600 },
		{ .name = "2-wire, the answer modem to 9600", .two_wire = true, .max_baud = 3000, .max_rate = 19200,
		  .who = 1, .act = ACT_RENEG, .rate = 9600 },
		{ .name = "2-wire, the call modem to 12000", .two_wire = true, .max_baud = 2400, .max_rate = 14400,
		  .who = 0, .act = ACT_RENEG, .rate = 12000 },
	};
	unsigned int n;

	sc[2].line = wire2(100, 4, 8, 28, -7, 21);
	sc[3].line = wire2(40, 1, 6, 26, 3, 22);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		struct out o;
		int i;

		if (skip(sc[n].name, n))
			continue;
		run_judged(&sc[n], &o, FROM_BEFORE_ACT);
		CHECK(o.act_at >= 0 && o.done_at >= 0, "%s: never settled", sc[n].name);
		check_data(&sc[n], &o, RENEG_LOST, 0, 0);
		for (i = 0; i < 2; i++) {
			const struct end_out *e = &o.e[i];

			CHECK(e->left_data && e->stats.renegs == 1 && e->stats.retrains == 0,
			      "%s: end %d: %u renegotiations, %u retrains", sc[n].name, i, e->stats.renegs,
			      e->stats.retrains);
			/* both directions at the rate asked for (it is one of both symbol rates') */
			CHECK(e->stats.tx.rate == sc[n].rate && e->stats.rx.rate == sc[n].rate &&
			      e->s0.tx.rate > sc[n].rate, "%s: end %d: %u -> %u, rx %u", sc[n].name, i,
			      e->s0.tx.rate, e->stats.tx.rate, e->stats.rx.rate);
			CHECK(e->stats.reneg_asked == (i == sc[n].who), "%s: end %d asked %u", sc[n].name, i,
			      e->stats.reneg_asked);
			/* the gap: S to data at 2400 baud is about 1 s (TRN 512, MPs, E, B1) and two one-way delays */
			CHECK(o.done_at - o.act_at < 8000 * 2 + 4 * sc[n].line.delay, "%s: %.2f s", sc[n].name,
			      (o.done_at - o.act_at) / 8000.0);
		}
	}
}

static void test_noise(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, noise at the answer modem", .line = tel4, .who = 1, .act = ACT_NOISE,
		  .noise_dbm0 = -46 },
		{ .name = "4-wire, noise at the call modem", .line = bass4, .who = 0, .act = ACT_NOISE,
		  .noise_dbm0 = -47 },
		{ .name = "2-wire, noise at the call modem", .two_wire = true, .max_baud = 3000, .max_rate = 19200,
		  .who = 0, .act = ACT_NOISE, .noise_dbm0 = -44 },
		{ .name = "4-wire, noise at the answer modem, no_auto", .line = tel4, .who = 1, .act = ACT_NOISE,
		  .noise_dbm0 = -46, .no_auto = true },
	};
	unsigned int n;

	sc[2].line = wire2(60, 5, 10, 28, 5, 23);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		const struct end_out *w, *f;
		struct out o;

		if (skip(sc[n].name, n))
			continue;
		run(&sc[n], &o);
		w = &o.e[sc[n].who];
		f = &o.e[1 - sc[n].who];
		if (sc[n].no_auto) {
			judge_bits(&o, 0);
			print_out(&sc[n], &o);
			/*
			 * no end acted: the noise is there for the whole 40 s, the bits
			 * wrong by the thousand, until the superframe sync check finds the
			 * decoder out of step and, with no retrain of its own, gives up
			 */
			CHECK(w->stats.renegs == 0 && f->stats.renegs == 0 && w->stats.retrains == 0 &&
			      (o.done_at < 0 || (w->st == SMDSP_V34_FAILED && w->fail == SMDSP_V34_FAIL_LOST)),
			      "%s: %u/%u renegotiations", sc[n].name, w->stats.renegs, f->stats.renegs);
			CHECK(w->al.wrong > w->al.judged / 20, "%s: %lu of %lu wrong", sc[n].name, w->al.wrong,
			      w->al.judged);
			continue;
		}
		/* judged from the renegotiation's end */
		judge_bits(&o, (uint32_t)(o.done_at >= 0 ? o.back_at : 0));
		print_out(&sc[n], &o);
		CHECK(o.done_at >= 0, "%s: never settled", sc[n].name);
		/*
		 * The rate the error asked for: at most 1e-3 wrong (3-30 bits in
		 * the 3 s measured, in one or two bursts), where the rate it left
		 * has a third of them wrong (the no_auto case)
		 */
		check_data(&sc[n], &o, RENEG_LOST, 0, 10);
		/* a step or two: the first rate is judged on an error the noise makes look smaller */
		CHECK(w->stats.renegs >= 1 && w->stats.renegs <= 2 && f->stats.renegs == w->stats.renegs &&
		      w->stats.reneg_auto == w->stats.renegs && w->stats.reneg_asked == w->stats.renegs &&
		      f->stats.reneg_asked == 0 && w->stats.retrains == 0 && f->stats.retrains == 0,
		      "%s: renegs %u/%u, auto %u", sc[n].name, w->stats.renegs, f->stats.renegs, w->stats.reneg_auto);
		/* its direction down, the other kept */
		CHECK(w->stats.rx.rate < w->s0.rx.rate && w->stats.rx.rate >= 2400 && f->stats.tx.rate == w->stats.rx.rate &&
		      w->stats.tx.rate == w->s0.tx.rate, "%s: rx %u -> %u, tx %u -> %u", sc[n].name, w->s0.rx.rate,
		      w->stats.rx.rate, w->s0.tx.rate, w->stats.tx.rate);
		/* within 2 s of the noise (its error falls over a few of its 256-symbol measurements, T_POOR) */
		CHECK(w->left_at >= 0 && w->left_at - o.act_at < 16000, "%s: asked %.2f s after the noise",
		      sc[n].name, (w->left_at - o.act_at) / 8000.0);
	}
}

/* the rates against time, a line a second, and where the noise was */
static void print_rates(const struct scen *sc, const struct out *o)
{
	unsigned int k;

	printf("  rates (bit/s, each end receiving) against time from the act:\n");
	for (k = 0; k < o->ntl; k += verbose > 1 ? 1 : 8000 / TL_STEP) {
		const struct tl_point *p = &o->tl[k];
		long dt = p->t - o->act_at;

		printf("  %5.1f s  c<-a %5u %-7s %4.1f dB  a<-c %5u %-7s %4.1f dB%s\n", dt / 8000.0, p->rate[0],
		       smdsp_v34_state_name(p->st[0]), p->wmse[0] / 10.0, p->rate[1], smdsp_v34_state_name(p->st[1]),
		       p->wmse[1] / 10.0,
		       sc->act == ACT_NOISE && (!sc->noise_for || dt < sc->noise_for) ? "  noise" : "");
	}
}

/*
 * The noise rises at one receiver, then falls: its direction goes down by
 * itself, and back up once the error has stayed a margin above a higher
 * rate's need (v34.c: 2 dB, 2 s), within CLIMB_MAX of the noise's end
 * (T_HOLD 1 s after the last step down, T_UP 2 s, the renegotiation's 1 s
 * at 2400 baud and two round trips, and a measurement's time).
 */
#define CLIMB_MAX (8000L * 6)

static void test_climb(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, noise at the answer modem for 6 s", .line = tel4, .who = 1, .act = ACT_NOISE,
		  .noise_dbm0 = -46, .noise_for = 8000L * 6, .until = 8000L * 16 },
		{ .name = "4-wire, noise at the call modem for 5 s", .line = bass4, .who = 0, .act = ACT_NOISE,
		  .noise_dbm0 = -47, .noise_for = 8000L * 5, .until = 8000L * 15 },
		{ .name = "2-wire, noise at the call modem for 6 s", .two_wire = true, .max_baud = 3000,
		  .max_rate = 19200, .who = 0, .act = ACT_NOISE, .noise_dbm0 = -44, .noise_for = 8000L * 6,
		  .until = 8000L * 16 },
		/* the far end's own limit, asked for while the noise is on, caps the climb */
		{ .name = "4-wire, noise at the answer modem for 6 s, the caller limits to 19200", .line = tel4,
		  .who = 1, .act = ACT_NOISE, .noise_dbm0 = -46, .noise_for = 8000L * 6, .until = 8000L * 16,
		  .far_limit = 19200, .far_at = 8000L * 3 },
	};
	unsigned int n;

	sc[2].line = wire2(60, 5, 10, 28, 5, 27);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		const struct end_out *w, *f;
		unsigned int k, lowest = ~0u, low_ev = 0, ups = 0;
		long quiet_at, up_at = -1;
		struct out o;
		int who = sc[n].who;

		if (skip(sc[n].name, n))
			continue;
		run(&sc[n], &o);
		w = &o.e[who];
		f = &o.e[1 - who];
		quiet_at = o.act_at + sc[n].noise_for;
		/* the last step down: the lowest rate its receiver reached, back in the data both ways */
		for (k = 0; k < o.nev; k++) {
			if (o.ev[k].rate[who] < lowest) {
				lowest = o.ev[k].rate[who];
				low_ev = k;
			}
			if (k && o.ev[k].rate[who] > o.ev[k - 1].rate[who]) {
				ups++;
				up_at = o.ev[k].t;
			}
		}
		/* judged from there on: the climb included */
		judge_bits(&o, (uint32_t)(o.nev ? o.ev[low_ev].t : 0));
		print_out(&sc[n], &o);
		print_rates(&sc[n], &o);
		printf("  down to %u by %.2f s, back up to %u %.2f s after the noise ended\n", lowest,
		       o.nev ? (o.ev[low_ev].t - o.act_at) / 8000.0 : -1.0, w->stats.rx.rate,
		       up_at >= 0 ? (up_at - quiet_at) / 8000.0 : -1.0);
		CHECK(o.nev >= 2 && lowest < w->s0.rx.rate && o.ev[low_ev].t < quiet_at,
		      "%s: never down while the noise was there (%u events, lowest %u)", sc[n].name, o.nev, lowest);
		/* up after the noise, above the lowest and within a step of where the call started */
		CHECK(ups >= 1 && up_at > quiet_at && up_at - quiet_at <= CLIMB_MAX + 4L * sc[n].line.delay &&
		      w->stats.rx.rate > lowest && w->stats.rx.rate + 2400 >= w->s0.rx.rate &&
		      (!sc[n].far_limit || w->stats.rx.rate <= sc[n].far_limit),
		      "%s: %u climbs, the last %.2f s after the noise, %u -> %u -> %u", sc[n].name, ups,
		      (up_at - quiet_at) / 8000.0, w->s0.rx.rate, lowest, w->stats.rx.rate);
		/* no bit wrong from the last step down on; a renegotiation's gap at each change */
		check_data(&sc[n], &o, RENEG_LOST * (o.nev - low_ev), 0, 0);
		CHECK(!sc[n].far_limit || o.far_done, "%s: the far limit never asked", sc[n].name);
		/* the noisy receiver asked for every change, down and up (but the far end's limit); no retrain */
		CHECK(w->stats.reneg_asked + (sc[n].far_limit ? 1 : 0) == w->stats.renegs &&
		      f->stats.reneg_asked == (sc[n].far_limit ? 1 : 0) &&
		      w->stats.reneg_up == ups && w->stats.reneg_auto == w->stats.reneg_asked &&
		      f->stats.renegs == w->stats.renegs && w->stats.retrains == 0 && f->stats.retrains == 0,
		      "%s: renegs %u/%u, asked %u/%u, up %u, auto %u", sc[n].name, w->stats.renegs, f->stats.renegs,
		      w->stats.reneg_asked, f->stats.reneg_asked, w->stats.reneg_up, w->stats.reneg_auto);
		/* the other direction kept its rate (or took the far end's limit) */
		CHECK(w->stats.tx.rate == (sc[n].far_limit ? sc[n].far_limit : w->s0.tx.rate) &&
		      f->stats.rx.rate == w->stats.tx.rate,
		      "%s: the other direction %u -> %u", sc[n].name, w->s0.tx.rate, w->stats.tx.rate);
	}
}

/* a minute of data on a steady line: no renegotiation (the climb's hysteresis) */
static void test_steady(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, a steady line for 60 s", .line = tel4, .act = ACT_NONE, .until = 8000L * 60 },
		{ .name = "4-wire, a steady bass-cut line for 60 s", .line = bass4, .act = ACT_NONE,
		  .until = 8000L * 60 },
		{ .name = "2-wire, a steady line for 60 s", .two_wire = true, .max_baud = 3000, .max_rate = 19200,
		  .act = ACT_NONE, .until = 8000L * 60 },
	};
	unsigned int n;

	sc[2].line = wire2(60, 5, 10, 28, 5, 28);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		struct out o;
		int i;

		if (skip(sc[n].name, n))
			continue;
		run_judged(&sc[n], &o, FROM_ACT);
		if (verbose)
			print_rates(&sc[n], &o);
		for (i = 0; i < 2; i++) {
			const struct end_out *e = &o.e[i];

			CHECK(e->st == SMDSP_V34_DATA && e->stats.renegs == 0 && e->stats.reneg_asked == 0 &&
			      e->stats.retrains == 0 && e->stats.rx.rate == e->s0.rx.rate,
			      "%s: end %d %s, %u renegotiations, %u retrains, %u -> %u", sc[n].name, i,
			      smdsp_v34_state_name(e->st), e->stats.renegs, e->stats.retrains, e->s0.rx.rate,
			      e->stats.rx.rate);
			CHECK(e->al.wrong == 0 && e->al.lost == 0 && e->al.inserted == 0 &&
			      e->al.judged > 50UL * o.e[1 - i].stats.tx.rate, "%s: end %d: %lu judged, %lu wrong",
			      sc[n].name, i, e->al.judged, e->al.wrong);
		}
	}
}

/*
 * A line that trains in noise and whose noise then goes (ACT_QUIET, 2 s
 * into the data): each receiver's error, now well past what it was when
 * the data began, lifts its climbs' ceiling above the training's rate and
 * phase 2's projection (v34.c: LIFT_DB10 for T_UP); both directions climb
 * above the trained rate within LIFT_MAX of the noise's end, no retrain,
 * no bit wrong from the act on (a renegotiation's gap at each change). The
 * same line with its noise kept (ACT_NONE) climbs nowhere: no
 * renegotiation at all. LIFT_MAX: up to three renegotiations in turn (the
 * far end's climb, ours to the training's rate, ours above it), each its
 * T_HOLD of 1 s, T_UP of 2 s and about 1 s of its own.
 */
#define LIFT_MAX (8000L * 12)

static struct line_cfg noisy4(double noise, uint64_t seed)
{
	struct line_cfg l = tel4;

	l.loss_db = 9;
	l.noise_dbm0 = noise;
	l.seed = seed;
	return l;
}

static struct line_cfg noisy2(double noise, uint64_t seed)
{
	struct line_cfg l = wire2(60, 5, 10, 28, 5, seed);

	l.loss_db = 9;
	l.noise_dbm0 = noise;
	return l;
}

static void test_lift(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, noise -45 dBm0 goes", .act = ACT_QUIET, .act_after = 16000, .until = 8000L * 16 },
		{ .name = "2-wire, noise -45 dBm0 goes", .two_wire = true, .max_baud = 3429, .act = ACT_QUIET,
		  .act_after = 16000, .until = 8000L * 16 },
		{ .name = "4-wire, noise -50 dBm0 goes", .act = ACT_QUIET, .act_after = 16000, .until = 8000L * 16 },
		{ .name = "2-wire, noise -50 dBm0 goes", .two_wire = true, .max_baud = 3429, .act = ACT_QUIET,
		  .act_after = 16000, .until = 8000L * 16 },
		/* the same line, other noises: the far echo's phase loop in the data held each (echo.c) */
		{ .name = "2-wire, noise -50 dBm0 goes, seed 45", .two_wire = true, .max_baud = 3429, .act = ACT_QUIET,
		  .act_after = 16000, .until = 8000L * 16 },
		{ .name = "2-wire, noise -50 dBm0 goes, seed 46", .two_wire = true, .max_baud = 3429, .act = ACT_QUIET,
		  .act_after = 16000, .until = 8000L * 16 },
		{ .name = "2-wire, noise -50 dBm0 goes, seed 49", .two_wire = true, .max_baud = 3429, .act = ACT_QUIET,
		  .act_after = 16000, .until = 8000L * 16 },
		{ .name = "4-wire, noise -45 dBm0 stays", .act = ACT_NONE, .act_after = 16000, .until = 8000L * 30 },
		{ .name = "2-wire, noise -45 dBm0 stays", .two_wire = true, .max_baud = 3429, .act = ACT_NONE,
		  .act_after = 16000, .until = 8000L * 30 },
	};
	unsigned int n;

	sc[0].line = noisy4(-45, 41);
	sc[1].line = noisy2(-45, 42);
	sc[2].line = noisy4(-50, 43);
	sc[3].line = noisy2(-50, 44);
	sc[4].line = noisy2(-50, 45);
	sc[5].line = noisy2(-50, 46);
	sc[6].line = noisy2(-50, 49);
	sc[7].line = noisy4(-45, 45);
	sc[8].line = noisy2(-45, 46);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		long up_at[2] = { -1, -1 };
		struct out o;
		unsigned int k;
		int i;

		if (skip(sc[n].name, n))
			continue;
		run(&sc[n], &o);
		/* each receiver's first rate above the trained one: when both ends were back in the data with it */
		for (k = 0; k < o.nev; k++)
			for (i = 0; i < 2; i++)
				if (up_at[i] < 0 && o.ev[k].rate[i] > o.trained[i])
					up_at[i] = o.ev[k].t;
		judge_bits(&o, (uint32_t)o.act_at);
		print_out(&sc[n], &o);
		print_rates(&sc[n], &o);
		printf("  trained c<-a %u, a<-c %u (phase 2: %u, %u); at the act %u, %u; now %u, %u;"
		       " above the trained %.2f s, %.2f s after the act\n",
		       o.trained[0], o.trained[1], o.e[0].s0.rx.max_rate, o.e[1].s0.rx.max_rate,
		       o.e[0].s0.rx.rate, o.e[1].s0.rx.rate,
		       o.e[0].stats.rx.rate, o.e[1].stats.rx.rate,
		       up_at[0] >= 0 ? (up_at[0] - o.act_at) / 8000.0 : -1.0,
		       up_at[1] >= 0 ? (up_at[1] - o.act_at) / 8000.0 : -1.0);
		for (i = 0; i < 2; i++) {
			const struct end_out *e = &o.e[i];
			unsigned int renegs = e->stats.renegs - e->s0.renegs, ups = e->stats.reneg_up - e->s0.reneg_up;
			unsigned int asked = e->stats.reneg_asked - e->s0.reneg_asked;

			CHECK(e->st == SMDSP_V34_DATA && e->stats.retrains == 0, "%s: end %d %s, %u retrains", sc[n].name,
			      i, smdsp_v34_state_name(e->st), e->stats.retrains);
			CHECK(e->al.wrong == 0 && e->al.inserted == 0 && e->al.lost <= RENEG_LOST * renegs &&
			      e->al.judged > 5UL * o.e[1 - i].stats.tx.rate,
			      "%s: end %d: %lu judged, %lu wrong, %lu inserted, %lu lost", sc[n].name, i, e->al.judged,
			      e->al.wrong, e->al.inserted, e->al.lost);
			if (sc[n].act == ACT_NONE) {
				CHECK(e->stats.renegs == 0 && e->stats.rx.rate == o.trained[i],
				      "%s: end %d: %u renegotiations, %u -> %u", sc[n].name, i, e->stats.renegs,
				      o.trained[i], e->stats.rx.rate);
				continue;
			}
			/* above the trained rate and phase 2's projection, each end asking for its own direction */
			CHECK(up_at[i] >= 0 && up_at[i] - o.act_at <= LIFT_MAX + 4L * sc[n].line.delay &&
			      e->stats.rx.rate > o.trained[i] && e->stats.rx.rate > e->s0.rx.max_rate,
			      "%s: end %d: %u -> %u (phase 2 %u), %.2f s after the act", sc[n].name, i, o.trained[i],
			      e->stats.rx.rate, e->s0.rx.max_rate, up_at[i] >= 0 ? (up_at[i] - o.act_at) / 8000.0 : -1.0);
			/* from the act on: a climb or two of its own (the rate the training left, then above), none down */
			CHECK(ups >= 1 && ups <= 2 && asked == ups && renegs <= 4,
			      "%s: end %d: renegs %u, asked %u, up %u since the act", sc[n].name, i, renegs, asked, ups);
		}
	}
}

static void test_retrain(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, the call modem retrains", .line = tel4, .who = 0, .act = ACT_RETRAIN },
		{ .name = "4-wire, the answer modem retrains", .line = bass4, .who = 1, .act = ACT_RETRAIN },
		{ .name = "2-wire, the answer modem retrains", .two_wire = true, .max_baud = 3000, .max_rate = 19200,
		  .who = 1, .act = ACT_RETRAIN },
	};
	unsigned int n;

	sc[2].line = wire2(100, 4, 8, 28, -7, 24);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		struct out o;
		int i;

		if (skip(sc[n].name, n))
			continue;
		run_judged(&sc[n], &o, FROM_FRESH);
		CHECK(o.done_at >= 0, "%s: never settled", sc[n].name);
		/*
		 * One slip where the data starts again: the bits sent while the
		 * tones went are lost; what the far receiver decoded of our tone
		 * before it heard it (40 ms, and the decoder's delay) comes out
		 * as bits inserted
		 */
		check_data(&sc[n], &o, ~0UL, 2 * 33600 / 10, 0);
		for (i = 0; i < 2; i++) {
			const struct end_out *e = &o.e[i];

			CHECK(e->left_data && e->stats.retrains == 1 && e->stats.retrain_asked == (i == sc[n].who),
			      "%s: end %d: %u retrains, %u asked", sc[n].name, i, e->stats.retrains,
			      e->stats.retrain_asked);
		}
		/* phase 2 again and the trainings: as long as the call's start (under 15 s on these lines) */
		CHECK(o.done_at - o.act_at < 8000 * 15, "%s: %.2f s", sc[n].name, (o.done_at - o.act_at) / 8000.0);
	}
}

/*
 * Sync lost: for FAULT samples one end hears noise at the far end's level
 * instead of its signal (a line fault): its decisions as bad as noise's
 * for a second while the level is still there: it retrains, and both ends
 * return to the data once the fault has gone.
 */
static void test_fault(void)
{
	struct scen sc = { .name = "4-wire, a fault at the answer modem's input", .line = tel4, .who = 1,
			   .act = ACT_FAULT };
	struct out o;
	int i;

	if (skip(sc.name, 0))
		return;
	run_judged(&sc, &o, FROM_FRESH);
	CHECK(o.done_at >= 0, "%s: never settled", sc.name);
	check_data(&sc, &o, ~0UL, 2 * 33600 / 10, 0);
	for (i = 0; i < 2; i++)
		CHECK(o.e[i].stats.retrains == 1 && o.e[i].stats.retrain_asked == (i == sc.who),
		      "%s: end %d: %u retrains, %u asked", sc.name, i, o.e[i].stats.retrains,
		      o.e[i].stats.retrain_asked);
	/* a second of bad decisions, then the retrain */
	CHECK(o.done_at - o.act_at < 8000 * 16, "%s: %.2f s", sc.name, (o.done_at - o.act_at) / 8000.0);
}

static void test_cleardown(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, the call modem clears down", .line = tel4, .who = 0, .act = ACT_CLEAR },
		{ .name = "2-wire, the answer modem clears down", .two_wire = true, .max_baud = 2400, .max_rate = 14400,
		  .who = 1, .act = ACT_CLEAR },
	};
	unsigned int n;

	sc[1].line = wire2(40, 1, 6, 26, 3, 25);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		struct out o;
		int i;

		if (skip(sc[n].name, n))
			continue;
		run_judged(&sc[n], &o, FROM_BEFORE_ACT);
		CHECK(o.done_at >= 0 && o.done_at - o.act_at < 8000 * 2 + 4 * sc[n].line.delay, "%s: %.2f s",
		      sc[n].name, (o.done_at - o.act_at) / 8000.0);
		for (i = 0; i < 2; i++) {
			const struct end_out *e = &o.e[i];

			CHECK(e->st == SMDSP_V34_CLEARED && e->fail == SMDSP_V34_OK && e->stats.cleared_at,
			      "%s: end %d %s (%s)", sc[n].name, i, smdsp_v34_state_name(e->st),
			      smdsp_v34_fail_name(e->fail));
			/* silent from the cleardown on */
			CHECK(e->silent_from >= 0 && e->silent_from <= (long)e->stats.cleared_at + BLK,
			      "%s: end %d silent from %ld, cleared at %u", sc[n].name, i, e->silent_from,
			      e->stats.cleared_at);
			/* what was delivered before was right */
			CHECK(e->al.wrong == 0 && e->al.inserted == 0 && e->al.lost <= RENEG_LOST && e->al.judged > 8000,
			      "%s: end %d: %lu judged, %lu wrong, %lu inserted, %lu lost", sc[n].name, i, e->al.judged,
			      e->al.wrong, e->al.inserted, e->al.lost);
		}
	}
}

static void test_vanish(void)
{
	struct scen sc[] = {
		{ .name = "4-wire, the answer modem gone as the caller asks", .line = tel4, .who = 0,
		  .act = ACT_VANISH, .rate = 14400 },
		{ .name = "2-wire, the call modem gone as the answerer asks", .two_wire = true, .max_baud = 3000,
		  .max_rate = 19200, .who = 1, .act = ACT_VANISH, .rate = 9600 },
	};
	unsigned int n;

	sc[1].line = wire2(100, 4, 8, 28, -7, 26);
	for (n = 0; n < SMDSP_ARRAY_SIZE(sc); n++) {
		const struct end_out *w;
		struct out o;

		if (skip(sc[n].name, n))
			continue;
		run_judged(&sc[n], &o, FROM_START);
		w = &o.e[sc[n].who];
		/* the renegotiation's limit: 4 s and two round trips */
		CHECK(w->st == SMDSP_V34_FAILED && w->fail == SMDSP_V34_FAIL_RENEG &&
		      w->stats.failed_at - (uint32_t)o.act_at <= 8000 * 4 + 4 * (uint32_t)sc[n].line.delay + 800,
		      "%s: %s (%s) %.2f s after", sc[n].name, smdsp_v34_state_name(w->st),
		      smdsp_v34_fail_name(w->fail), (w->stats.failed_at - (uint32_t)o.act_at) / 8000.0);
	}
}

static void test_busy(void)
{
	struct smdsp_v34_config cfg = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL };
	struct smdsp_v34 *s = smdsp_v34_create(&cfg);

	CHECK(s != NULL);
	if (!s)
		return;
	/* outside the data mode nothing is started */
	CHECK(smdsp_v34_renegotiate(s, 9600) == -EBUSY && smdsp_v34_retrain(s) == -EBUSY &&
	      smdsp_v34_cleardown(s) == -EBUSY && smdsp_v34_state(s) == SMDSP_V34_PHASE2);
	CHECK(!strcmp(smdsp_v34_state_name(SMDSP_V34_CLEARED), "cleared") &&
	      !strcmp(smdsp_v34_state_name(SMDSP_V34_RENEG), "reneg") &&
	      !strcmp(smdsp_v34_fail_name(SMDSP_V34_FAIL_RENEG), "reneg"));
	smdsp_v34_free(s);
}

/* the cleardown's MP: both rates 0 packs and reads back; one rate 0 alone is no rate */
static void test_mp(void)
{
	struct smdsp_v34_mp mp = { .type = 1, .rates = 0x3fff, .ack = true }, back;
	uint8_t f[(SMDSP_V34_MP1_BITS + 7) / 8];
	int n = smdsp_v34_mp_pack(&mp, f);

	CHECK(n == SMDSP_V34_MP1_BITS && smdsp_v34_mp_unpack(f, (unsigned int)n, &back) == SMDSP_V34_MP_OK &&
	      !back.rate_c_to_a && !back.rate_a_to_c && back.ack, "the cleardown's MP: %d bits", n);
	mp.rate_a_to_c = 5;
	CHECK(smdsp_v34_mp_pack(&mp, f) == -EINVAL, "one rate 0");
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strncmp(argv[i], "--case=", 7))
			only = argv[i] + 7;
	}
	test_busy();
	test_mp();
	test_reneg();
	test_noise();
	test_climb();
	test_steady();
	test_lift();
	test_retrain();
	test_fault();
	test_cleardown();
	test_vanish();
	return t_report("test_v34_reneg");
}
