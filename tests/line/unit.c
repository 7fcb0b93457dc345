// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of smline's sample-level parts: resamplers, wire impairments,
 * hook detection, CRC-32 and payloads. One line per check, "ok" or "FAIL",
 * with the measured numbers, then "N checks, M failures"; the exit status
 * is the number of failures (1 if no check ran).
 * Run by tests/line/test_line.py.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spandsp.h>

#include "hook.h"
#include "resample.h"
#include "sml.h"
#include "echopath.h"
#include "wire.h"

static int checks, failures;

static void check(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "ok" : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	checks++;
	failures += !ok;
}

static double rms(const double *x, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += x[i] * x[i];
	return sqrt(s / n);
}

/* level of frequency f in x (amplitude of a sine), by correlation */
static double tone_amp(const double *x, int n, double f, double rate)
{
	double re = 0, im = 0;

	for (int i = 0; i < n; i++) {
		re += x[i] * cos(2 * M_PI * f * i / rate);
		im += x[i] * sin(2 * M_PI * f * i / rate);
	}
	return 2 * sqrt(re * re + im * im) / n;
}

/* a tone of amplitude 10000 at f Hz (line rate), sample i */
static double tone(double f, long i)
{
	return 10000 * sin(2 * M_PI * f * i / 8000);
}

/*
 * 8 kHz -> L * 8 kHz -> 8 kHz, n line samples of a tone; returns the number
 * of line samples back in lo, the high-rate ones in hi (k of them)
 */
static int poly_round_trip(int L, double f, int n, double *hi, int *k, double *lo)
{
	struct sml_poly up, down;
	int m = 0;

	*k = 0;
	sml_poly_init(&up, L);
	sml_poly_init(&down, L);
	for (int i = 0; i < n; i++) {
		sml_poly_interp_push(&up, tone(f, i));
		while (!sml_poly_interp_need(&up)) {
			double y;
			float s = sml_poly_interp(&up);

			if (hi)
				hi[(*k)++] = s;
			if (sml_poly_decim(&down, s, &y))
				lo[m++] = y;
		}
	}
	sml_poly_free(&up);
	sml_poly_free(&down);
	return m;
}

/* phase of frequency f in x, radians */
static double tone_phase(const double *x, int n, double f, double rate)
{
	double re = 0, im = 0;

	for (int i = 0; i < n; i++) {
		re += x[i] * cos(2 * M_PI * f * i / rate);
		im += x[i] * sin(2 * M_PI * f * i / rate);
	}
	return atan2(re, im);
}

