// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phase 2's controller (dsp/v34_phase2.c): our call modem and our answer
 * modem over the line model (tests/dsp/common/line.c), each end's blocks of
 * 160 samples heard a block late as in test_v34_rtd:
 * - every channel of tests/dsp/common/chan.c at three noise levels, one-way
 *   delays from 0 to 600 ms, loss, each end's own signal echoed back, clock
 *   offsets of +-100 ppm: both ends finish, with the same parameters for
 *   both directions, each valid (a symbol rate both INFO0s allow, a data
 *   rate in its range, a pre-emphasis index, a power reduction); each end's
 *   round trip within 1 ms of the line's; the symbol rate and data rates
 *   those the rule of v34_probe.c gives on the true channel and noise
 *   (computed here in floating point from the channel's exact response, not
 *   from the analysis), within one 2400 bit/s step per direction; two
 *   listeners (listen-only controllers on each end's input) follow every
 *   step of the far end's phase 2, take the same INFO1, send nothing, and read
 *   the answer modem's round trip from its reversals within 1 ms of its own;
 * - INFO0c or INFO0a lost (the line silent through it) or corrupted (a few
 *   samples turned over: a bad CRC): recovered by retransmission, the ack
 *   bit set by the end that heard the repeat, both ends then finishing as
 *   above; both INFO0s lost: both sent again; B's reversal lost: the answer
 *   modem sends INFO0a again after 3 s and the reversals start over;
 * - faults past the INFO0 exchange (v34_phase2.c's recovery), on 4-wire and
 *   2-wire lines (G.168 hybrid at ERL 6 and 12 dB), 12 and 600 ms one way:
 *   A's L2 silent for 200 ms at C, a noise burst over C's L2 at A, tone B or
 *   tone A (each the tone that ends the far L2) lost, INFO1c and INFO1a
 *   corrupted (20 samples turned over), INFO1c under a noise burst, INFO1a
 *   lost; two in a row on two of the lines: both ends go back and finish
 *   with the error-free run's parameters (the further power reduction within
 *   1 dB) and round trips, within 15 s more a fault; the time each took is
 *   printed.
 *   An answer modem gone from its L1 on: both fail with their reason;
 * - a silent far end: each end fails with no INFO0 after 1 + 3 INFO0s; a far
 *   end that stops before its second reversal: no reversal; one that stops in
 *   its L2: the answer modem goes back three times, then fails with no
 *   reversal; a line no symbol rate can use
 *   (the rule gives 0 everywhere): both fail with no rate; each reason counted;
 * - the print line, reset, the defaults.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_phase2.h>
#include <smdsp/private/v34_phase2.h>
#include <smdsp/v34_probe.h>
#include <smdsp/v34_mod.h>
#include "v34rule.h"
#include "chan.h"
#include "line.h"
#include "tutil.h"
#include "v34fault.h"

#define LEVEL (-120)
#define BLK 160
#define MAX_SAMPLES (8000L * 40)
#define SMDSP_V34P2_MS_TEST(ms) (8L * (ms))

static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };

/* ---- the rule of v34_probe.c on the true channel (common/v34rule.c) ---- */

/* ---- one phase 2 over the line ---- */

enum impair {
	NONE,
	LOSE_INFO0C,		/* the line silent through the call modem's first INFO0c */
	LOSE_INFO0A,
	CORRUPT_INFO0C,		/* a few of its samples turned over: a bad CRC */
	CORRUPT_INFO0A,
	LOSE_BOTH_INFO0,	/* both first INFO0s lost */
	LOSE_B_REVERSAL,	/* the line silent through the call modem's first reversal of B */
	SILENT_ANSWER,		/* the answer modem never heard */
	SILENT_CALL,
	ANSWER_STOPS,		/* the answer modem falls silent 250 ms in, before its second reversal */
	CALL_STOPS_IN_L2,	/* the call modem falls silent 500 ms into its L1/L2 */
	FAULTS,			/* the faults of 'faults' below, each on its first chance */
};

/* the faults of FAULTS (tests/dsp/common/v34fault.h) */
static unsigned int faults;
static struct v34_faults flt;

struct outcome {
	bool c_end, a_end;
	struct smdsp_v34_phase2_result c, a;
	struct smdsp_v34_phase2_stats cst, ast;
	enum smdsp_v34_phase2_state cs, as;
	long ms;
	/* listeners on each end's input: what a call modem hears of the answer modem, and the other way */
	unsigned int heard_a, heard_c;
	int32_t far_rtd;
	struct smdsp_v34_phase2_result lc, la;
};

static void impair_block(enum impair imp, long t, int16_t *c_tx, int16_t *a_tx, long *stop_at,
			 const struct smdsp_v34_phase2 *c, int blk)
{
	int i;

	for (i = 0; i < blk; i++) {
		long n = t + i;
		/* INFO0 is 50 symbols from sample 0: 667 samples; turn over a symbol and a half in its fields */
		bool in_info0 = n < 720, mid = n >= 300 && n < 320;

		if ((imp == LOSE_INFO0C && in_info0) || (imp == CORRUPT_INFO0C && mid) || imp == SILENT_CALL)
			c_tx[i] = (int16_t)(imp == CORRUPT_INFO0C ? -c_tx[i] : 0);
		if ((imp == LOSE_INFO0A && in_info0) || (imp == CORRUPT_INFO0A && mid) || imp == SILENT_ANSWER)
			a_tx[i] = (int16_t)(imp == CORRUPT_INFO0A ? -a_tx[i] : 0);
		if (imp == LOSE_BOTH_INFO0 && in_info0) {
			c_tx[i] = 0;
			a_tx[i] = 0;
		}
		if (imp == LOSE_B_REVERSAL && *stop_at < 0 && smdsp_v34_phase2_state(c) == SMDSP_V34P2_RTD)
			*stop_at = n;
		if (imp == LOSE_B_REVERSAL && *stop_at >= 0 && n < *stop_at + 600)
			c_tx[i] = 0;
		if (imp == ANSWER_STOPS && n >= 2000)
			a_tx[i] = 0;
		if (imp == CALL_STOPS_IN_L2 && *stop_at < 0 && smdsp_v34_phase2_state(c) == SMDSP_V34P2_PROBE_TX)
			*stop_at = n + 4000;
		if (imp == CALL_STOPS_IN_L2 && *stop_at >= 0 && n >= *stop_at)
			c_tx[i] = 0;
	}
}

