// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's phases 3 and 4 and the data mode on the line (dsp/v34_train_tx.c,
 * dsp/v34_train_rx.c).
 *
 * Against the definitions (the recommendation as we read it):
 * - PP: a period of 48, each symbol of the 4-point power, its periodic
 *   autocorrelation zero off lag 0 (what makes it a channel probe), and the
 *   transmitter's symbols equal to the formula written here in floating
 *   point;
 * - S: its spectrum on the line has its lines at the carrier and the
 *   carrier +- half the symbol rate, and nothing in between (S-bar's
 *   reversal is proven only by our receiver finding PP after it);
 * - TRN and J: demodulated from the transmitter alone and descrambled with
 *   the call modem's polynomial written out here: ones, and J's 16 bits
 *   (4- or 16-point) again and again;
 * - the pre-emphasis filter: the spectrum's change follows phase 2's gain
 *   curve, the power kept.
 * Against ourselves: two of our ends, 4-wire over tests/dsp/common/line.c
 * (loss, white noise, telephone channels, +-100 ppm between the clocks),
 * reach the data mode and carry random data without error at each of the
 * six symbol rates, with asymmetric rates, and at the rate the receiver's
 * MP allows (its configured one: fixed_rate, the rates are this test's); and
 * the precoder's worth at 3429 baud (with and without). The bit error rate
 * against SNR beside theory is test_v34_train_ber; the receiver's own rate
 * choice, test_v34_rate.
 * Options: --quick (3 s links), --case N (one link case), -v, -v -v.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <complex.h>
#include <time.h>
#include <smdsp/v34_train.h>
#include <smdsp/v34_mod.h>
#include <smdsp/v34_probe.h>
#include "line.h"
#include "chan.h"
#include "v34link.h"
#include "tutil.h"
#include "check.h"


#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int only_case = -1;

/* ---- the signals against their definitions ---- */

static const char *const rate_names[] = { "2400", "2743", "2800", "3000", "3200", "3429" };

static void test_pp(void)
{
	struct smdsp_cplx p[SMDSP_V34_PP_PERIOD], q;
	double worst = 0, e0 = 0, maxdev = 0;
	int k, lag;

	for (k = 0; k < SMDSP_V34_PP_PERIOD; k++) {
		int i = k / 4, ii = k % 4;
		double complex ref = 3000.0 * sqrt(2.0) * cexp(I * M_PI * i * (ii + 2 * i + 2) / 6.0);

		smdsp_v34_train_pp((unsigned int)k, 3000, &p[k]);
		maxdev = fmax(maxdev, cabs(p[k].re + p[k].im * I - ref));
		smdsp_v34_train_pp((unsigned int)k + 5 * SMDSP_V34_PP_PERIOD, 3000, &q);
		CHECK(q.re == p[k].re && q.im == p[k].im, "PP not periodic at %d", k);
	}
	CHECK(maxdev < 2.0, "PP against its formula: %.2f PCM off", maxdev);
	for (lag = 0; lag < SMDSP_V34_PP_PERIOD; lag++) {
		double complex acc = 0;

		for (k = 0; k < SMDSP_V34_PP_PERIOD; k++) {
			const struct smdsp_cplx *a = &p[k], *b = &p[(k + lag) % SMDSP_V34_PP_PERIOD];

			acc += (a->re + a->im * I) * conj(b->re + b->im * I);
		}
		if (!lag)
			e0 = cabs(acc);
		else
			worst = fmax(worst, cabs(acc));
	}
	/* the 4-point power: 2 amp^2 a symbol */
	CHECK(fabs(e0 / SMDSP_V34_PP_PERIOD / (2.0 * 3000 * 3000) - 1) < 1e-3, "PP power %.4f", e0);
	CHECK(worst / e0 < 1e-3, "PP's periodic autocorrelation off lag 0: %.2e of lag 0", worst / e0);
	printf("PP: formula within %.2f PCM, off-peak autocorrelation %.1f dB below the peak\n", maxdev,
	       20 * log10(worst / e0 + 1e-12));
}

static double hann(int i, int n)
{
	return 0.5 - 0.5 * cos(2 * M_PI * i / n);
}

/* S's spectrum: the transmitter alone, its first 128 symbols */
static void test_s_spectrum(void)
{
	struct smdsp_v34_train_config c = { .symrate = SMDSP_V34_S3200, .high = false, .data_rate = 24000 };
	struct smdsp_v34_train_tx *tx = smdsp_v34_train_tx_create(&c, NULL, NULL);
	double fs = smdsp_v34_symrate_mbaud(c.symrate) / 1000.0, fc = smdsp_v34_carrier_mhz(c.symrate, 0) / 1000.0;
	int16_t buf[2000];
	/* from the 10th symbol to the 120th: whole S, pulse edges left out */
	int a = (int)(10 * 8000 / fs), b = (int)(120 * 8000 / fs);
	double lines[3], between = 0, f;
	int i, n;

	smdsp_v34_train_tx_process(tx, buf, 2000);
	for (n = 0; n < 3; n++) {
		double complex acc = 0;

		f = fc + (n - 1) * fs / 2;
		for (i = a; i < b; i++)
			acc += hann(i - a, b - a) * buf[i] * cexp(-2 * I * M_PI * f * i / 8000);
		lines[n] = cabs(acc) / (b - a);
	}
	for (f = fc - fs / 2 + 100; f < fc + fs / 2 - 100; f += 50) {
		double complex acc = 0;

		if (fabs(f - fc) < 100)
			continue;
		for (i = a; i < b; i++)
			acc += hann(i - a, b - a) * buf[i] * cexp(-2 * I * M_PI * f * i / 8000);
		between = fmax(between, cabs(acc) / (b - a));
	}
	printf("S at 3200 baud: lines at %.0f, %.0f, %.0f Hz: %.0f %.0f %.0f; elsewhere at most %.0f\n",
	       fc - fs / 2, fc, fc + fs / 2, lines[0], lines[1], lines[2], between);
	for (n = 0; n < 3; n++)
		CHECK(lines[n] > 20 * between, "S line %d: %.0f against %.0f", n, lines[n], between);
	smdsp_v34_train_tx_free(tx);
}

/*
 * TRN and J on the line: the transmitter alone (no receiver, so J repeats),
 * demodulated noise-free; each symbol's quadrant is two bits (J's: the step
 * from the last quadrant, as MP's), descrambled here with the call modem's
 * polynomial written out (1 + x^-18 + x^-23, self-synchronising): TRN must
 * give ones, J its 16 bits again and again.
 */
static void test_trn_j(bool trn16)
{
	struct smdsp_v34_train_config c = { .symrate = SMDSP_V34_S3000, .high = true, .data_rate = 24000,
					    .caller = true, .trn16 = trn16, .trn_symbols = 600 };
	struct smdsp_v34_train_tx *tx = smdsp_v34_train_tx_create(&c, NULL, NULL);
	struct smdsp_v34_demod *d = smdsp_v34_demod_create(c.symrate, c.high, 1);
	static int16_t buf[8000];
	static struct smdsp_cplx y[4000];
	unsigned int n, k, trn0, j0, ones = 0, trn_bits = 0, jmatch = 0, jwords = 0, qprev = 0;
	uint32_t reg = 0;
	uint16_t word = 0;
	uint16_t want = trn16 ? SMDSP_V34_J16 : SMDSP_V34_J4;

	smdsp_v34_train_tx_process(tx, buf, 8000);
	n = smdsp_v34_demod_process(d, buf, 8000, y, 4000);
	trn0 = smdsp_v34_train_tx_began(tx, SMDSP_V34_T_TRN);
	j0 = smdsp_v34_train_tx_began(tx, SMDSP_V34_T_J);
	CHECK(trn0 == SMDSP_V34_S_SYMS + SMDSP_V34_SBAR_SYMS + SMDSP_V34_PP_SYMS, "TRN at %u", trn0);
	CHECK(j0 == trn0 + 600, "J at %u", j0);
	for (k = trn0; k < n; k++) {
		unsigned int q = y[k].re >= 0 ? (y[k].im >= 0 ? 0 : 1) : (y[k].im >= 0 ? 3 : 2), b;
		/* the quadrants 45, 315, 225, 135 degrees carry dibits 0, 1, 2, 3; J's dibits are their steps */
		unsigned int dibit = k < j0 ? q : (q - qprev) & 3;

		qprev = q;
		for (b = 0; b < 2; b++) {
			unsigned int line = (dibit >> b) & 1, bit;

			bit = line ^ ((reg >> 17) & 1) ^ ((reg >> 22) & 1);
			reg = (reg << 1) | line;
			if (k >= trn0 + 16 && k < j0) {
				trn_bits++;
				ones += bit;
			}
			if (k >= j0) {
				unsigned int i = 2 * (k - j0) + b;

				word |= (uint16_t)(bit << (i % 16));
				if (i % 16 == 15) {
					jwords++;
					jmatch += word == want;
					word = 0;
				}
			}
		}
	}
	printf("TRN (%u symbols): %u of %u descrambled bits are ones; J (%s): %u of %u words 0x%04x\n", 600,
	       ones, trn_bits, trn16 ? "16 points" : "4 points", jmatch, jwords, want);
	CHECK(trn_bits > 1000 && ones == trn_bits, "TRN: %u ones of %u", ones, trn_bits);
	CHECK(jwords >= 20 && jmatch == jwords, "J: %u of %u", jmatch, jwords);
	smdsp_v34_demod_free(d);
	smdsp_v34_train_tx_free(tx);
}

/*
 * The pre-emphasis filter: TRN's spectrum with filter i against without, at
 * frequencies across the band, beside phase 2's gain for that filter
 * (smdsp_v34_preemph_db10()), the power kept.
 */
static void test_preemph(unsigned int index, enum smdsp_v34_symrate r, bool high)
{
	static int16_t buf[2][40000];
	double fs = smdsp_v34_symrate_mbaud(r) / 1000.0, fc = smdsp_v34_carrier_mhz(r, high) / 1000.0;
	double pw[2] = { 0, 0 }, worst = 0, ref = 0;
	int a = 8000, n = 40000, k, m, w;

	for (k = 0; k < 2; k++) {
		struct smdsp_v34_train_config c = { .symrate = r, .high = high, .data_rate = 9600,
						    .preemph = k ? index : 0, .trn_symbols = 20000 };
		struct smdsp_v34_train_tx *tx = smdsp_v34_train_tx_create(&c, NULL, NULL);

		smdsp_v34_train_tx_process(tx, buf[k], n);
		smdsp_v34_train_tx_free(tx);
		for (m = a; m < n; m++)
			pw[k] += (double)buf[k][m] * buf[k][m];
	}
	/* the spectra's ratio at 9 frequencies within +-0.4 S of the carrier, 256-sample Hann windows */
	for (m = -4; m <= 4; m++) {
		double f = fc + m * 0.1 * fs, e[2] = { 0, 0 }, got, want;

		for (k = 0; k < 2; k++)
			for (w = a; w + 256 <= n; w += 128) {
				double complex acc = 0;
				int i;

				for (i = 0; i < 256; i++)
					acc += hann(i, 256) * buf[k][w + i] * cexp(-2 * I * M_PI * f * i / 8000);
				e[k] += creal(acc * conj(acc));
			}
		got = 10 * log10(e[1] / e[0]);
		want = smdsp_v34_preemph_db10(index, r, high, (int)lround(f)) / 10.0;
		if (m == -4)
			ref = got - want;
		worst = fmax(worst, fabs(got - want - ref));
	}
	printf("pre-emphasis %u at %s baud: the shape within %.2f dB of phase 2's gain; power %+.2f dB\n", index,
	       rate_names[r], worst, 10 * log10(pw[1] / pw[0]));
	CHECK(worst < 0.75, "pre-emphasis %u: %.2f dB off its shape", index, worst);
	CHECK(fabs(10 * log10(pw[1] / pw[0])) < 0.5, "pre-emphasis %u: power %+.2f dB", index,
	      10 * log10(pw[1] / pw[0]));
}

/* ---- the two ends over the line ---- */

static double qfunc(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}


static void print_res(const char *what, const struct link_cfg *lc, const struct link_res *r)
{
	printf("%-28s %s baud %s: c->a %u bit/s %lu bits %lu errors (MSE %.1f dB) a->c %u bit/s %lu bits %lu errors (MSE %.1f dB); rx CPU %.1f us per 10 ms\n",
	       what, rate_names[lc->symrate], lc->high ? "high" : "low", r->rate[0], r->bits[1], r->errors[1],
	       r->mse[1] / 10.0, r->rate[1], r->bits[0], r->errors[0], r->mse[0] / 10.0,
	       r->cpu_rx / 2 / (r->seconds * 100) * 1e6);
}

static void test_rates(bool quick)
{
	/* each symbol rate: a rate its SNR carries (about 36 dB on the line) */
	static const struct {
		enum smdsp_v34_symrate r;
		bool high;
		unsigned int ca, ac;	/* bit/s each way */
		unsigned int b_limit;	/* B's receiver's limit on c->a (0: none) */
		int channel;
		double ppm;
		unsigned int preemph;
		bool trn16;
	} cases[] = {
		{ SMDSP_V34_S2400, false, 19200, 19200, 0, CHAN_TELEPHONE, 100, 0, false },
		{ SMDSP_V34_S2743, true, 21600, 21600, 0, CHAN_TELEPHONE, -100, 0, true },
		{ SMDSP_V34_S2800, false, 21600, 21600, 0, CHAN_FLAT, 100, 0, false },
		{ SMDSP_V34_S3000, true, 24000, 24000, 0, CHAN_TELEPHONE, -100, 2, false },
		{ SMDSP_V34_S3200, false, 24000, 24000, 0, CHAN_TELEPHONE, 100, 0, true },
		{ SMDSP_V34_S3429, false, 24000, 24000, 0, CHAN_TELEPHONE, -100, 0, false },
		/* asymmetric rates */
		{ SMDSP_V34_S2400, true, 16800, 12000, 0, CHAN_LONG_LOOP, 50, 7, false },
		/* A's transmitter would send 24,000, B's receiver allows 19,200: the lower, from B's MP */
		{ SMDSP_V34_S3000, false, 24000, 21600, 19200, CHAN_BASS_CUT, -50, 0, false },
	};
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct link_cfg lc = { .symrate = cases[c].r, .high = cases[c].high, .rate_ca = cases[c].ca,
				       .rate_ac = cases[c].ac, .b_rx_limit = cases[c].b_limit,
				       .preemph = cases[c].preemph, .trn16 = cases[c].trn16,
				       .seconds = quick ? 3.0 : 4.0, .fixed_rate = true };
		struct link_res r;
		char name[64];

		if (only_case >= 0 && only_case != (int)c)
			continue;
		lc.line.loss_db = 10;
		lc.line.noise_dbm0 = -60;
		lc.line.echo_db = -200;
		lc.line.delay = 100;
		lc.line.ppm = cases[c].ppm;
		lc.line.channel = cases[c].channel;
		lc.line.seed = 11 + c;
		run_link(&lc, &r);
		snprintf(name, sizeof(name), "%s %+.0f ppm", chan_name(cases[c].channel), cases[c].ppm);
		print_res(name, &lc, &r);
		CHECK(r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA, "%s: states %d %d",
		      rate_names[cases[c].r], r.st[0], r.st[1]);
		CHECK(r.rate[0] == (cases[c].b_limit ? cases[c].b_limit : cases[c].ca) && r.rate[1] == cases[c].ac,
		      "%s: rates %u %u",
		      rate_names[cases[c].r], r.rate[0], r.rate[1]);
		CHECK(r.bits[0] > 10000 && r.bits[1] > 10000, "%s: bits %lu %lu", rate_names[cases[c].r], r.bits[0],
		      r.bits[1]);
		CHECK(r.errors[0] == 0 && r.errors[1] == 0, "%s: errors %lu %lu", rate_names[cases[c].r], r.errors[0],
		      r.errors[1]);
		CHECK(r.stats[0].trn_bits > 1000 && r.stats[0].trn_bad * 1000 < r.stats[0].trn_bits,
		      "%s: TRN's bits %u bad of %u", rate_names[cases[c].r], r.stats[0].trn_bad, r.stats[0].trn_bits);
		CHECK(r.stats[0].j_seen >= 2 && r.stats[1].j_seen >= 2, "%s: J seen %u %u", rate_names[cases[c].r],
		      r.stats[0].j_seen, r.stats[1].j_seen);
	}
}

