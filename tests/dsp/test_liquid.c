/*
 * Our fixed-point blocks against liquid-dsp's floating-point ones:
 *   - RRC pulse (beta 0.75, 6 symbols at 1/40-symbol steps) against
 *     liquid_firdes_rrcos() with our Kaiser window applied: max error 2e-4
 *     of the peak (Q14 table);
 *   - 16-QAM mapping and slicing against liquid's QAM16 modem: the same 16
 *     points (ours in units, liquid's times sqrt(10)), and the same nearest
 *     point for 100000 noisy samples (ignoring those within 1e-3 units of a
 *     decision boundary);
 *   - LMS equalizer against eqlms_cccf, both trained on the same known QPSK
 *     sequence through the same channel: converged taps within 0.03, and
 *     both equalized outputs within 1 dB of each other in MSE (their step
 *     sizes differ, and so does the gradient noise);
 *   - NCO: see test_tones (nco_crcf).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "refs.h"
#include <smdsp/v22bis.h>
#include <smdsp/eq.h>
/* white-box: the equalizer's coefficients, compared with liquid-dsp's */
#include <smdsp/private/eq.h>
#include "tutil.h"

static double i0(double x)
{
	double s = 1, t = 1;
	int k = 1;

	while (t > 1e-12 * s) {
		t *= pow(x / (2.0 * k), 2);
		s += t;
		k++;
	}
	return s;
}

static void test_rrc(void)
{
	float h[241];
	double peak = 0, maxerr = 0, scale, num = 0, den = 0;
	int p, k, j;

	liquid_firdes_rrcos(40, 3, 0.75f, 0.0f, h);
	/* liquid normalizes its taps its own way: fit one scale factor */
	for (p = 0; p < 40; p++) {
		for (k = 0; k < 6; k++) {
			double t, w, ref;

			j = p + 40 * k;
			t = j / 3.0 - 40.0;	/* samples from the pulse centre */
			w = fabs(t) < 40 ? i0(5.0 * sqrt(1 - pow(t / 40.0, 2))) / i0(5.0) : 0;
			ref = h[j] * w;
			num += ref * smdsp_v22bis_tx_rrc[p][k] / 16384.0;
			den += ref * ref;
		}
	}
	scale = num / den;
	for (p = 0; p < 40; p++) {
		for (k = 0; k < 6; k++) {
			double t, w, ref, ours;

			j = p + 40 * k;
			t = j / 3.0 - 40.0;
			w = fabs(t) < 40 ? i0(5.0 * sqrt(1 - pow(t / 40.0, 2))) / i0(5.0) : 0;
			ref = h[j] * w * scale;
			ours = smdsp_v22bis_tx_rrc[p][k] / 16384.0;
			peak = fmax(peak, fabs(ref));
			maxerr = fmax(maxerr, fabs(ref - ours));
		}
	}
	printf("RRC vs liquid_firdes_rrcos(k=40, m=3, beta=0.75) x Kaiser(5): max error %.2e of peak "
	       "(tolerance 2e-4)\n", maxerr / peak);
	CHECK(maxerr / peak < 2e-4, "rrc error %g", maxerr / peak);
}

static void test_qam(void)
{
	modem q = modem_create(LIQUID_MODEM_QAM16);
	float complex ref[16];
	int found[16] = { 0 };
	unsigned int sym, qd, low, lq, ll;
	int x, y, i, n, mism = 0, skipped = 0;
	uint64_t seed = 17;

	for (sym = 0; sym < 16; sym++)
		modem_modulate(q, sym, &ref[sym]);
	for (qd = 0; qd < 4; qd++) {
		for (low = 0; low < 4; low++) {
			smdsp_v22bis_map(qd, low, &x, &y);
			for (i = 0; i < 16; i++)
				if (fabs(crealf(ref[i]) * sqrt(10) - x) < 1e-4 &&
				    fabs(cimagf(ref[i]) * sqrt(10) - y) < 1e-4)
					found[i]++;
		}
	}
	for (i = 0; i < 16; i++)
		CHECK(found[i] == 1, "liquid point %d matched %d times", i, found[i]);
	for (n = 0; n < 100000; n++) {
		double re = (t_rand64(&seed) >> 11) / 9007199254740992.0 * 9 - 4.5;
		double im = (t_rand64(&seed) >> 11) / 9007199254740992.0 * 9 - 4.5;
		int32_t dr, di;
		float complex r, hat;
		unsigned int s;

		/* near a boundary (0, +-2 units) the two may round differently */
		if (fabs(re) < 1e-3 || fabs(fabs(re) - 2) < 1e-3 || fabs(im) < 1e-3 ||
		    fabs(fabs(im) - 2) < 1e-3) {
			skipped++;
			continue;
		}
		smdsp_v22bis_slice(true, (int32_t)lrint(re * SMDSP_V22BIS_UNIT), (int32_t)lrint(im * SMDSP_V22BIS_UNIT),
				&lq, &ll, &dr, &di);
		r = (float)(re / sqrt(10)) + (float)(im / sqrt(10)) * I;
		modem_demodulate(q, r, &s);
		modem_get_demodulator_sample(q, &hat);
		if (fabs(crealf(hat) * sqrt(10) - dr / (double)SMDSP_V22BIS_UNIT) > 1e-3 ||
		    fabs(cimagf(hat) * sqrt(10) - di / (double)SMDSP_V22BIS_UNIT) > 1e-3)
			mism++;
	}
	printf("16-QAM: our 16 points = liquid's QAM16 set; slicer disagreements %d of %d (%d skipped near "
	       "boundaries)\n", mism, 100000 - skipped, skipped);
	CHECK(mism == 0, "%d slicer disagreements", mism);
	modem_destroy(q);
}