/* blk: samples per call of each end (the line hears each end a block late) */
static struct outcome run_blk(const struct line_cfg *cfg, const struct smdsp_v34_info0 *i0c,
			      const struct smdsp_v34_info0 *i0a, enum impair imp, int blk)
{
	struct smdsp_v34_phase2_config cc = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
					      .info0 = *i0c };
	struct smdsp_v34_phase2_config ac = { .calling = false, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
					      .info0 = *i0a };
	struct line *l = line_create(cfg);
	struct smdsp_v34_phase2 *c = smdsp_v34_phase2_create(&cc);
	struct smdsp_v34_phase2 *a = smdsp_v34_phase2_create(&ac);
	struct smdsp_v34_phase2_config lcc = cc, lac = ac;
	struct smdsp_v34_phase2 *lc, *la;
	int16_t scratch[BLK];
	bool quiet = true;
	int i;
	int16_t c_tx[BLK], a_tx[BLK], c_rx[BLK] = { 0 }, a_rx[BLK] = { 0 };	/* blk <= BLK */
	struct outcome o;
	long t, stop_at = -1;
	/* P2_DEBUG=1: each end's print line whenever its state changes */
	bool dbg = getenv("P2_DEBUG") != NULL;
	enum smdsp_v34_phase2_state pc = SMDSP_V34P2_STATES, pa = SMDSP_V34P2_STATES;

	memset(&o, 0, sizeof(o));
	o.ms = -1;
	v34_faults_init(&flt, faults);
	lcc.listen_only = true;
	lac.listen_only = true;
	lc = smdsp_v34_phase2_create(&lcc);
	la = smdsp_v34_phase2_create(&lac);
	for (t = 0; t < MAX_SAMPLES; t += blk) {
		smdsp_v34_phase2_process(c, c_rx, c_tx, blk);
		smdsp_v34_phase2_process(a, a_rx, a_tx, blk);
		smdsp_v34_phase2_process(lc, c_rx, scratch, blk);
		smdsp_v34_phase2_process(la, a_rx, scratch, blk);
		for (i = 0; i < blk; i++)
			quiet &= !scratch[i];
		impair_block(imp, t, c_tx, a_tx, &stop_at, c, blk);
		if (imp == FAULTS)
			v34_faults_apply(&flt, t, c_tx, a_tx, c, a, blk);
		line_process(l, c_tx, c_rx, a_tx, a_rx, blk);
		if (dbg && (smdsp_v34_phase2_state(c) != pc || smdsp_v34_phase2_state(a) != pa)) {
			char b1[200], b2[200];

			pc = smdsp_v34_phase2_state(c);
			pa = smdsp_v34_phase2_state(a);
			smdsp_v34_phase2_print(c, b1, sizeof(b1));
			smdsp_v34_phase2_print(a, b2, sizeof(b2));
			printf("  %6ld ms: %s | %s\n", t / 8, b1, b2);
		}
		if (smdsp_v34_phase2_state(c) >= SMDSP_V34P2_DONE && smdsp_v34_phase2_state(a) >= SMDSP_V34P2_DONE) {
			o.ms = t / 8;
			break;
		}
	}
	o.c_end = smdsp_v34_phase2_result(c, &o.c);
	o.a_end = smdsp_v34_phase2_result(a, &o.a);
	o.cs = smdsp_v34_phase2_state(c);
	o.as = smdsp_v34_phase2_state(a);
	smdsp_v34_phase2_get_stats(c, &o.cst);
	smdsp_v34_phase2_get_stats(a, &o.ast);
	if (o.cs != SMDSP_V34P2_DONE || o.as != SMDSP_V34P2_DONE) {
		char b1[200], b2[200];

		smdsp_v34_phase2_print(c, b1, sizeof(b1));
		smdsp_v34_phase2_print(a, b2, sizeof(b2));
		printf("   %s\n   %s\n", b1, b2);
	}
	o.heard_a = smdsp_v34_phase2_steps(lc);
	o.heard_c = smdsp_v34_phase2_steps(la);
	o.far_rtd = smdsp_v34_phase2_far_rtd(lc);
	smdsp_v34_phase2_result(lc, &o.lc);
	smdsp_v34_phase2_result(la, &o.la);
	CHECK(smdsp_v34_phase2_far_rtd(la) == -1, "only an answer modem's round trip is read");
	CHECK(quiet, "a listener sent something");
	smdsp_v34_phase2_free(c);
	smdsp_v34_phase2_free(a);
	smdsp_v34_phase2_free(lc);
	smdsp_v34_phase2_free(la);
	line_free(l);
	return o;
}

static struct outcome run(const struct line_cfg *cfg, const struct smdsp_v34_info0 *i0c,
			  const struct smdsp_v34_info0 *i0a, enum impair imp)
{
	return run_blk(cfg, i0c, i0a, imp, BLK);
}