/*
 * Phase 4 as real modems send it: a TRN far longer than our 512 symbols
 * (6000, as long as theirs), on the points the far J asked for: the call
 * modem's J asks for 16, the answer modem's for 4, so each receiver gets
 * what its own J asked for. Both reach the data without an error, each
 * receiver's phase-4 TRN is the length sent and decided on the points its J
 * asked for, and each took MP by its sync and CRC straight after it.
 */
static void test_phase4(void)
{
	struct link_cfg lc = { .symrate = SMDSP_V34_S3200, .rate_ca = 24000, .rate_ac = 24000, .trn16 = true,
			       .trn16_call_only = true, .trn4_symbols = 6000, .seconds = 6.0, .fixed_rate = true };
	struct link_res r;
	int i;

	lc.line.loss_db = 10;
	lc.line.noise_dbm0 = -60;
	lc.line.echo_db = -200;
	lc.line.delay = 100;
	lc.line.ppm = 50;
	lc.line.channel = CHAN_TELEPHONE;
	lc.line.seed = 31;
	run_link(&lc, &r);
	print_res("phase 4's TRN 6000 symbols, J 16/4", &lc, &r);
	for (i = 0; i < 2; i++) {
		printf("  %s's receiver: phase 4's TRN %u symbols on %d points, %u of %u bits not ones, MP %u taken "
		       "%u refused\n", i ? "B" : "A", r.stats[i].trn4_syms, r.stats[i].trn4_16 ? 16 : 4,
		       r.stats[i].trn4_bad, r.stats[i].trn4_bits, r.stats[i].mp_good, r.stats[i].mp_bad);
		CHECK(r.st[i] == SMDSP_V34_T_DATA && r.errors[i] == 0 && r.bits[i] > 10000,
		      "end %d: state %d, %lu errors in %lu bits", i, r.st[i], r.errors[i], r.bits[i]);
		/* A (the call modem) asked for 16 points */
		CHECK(r.stats[i].trn4_16 == (i == 0), "end %d: phase 4's TRN on %d points", i,
		      r.stats[i].trn4_16 ? 16 : 4);
		CHECK(r.stats[i].trn4_syms == 6000 && !r.stats[i].trn4_long, "end %d: phase 4's TRN %u symbols", i,
		      r.stats[i].trn4_syms);
		CHECK(r.stats[i].trn4_bits > 6000 && r.stats[i].trn4_bad * 1000 < r.stats[i].trn4_bits,
		      "end %d: phase 4's TRN bits %u bad of %u", i, r.stats[i].trn4_bad, r.stats[i].trn4_bits);
	}
}