/* 8 kHz -> 48 kHz -> 8 kHz: pass band flat, images and aliases rejected */
static void test_poly(void)
{
	const int L = 6, n = 8000;
	double *hi = malloc(sizeof(double) * n * L), *lo = malloc(sizeof(double) * n);
	double worst = 0, lowest = 0, highest = -99, img, alias, g, d;
	int k, m, tones = 0;
	struct sml_poly down;

	for (double f = 300; f <= 3400; f += 50, tones++) {
		m = poly_round_trip(L, f, n, hi, &k, lo);
		/* skip the filters' start-up */
		g = 20 * log10(tone_amp(lo + 400, m - 400, f, 8000) / 10000);
		if (fabs(g) > fabs(worst))
			worst = g;
		lowest = fmin(lowest, g);
		highest = fmax(highest, g);
		if (f == 1000) {
			/* the image of 1 kHz at 7 kHz in the 48 kHz stream */
			img = 20 * log10(tone_amp(hi + 2400, k - 2400, 7000, 48000) /
					 tone_amp(hi + 2400, k - 2400, 1000, 48000));
			check(img < -60, "poly image rejection", "1 kHz image at 7 kHz %.1f dB", img);
			check(fabs(tone_amp(hi + 2400, k - 2400, 1000, 48000) * 32768 / 10000 - 1) < 0.01,
			      "poly interpolator gain", "%.4f",
			      tone_amp(hi + 2400, k - 2400, 1000, 48000) * 32768 / 10000);
		}
	}
	check(fabs(worst) <= 0.3, "poly pass band 300-3400 Hz",
	      "worst %+.3f dB, ripple %.3f dB round trip (%d tones, 50 Hz apart)",
	      worst, highest - lowest, tones);

	/* the round trip's delay, from a 100 Hz tone's phase, is what it says */
	m = poly_round_trip(L, 100, n, NULL, &k, lo);
	sml_poly_init(&down, L);
	d = fmod(8000 - tone_phase(lo + 800, m - 800, 100, 8000) / (2 * M_PI) * 80, 80);
	check(fabs(d - sml_poly_delay(&down)) < 0.02, "poly delay",
	      "round trip %.3f line samples, %.3f reported", d, sml_poly_delay(&down));
	sml_poly_free(&down);

	/* a 5 kHz tone at 48 kHz must not alias to 3 kHz at 8 kHz */
	sml_poly_init(&down, L);
	m = 0;
	for (int i = 0; i < n * L; i++) {
		double y;

		if (sml_poly_decim(&down, 0.3 * sin(2 * M_PI * 5000.0 * i / 48000), &y))
			lo[m++] = y;
	}
	alias = 20 * log10(rms(lo + 400, m - 400) / (0.3 * 32768 / M_SQRT2) + 1e-12);
	check(alias < -60, "poly alias rejection", "5 kHz -> %.1f dB", alias);
	sml_poly_free(&down);
	free(hi);
	free(lo);
}

/* n inputs of tone f through a drift resampler of ratio r, 80 at a time */
static int drift_run(double r, double f, int n, double *out, int max)
{
	struct sml_drift d;
	double in[80];
	int m = 0;

	sml_drift_init(&d, r);
	for (int i = 0; i < n; i += 80) {
		for (int j = 0; j < 80; j++)
			in[j] = tone(f, i + j);
		m += sml_drift_process(&d, in, 80, out + m, max - m);
	}
	sml_drift_free(&d);
	return m;
}

/*
 * Fractional rate (the wire's --ppm): flat pass band both ways, and the
 * output runs at the requested ratio: sample counts, frequency and timing.
 */
static void test_drift(void)
{
	const int n = 16000, nlong = 800000;
	const double ratios[] = { 1 + 250e-6, 1 / (1 + 250e-6) };
	double *out = malloc(sizeof(double) * (nlong + 1000));
	struct sml_drift d;

	for (unsigned int ri = 0; ri < 2; ri++) {
		const double r = ratios[ri];
		double worst = 0, lowest = 0, highest = -99, g, ph0, ph1, slip;
		int m, tones = 0;

		for (double f = 300; f <= 3400; f += 50, tones++) {
			m = drift_run(r, f, n, out, n + 1000);
			/* a tone at f cycles per input is f * r per output */
			g = 20 * log10(tone_amp(out + 400, m - 400, f * r, 8000) / 10000);
			if (fabs(g) > fabs(worst))
				worst = g;
			lowest = fmin(lowest, g);
			highest = fmax(highest, g);
		}
		check(fabs(worst) <= 0.3, "drift pass band 300-3400 Hz",
		      "ratio %.6f: worst %+.3f dB, ripple %.3f dB (%d tones)",
		      r, worst, highest - lowest, tones);

		/*
		 * 100 s of 1 kHz: as many outputs as the ratio asks (less the
		 * filter's start-up), and the tone's phase at the output clock
		 * the same at the end as at the start: no rate error
		 */
		m = drift_run(r, 1000, nlong, out, nlong + 1000);
		check(fabs(m - nlong / r) <= 2, "drift sample count",
		      "ratio %.6f: %d out for %d in, expected %.1f", r, m, nlong, nlong / r);
		ph0 = tone_phase(out + 8000, 8000, 1000 * r, 8000);
		ph1 = tone_phase(out + m - 8000 - 8000, 8000, 1000 * r, 8000) -
		      2 * M_PI * 1000 * r * (m - 8000 - 8000 - 8000) / 8000;
		slip = remainder(ph1 - ph0, 2 * M_PI) / (2 * M_PI) * 8;
		check(fabs(slip) < 0.1, "drift rate",
		      "ratio %.6f: %.4f samples of timing slip over %.0f s (%.3f ppm)",
		      r, slip, (m - 24000) / 8000.0, slip / (m - 24000) * 1e6);
		g = 20 * log10(rms(out + 1000, m - 1000) / (10000 / M_SQRT2));
		check(fabs(g) < 0.1, "drift level", "ratio %.6f: %+.3f dB", r, g);
	}

	/* an impulse comes out SML_DRIFT_DELAY input samples later */
	{
		double in[400] = { 0 }, o[500];
		int m, peak = 0;

		in[100] = 10000;
		sml_drift_init(&d, 1 + 250e-6);
		m = sml_drift_process(&d, in, 400, o, 500);
		for (int i = 0; i < m; i++)
			if (fabs(o[i]) > fabs(o[peak]))
				peak = i;
		check(peak - 100 == SML_DRIFT_DELAY, "drift delay",
		      "impulse at +%d samples, %d reported", peak - 100, SML_DRIFT_DELAY);
		sml_drift_free(&d);
	}
	free(out);
}