static const struct smdsp_v34_info0 all = {
	.rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1, .low_3000 = 1, .high_3000 = 1, .low_3200 = 1,
	.high_3200 = 1, .allow_3429 = 1, .power_reduction = 1, .c1664 = 1
};

static bool dir_valid(const struct smdsp_v34_phase2_dir *d, const uint8_t allowed[6])
{
	return d->symrate < 6 && allowed[d->symrate] && (allowed[d->symrate] & (d->high_carrier ? 2 : 1)) &&
	       d->max_rate % 2400 == 0 && d->max_rate / 2400 >= v34_rule_rmin[d->symrate] &&
	       d->max_rate / 2400 <= v34_rule_rmax[d->symrate] && d->preemph <= 10 && d->power_red <= 7 &&
	       d->add_power_red <= 7;
}

/* the channel's group delay at f, samples (the phase slope over +-5 Hz) */
static double group_delay(int kind, double f)
{
	struct chan ch;
	double d;

	chan_init(&ch, kind);
	d = carg(chan_response(&ch, f + 5) / chan_response(&ch, f - 5));
	return -d / (2 * M_PI * 10) * 8000;
}

/*
 * The line's round trip as the tones see it: twice the delay and the 16
 * samples the line holds, the block each end hears a block late in, and the
 * channel's group delay at 1200 Hz one way and 2400 Hz the other
 */
static double true_rtd(const struct line_cfg *cfg, int blk)
{
	return 2 * (cfg->delay + 16 + blk) + group_delay(cfg->channel, 1200) + group_delay(cfg->channel, 2400);
}

/* directions judged against the rule, those whose rate equals it, runs whose total equals the rule's best */
static int rule_dirs, rule_exact, rule_best;

/* both ended well, agree, valid; returns the worst round-trip error (samples) */
static double judge_blk(const char *what, const struct line_cfg *cfg, const struct outcome *o,
			const struct smdsp_v34_info0 *i0c, const struct smdsp_v34_info0 *i0a, bool against_rule, int blk)
{
	uint8_t ac_allowed[6], ca_allowed[6];
	double want = true_rtd(cfg, blk), ec, ea;
	int rates[6], r, best = 0, diff = i0a->max_rate_diff < i0c->max_rate_diff ? i0a->max_rate_diff :
					 i0c->max_rate_diff;
	int sa = o->c.a_to_c.symrate, sc = o->c.c_to_a.symrate;

	CHECK(o->cs == SMDSP_V34P2_DONE && o->as == SMDSP_V34P2_DONE && o->c_end && o->a_end,
	      "%s: states %s %s (%s %s)", what, smdsp_v34_phase2_state_name(o->cs), smdsp_v34_phase2_state_name(o->as),
	      smdsp_v34_phase2_fail_name(o->c.fail), smdsp_v34_phase2_fail_name(o->a.fail));
	if (o->cs != SMDSP_V34P2_DONE || o->as != SMDSP_V34P2_DONE)
		return 99;
	CHECK(!memcmp(&o->c.a_to_c, &o->a.a_to_c, sizeof(o->c.a_to_c)) &&
	      !memcmp(&o->c.c_to_a, &o->a.c_to_a, sizeof(o->c.c_to_a)), "%s: the ends disagree", what);
	CHECK(!memcmp(&o->c.info1c, &o->a.info1c, sizeof(o->c.info1c)) &&
	      !memcmp(&o->c.info1a, &o->a.info1a, sizeof(o->c.info1a)), "%s: INFO1 differs", what);
	CHECK(!memcmp(&o->c.far_info0, i0a, sizeof(*i0a) - sizeof(bool)) &&
	      !memcmp(&o->a.far_info0, i0c, sizeof(*i0c) - sizeof(bool)), "%s: INFO0 taken wrong", what);
	smdsp_v34_probe_allowed(i0a, i0c, ac_allowed);
	smdsp_v34_probe_allowed(i0c, i0a, ca_allowed);
	CHECK(dir_valid(&o->c.a_to_c, ac_allowed) && dir_valid(&o->c.c_to_a, ca_allowed),
	      "%s: invalid parameters: a->c %d baud %d bit/s pe %d, c->a %d baud %d bit/s pe %d", what,
	      sym_rate[sa % 6], o->c.a_to_c.max_rate, o->c.a_to_c.preemph, sym_rate[sc % 6], o->c.c_to_a.max_rate,
	      o->c.c_to_a.preemph);
	CHECK(abs(sa - sc) <= diff, "%s: symbol rates %d and %d, difference allowed %d", what, sa, sc, diff);
	ec = o->c.rtd - want;
	ea = o->a.rtd - want - want * cfg->ppm * 1e-6;
	CHECK(fabs(ec) <= 8 && fabs(ea) <= 8, "%s: round trip %d (call) %d (answer), %.1f expected", what, o->c.rtd,
	      o->a.rtd, want);
	if (against_rule) {
		/* the same rule on the true channel; both directions see the same channel and noise */
		v34_rule_line_rates(cfg, LEVEL, rates);
		for (r = 0; r < 6; r++)
			if (ac_allowed[r] && ca_allowed[r] && 2 * rates[r] > best)
				best = 2 * rates[r];
		rule_dirs += 2;
		rule_exact += (o->c.a_to_c.max_rate / 2400 == rates[sa]) + (o->c.c_to_a.max_rate / 2400 == rates[sc]);
		rule_best += (o->c.a_to_c.max_rate + o->c.c_to_a.max_rate) / 2400 == best;
		CHECK(abs(o->c.a_to_c.max_rate / 2400 - rates[sa]) <= 1 &&
		      abs(o->c.c_to_a.max_rate / 2400 - rates[sc]) <= 1,
		      "%s: %d/%d bit/s at %d/%d baud, the rule %d/%d", what, o->c.a_to_c.max_rate, o->c.c_to_a.max_rate,
		      sym_rate[sa], sym_rate[sc], 2400 * rates[sa], 2400 * rates[sc]);
		CHECK((o->c.a_to_c.max_rate + o->c.c_to_a.max_rate) / 2400 >= best - 2,
		      "%s: %d + %d bit/s, the rule's best %d", what, o->c.a_to_c.max_rate, o->c.c_to_a.max_rate,
		      best * 2400);
	}
	/*
	 * the listeners followed every step (a call modem sends no tone after its
	 * L2), took the same INFO1s, and read the answer modem's round trip from
	 * its reversals' spacing within 1 ms of what it measured
	 */
	CHECK(o->heard_a == 0x7f && o->heard_c == (0x7fu & ~SMDSP_V34P2_HEARD_TONE2),
	      "%s: listeners followed %#x and %#x", what, o->heard_a, o->heard_c);
	CHECK(!memcmp(&o->la.info1c, &o->c.info1c, sizeof(o->c.info1c)) &&
	      !memcmp(&o->lc.info1a, &o->a.info1a, sizeof(o->a.info1a)), "%s: listeners' INFO1", what);
	CHECK(abs(o->far_rtd - o->a.rtd) <= 8, "%s: the listener read %d, the answer modem measured %d", what,
	      o->far_rtd, o->a.rtd);
	return fmax(fabs(ec), fabs(ea));
}