/*
 * The precoder's worth: 3429 baud on the telephone channel (its top edge
 * beyond the channel's 3600 Hz), 26,400 bit/s, with and without the
 * precoding coefficients our receivers compute.
 */
static void test_precoding(bool quick)
{
	struct link_res r[2];
	int k;

	for (k = 0; k < 2; k++) {
		struct link_cfg lc = { .symrate = SMDSP_V34_S3429, .rate_ca = 26400, .rate_ac = 26400,
				       .no_precoding = k == 1, .seconds = quick ? 3.0 : 4.0, .fixed_rate = true };

		lc.line.loss_db = 10;
		lc.line.noise_dbm0 = -60;
		lc.line.echo_db = -200;
		lc.line.delay = 100;
		lc.line.ppm = -100;
		lc.line.channel = CHAN_TELEPHONE;
		lc.line.seed = 31;
		run_link(&lc, &r[k]);
		printf("3429 baud, 26,400 bit/s, telephone, %s precoding: %lu/%lu bits, %lu/%lu errors, MSE at the decoder %.1f/%.1f dB (predictor gains %.1f/%.1f dB)\n",
		       k ? "without" : "with", r[k].bits[1], r[k].bits[0], r[k].errors[1], r[k].errors[0],
		       r[k].stats[1].wmse_db10 / 10.0, r[k].stats[0].wmse_db10 / 10.0,
		       r[k].stats[1].pred_gain_db10 / 10.0, r[k].stats[0].pred_gain_db10 / 10.0);
	}
	CHECK(r[0].st[0] == SMDSP_V34_T_DATA && r[0].st[1] == SMDSP_V34_T_DATA, "with: states %d %d", r[0].st[0],
	      r[0].st[1]);
	CHECK(r[0].bits[0] > 20000 && r[0].bits[1] > 20000 && !r[0].errors[0] && !r[0].errors[1],
	      "with precoding: %lu/%lu errors", r[0].errors[0], r[0].errors[1]);
	for (k = 0; k < 2; k++) {
		CHECK(r[0].stats[k].pred_gain_db10 >= 20, "the predictor gains only %d/10 dB", r[0].stats[k].pred_gain_db10);
		CHECK(r[0].stats[k].wmse_db10 >= r[1].stats[k].wmse_db10 + 20, "precoding gains %d/10 dB at the decoder",
		      r[0].stats[k].wmse_db10 - r[1].stats[k].wmse_db10);
	}
}

int main(int argc, char **argv)
{
	bool quick = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "-v"))
			v34link_verbose++;
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			only_case = atoi(argv[++i]);
	}
	test_pp();
	test_s_spectrum();
	test_trn_j(false);
	test_trn_j(true);
	test_preemph(3, SMDSP_V34_S3200, false);
	test_preemph(8, SMDSP_V34_S2400, true);
	test_rates(quick);
	if (only_case < 0) {
		test_phase4();
		test_precoding(quick);
	}
	(void)qfunc;
	return t_report("test_v34_train");
}