static void run_wire(struct sml_wire_cfg *c, const int16_t *modem_tx,
		     const int16_t *far_tx, int n, int16_t *at_far, int *nfar,
		     int16_t *at_modem)
{
	struct sml_wire *w = sml_wire_new(c);
	int i, m = 0;

	for (i = 0; i < n; i += 80) {
		int k = sml_wire_up(w, modem_tx + i, 80, at_far + m, 200);

		/* feed the far side the same count it produced, as smline does */
		sml_wire_down(w, far_tx + m, k, modem_tx + i, at_modem + i, 80);
		m += k;
	}
	*nfar = m;
	sml_wire_free(w);
}

static void test_wire(void)
{
	const int n = 80000;
	int16_t *mt = calloc(n, 2), *ft = calloc(n + 400, 2), *af = calloc(n + 400, 2);
	int16_t *am = calloc(n, 2), *am2 = calloc(n, 2);
	double *x = malloc(sizeof(double) * (n + 400));
	struct sml_wire_cfg c;
	int nf, i, peak;
	double lvl, want;

	/* attenuation: a -10 dBm0 tone loses exactly 8 dB each way */
	sml_wire_cfg_default(&c);
	c.atten_db = 8;
	for (i = 0; i < n; i++) {
		mt[i] = (int16_t)lrint(sml_dbm0_to_rms(-10) * M_SQRT2 * sin(2 * M_PI * 1000.0 * i / 8000));
		ft[i] = mt[i];
	}
	run_wire(&c, mt, ft, n, af, &nf, am);
	for (i = 0; i < nf; i++)
		x[i] = af[i];
	lvl = sml_rms_to_dbm0(rms(x, nf));
	check(fabs(lvl + 18) < 0.05, "wire attenuation up", "%.2f dBm0 (want -18.00)", lvl);
	for (i = 0; i < n; i++)
		x[i] = am[i];
	lvl = sml_rms_to_dbm0(rms(x, n));
	check(fabs(lvl + 18) < 0.05, "wire attenuation down", "%.2f dBm0 (want -18.00)", lvl);

	/* noise: silence in, -30 dBm0 of white noise out at each end */
	sml_wire_cfg_default(&c);
	c.noise_dbm0 = -30;
	memset(mt, 0, n * 2);
	memset(ft, 0, (n + 400) * 2);
	run_wire(&c, mt, ft, n, af, &nf, am);
	for (i = 0; i < nf; i++)
		x[i] = af[i];
	lvl = sml_rms_to_dbm0(rms(x, nf));
	check(fabs(lvl + 30) < 0.2, "wire noise at far end", "%.2f dBm0 (want -30)", lvl);
	for (i = 0; i < n; i++)
		x[i] = am[i];
	lvl = sml_rms_to_dbm0(rms(x, n));
	check(fabs(lvl + 30) < 0.2, "wire noise at modem", "%.2f dBm0 (want -30)", lvl);
	/* whiteness: neighbouring samples uncorrelated */
	{
		double s01 = 0, s00 = 0;

		for (i = 1; i < n; i++) {
			s01 += (double)am[i] * am[i - 1];
			s00 += (double)am[i] * am[i];
		}
		check(fabs(s01 / s00) < 0.02, "wire noise is white", "lag-1 correlation %.4f",
		      s01 / s00);
	}
	/* same seed, same noise; another seed, other noise */
	run_wire(&c, mt, ft, n, af, &nf, am2);
	check(!memcmp(am, am2, n * 2), "wire seeded repeatable", "identical for seed %llu",
	      (unsigned long long)c.seed);
	c.seed = 99;
	run_wire(&c, mt, ft, n, af, &nf, am2);
	check(memcmp(am, am2, n * 2) != 0, "wire seed matters", "seed 99 differs");

	/* echo: an impulse from the modem comes back after echo_ms at echo_db */
	sml_wire_cfg_default(&c);
	c.echo_db = -12;
	c.echo_ms = 25;
	memset(mt, 0, n * 2);
	mt[1000] = 16000;
	run_wire(&c, mt, ft, n, af, &nf, am);
	peak = 0;
	for (i = 0; i < n; i++)
		if (abs(am[i]) > abs(am[peak]))
			peak = i;
	want = 16000 * pow(10, -12 / 20.0);
	check(peak == 1000 + 200 && fabs(am[peak] - want) < 2, "wire echo",
	      "at %+d samples (want +200), %d (want %.0f)", peak - 1000, am[peak], want);

	/*
	 * The hybrid (near echo): an impulse from the modem comes back as the
	 * G.168 model's impulse response, from the same sample on, its energy
	 * hybrid_erl_db below the impulse's, for every model.
	 */
	{
		int m;

		for (m = 1; m <= SML_HYBRID_MODELS; m++) {
			double h[128], e = 0, ref = 0;
			int nh = sml_hybrid_taps(m, 9, h, 128), first = -1, ok = 1;

			sml_wire_cfg_default(&c);
			c.hybrid = m;
			c.hybrid_erl_db = 9;
			memset(mt, 0, n * 2);
			memset(ft, 0, (n + 400) * 2);
			mt[1000] = 16000;
			run_wire(&c, mt, ft, n, af, &nf, am);
			for (i = 0; i < n; i++) {
				e += (double)am[i] * am[i];
				if (am[i] && first < 0)
					first = i;
			}
			for (i = 0; i < nh; i++) {
				ref += h[i] * h[i];
				ok &= abs(am[1000 + i] - (int)lrint(16000 * h[i])) <= 1;
			}
			lvl = 10 * log10(e / (16000.0 * 16000.0));
			check(ok && first >= 1000 && fabs(lvl + 9) < 0.05 && fabs(10 * log10(ref) + 9) < 1e-6,
			      "wire hybrid", "m%d: %d taps from %+d, %.2f dB (want -9.00)", m, nh, first - 1000, lvl);
		}
		check(sml_hybrid_parse("m3") == 3 && sml_hybrid_parse("8") == 8 && sml_hybrid_parse("none") == 0 &&
		      sml_hybrid_parse("m9") < 0 && sml_hybrid_parse("x") < 0, "hybrid names", "m1..m8, none");
	}

	/*
	 * The far echo: an impulse comes back far_echo_ms later through the far
	 * hybrid, far_echo_db down; with a frequency offset a 1000 Hz tone comes
	 * back at 1000 + offset Hz (its power in 1 Hz bins over 4 s), as
	 * strong as the path's gain at 1000 Hz makes it.
	 */
	{
		double e = 0, p_in, p_sh, p_un;
		int first = -1;

		sml_wire_cfg_default(&c);
		c.far_echo_db = 14;
		c.far_echo_ms = 300;
		c.far_hybrid = 2;
		memset(mt, 0, n * 2);
		memset(ft, 0, (n + 400) * 2);
		mt[1000] = 16000;
		run_wire(&c, mt, ft, n, af, &nf, am);
		for (i = 0; i < n; i++) {
			e += (double)am[i] * am[i];
			if (am[i] && first < 0)
				first = i;
		}
		lvl = 10 * log10(e / (16000.0 * 16000.0));
		check(first == 1000 + 2400 && fabs(lvl + 14) < 0.05, "wire far echo",
		      "at %+d samples (want +2400), %.2f dB (want -14.00)", first - 1000, lvl);

		c.far_echo_hz = 5;
		c.far_echo_db = 6;
		for (i = 0; i < n; i++)
			mt[i] = (int16_t)lrint(8000 * sin(2 * M_PI * 1000.0 * i / 8000));
		run_wire(&c, mt, ft, n, af, &nf, am);
		/* the last 4 s, past the delay and the Hilbert filter's start */
		{
			double re[3] = { 0 }, im[3] = { 0 }, f[3] = { 1000, 1005, 995 };
			int k, from = n - 32000;

			for (i = from; i < n; i++)
				for (k = 0; k < 3; k++) {
					re[k] += am[i] * cos(2 * M_PI * f[k] * i / 8000);
					im[k] += am[i] * sin(2 * M_PI * f[k] * i / 8000);
				}
			p_un = (re[0] * re[0] + im[0] * im[0]) / (16000.0 * 16000);
			p_sh = (re[1] * re[1] + im[1] * im[1]) / (16000.0 * 16000);
			p_in = (re[2] * re[2] + im[2] * im[2]) / (16000.0 * 16000);
			/* a tone of amplitude A |H(1000 Hz)| over N samples: (A |H| N / 2)^2 */
			{
				double h[128], hr = 0, hi = 0, g;
				int nh = sml_hybrid_taps(2, 6, h, 128);

				for (k = 0; k < nh; k++) {
					hr += h[k] * cos(2 * M_PI * 1000.0 * k / 8000);
					hi -= h[k] * sin(2 * M_PI * 1000.0 * k / 8000);
				}
				g = sqrt(hr * hr + hi * hi);
				lvl = 10 * log10(p_sh / pow(8000 * g * 32000 / 2 / 16000, 2));
			}
			check(fabs(lvl) < 0.3 && p_sh > 1e4 * p_un && p_sh > 1e4 * p_in, "wire far echo shift",
			      "1005 Hz at %+.2f dB of the path's gain, 1000 Hz %.1f dB and 995 Hz %.1f dB below", lvl,
			      10 * log10(p_sh / (p_un + 1e-30)), 10 * log10(p_sh / (p_in + 1e-30)));
		}
	}

	/* one-way delay: an impulse from the far end arrives delay_ms later */
	sml_wire_cfg_default(&c);
	c.delay_ms = 40;
	memset(mt, 0, n * 2);
	memset(ft, 0, (n + 400) * 2);
	ft[2000] = 12000;
	run_wire(&c, mt, ft, n, af, &nf, am);
	peak = 0;
	for (i = 0; i < n; i++)
		if (abs(am[i]) > abs(am[peak]))
			peak = i;
	check(peak == 2000 + 320 && am[peak] == 12000, "wire delay down",
	      "at %+d samples (want +320)", peak - 2000);
	mt[3000] = 12000;
	run_wire(&c, mt, ft, n, af, &nf, am);
	peak = 0;
	for (i = 0; i < nf; i++)
		if (abs(af[i]) > abs(af[peak]))
			peak = i;
	check(peak == 3000 + 320, "wire delay up", "at %+d samples (want +320)", peak - 3000);

	/*
	 * clock offset: the far end gets fewer samples when the modem is
	 * fast, more when it is slow; the way back never runs dry
	 */
	for (int ppm = -500; ppm <= 500; ppm += 1000) {
		struct sml_wire *w;

		sml_wire_cfg_default(&c);
		c.ppm = ppm;
		memset(mt, 0, n * 2);
		run_wire(&c, mt, ft, n, af, &nf, am);
		check(abs(nf - (int)lround(n / (1 + ppm * 1e-6))) <= 2, "wire clock offset",
		      "%d network samples for %d modem samples at %+d ppm (want %.0f)",
		      nf, n, ppm, n / (1 + ppm * 1e-6));
		w = sml_wire_new(&c);
		for (i = 0; i < n; i += 80) {
			int k = sml_wire_up(w, mt + i, 80, af, 200);

			sml_wire_down(w, ft, k, mt + i, am, 80);
		}
		check(sml_wire_underruns(w) == 0, "wire clock offset, way down",
		      "%llu samples of silence at %+d ppm",
		      (unsigned long long)sml_wire_underruns(w), ppm);
		sml_wire_free(w);
	}

	free(mt);
	free(ft);
	free(af);
	free(am);
	free(am2);
	free(x);
}