static double judge_done(const char *what, const struct line_cfg *cfg, const struct outcome *o,
			 const struct smdsp_v34_info0 *i0c, const struct smdsp_v34_info0 *i0a, bool against_rule)
{
	return judge_blk(what, cfg, o, i0c, i0a, against_rule, BLK);
}

static void test_lines(void)
{
	static const double noises[] = { -70, -55, -45, -40 };
	static const int delays_ms[] = { 0, 5, 20, 50, 150, 300, 450, 600, 1, 75, 225, 525, 10, 100, 375 };
	double worst = 0;
	int kind, ni, n = 0, done = 0;
	long total_ms = 0;

	for (kind = 0; kind < CHAN_KINDS; kind++)
		for (ni = 0; ni < 8; ni++, n++) {
			/* echo, clock offset and loss vary with the case */
			struct line_cfg cfg = { .loss_db = 6 + 3 * (n % 3), .noise_dbm0 = noises[ni % 4],
						.echo_db = n % 2 ? -10 : -999, .echo_delay = 40,
						.delay = delays_ms[n % 15] * 8 + n, .ppm = n % 4 == 1 ? 100 :
						n % 4 == 3 ? -100 : 0, .seed = 7 + n, .channel = kind };
			struct outcome o = run(&cfg, &all, &all, NONE);
			char what[120];
			double e;

			snprintf(what, sizeof(what), "%s noise %.0f dBm0, %d ms, echo %s, %+.0f ppm", chan_name(kind),
				 cfg.noise_dbm0, cfg.delay / 8, cfg.echo_db > -200 ? "on" : "off", cfg.ppm);
			e = judge_done(what, &cfg, &o, &all, &all, true);
			if (e < 99) {
				worst = fmax(worst, e);
				done++;
				total_ms += o.ms;
			}
			printf("%-52s: %4d baud %5u bit/s a->c, %4d baud %5u c->a (pe %u/%u, power -%u/-%u dB), "
			       "rtd %d/%d (%.1f), %ld ms\n", what, sym_rate[o.c.a_to_c.symrate % 6], o.c.a_to_c.max_rate,
			       sym_rate[o.c.c_to_a.symrate % 6], o.c.c_to_a.max_rate, o.c.a_to_c.preemph,
			       o.c.c_to_a.preemph, o.c.a_to_c.power_red, o.c.c_to_a.power_red, o.c.rtd, o.a.rtd,
			       true_rtd(&cfg, BLK), o.ms);
		}
	printf("%d of %d phase 2s done, worst round-trip error %.0f samples (%.2f ms), mean length %ld ms\n", done, n,
	       worst, worst / 8, done ? total_ms / done : 0);
	printf("against the rule on the true channel: %d of %d directions at its rate (the rest one step off), %d of %d"
	       " runs at its best total\n", rule_exact, rule_dirs, rule_best, rule_dirs / 2);
}

/* the capabilities limit the choice: no 3429 at the answer modem, one step of difference allowed */
static void test_capabilities(void)
{
	struct smdsp_v34_info0 i0a = all, i0c = all;
	struct line_cfg cfg = { .loss_db = 6, .noise_dbm0 = -70, .echo_db = -999, .delay = 400, .seed = 3 };
	struct outcome o;

	i0a.rate_3429 = 0;
	i0a.max_rate_diff = 1;
	i0c.max_rate_diff = 2;
	i0c.high_3200 = 0;
	o = run(&cfg, &i0c, &i0a, NONE);
	judge_done("no 3429 at the answer modem, difference 1", &cfg, &o, &i0c, &i0a, false);
	CHECK(o.c.a_to_c.symrate != SMDSP_V34_S3429 && o.c.c_to_a.symrate != SMDSP_V34_S3429);
	CHECK(!(o.c.c_to_a.symrate == SMDSP_V34_S3200 && o.c.c_to_a.high_carrier));
	printf("capabilities: %d baud a->c, %d baud c->a, %u + %u bit/s\n", sym_rate[o.c.a_to_c.symrate % 6],
	       sym_rate[o.c.c_to_a.symrate % 6], o.c.a_to_c.max_rate, o.c.c_to_a.max_rate);
}

