// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's phases 3 and 4 and the data mode full duplex on a 2-wire line
 * (dsp/v34_train_tx.c, dsp/v34_train_rx.c with two_wire: the duplex
 * sequence and each end's echo canceller, dsp/echo.c).
 *
 * Two of our ends over tests/dsp/common/line.c with its echoes on: each
 * receiver hears its own signal through a G.168 hybrid (ERL 6-12 dB: the
 * near echo 4 dB above to 2 dB below the far end's signal after the line's
 * 10 dB) and from the far hybrid a round trip later (29-504 ms), 26-30 dB
 * down and shifted 0-7 Hz (the far echo); two lines with an input latency
 * (160, 333 samples) the cancellers are told. At every symbol rate both
 * ends must reach the data mode and carry random data both ways without a
 * bit error, each canceller's ERLE at its training's end above ERLE_MIN
 * and its far offset within 0.5 Hz; the sequence's order is checked on the
 * transmitters' times (each end's training while the other is silent). The
 * same line with the cancellers left out (the same sequence) must fail or
 * err: what proves the cancellers matter. And the 2-wire sequence on a
 * 4-wire line (no echo) reaches data too. Eight more lines whose far echo
 * is strong, 4-10 dB under the far end's signal (3-10 dB of loss, 50-504
 * ms, 0 to +-7 Hz, every symbol rate), each carry 4 s of data both ways
 * without a bit error (v34_train_rx.c's far search keeping a far window
 * that holds the echo, TRACK's loop widened by its level).
 * Lines --case 0-5 the weak ones, 6-13 the strong ones.
 * Options: --case N (one line), --seed N (the lines' noise seeds from N,
 * default 21), -v, -v -v.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_train.h>
#include "line.h"
#include "chan.h"
#include "v34link.h"
#include "check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* dB: the canceller's ERLE at its window's end; a far echo 20 dB down and the line's noise bound it */
#define ERLE_MIN 25

static const char *const rate_names[] = { "2400", "2743", "2800", "3000", "3200", "3429" };

struct dcase {
	enum smdsp_v34_symrate r;
	bool high;
	unsigned int rate;	/* bit/s both ways */
	int hybrid;		/* G.168 model */
	double erl;		/* the near echo's return loss, dB */
	double far_db;		/* the far echo, dB below the signal sent */
	int delay;		/* one way, samples */
	double hz;		/* the far echo's frequency offset */
	double ppm;
	int channel;
	bool trn16;
	int latency;		/* each end's input latency, samples (its canceller told) */
	double loss;		/* the line's, each way, dB */
	int far_hybrid;		/* G.168 model of the far hybrid */
};

/*
 * Each symbol rate at a rate its SNR carries with a step to spare (the
 * cancellers' residue and the call modem's wait cost 1-3 dB of MSE against
 * test_v34_train's 4-wire lines); the hybrids, ERLs, round trips (29-504 ms)
 * and offsets spread. The far echo comes back through the far hybrid (ERL
 * 6-10 dB) and the line's loss twice: 26-30 dB below what was sent.
 */
static const struct dcase cases[] = {
	{ SMDSP_V34_S2400, false, 14400, 1, 6, 26, 100, 0.0, 100, CHAN_TELEPHONE, false, 0, 10, 2 },
	{ SMDSP_V34_S2743, true, 19200, 2, 8, 28, 400, 7.0, -100, CHAN_TELEPHONE, true, 0, 10, 3 },
	{ SMDSP_V34_S2800, false, 19200, 3, 12, 26, 1200, 3.0, 50, CHAN_FLAT, false, 160, 10, 4 },
	{ SMDSP_V34_S3000, true, 19200, 4, 6, 30, 240, -5.0, -50, CHAN_TELEPHONE, false, 0, 10, 5 },
	{ SMDSP_V34_S3200, false, 21600, 5, 10, 26, 800, 1.5, 100, CHAN_TELEPHONE, true, 0, 10, 6 },
	{ SMDSP_V34_S3429, false, 21600, 6, 9, 28, 2000, -7.0, -100, CHAN_TELEPHONE, false, 333, 10, 7 },
};

/*
 * A strong far echo: within 10 dB of the far modem's signal, which comes
 * over the line's loss once where the far echo comes over it twice and
 * the far hybrid's ERL (a short line, a poor far hybrid: the far echo
 * 7-18 dB below what was sent, 4-10 dB under the far signal, 3-10 dB of
 * loss). Round trips of 50-504 ms, 0 to +-7 Hz, every symbol rate; each
 * call carries at least STRONG_DATA seconds of data both ways.
 */
#define STRONG_DATA 4
/*
 * ERLE at the window's end: at 2400 baud the far taps, adapting on the raw
 * lines (echo.c's far_raw), learn a loud far echo's band edges slowly:
 * from 23.8 dB there over 164 such lines (from 27.1 at the other symbol
 * rates), the data clean
 */
#define ERLE_STRONG 20
static const struct dcase strong[] = {
	{ SMDSP_V34_S2400, false, 14400, 6, 6, 14, 328, 5.2, 100, CHAN_TELEPHONE, false, 0, 10, 7 },
	{ SMDSP_V34_S2400, false, 14400, 5, 6, 7, 1776, -4.5, -50, CHAN_TELEPHONE, false, 0, 3, 7 },
	{ SMDSP_V34_S2743, true, 19200, 2, 8, 14, 400, 7.0, -100, CHAN_TELEPHONE, true, 0, 6, 3 },
	{ SMDSP_V34_S2800, false, 19200, 1, 10, 10, 184, 0.0, 50, CHAN_FLAT, false, 160, 4, 2 },
	{ SMDSP_V34_S3000, true, 19200, 4, 6, 9, 240, -5.0, -50, CHAN_TELEPHONE, false, 0, 3, 5 },
	{ SMDSP_V34_S3200, false, 21600, 5, 10, 16, 800, 1.5, 100, CHAN_TELEPHONE, true, 0, 6, 6 },
	{ SMDSP_V34_S3429, false, 21600, 6, 9, 18, 1600, -3.0, -100, CHAN_TELEPHONE, false, 0, 10, 7 },
	{ SMDSP_V34_S3429, false, 21600, 6, 9, 12, 2000, -7.0, -100, CHAN_TELEPHONE, false, 333, 6, 7 },
};

static int only_case = -1;
static int seed_base = 21;

static void line_of(const struct dcase *c, int seed, struct link_cfg *lc)
{
	memset(lc, 0, sizeof(*lc));
	lc->symrate = c->r;
	lc->high = c->high;
	lc->rate_ca = c->rate;
	lc->rate_ac = c->rate;
	lc->trn16 = c->trn16;
	lc->seconds = 7.0;
	lc->two_wire = true;
	lc->latency = c->latency;
	lc->line.loss_db = c->loss;
	lc->line.noise_dbm0 = -60;
	lc->line.echo_db = -300;
	lc->line.delay = c->delay;
	lc->line.ppm = c->ppm;
	lc->line.channel = c->channel;
	lc->line.seed = (uint64_t)seed;
	lc->line.hybrid = c->hybrid;
	lc->line.hybrid_erl_db = c->erl;
	lc->line.far_echo_db = c->far_db;
	lc->line.far_hybrid = c->far_hybrid;
	lc->line.far_echo_hz = c->hz;
	/* the far hybrid at the far modem: the line's round trip */
	lc->line.far_echo_delay = 2 * (c->delay + 16);
}

static void describe(const struct dcase *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s m%d ERL %2.0f far %2.0f dB (%2.0f under) %4d ms %+.1f Hz %+4.0f ppm lat %3d",
		 rate_names[c->r], c->high ? "high" : "low ", c->hybrid, c->erl, c->far_db, c->far_db - c->loss,
		 2 * (c->delay + 16) / 8, c->hz, c->ppm, c->latency);
}