/*
 * One wire, three stretches of 8000 samples: as configured, worsened
 * (sml_wire_worsen()), restored; each stretch's level at both ends.
 */
static void worsen_levels(const struct sml_wire_cfg *c, double tone_dbm0, double noise_dbm0,
			  double loss_db, double lvl[3][2])
{
	const int n = 8000;
	struct sml_wire *w = sml_wire_new(c);
	int16_t tx[80], up[200], down[80];
	double *x_up = malloc(sizeof(double) * (n + 400)), *x_down = malloc(sizeof(double) * n);
	double amp = tone_dbm0 > -99 ? sml_dbm0_to_rms(tone_dbm0) * M_SQRT2 : 0;
	int part, i, k, m;
	int64_t t = 0;

	for (part = 0; part < 3; part++) {
		if (part == 1)
			sml_wire_worsen(w, noise_dbm0, loss_db);
		else if (part == 2)
			sml_wire_restore(w);
		for (m = 0, i = 0; i < n; i += 80) {
			for (k = 0; k < 80; k++, t++)
				tx[k] = (int16_t)lrint(amp * sin(2 * M_PI * 1000.0 * t / 8000));
			k = sml_wire_up(w, tx, 80, up, 200);
			sml_wire_down(w, tx, k, tx, down, 80);
			for (k--; k >= 0; k--)
				x_up[m + k] = up[k];
			m += 80;
			for (k = 0; k < 80; k++)
				x_down[i + k] = down[k];
		}
		lvl[part][0] = sml_rms_to_dbm0(rms(x_up, m));
		lvl[part][1] = sml_rms_to_dbm0(rms(x_down, n));
	}
	free(x_up);
	free(x_down);
	sml_wire_free(w);
}