static void test_lms(void)
{
	static const float complex ch[3] = { 1.0f, 0.25f + 0.15f * I, -0.1f + 0.05f * I };
	enum { N = 9, C = 4, SYMS = 60000 };
	struct smdsp_eq e;
	eqlms_cccf q;
	float complex w0[N], wq[N], hist[3] = { 0 };
	double maxd = 0, mse_o = 0, mse_l = 0;
	uint64_t seed = 23;
	const double S = SMDSP_V22BIS_UNIT;
	int n, k;

	memset(w0, 0, sizeof(w0));
	w0[C] = 1;
	q = eqlms_cccf_create(w0, N);
	smdsp_eq_init(&e, N, C, 6);
	for (n = 0; n < SYMS; n++) {
		int b = (int)(t_rand64(&seed) >> 62);
		float complex s = ((b & 1) ? 1.0f : -1.0f) + ((b & 2) ? 1.0f : -1.0f) * I, x = 0, yl, d;
		struct smdsp_cplx yo;
		static float complex sent[N];

		memmove(hist + 1, hist, 2 * sizeof(*hist));
		hist[0] = s;
		for (k = 0; k < 3; k++)
			x += ch[k] * hist[k];
		/* the desired output is the symbol that went in C steps ago */
		memmove(sent + 1, sent, (N - 1) * sizeof(*sent));
		sent[0] = s;
		d = sent[C];
		eqlms_cccf_push(q, x);
		eqlms_cccf_execute(q, &yl);
		smdsp_eq_push(&e, (int16_t)lrint(crealf(x) * S), (int16_t)lrint(cimagf(x) * S));
		yo = smdsp_eq_output(&e);
		if (n > 20) {
			eqlms_cccf_step(q, d, yl);
			smdsp_eq_update(&e, (int32_t)lrint(crealf(d) * S) - yo.re,
					(int32_t)lrint(cimagf(d) * S) - yo.im);
		}
		if (n >= SYMS - 10000) {
			mse_l += pow(cabsf(d - yl), 2);
			mse_o += pow(crealf(d) - yo.re / S, 2) + pow(cimagf(d) - yo.im / S, 2);
		}
	}
	eqlms_cccf_copy_coefficients(q, wq);
	for (k = 0; k < N; k++) {
		/* liquid's coefficient k and ours both weight the sample k steps old */
		float complex l = wq[k];
		double dr = e.cre[k] / (double)SMDSP_EQ_COEF_ONE - crealf(l);
		double di = e.cim[k] / (double)SMDSP_EQ_COEF_ONE - cimagf(l);

		maxd = fmax(maxd, hypot(dr, di));
	}
	mse_o /= 10000;
	mse_l /= 10000;
	printf("LMS equalizer vs eqlms_cccf (9 taps, channel 1, .25+.15j, -.1+.05j): max tap difference "
	       "%.3f (tolerance 0.03), MSE ours %.1f dB, liquid %.1f dB\n", maxd, 10 * log10(mse_o),
	       10 * log10(mse_l));
	CHECK(maxd < 0.03, "taps differ by %g", maxd);
	CHECK(fabs(10 * log10(mse_o / mse_l)) < 1.0, "MSE %g vs %g",
	      mse_o, mse_l);
	eqlms_cccf_destroy(q);
}

int main(void)
{
	test_rrc();
	test_qam();
	test_lms();
	return t_report("test_liquid");
}