/*
 * The duplex sequence on the transmitters' times (A the call modem, B the
 * answer modem; each time within a block): each reacts to what the other
 * sent at least a one-way delay later, so that each end's training goes out
 * while the other end is silent.
 */
static void check_order(const struct dcase *c, const struct link_res *r, const char *name)
{
	const double one_way = (c->delay + 16) / 8000.0, blk = 0.02;
	const double *a = r->tx_at[0], *b = r->tx_at[1];

	/* A silent until B's J; B's J until A's S; A's J until B's second S; then J' */
	CHECK(b[SMDSP_V34_T_J] > 0 && a[SMDSP_V34_T_S] > b[SMDSP_V34_T_J] + one_way, "%s: A's S at %.3f, B's J at %.3f",
	      name, a[SMDSP_V34_T_S], b[SMDSP_V34_T_J]);
	CHECK(b[SMDSP_V34_T_IDLE] > a[SMDSP_V34_T_S] + one_way - blk, "%s: B silent at %.3f, A's S at %.3f", name,
	      b[SMDSP_V34_T_IDLE], a[SMDSP_V34_T_S]);
	CHECK(r->tx_s2_at[1] > a[SMDSP_V34_T_J] + one_way, "%s: B's second S at %.3f, A's J at %.3f", name,
	      r->tx_s2_at[1], a[SMDSP_V34_T_J]);
	/* J' (8 symbols) may start and end within a block: TRN4 follows it */
	CHECK(a[SMDSP_V34_T_TRN4] > r->tx_s2_at[1] + one_way, "%s: A's J' at %.3f, B's second S at %.3f", name,
	      a[SMDSP_V34_T_TRN4], r->tx_s2_at[1]);
	/* B sends no PP and no J' in phase 4 */
	CHECK(b[SMDSP_V34_T_JP] < 0, "%s: B sent J'", name);
}