/* the ends called with other block lengths: one sample, 37, and 80 with G.168 hybrid echo */
static void test_blocks(void)
{
	static const int blks[] = { 1, 37, 80 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct line_cfg cfg = { .loss_db = 8, .noise_dbm0 = -60, .echo_db = -999, .delay = 1000 + 333 * i,
					.seed = 60 + i, .channel = CHAN_TELEPHONE, .hybrid = i == 2 ? 3 : 0,
					.hybrid_erl_db = 12, .ppm = i == 1 ? 50 : 0 };
		struct outcome o = run_blk(&cfg, &all, &all, NONE, blks[i]);
		char what[60];

		snprintf(what, sizeof(what), "blocks of %d samples", blks[i]);
		judge_blk(what, &cfg, &o, &all, &all, true, blks[i]);
		printf("%-22s: %d + %d bit/s, rtd %d/%d (%.1f)\n", what, o.c.a_to_c.max_rate, o.c.c_to_a.max_rate,
		       o.c.rtd, o.a.rtd, true_rtd(&cfg, blks[i]));
	}
}

static void test_recovery(void)
{
	static const enum impair imps[] = { LOSE_INFO0C, LOSE_INFO0A, CORRUPT_INFO0C, CORRUPT_INFO0A };
	static const char *const names[] = { "INFO0c lost", "INFO0a lost", "INFO0c corrupted", "INFO0a corrupted" };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct line_cfg cfg = { .loss_db = 9, .noise_dbm0 = -55, .echo_db = -12, .echo_delay = 24,
					.delay = 80 * 8 * i + 5, .seed = 40 + i, .channel = CHAN_TELEPHONE };
		struct outcome o = run(&cfg, &all, &all, imps[i]);
		bool call_lost = imps[i] == LOSE_INFO0C || imps[i] == CORRUPT_INFO0C;
		const struct smdsp_v34_phase2_stats *loser = call_lost ? &o.cst : &o.ast;
		const struct smdsp_v34_phase2_stats *other = call_lost ? &o.ast : &o.cst;

		judge_done(names[i], &cfg, &o, &all, &all, false);
		/* the end that missed the far INFO0 sends its own again; the other answers the repeat with the ack */
		CHECK(other->info0_retx_timeout == 1 && loser->info0_retx_repeat == 1 && loser->info0_sent == 2 &&
		      other->info0_sent == 2 && loser->info0_heard == 2 && other->info0_heard == 1,
		      "%s: sent %u/%u, heard %u/%u, timeouts %u/%u, repeats %u/%u", names[i], loser->info0_sent,
		      other->info0_sent, loser->info0_heard, other->info0_heard, loser->info0_retx_timeout,
		      other->info0_retx_timeout, loser->info0_retx_repeat, other->info0_retx_repeat);
		if (imps[i] == CORRUPT_INFO0C || imps[i] == CORRUPT_INFO0A)
			CHECK(other->frames_refused >= 1, "%s: refused %u", names[i], other->frames_refused);
		printf("%-17s: recovered, done at %ld ms; the missing end sent %u INFO0s, the other %u (%u refused)\n",
		       names[i], o.ms, other->info0_sent, loser->info0_sent, other->frames_refused);
	}	/* both lost: both send theirs again after 2 s, no repeat heard, no ack needed */
	{
		struct line_cfg cfg = { .loss_db = 9, .noise_dbm0 = -55, .echo_db = -12, .echo_delay = 24,
					.delay = 1600, .seed = 50, .channel = CHAN_BASS_CUT };
		struct outcome o = run(&cfg, &all, &all, LOSE_BOTH_INFO0);

		judge_done("both INFO0s lost", &cfg, &o, &all, &all, false);
		CHECK(o.cst.info0_retx_timeout == 1 && o.ast.info0_retx_timeout == 1 && !o.cst.info0_retx_repeat &&
		      !o.ast.info0_retx_repeat && o.cst.info0_sent == 2 && o.ast.info0_sent == 2,
		      "both lost: sent %u/%u, repeats %u/%u", o.cst.info0_sent, o.ast.info0_sent, o.cst.info0_retx_repeat,
		      o.ast.info0_retx_repeat);
		printf("both INFO0s lost : recovered, done at %ld ms; each sent 2 INFO0s\n", o.ms);
	}
	/* B's reversal lost: the answer modem waits 3 s, sends INFO0a again (ack set), the reversals start over */
	{
		struct line_cfg cfg = { .loss_db = 9, .noise_dbm0 = -55, .echo_db = -999, .delay = 400, .seed = 51,
					.channel = CHAN_NARROW };
		struct outcome o = run(&cfg, &all, &all, LOSE_B_REVERSAL);

		judge_done("B's reversal lost", &cfg, &o, &all, &all, false);
		/* the call modem, waiting for A's second reversal as long, may restart too */
		CHECK(o.ast.restarts == 1 && o.cst.restarts <= 1 && o.ast.info0_sent == 2 &&
		      o.cst.info0_sent == 1 + o.cst.restarts && o.cst.info0_heard == 2 && !o.cst.info0_retx_timeout &&
		      !o.ast.info0_retx_timeout, "B reversal lost: restarts %u/%u, sent %u/%u, heard %u", o.cst.restarts,
		      o.ast.restarts, o.cst.info0_sent, o.ast.info0_sent, o.cst.info0_heard);
		printf("B's reversal lost: recovered, done at %ld ms; restarts: answer modem %u, call modem %u\n", o.ms,
		       o.ast.restarts, o.cst.restarts);
	}
}

