// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 on the line: bit error rate against SNR at 3200 baud, 24,000 bit/s,
 * two of our ends (dsp/v34_train_*.c) 4-wire over the line model (flat,
 * 10 dB loss, white noise swept), beside:
 * - the uncoded slicer's symbol error theory 1 - (1 - 2Q(1/sigma))^2 and
 *   the 16-state code's Q(d_free / (2 sigma)), d_free^2 = 16, with sigma
 *   (per dimension, neighbours 2 apart) from the receiver's own measured
 *   error at the Viterbi decoder's input, as in test_v34_data_ber;
 * - v34_data alone at that same sigma with Gaussian noise (no line, no
 *   equaliser): what the coding does at that SNR, so the difference is
 *   what the line's receiver loses beyond its measured error.
 * The line's SNR is the signal's level over the noise's over 4 kHz.
 * Usage: test_v34_train_ber [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34_data.h>
#include "v34link.h"
#include "tutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RATE 24000

static double qfunc(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

/* v34_data alone: y + Gaussian noise of sigma (y units) per dimension; the BER */
static double data_alone(double sigma, unsigned int frames, double *py)
{
	struct smdsp_v34_data_config c = { .symbol_rate = SMDSP_V34_S3200, .data_rate = RATE, .states = 16,
					   .caller = true };
	struct smdsp_v34_data_tx *tx = smdsp_v34_data_tx_create(&c);
	struct smdsp_v34_data_rx *rx = smdsp_v34_data_rx_create(&c);
	static uint8_t sent[64][SMDSP_V34_MAX_B];
	static unsigned int nsent[64];
	uint64_t seed = 0x7e57ULL;
	unsigned long bits = 0, errors = 0;
	unsigned int f, i;

	*py = smdsp_v34_data_tx_power(tx) / 16384.0;
	for (f = 0; f < frames + SMDSP_V34_DATA_DELAY_FRAMES; f++) {
		uint8_t b[SMDSP_V34_MAX_B], out[SMDSP_V34_MAX_B], aux;
		int32_t x[16], in[16];
		int y[16];
		unsigned int n = smdsp_v34_data_tx_bits(tx), got;

		for (i = 0; i < n; i++)
			b[i] = (uint8_t)(t_rand64(&seed) >> 63);
		memcpy(sent[f % 64], b, n);
		nsent[f % 64] = n;
		smdsp_v34_data_tx_frame(tx, b, 0, x, y);
		for (i = 0; i < 16; i++)
			in[i] = (int32_t)lround(128.0 * (y[i] + sigma * t_gauss(&seed)));
		got = smdsp_v34_data_rx_frame(rx, in, out, &aux);
		if (got && f >= SMDSP_V34_DATA_DELAY_FRAMES + 2) {
			unsigned int g = (f - SMDSP_V34_DATA_DELAY_FRAMES) % 64;

			for (i = 0; i < got && i < nsent[g]; i++)
				errors += out[i] != sent[g][i];
			bits += got;
		}
	}
	smdsp_v34_data_tx_free(tx);
	smdsp_v34_data_rx_free(rx);
	return bits ? (double)errors / bits : 1;
}

int main(int argc, char **argv)
{
	static const double noise[] = { -49, -50, -51, -52, -53, -54, -56, -58 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	double prev = 1, py = 0;
	unsigned int i;

	printf("3200 baud, %u bit/s, flat line, 10 dB loss; signal -24.5 dBm0 at the receiver\n", RATE);
	printf("  line SNR | measured MSE | BER (bits)         | uncoded SER theory | coded theory | v34_data alone\n");
	for (i = 0; i < ARRAY_SIZE(noise); i++) {
		/* the rate held whatever the line: the sweep is to show the errors */
		struct link_cfg lc = { .symrate = SMDSP_V34_S3200, .rate_ca = RATE, .rate_ac = RATE,
				       .seconds = quick ? 4.0 : 8.0, .fixed_rate = true };
		struct link_res r;
		unsigned long bits, errors;
		double ber, mse, sigma, tu, tc, alone, snr;

		lc.line.loss_db = 10;
		lc.line.noise_dbm0 = noise[i];
		lc.line.echo_db = -200;
		lc.line.delay = 40;
		lc.line.seed = 100 + i;
		run_link(&lc, &r);
		bits = r.bits[0] + r.bits[1];
		errors = r.errors[0] + r.errors[1];
		CHECK(r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA, "noise %.0f: states %d %d",
		      noise[i], r.st[0], r.st[1]);
		if (r.st[0] != SMDSP_V34_T_DATA || r.st[1] != SMDSP_V34_T_DATA)
			continue;
		ber = bits ? (double)errors / bits : 1;
		mse = (r.stats[0].wmse_db10 + r.stats[1].wmse_db10) / 20.0;
		/* the receiver's data power over its error: sigma per dimension in y units */
		alone = data_alone(1.0, 1, &py);
		sigma = sqrt(py / 2 * pow(10, -mse / 10));
		tu = 1 - pow(1 - 2 * qfunc(1 / sigma), 2);
		tc = qfunc(2 / sigma);
		alone = data_alone(sigma, quick ? 2000 : 6000, &py);
		/* -14.5 dBm0 sent (rms 3000), 10 dB lost */
		snr = -24.5 - noise[i];
		printf("  %6.1f dB | %8.1f dB  | %.2e (%7lu) | %.2e           | %.2e     | %.2e\n", snr, mse, ber,
		       bits, tu, tc, alone);
		CHECK(bits > 100000, "noise %.0f: %lu bits", noise[i], bits);
		/*
		 * Above the knee the code's gain shows: fewer bit errors than the
		 * uncoded slicer's symbol errors at the measured error (below it the
		 * receiver's decisions, hence its measured error, go wrong too).
		 */
		if (ber < 1e-2)
			CHECK(ber <= tu, "noise %.0f: BER %.2e above the uncoded SER %.2e", noise[i], ber, tu);
		/* errors fall as the SNR rises (within a factor for the statistics) */
		CHECK(ber <= prev * 2 + 1e-5, "noise %.0f: BER %.2e after %.2e", noise[i], ber, prev);
		prev = ber;
		if (i == 0)
			CHECK(errors > 0, "the lowest SNR shows no errors: the sweep does not reach the knee");
		if (i == ARRAY_SIZE(noise) - 1)
			CHECK(errors == 0, "%lu errors at %.1f dB", errors, snr);
	}
	return t_report("test_v34_train_ber");
}