/*
 * One line: both ends in the data at its rate, data_s seconds of it each
 * way without a bit error, each canceller's ERLE at its window's end and
 * the far offset it found, the duplex sequence's order.
 */
static void duplex_line(const struct dcase *c, int seed, double seconds, double data_s, int erle_min)
{
	struct link_cfg lc;
	struct link_res r;
	char name[112];
	int i;

	line_of(c, seed, &lc);
	lc.seconds = seconds;
	/*
	 * The rate held: the cancellers are judged at a rate the line carries.
	 * Left to its MP, a receiver on a strong far echo asks up to two steps
	 * less (9600 for 14,400 here): phase 4's TRN error, heard before the
	 * data's loop width follows the echo's level, is the worse of its two;
	 * the rate choice is test_v34_rate's.
	 */
	lc.fixed_rate = true;
	describe(c, name, sizeof(name));
	run_link(&lc, &r);
	printf("| %s | %u | %.2f / %.2f s | %.1f / %.1f dB | %.2f / %.2f Hz | %lu / %lu | %lu / %lu | %.1f / %.1f dB | %.0f us / 10 ms |\n",
	       name, c->rate, r.data_at[0], r.data_at[1], r.stats[0].erle_db10 / 10.0, r.stats[1].erle_db10 / 10.0,
	       r.stats[0].far_freq_mhz / 1000.0, r.stats[1].far_freq_mhz / 1000.0, r.bits[0], r.bits[1],
	       r.errors[0], r.errors[1], r.mse[0] / 10.0, r.mse[1] / 10.0,
	       r.cpu_rx / 2 / (r.seconds * 100) * 1e6);
	CHECK(r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA, "%s: states %d %d", name, r.st[0],
	      r.st[1]);
	CHECK(r.rate[0] == c->rate && r.rate[1] == c->rate, "%s: rates %u %u", name, r.rate[0], r.rate[1]);
	CHECK(r.bits[0] > data_s * c->rate && r.bits[1] > data_s * c->rate, "%s: bits %lu %lu", name, r.bits[0],
	      r.bits[1]);
	CHECK(r.errors[0] == 0 && r.errors[1] == 0, "%s: errors %lu %lu", name, r.errors[0], r.errors[1]);
	for (i = 0; i < 2; i++) {
		CHECK(r.stats[i].erle_db10 >= 10 * erle_min, "%s: %c's ERLE %.1f dB", name, "AB"[i],
		      r.stats[i].erle_db10 / 10.0);
		CHECK(r.stats[i].echo_latency == c->latency, "%s: latency %d", name, r.stats[i].echo_latency);
	}
	check_order(c, &r, name);
	/* the phase loop found the far echo's offset, within 0.5 Hz (both ends see the same) */
	if (c->far_db > 0) {
		for (i = 0; i < 2; i++)
			CHECK(abs(r.stats[i].far_freq_mhz - (int)(c->hz * 1000)) < 500,
			      "%s: %c's far echo at %d mHz", name, "AB"[i], r.stats[i].far_freq_mhz);
	}
}

