// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's data mode in the signal-point domain with white Gaussian noise
 * (no modulation): the transmitter's points y(n) (dsp/v34_data.c), noise
 * added, then on the very same received points:
 * - an uncoded slicer (the nearest point of the odd lattice), beside its
 *   theory 1 - (1 - 2Q(1/sigma))^2 (half the distance between neighbours
 *   is 1);
 * - the Viterbi decoder of the 16-, 32- or 64-state code, whose errors
 *   theory puts near Q(d_free / (2 sigma)) with d_free^2 = 16 (16, 32
 *   states) or 20 (64 states);
 * - the whole receiver (the bits after demapping, shell unmapping,
 *   deframing and the descrambler).
 * The trellis gain is read where each error rate crosses 1e-3 (log-linear
 * interpolation between SNRs) and printed beside the asymptotic gains,
 * 10 log10(d_free^2 / 4). Also one point with a precoder and its channel.
 * Usage: test_v34_data_ber [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34_data.h>
#include <smdsp/v34_frame.h>
#include <smdsp/v34_trellis.h>
#include "tutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t seed = 0xbe7a34ULL;

struct result {
	double snr, ser_unc, ser_vit, ber;
	unsigned long syms, bits;
};

static double qfunc(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

/* the nearest odd integer */
static int odd(double v)
{
	return 2 * (int)floor(v / 2.0) + 1;
}

static void run(unsigned int states, double sigma, unsigned int frames, const int16_t *h, struct result *res)
{
	struct smdsp_v34_data_config cfg;
	struct smdsp_v34_data_tx *tx;
	struct smdsp_v34_data_rx *rx;
	struct smdsp_v34_viterbi *vit = smdsp_v34_viterbi_create(states);
	struct smdsp_v34_frame *fr;
	static int ysent[1 << 16][4];
	static uint8_t sent[64][SMDSP_V34_MAX_B];
	static unsigned int sent_n[64];
	double es = 0, hist[3][2] = { { 0 } };
	unsigned long unc = 0, verr = 0, nv = 0, berr = 0, nb = 0, m4 = 0;
	unsigned int f, i, j;

	memset(&cfg, 0, sizeof(cfg));
	cfg.symbol_rate = 4;
	cfg.data_rate = 28800;
	cfg.states = states;
	if (h)
		memcpy(cfg.h, h, sizeof(cfg.h));
	tx = smdsp_v34_data_tx_create(&cfg);
	rx = smdsp_v34_data_rx_create(&cfg);
	fr = smdsp_v34_frame_create(smdsp_v34_data_tx_params(tx));
	for (f = 0; f < frames + SMDSP_V34_DATA_DELAY_FRAMES; f++) {
		int32_t x[16], r[16];
		int y[16];
		uint8_t out[SMDSP_V34_MAX_B], aux;
		unsigned int n = smdsp_v34_data_tx_bits(tx), no;
		struct smdsp_v34_mframe lay;

		for (i = 0; i < n; i++)
			sent[f % 64][i] = (uint8_t)(t_rand64(&seed) >> 63);
		sent_n[f % 64] = n;
		smdsp_v34_data_tx_frame(tx, sent[f % 64], 0, x, y);
		smdsp_v34_frame_peek(fr, &lay);
		{
			uint8_t tmp[SMDSP_V34_MAX_B], a;
			struct smdsp_v34_mframe skip = { 0 };

			smdsp_v34_frame_unpack(fr, &skip, tmp, &a);
		}
		for (i = 0; i < 8; i++) {
			double re = x[2 * i] / 128.0, im = x[2 * i + 1] / 128.0, cr = re, ci = im;

			/* the channel the precoder expects: 1 + h(z), then the noise */
			for (j = 0; h && j < 3; j++) {
				cr += h[2 * j] / 16384.0 * hist[j][0] - h[2 * j + 1] / 16384.0 * hist[j][1];
				ci += h[2 * j] / 16384.0 * hist[j][1] + h[2 * j + 1] / 16384.0 * hist[j][0];
			}
			memmove(hist[1], hist[0], 2 * sizeof(hist[0]));
			hist[0][0] = re;
			hist[0][1] = im;
			es += cr * cr + ci * ci;
			cr += sigma * t_gauss(&seed);
			ci += sigma * t_gauss(&seed);
			r[2 * i] = (int32_t)lrint(cr * 128);
			r[2 * i + 1] = (int32_t)lrint(ci * 128);
			if (f < frames) {
				unc += odd(cr) != y[2 * i] || odd(ci) != y[2 * i + 1];
				ysent[(m4 + i / 2) & 0xffff][2 * (i & 1)] = y[2 * i];
				ysent[(m4 + i / 2) & 0xffff][2 * (i & 1) + 1] = y[2 * i + 1];
			}
		}
		for (j = 0; j < 4; j++) {
			int d[4];

			if (smdsp_v34_viterbi_step(vit, &r[4 * j], lay.v0[j], d)) {
				unsigned long k = nv++;

				if (k < (unsigned long)frames * 4) {
					verr += d[0] != ysent[k & 0xffff][0] || d[1] != ysent[k & 0xffff][1];
					verr += d[2] != ysent[k & 0xffff][2] || d[3] != ysent[k & 0xffff][3];
				}
			}
		}
		if (f < frames)
			m4 += 4;
		no = smdsp_v34_data_rx_frame(rx, r, out, &aux);
		if (f >= SMDSP_V34_DATA_DELAY_FRAMES) {
			unsigned int d = (f - SMDSP_V34_DATA_DELAY_FRAMES) % 64;

			for (i = 0; i < no && i < sent_n[d]; i++)
				berr += out[i] != sent[d][i];
			nb += sent_n[d];
		}
	}
	res->syms = 8UL * frames;
	res->snr = 10 * log10(es / (8.0 * (frames + SMDSP_V34_DATA_DELAY_FRAMES)) / (2 * sigma * sigma));
	res->ser_unc = (double)unc / res->syms;
	res->ser_vit = (double)verr / res->syms;
	res->ber = (double)berr / nb;
	res->bits = nb;
	smdsp_v34_data_tx_free(tx);
	smdsp_v34_data_rx_free(rx);
	smdsp_v34_viterbi_free(vit);
	smdsp_v34_frame_free(fr);
}

/*
 * The SNR where a rate crosses target, log-linear between the points around
 * it; NAN if none. coded: 0 the uncoded SER, 1 the Viterbi's (the first
 * crossing), 2 the BER (the last: its bursts make it less monotonic).
 */
static double crossing(const struct result *r, unsigned int n, int coded, double target)
{
	double at = NAN;
	unsigned int i;

	for (i = 0; i + 1 < n; i++) {
		double a = coded == 2 ? r[i].ber : coded ? r[i].ser_vit : r[i].ser_unc;
		double b = coded == 2 ? r[i + 1].ber : coded ? r[i + 1].ser_vit : r[i + 1].ser_unc;

		/* no error counted: take half an error, an estimate from above */
		if (b <= 0)
			b = 0.5 / (coded == 2 ? r[i + 1].bits : r[i + 1].syms);
		if (a >= target && b < target) {
			at = r[i].snr + (r[i + 1].snr - r[i].snr) * (log(a) - log(target)) / (log(a) - log(b));
			if (coded != 2)
				break;
		}
	}
	return at;
}

/*
 * The knee: the whole receiver's BER from 1e-2 down for each code, every
 * code on the same noise at each SNR (the generator reseeded per point),
 * finer steps than above. Where each crosses 1e-3 (its last crossing: the
 * errors come in bursts, so the counts below are not monotonic), and the
 * 32- and 64-state codes' gain over the 16-state one there.
 */
static void test_knee(unsigned int frames)
{
	static const double sigmas[] = { 0.50, 0.49, 0.48, 0.47, 0.46, 0.45, 0.44, 0.43, 0.42, 0.41, 0.40 };
	const unsigned int ns = ARRAY_SIZE(sigmas);
	struct result r[3][ARRAY_SIZE(sigmas)];
	double at[3];
	unsigned int c, i;

	printf("The knee, %u mapping frames a point, the same noise for each code:\n"
	       "  SNR dB | BER 16 states | 32 states | 64 states\n", frames);
	for (i = 0; i < ns; i++) {
		for (c = 0; c < 3; c++) {
			seed = 0x6b6e6565ULL + i;
			run(16u << c, sigmas[i], frames, NULL, &r[c][i]);
		}
		printf("  %6.2f | %.2e | %.2e | %.2e\n", r[0][i].snr, r[0][i].ber, r[1][i].ber, r[2][i].ber);
	}
	for (c = 0; c < 3; c++)
		at[c] = crossing(r[c], ns, 2, 1e-3);
	printf("  BER 1e-3 at %.2f, %.2f, %.2f dB: over the 16-state code,", at[0], at[1], at[2]);
	printf(" the 32-state gains %.2f dB, the 64-state %.2f (asymptotic 0 and 0.97: d_free^2 16, 16, 20)\n",
	       at[0] - at[1], at[0] - at[2]);
	CHECK(!isnan(at[0]) && !isnan(at[1]) && !isnan(at[2]), "no crossing");
	/* the 32-state code: the 16-state's distance, fewer neighbours; the 64-state: more distance */
	CHECK(at[0] - at[1] > -0.1, "32 states %.2f dB against 16", at[0] - at[1]);
	CHECK(at[0] - at[2] > 0.2 && at[0] - at[2] < 1.2, "64 states %.2f dB against 16", at[0] - at[2]);
}

int main(int argc, char **argv)
{
	static const double sigmas[] = { 0.56, 0.53, 0.5, 0.48, 0.46, 0.44, 0.42, 0.39, 0.36, 0.33, 0.31, 0.29, 0.27 };
	const unsigned int ns = ARRAY_SIZE(sigmas);
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	unsigned int frames = quick ? 1000 : 3000, states, i;
	struct result r[3][13];

	printf("V.34 data mode, 3200 baud, 28800 bit/s (b = 72, K = 28, q = 4, M = 12), %u mapping frames per point\n",
	       frames);
	for (states = 16; states <= 64; states *= 2) {
		unsigned int si = states == 16 ? 0 : states == 32 ? 1 : 2;
		double su, sc, dfree2 = states == 64 ? 20 : 16;

		printf("%u states:\n  SNR dB | uncoded SER (theory) | Viterbi SER (Q(dfree/2s)) | BER after the receiver\n",
		       states);
		for (i = 0; i < ns; i++) {
			double s = sigmas[i], tu = 1 - pow(1 - 2 * qfunc(1 / s), 2), tc = qfunc(sqrt(dfree2) / (2 * s));

			run(states, s, frames, NULL, &r[si][i]);
			printf("  %6.2f | %.2e (%.2e) | %.2e (%.2e) | %.2e\n", r[si][i].snr, r[si][i].ser_unc, tu,
			       r[si][i].ser_vit, tc, r[si][i].ber);
			/* the uncoded slicer meets its theory where the count is large enough to tell */
			/* (within four standard deviations of the count, and 10 %) */
			CHECK(fabs(r[si][i].ser_unc - tu) < 0.1 * tu + 4 * sqrt(tu / r[si][i].syms),
			      "uncoded %.3e theory %.3e", r[si][i].ser_unc, tu);
			/* below 10 % errors the code does better than no code on the same points */
			if (r[si][i].ser_unc < 0.1)
				CHECK(r[si][i].ser_vit < r[si][i].ser_unc, "%u states sigma %.2f", states, s);
		}
		su = crossing(r[si], ns, 0, 1e-3);
		sc = crossing(r[si], ns, 1, 1e-3);
		printf("  SER 1e-3: uncoded at %.2f dB, %u-state code at %.2f dB: gain %.2f dB on the same points (asymptotic %.2f dB; %.2f dB net of the redundant bit, asymptotic %.2f)\n",
		       su, states, sc, su - sc, 10 * log10(dfree2 / 4), su - sc - 1.51, 10 * log10(dfree2 / 4) - 1.51);
		CHECK(!isnan(su) && !isnan(sc), "no crossing");
		/* the asymptotic gain is reached from below: at 1e-3 the code's many near neighbours cost a dB or two */
		CHECK(su - sc > 3.0 && su - sc < 10 * log10(dfree2 / 4) + 0.3, "gain %.2f dB", su - sc);
		/* the full receiver: error-free where the code's SER is 0 */
		CHECK(r[si][ns - 1].ser_vit > 0 || r[si][ns - 1].ber == 0);
	}
	{
		static const int16_t h[6] = { 4915, -1638, -2458, 819, 1229, -410 };
		struct result p, q;

		run(16, 0.45, frames, NULL, &q);
		run(16, 0.45, frames, h, &p);
		printf("precoder (h = 0.3-0.1i, -0.15+0.05i, 0.075-0.025i) at sigma 0.45: SNR %.2f dB, Viterbi SER %.2e, BER %.2e; without: SNR %.2f dB, SER %.2e, BER %.2e\n", p.snr, p.ser_vit, p.ber, q.snr, q.ser_vit,
		       q.ber);
		/* the same noise on y(n): the precoder costs no decisions (the channel's gain raises the SNR figure) */
		CHECK(p.ser_vit < 3 * q.ser_vit + 1e-4, "precoded SER %.3e plain %.3e", p.ser_vit, q.ser_vit);
	}
	test_knee(quick ? 1500 : 4000);
	return t_report("test_v34_data_ber");
}