/*
 * The same parameters as the error-free run's; the further power reduction
 * its receiver tolerates (a noise margin, from the probing's own noise)
 * within 1 dB
 */
static bool same_dir(const struct smdsp_v34_phase2_dir *d, const struct smdsp_v34_phase2_dir *ref)
{
	return d->symrate == ref->symrate && d->high_carrier == ref->high_carrier && d->preemph == ref->preemph &&
	       d->power_red == ref->power_red && d->max_rate == ref->max_rate &&
	       abs(d->add_power_red - ref->add_power_red) <= 1;
}

/* both ends done with the error-free run's parameters, after a recovery */
static void judge_same(const char *what, const struct outcome *ref, const struct outcome *o, int nfaults)
{
	CHECK(o->cs == SMDSP_V34P2_DONE && o->as == SMDSP_V34P2_DONE, "%s: states %s %s (%s %s)", what,
	      smdsp_v34_phase2_state_name(o->cs), smdsp_v34_phase2_state_name(o->as),
	      smdsp_v34_phase2_fail_name(o->c.fail), smdsp_v34_phase2_fail_name(o->a.fail));
	if (o->cs != SMDSP_V34P2_DONE || o->as != SMDSP_V34P2_DONE)
		return;
	CHECK(!memcmp(&o->c.a_to_c, &o->a.a_to_c, sizeof(o->c.a_to_c)) &&
	      !memcmp(&o->c.c_to_a, &o->a.c_to_a, sizeof(o->c.c_to_a)) && same_dir(&o->c.a_to_c, &ref->c.a_to_c) &&
	      same_dir(&o->c.c_to_a, &ref->c.c_to_a),
	      "%s: %u/%u bit/s at %d/%d baud, pe %u/%u, hc %d/%d, power -%u/-%u -%u/-%u; error free %u/%u at %d/%d, "
	      "pe %u/%u, hc %d/%d, power -%u/-%u -%u/-%u", what, o->c.a_to_c.max_rate, o->c.c_to_a.max_rate,
	      sym_rate[o->c.a_to_c.symrate % 6], sym_rate[o->c.c_to_a.symrate % 6], o->c.a_to_c.preemph,
	      o->c.c_to_a.preemph, o->c.a_to_c.high_carrier, o->c.c_to_a.high_carrier, o->c.a_to_c.power_red,
	      o->c.c_to_a.power_red, o->c.a_to_c.add_power_red, o->c.c_to_a.add_power_red, ref->c.a_to_c.max_rate,
	      ref->c.c_to_a.max_rate, sym_rate[ref->c.a_to_c.symrate % 6], sym_rate[ref->c.c_to_a.symrate % 6],
	      ref->c.a_to_c.preemph, ref->c.c_to_a.preemph, ref->c.a_to_c.high_carrier, ref->c.c_to_a.high_carrier,
	      ref->c.a_to_c.power_red, ref->c.c_to_a.power_red, ref->c.a_to_c.add_power_red,
	      ref->c.c_to_a.add_power_red);
	CHECK(!memcmp(&o->c.info1c, &o->a.info1c, sizeof(o->c.info1c)) &&
	      !memcmp(&o->c.info1a, &o->a.info1a, sizeof(o->c.info1a)), "%s: INFO1 differs", what);
	CHECK(abs(o->c.rtd - ref->c.rtd) <= 8 && abs(o->a.rtd - ref->a.rtd) <= 8, "%s: round trip %d/%d, error free %d/%d",
	      what, o->c.rtd, o->a.rtd, ref->c.rtd, ref->a.rtd);
	/* it went back (the fault was felt), in bounded time: 15 s a fault */
	CHECK(o->cst.restarts + o->ast.restarts >= 1 && o->ms > ref->ms && o->ms - ref->ms <= 15000L * nfaults,
	      "%s: restarts %u/%u, %ld ms (error free %ld)", what, o->cst.restarts, o->ast.restarts, o->ms, ref->ms);
	/* and the other end followed it on hearing its INFO0 (not by a timeout of its own) */
	CHECK(o->cst.far_restarts + o->ast.far_restarts >= 1, "%s: followed %u/%u", what, o->cst.far_restarts,
	      o->ast.far_restarts);
}