/* a route's worsen= words: the noise's power added to the line's, the loss on the signal, undone */
static void test_wire_worsen(void)
{
	static const char *const way[2] = { "up", "down" };
	struct sml_wire_cfg c;
	double lvl[3][2];
	int d;

	/* silence on a line with -40 dBm0 of noise: -40 more makes -36.99, then -40 again */
	sml_wire_cfg_default(&c);
	c.noise_dbm0 = -40;
	worsen_levels(&c, -99, -40, 0, lvl);
	for (d = 0; d < 2; d++) {
		check(fabs(lvl[0][d] + 40) < 0.2 && fabs(lvl[1][d] + 36.99) < 0.2 &&
		      fabs(lvl[2][d] + 40) < 0.2, "wire worsened noise",
		      "%s: %.2f, %.2f, %.2f dBm0 (want -40, -36.99, -40)", way[d], lvl[0][d],
		      lvl[1][d], lvl[2][d]);
	}
	/* a -10 dBm0 tone through 3 dB of loss, 6 dB more, then 3 again; no noise added */
	sml_wire_cfg_default(&c);
	c.atten_db = 3;
	worsen_levels(&c, -10, -99, 6, lvl);
	for (d = 0; d < 2; d++) {
		check(fabs(lvl[0][d] + 13) < 0.05 && fabs(lvl[1][d] + 19) < 0.05 &&
		      fabs(lvl[2][d] + 13) < 0.05, "wire worsened loss",
		      "%s: %.2f, %.2f, %.2f dBm0 (want -13, -19, -13)", way[d], lvl[0][d],
		      lvl[1][d], lvl[2][d]);
	}
}