static void test_duplex(void)
{
	unsigned int k;

	printf("| line | rate | data at (A/B) | ERLE A/B | far offset A/B | bits a->c / c->a | errors | MSE A/B | rx CPU |\n");
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		if (only_case >= 0 && only_case != (int)k)
			continue;
		/* at least 2 s of data each way */
		duplex_line(&cases[k], seed_base + (int)k, 7.0, 2, ERLE_MIN);
	}
}

/* the strong far echoes: --case 6 and on */
static void test_strong(void)
{
	unsigned int k;

	printf("strong far echoes, %d s of data:\n", STRONG_DATA);
	for (k = 0; k < ARRAY_SIZE(strong); k++) {
		int n = (int)(ARRAY_SIZE(cases) + k);

		if (only_case >= 0 && only_case != n)
			continue;
		duplex_line(&strong[k], seed_base + n, STRONG_DATA + 5.5, STRONG_DATA, ERLE_STRONG);
	}
}

/* the same lines without the cancellers: each must fail or err */
static void test_without(void)
{
	static const unsigned int which[] = { 0, 3 };
	unsigned int w;

	for (w = 0; w < ARRAY_SIZE(which); w++) {
		const struct dcase *c = &cases[which[w]];
		struct link_cfg lc;
		struct link_res r;
		char name[96];
		bool clean;

		if (only_case >= 0 && only_case != (int)which[w])
			continue;
		line_of(c, seed_base + (int)which[w], &lc);
		lc.no_ec = true;
		describe(c, name, sizeof(name));
		run_link(&lc, &r);
		clean = r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA && !r.errors[0] && !r.errors[1] &&
			r.bits[0] > 2 * c->rate && r.bits[1] > 2 * c->rate;
		printf("without the cancellers, %s: states %d/%d, bits %lu/%lu, errors %lu/%lu, MSE %.1f/%.1f dB\n", name,
		       r.st[0], r.st[1], r.bits[0], r.bits[1], r.errors[0], r.errors[1], r.mse[0] / 10.0,
		       r.mse[1] / 10.0);
		CHECK(!clean, "%s: clean without the cancellers", name);
		CHECK(r.stats[0].echo_latency == -1 && r.stats[1].echo_latency == -1, "no canceller: latency %d %d",
		      r.stats[0].echo_latency, r.stats[1].echo_latency);
	}
}

/* the duplex sequence on a line without echo: the cancellers find nothing to cancel and stay harmless */
static void test_no_echo(void)
{
	struct link_cfg lc;
	struct link_res r;

	if (only_case >= 0)
		return;
	line_of(&cases[4], seed_base + 19, &lc);
	lc.line.hybrid = 0;
	lc.line.far_echo_db = 0;
	run_link(&lc, &r);
	printf("2-wire sequence, no echo on the line: states %d/%d, bits %lu/%lu, errors %lu/%lu, data at %.2f/%.2f s\n",
	       r.st[0], r.st[1], r.bits[0], r.bits[1], r.errors[0], r.errors[1], r.data_at[0], r.data_at[1]);
	CHECK(r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA && !r.errors[0] && !r.errors[1] &&
	      r.bits[0] > 2 * cases[4].rate && r.bits[1] > 2 * cases[4].rate, "no echo: not clean");
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			v34link_verbose++;
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			only_case = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed_base = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--case N] [--seed N] [-v [-v]]\n", argv[0]);
			return 2;
		}
	}
	test_duplex();
	test_strong();
	test_without();
	test_no_echo();
	return t_report("test_v34_duplex");
}