static void test_faults(void)
{
	static const struct {
		const char *name;
		int delay_ms, hybrid;
		double erl;
	} lines[] = {
		{ "4-wire, 12 ms", 12, 0, 0 },
		{ "4-wire, 600 ms", 600, 0, 0 },
		{ "2-wire ERL 6 dB, 12 ms", 12, 3, 6 },
		{ "2-wire ERL 12 dB, 600 ms", 600, 5, 12 },
	};
	static const struct {
		unsigned int f;
		const char *name;
	} cases[] = {
		{ V34F_L2_AT_C, "A's L2 lost at C" }, { V34F_L2_AT_A, "C's L2 burst at A" },
		{ V34F_TONE_B, "tone B lost" }, { V34F_TONE_A, "tone A lost" },
		{ V34F_INFO1C_BAD, "INFO1c corrupted" }, { V34F_INFO1C_BURST, "INFO1c burst" },
		{ V34F_INFO1A_BAD, "INFO1a corrupted" }, { V34F_INFO1A_LOST, "INFO1a lost" },
		{ V34F_L2_AT_C | V34F_INFO1C_BAD, "A's L2 lost, then INFO1c corrupted" },
		{ V34F_TONE_B | V34F_INFO1A_LOST, "tone B lost, then INFO1a lost" },
	};
	unsigned int l, k;

	for (l = 0; l < 4; l++) {
		struct line_cfg cfg = { .loss_db = 9, .noise_dbm0 = -60, .echo_db = -999, .delay = lines[l].delay_ms * 8,
					.seed = 70 + l, .channel = CHAN_TELEPHONE, .hybrid = lines[l].hybrid,
					.hybrid_erl_db = lines[l].erl };
		struct outcome ref;

		faults = 0;
		ref = run(&cfg, &all, &all, NONE);
		judge_done(lines[l].name, &cfg, &ref, &all, &all, false);
		printf("%-25s error free: %u + %u bit/s, rtd %d/%d, done at %ld ms\n", lines[l].name, ref.c.a_to_c.max_rate,
		       ref.c.c_to_a.max_rate, ref.c.rtd, ref.a.rtd, ref.ms);
		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			struct outcome o;
			char what[120];

			/* the double faults on two of the lines */
			if ((cases[k].f & (cases[k].f - 1)) && l % 3)
				continue;
			faults = cases[k].f;
			o = run(&cfg, &all, &all, FAULTS);
			snprintf(what, sizeof(what), "%s, %s", lines[l].name, cases[k].name);
			judge_same(what, &ref, &o, cases[k].f & (cases[k].f - 1) ? 2 : 1);
			printf("  %-36s: %s/%s, %u + %u bit/s, done at %ld ms: recovery took %ld ms "
			       "(restarts %u+%u, followed %u+%u, retx %u+%u)\n", cases[k].name,
			       smdsp_v34_phase2_state_name(o.cs), smdsp_v34_phase2_state_name(o.as), o.c.a_to_c.max_rate,
			       o.c.c_to_a.max_rate, o.ms, o.ms - ref.ms, o.cst.restarts, o.ast.restarts,
			       o.cst.far_restarts, o.ast.far_restarts, o.cst.info0_retx_timeout, o.ast.info0_retx_timeout);
		}
	}
	/* the answer modem gone after the INFO0 exchange (from its L1): each end fails with its reason, in bounded time */
	{
		struct line_cfg cfg = { .loss_db = 9, .noise_dbm0 = -60, .echo_db = -999, .delay = 96, .seed = 80,
					.channel = CHAN_TELEPHONE };
		struct outcome o;

		faults = V34F_GONE;
		o = run(&cfg, &all, &all, FAULTS);
		CHECK(o.cs == SMDSP_V34P2_FAILED && o.as == SMDSP_V34P2_FAILED && o.c.fail != SMDSP_V34P2_OK &&
		      o.cst.restarts == 3 && o.c.done_at <= SMDSP_V34P2_MS_TEST(30000) &&
		      o.a.done_at <= SMDSP_V34P2_MS_TEST(30000), "A gone: %s %s (%s %s) at %u/%u ms, restarts %u",
		      smdsp_v34_phase2_state_name(o.cs), smdsp_v34_phase2_state_name(o.as),
		      smdsp_v34_phase2_fail_name(o.c.fail), smdsp_v34_phase2_fail_name(o.a.fail), o.c.done_at / 8,
		      o.a.done_at / 8, o.cst.restarts);
		printf("answer modem gone from its L1: the call modem gave up at %u ms: %s (%u restarts); the answer "
		       "modem at %u ms: %s\n", o.c.done_at / 8, smdsp_v34_phase2_fail_name(o.c.fail), o.cst.restarts,
		       o.a.done_at / 8, smdsp_v34_phase2_fail_name(o.a.fail));
		faults = 0;
	}
}

