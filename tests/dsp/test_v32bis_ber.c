/*
 * V.32bis bit error rate in white noise, our transmitter to our receiver
 * (the caller's direction, GPC, and the answerer's, GPA, alternately), at
 * each rate, beside a union-bound estimate for the constellation and the
 * code: the signal at -13 dBm0 and the noise white over 0-4 kHz, so that
 * Es/N0 = SNR + 10 log10(4000 / 2400). Each cell is a training (S to B1)
 * and 8 s of data, a 2^23-1 PRBS counted by a self-synchronising checker
 * (each wrong bit delivered makes it count three). A training that fails
 * counts as a BER of 0.5.
 *
 * The estimate, per rate, with d0 the constellation's least distance (from
 * the table) and sigma^2 = Es / (2 Es/N0) per dimension:
 * - 4800 bit/s (4 points, differential): each wrong quarter turn is a
 *   wrong dibit twice: BER = 2 Q(d0 / 2 sigma);
 * - 7200-14400 (the 8-state code, d_free^2 = 5 d0^2 over the coded
 *   constellation: 4 dB of asymptotic gain): BER = 4 Q(sqrt(5) d0 / 2
 *   sigma) / bits per symbol (about 4 wrong bits per error event, in bits
 *   per symbol);
 * - 9600 uncoded (V.32's 16 points, B8 = 0): a symbol error to a nearest
 *   neighbour in its quadrant is one wrong bit (Q3 or Q4), one across
 *   quadrants a quarter turn wrong, one bit in this symbol's Q1 Q2 and one
 *   in the next's, plus Q3 Q4's difference: counted over Table 3/V.32's
 *   points, BER = (bits per error) (neighbours) Q(d0 / 2 sigma) / 4;
 * all times 3 for the descrambler (each line error makes three). The
 * estimate is asymptotic: below 1e-3 or so it is what to compare with.
 *
 * Checked: at each rate the SNR at which our BER falls to 1e-4
 * (interpolated in log BER between steps of 1 dB, over the cells that
 * trained) is within 3 dB of the estimate's, no training fails 3 dB or
 * more above the estimate's, and at 4 dB above it no bit is wrong.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <smdsp/v32bis.h>
#include <smdsp/v17.h>
#include "check.h"
#include "v32ep.h"

#define LEVEL -13.0
#define NSNR 12

static double qf(double x)
{
	return 0.5 * erfc(x / sqrt(2));
}

static const int8_t abcd[4][2] = { { -6, -2 }, { 2, -6 }, { 6, 2 }, { -2, 6 } };

/* Table 3/V.32 (non-redundant): the uncoded 9600's points by Y1 Y2 Q3 Q4 (Y1 Y2 the quadrant) */
static const int8_t fig2[16][2] = {
	{ -1, -1 }, { -3, -1 }, { -1, -3 }, { -3, -3 }, { 1, -1 }, { 1, -3 }, { 3, -1 }, { 3, -3 },
	{ -1, 1 }, { -1, 3 }, { -3, 1 }, { -3, 3 }, { 1, 1 }, { 3, 1 }, { 1, 3 }, { 3, 3 },
};

static double theory_uncoded(double snr_db)
{
	double esn0 = pow(10, (snr_db + 10 * log10(4000.0 / 2400)) / 10), sigma = sqrt(10 / (2 * esn0));
	int i, j, bits = 0;

	/* nearest neighbours (distance 2): the bits each costs, over all 16 points */
	for (i = 0; i < 16; i++) {
		for (j = 0; j < 16; j++) {
			int dx = fig2[i][0] - fig2[j][0], dy = fig2[i][1] - fig2[j][1], q = (i ^ j) & 3;

			if (dx * dx + dy * dy != 4)
				continue;
			bits += (q & 1) + (q >> 1) + ((i ^ j) >> 2 ? 2 : 0);
		}
	}
	return 3 * (bits / 16.0) * qf(2 / (2 * sigma)) / 4;
}

static double theory(unsigned int rate, double snr_db)
{
	unsigned int np, i, j;
	const int8_t (*p)[2] = rate == 4800 ? abcd : smdsp_v17_points(rate, &np);
	double es = 0, d0 = 1e9, esn0 = pow(10, (snr_db + 10 * log10(4000.0 / 2400)) / 10), sigma;

	if (rate == 4800)
		np = 4;
	for (i = 0; i < np; i++) {
		es += p[i][0] * p[i][0] + p[i][1] * p[i][1];
		for (j = 0; j < i; j++) {
			double dx = p[i][0] - p[j][0], dy = p[i][1] - p[j][1];

			if (sqrt(dx * dx + dy * dy) < d0)
				d0 = sqrt(dx * dx + dy * dy);
		}
	}
	es /= np;
	sigma = sqrt(es / (2 * esn0));
	if (rate == 4800)
		return 3 * 2 * qf(d0 / (2 * sigma));
	return 3 * 4 * qf(sqrt(5) * d0 / (2 * sigma)) / (rate / 2400);
}