/* SpanDSP's G.711 round trip: a code's value is its own */
static int16_t g711(int codec, int16_t x)
{
	return codec == SML_CODEC_ULAW ? ulaw_to_linear(linear_to_ulaw(x)) : alaw_to_linear(linear_to_alaw(x));
}

/*
 * G.711 at the line card: a sine at -10 dBm0 on G.711's own scale (its
 * full-scale sine +3.14 dBm0, dsp/'s convention; smline's levels are
 * SpanDSP's, 3.02 dB apart) comes out with the companding's noise, theory
 * 6.02 * 8 + 4.77 - 20 log10(ln(1 + mu)) = 38.1 dB under it for mu-law and
 * 38.2 dB (1 + ln A) for A-law, both ways; the output takes at most the
 * codec's 256 values; 12 dB of loss is taken after the code on the way down
 * (the far card's decoder, then the loop), before it on the way up.
 */
static void test_wire_codec(void)
{
	static const char *const names[] = { "", "mu-law", "A-law" };
	const int n = 16000;
	int16_t *mt = calloc(n, 2), *ft = calloc(n + 400, 2), *af = calloc(n + 400, 2);
	int16_t *am = calloc(n, 2);
	double *e = malloc(sizeof(double) * (n + 400)), *ref = malloc(sizeof(double) * n);
	double amp = 32767.0 * pow(10.0, (-10 - 3.14) / 20.0), worst;
	struct sml_wire_cfg c;
	int nf, i, k, codec, distinct, bad;
	static unsigned char seen[65536];

	for (i = 0; i < n; i++) {
		mt[i] = (int16_t)lrint(amp * sin(2 * M_PI * 1004.0 * i / 8000));
		ft[i] = mt[i];
	}
	for (codec = SML_CODEC_ULAW; codec <= SML_CODEC_ALAW; codec++) {
		double snr[2];

		sml_wire_cfg_default(&c);
		c.codec = codec;
		run_wire(&c, mt, ft, n, af, &nf, am);
		for (k = 0; k < 2; k++) {
			const int16_t *y = k ? am : af;
			int len = k ? n : nf;

			for (i = 0; i < len; i++)
				e[i] = y[i] - mt[i];
			snr[k] = 20 * log10(amp / M_SQRT2 / rms(e, len));
		}
		check(snr[0] > 36.6 && snr[0] < 39.6 && snr[1] > 36.6 && snr[1] < 39.6, "wire codec noise",
		      "%s: %.2f dB up, %.2f dB down (theory %.1f)", names[codec], snr[0], snr[1],
		      codec == SML_CODEC_ULAW ? 38.1 : 38.2);
		memset(seen, 0, sizeof(seen));
		distinct = 0;
		for (i = 0; i < nf; i++)
			distinct += !seen[(uint16_t)af[i]]++;
		for (i = 0; i < n; i++)
			distinct += !seen[(uint16_t)am[i]]++;
		check(distinct <= 256, "wire codec values", "%s: %d distinct samples (at most 256)",
		      names[codec], distinct);

		/*
		 * 12 dB of loss: up, before the encoder (what reaches the network
		 * is still codes); down, after the decoder (the codes scaled)
		 */
		for (i = 0; i < n; i++)
			ref[i] = am[i];
		c.atten_db = 12;
		run_wire(&c, mt, ft, n, af, &nf, am);
		for (i = 0, bad = 0; i < nf; i++)
			bad += af[i] != g711(codec, af[i]);
		for (i = 0, worst = 0; i < n; i++)
			worst = fmax(worst, fabs(am[i] - ref[i] * pow(10.0, -12 / 20.0)));
		check(bad == 0 && worst <= 0.51, "wire codec and loss",
		      "%s: %d samples up that are not the codec's, down %.2f off the codes scaled", names[codec],
		      bad, worst);
	}
	free(mt);
	free(ft);
	free(af);
	free(am);
	free(e);
	free(ref);
}