static void test_failures(void)
{
	struct line_cfg cfg = { .loss_db = 9, .noise_dbm0 = -55, .echo_db = -10, .echo_delay = 40, .delay = 300,
				.seed = 5, .channel = CHAN_LONG_LOOP };
	struct outcome o;

	/* nobody there: 1 + 3 INFO0s, 2 s apart, then no INFO0 */
	o = run(&cfg, &all, &all, SILENT_CALL);
	CHECK(o.as == SMDSP_V34P2_FAILED && o.a.fail == SMDSP_V34P2_NO_INFO0 && o.ast.info0_sent == 4 &&
	      o.ast.fails[SMDSP_V34P2_NO_INFO0] == 1 && o.a.rtd == -1, "silent call modem: answer %s %s, %u INFO0s",
	      smdsp_v34_phase2_state_name(o.as), smdsp_v34_phase2_fail_name(o.a.fail), o.ast.info0_sent);
	CHECK(o.a.done_at >= 8 * 8000 && o.a.done_at <= 8 * 8000 + 800, "gave up at %u", o.a.done_at);
	printf("silent call modem: the answer modem gave up after %u INFO0s at %u ms: %s\n", o.ast.info0_sent,
	       o.a.done_at / 8, smdsp_v34_phase2_fail_name(o.a.fail));
	o = run(&cfg, &all, &all, SILENT_ANSWER);
	CHECK(o.cs == SMDSP_V34P2_FAILED && o.c.fail == SMDSP_V34P2_NO_INFO0 && o.cst.info0_sent == 4,
	      "silent answer modem: call %s %s", smdsp_v34_phase2_state_name(o.cs), smdsp_v34_phase2_fail_name(o.c.fail));
	/* the answer modem stops before its second reversal: the call modem waits for it, sends INFO0c again 3 times */
	o = run(&cfg, &all, &all, ANSWER_STOPS);
	CHECK(o.cs == SMDSP_V34P2_FAILED && o.c.fail == SMDSP_V34P2_NO_REVERSAL &&
	      o.cst.fails[SMDSP_V34P2_NO_REVERSAL] == 1 && o.cst.restarts == 3,
	      "answer stops: call %s %s, %u restarts", smdsp_v34_phase2_state_name(o.cs),
	      smdsp_v34_phase2_fail_name(o.c.fail), o.cst.restarts);
	printf("answer modem silent from 250 ms: the call modem gave up at %u ms: %s (%u restarts)\n", o.c.done_at / 8,
	       smdsp_v34_phase2_fail_name(o.c.fail), o.cst.restarts);
	/*
	 * the call modem stops 500 ms into its L1/L2: the answer modem finds its
	 * L2 cut short, goes back to INFO0 three times, and fails waiting for
	 * B's reversal
	 */
	o = run(&cfg, &all, &all, CALL_STOPS_IN_L2);
	CHECK(o.as == SMDSP_V34P2_FAILED && o.a.fail == SMDSP_V34P2_NO_REVERSAL && o.a.rtd > 0 && o.ast.restarts == 3 &&
	      o.a.done_at <= 8 * 25000, "call stops in L2: answer %s %s, %u restarts, at %u ms",
	      smdsp_v34_phase2_state_name(o.as), smdsp_v34_phase2_fail_name(o.a.fail), o.ast.restarts, o.a.done_at / 8);
	printf("call modem silent 500 ms into L1/L2: the answer modem gave up at %u ms: %s (%u restarts)\n",
	       o.a.done_at / 8, smdsp_v34_phase2_fail_name(o.a.fail), o.ast.restarts);
	/* a line no symbol rate can use (the rule gives 0 everywhere): INFO1 says so, both ends fail alike */
	{
		struct line_cfg bad = { .loss_db = 6, .noise_dbm0 = -28, .echo_db = -999, .delay = 100, .seed = 9,
					.channel = CHAN_LONG_LOOP };
		int rates[6], r, any = 0;

		v34_rule_line_rates(&bad, LEVEL, rates);
		for (r = 0; r < 6; r++)
			any |= rates[r];
		o = run(&bad, &all, &all, NONE);
		CHECK(!any && o.cs == SMDSP_V34P2_FAILED && o.as == SMDSP_V34P2_FAILED &&
		      o.c.fail == SMDSP_V34P2_NO_RATE && o.a.fail == SMDSP_V34P2_NO_RATE &&
		      !memcmp(&o.c.info1a, &o.a.info1a, sizeof(o.a.info1a)) && o.cst.fails[SMDSP_V34P2_NO_RATE] == 1,
		      "unusable line: %s %s", smdsp_v34_phase2_fail_name(o.c.fail), smdsp_v34_phase2_fail_name(o.a.fail));
		printf("long loop at -28 dBm0 of noise: both ends %s/%s (the rule: no rate at any symbol rate)\n",
		       smdsp_v34_phase2_fail_name(o.c.fail), smdsp_v34_phase2_fail_name(o.a.fail));
	}
}

static void test_misc(void)
{
	struct smdsp_v34_phase2 *s = smdsp_v34_phase2_create(NULL);
	struct smdsp_v34_phase2_result r;
	static int16_t x[8000], y[8000];
	char buf[200];
	int len;

	CHECK(s && smdsp_v34_phase2_state(s) == SMDSP_V34P2_INFO0 && !smdsp_v34_phase2_result(s, &r));
	len = smdsp_v34_phase2_print(s, buf, sizeof(buf));
	CHECK(len > 0 && !strncmp(buf, "v34_phase2 answer info0", 23), "%s", buf);
	/* it sends INFO0a then tone A at once: 2400 Hz at about -12 dBm0 */
	smdsp_v34_phase2_process(s, x, y, 8000);
	CHECK(fabs(t_power_dbm0(y + 2000, 4000) + 12) < 0.5, "tone A at %.2f dBm0", t_power_dbm0(y + 2000, 4000));
	CHECK(smdsp_v34_phase2_steps(s) == 0 && smdsp_v34_phase2_far_rtd(s) == -1);
	smdsp_v34_phase2_reset(s);
	CHECK(smdsp_v34_phase2_state(s) == SMDSP_V34P2_INFO0);
	smdsp_v34_phase2_print(s, buf, sizeof(buf));
	CHECK(strstr(buf, "info0=0/0") != NULL, "%s", buf);
	CHECK(!strcmp(smdsp_v34_phase2_fail_name(SMDSP_V34P2_NO_RATE), "no_rate") &&
	      !strcmp(smdsp_v34_phase2_state_name(SMDSP_V34P2_FAILED), "failed") &&
	      !strcmp(smdsp_v34_phase2_state_name(SMDSP_V34P2_STATES), "?"));
	smdsp_v34_phase2_free(s);
	smdsp_v34_phase2_free(NULL);
	/* an INFO0 the tables forbid is refused at create */
	{
		struct smdsp_v34_phase2_config cfg = { .calling = true, .level_dbm0_10 = -120, .info0 = all };

		cfg.info0.max_rate_diff = 6;
		CHECK(smdsp_v34_phase2_create(&cfg) == NULL);
		cfg.info0.max_rate_diff = 5;
		s = smdsp_v34_phase2_create(&cfg);
		CHECK(s != NULL);
		smdsp_v34_phase2_free(s);
	}
}

int main(void)
{
	test_misc();
	test_lines();
	test_capabilities();
	test_blocks();
	test_recovery();
	test_failures();
	test_faults();
	return t_report("test_v34_phase2");
}