/* the SNR at which the BER falls to target, interpolated in log BER; 99 if never */
static double snr_at(const double *snr, const double *ber, int n, double target)
{
	int i;

	for (i = 1; i < n; i++) {
		if (ber[i - 1] >= target && ber[i] < target) {
			double a = log10(ber[i - 1]), b = ber[i] > 0 ? log10(ber[i]) : log10(target) - 2;

			return snr[i - 1] + (log10(target) - a) / (b - a) * (snr[i] - snr[i - 1]);
		}
	}
	return 99;
}

int main(int argc, char **argv)
{
	static const unsigned int rates[6] = { 4800, 7200, 9600, 9600, 12000, 14400 };
	static const int uncoded[6] = { 0, 0, 0, 1, 0, 0 };	/* V.32's uncoded 9600 */
	static const double lo[6] = { 4, 9, 12, 13, 15, 18 };	/* the lowest SNR tried */
	int r, k;

	(void)argc;
	(void)argv;
	printf("BER, our V.32bis transmitter to our receiver, white noise over 0-4 kHz, signal at %.0f dBm0\n",
	       LEVEL);
	printf("(measured: PRBS errors / 3, 8 s of data a cell, 0.5: no training; theory: union-bound estimate)\n\n");
	for (r = 0; r < 6; r++) {
		double snr[NSNR], ber[NSNR], th[NSNR], tsnr[NSNR], tber[NSNR], at_m, at_t;
		int nt, late = 0;
		long clean_bits = 0, clean_errs = 0;

		printf("%5u%s bit/s SNR dB:", rates[r], uncoded[r] ? "u" : " ");
		for (k = 0; k < NSNR; k++)
			printf(" %7.0f", lo[r] + k);
		printf("\n   measured        ");
		for (k = 0; k < NSNR; k++) {
			struct v32run_cfg c = { .rate = rates[r], .caller_tx = k & 1, .seconds = 9,
						.level_dbm0_10 = (int)(LEVEL * 10), .seed = 100 + k,
						.uncoded = uncoded[r] };
			struct v32run_res res;

			snr[k] = lo[r] + k;
			c.noise_dbm0 = LEVEL - snr[k];
			v32_run(&c, &res);
			/* not trained, or nothing aligned: as bad as it gets */
			ber[k] = res.trained && res.bits > 1000 ? res.errors / 3.0 / res.bits : 0.5;
			th[k] = uncoded[r] ? theory_uncoded(snr[k]) : theory(rates[r], snr[k]);
			if (ber[k] == 0)
				printf(" %7s", "0");
			else
				printf(" %7.1e", ber[k]);
			fflush(stdout);
		}
		printf("\n   theory          ");
		for (k = 0; k < NSNR; k++)
			printf(" %7.1e", th[k]);
		/* the curve of the trainings that succeeded (near the threshold one can fail: B1's check) */
		for (k = 0, nt = 0; k < NSNR; k++) {
			if (ber[k] < 0.5) {
				tsnr[nt] = snr[k];
				tber[nt++] = ber[k];
			} else if (snr[k] >= snr_at(snr, th, NSNR, 1e-4) + 3) {
				late++;
			}
		}
		at_m = snr_at(tsnr, tber, nt, 1e-4);
		at_t = snr_at(snr, th, NSNR, 1e-4);
		printf("\n   BER 1e-4 at %.1f dB SNR (theory %.1f dB)\n\n", at_m, at_t);
		CHECK(at_m < 90 && at_m - at_t < 3.0 && at_m - at_t > -1.0, "%u: 1e-4 at %.1f dB, theory %.1f dB",
		      rates[r], at_m, at_t);
		CHECK(late == 0, "%u: %d trainings failed 3 dB or more above the estimate's 1e-4", rates[r], late);
		/* 4 dB above: intact */
		for (k = 0; k < 2; k++) {
			struct v32run_cfg c = { .rate = rates[r], .caller_tx = k, .seconds = 9,
						.level_dbm0_10 = (int)(LEVEL * 10), .seed = 7 + k,
						.noise_dbm0 = LEVEL - ceil(at_t + 4), .uncoded = uncoded[r] };
			struct v32run_res res;

			v32_run(&c, &res);
			clean_bits += res.bits;
			/* the coding E named: a wrong one counts as an error */
			clean_errs += res.errors + !res.trained + (res.trellis != (rates[r] > 4800 && !uncoded[r]));
		}
		CHECK(clean_errs == 0 && clean_bits > (long)rates[r] * 14, "%u at %.0f dB: %ld errors in %ld bits",
		      rates[r], ceil(at_t + 4), clean_errs, clean_bits);
	}
	return t_report("test_v32bis_ber");
}