static void test_hook(void)
{
	struct sml_hook h;
	int16_t in[80], out[80];
	int i, k, closed_at = -1, open_at = -1;
	double dc_left = 0;
	bool ever = false;

	/* a strong modem signal without DC never closes the loop */
	sml_hook_init(&h, 0);
	for (k = 0; k < 200; k++) {
		for (i = 0; i < 80; i++)
			in[i] = (int16_t)lrint(16000 * sin(2 * M_PI * 300.0 * (k * 80 + i) / 8000));
		ever |= sml_hook_process(&h, in, out, 80);
	}
	check(!ever, "hook ignores signal", "0 dBm0 300 Hz without DC stays on-hook");

	/* DC on at block 10: closed within 20 ms; DC off at block 50: open within 20 ms */
	sml_hook_init(&h, 0);
	for (k = 0; k < 100; k++) {
		for (i = 0; i < 80; i++)
			in[i] = (int16_t)((k >= 10 && k < 50 ? 4096 : 0) +
					  lrint(5000 * sin(2 * M_PI * 1200.0 * (k * 80 + i) / 8000)));
		bool c = sml_hook_process(&h, in, out, 80);

		if (c && closed_at < 0)
			closed_at = k;
		if (!c && closed_at >= 0 && open_at < 0)
			open_at = k;
		if (k == 45) {
			double s = 0;

			for (i = 0; i < 80; i++)
				s += out[i];
			dc_left = s / 80;
		}
	}
	check(closed_at >= 10 && closed_at <= 12, "hook off-hook detection",
	      "closed %d ms after the DC appeared", (closed_at - 10) * 10);
	check(open_at >= 50 && open_at <= 52, "hook on-hook detection",
	      "open %d ms after the DC went", (open_at - 50) * 10);
	check(fabs(dc_left) < 20, "hook removes DC", "mean %.1f after 350 ms", dc_left);
}

static void test_crc_payload(void)
{
	const uint8_t s[] = "123456789";
	uint8_t a[100], b[100];

	/* the standard CRC-32 check value */
	check(sml_crc32(0, s, 9) == 0xCBF43926, "crc32 check value", "%08x",
	      sml_crc32(0, s, 9));
	/* a payload read in pieces equals one read whole */
	sml_payload_fill(7, 0, a, 100);
	sml_payload_fill(7, 0, b, 33);
	sml_payload_fill(7, 33, b + 33, 67);
	check(!memcmp(a, b, 100), "payload offsets", "first bytes %02x%02x%02x%02x",
	      a[0], a[1], a[2], a[3]);
}

int main(void)
{
	test_poly();
	test_drift();
	test_wire();
	test_wire_worsen();
	test_wire_codec();
	test_hook();
	test_crc_payload();
	printf("%d checks, %d failure%s\n", checks, failures, failures == 1 ? "" : "s");
	return checks ? failures : 1;
}
