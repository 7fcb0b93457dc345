// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's timing unit (dsp/v34_mod.c, dsp/v34_demod.c) at the six symbol rates
 * and both carriers:
 * - Table 1's symbol rates and carriers, and the ticks a sample, exactly;
 * - the transmitted pulse against a root raised cosine (beta 1/8) computed
 *   here in floating point, through the modulator's response to one symbol;
 * - the spectrum of random QPSK: centred on the carrier, as wide as the
 *   symbol rate, nothing outside the roll-off, the power asked for;
 * - a long run (60 s at each rate): symbols pulled exactly S/8000 a sample,
 *   and the demodulator, with no timing loop, still sampling the last
 *   symbols as cleanly as the first (no drift);
 * - modulate-demodulate round trips over the line model: the modulation
 *   error ratio without noise (the pulse's own ISI), with noise beside the
 *   channel's SNR;
 * - the demodulator sampling between samples, at fractions of a symbol,
 *   against a floating-point model of the two pulses;
 * - a timing loop (here, on smdsp_v34_demod_adjust()) following a clock
 *   150 ppm off for 20 s.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <complex.h>
#include <smdsp/v34_mod.h>
#include "line.h"
#include "tutil.h"

static const double rates[6] = { 2400, 2400.0 * 8 / 7, 2800, 3000, 3200, 2400.0 * 10 / 7 };
static const double car[6][2] = {
	{ 1600, 1800 }, { 2400.0 * 8 / 7 * 3 / 5, 2400.0 * 8 / 7 * 2 / 3 },
	{ 1680, 2800.0 * 2 / 3 }, { 1800, 2000 }, { 3200.0 * 4 / 7, 1920 },
	{ 2400.0 * 10 / 7 * 4 / 7, 2400.0 * 10 / 7 * 4 / 7 } };

static double rrc(double t, double b)
{
	if (fabs(t) < 1e-12)
		return 1 - b + 4 * b / M_PI;
	if (fabs(fabs(4 * b * t) - 1) < 1e-12)
		return b / sqrt(2) * ((1 + 2 / M_PI) * sin(M_PI / (4 * b)) + (1 - 2 / M_PI) * cos(M_PI / (4 * b)));
	return (sin(M_PI * t * (1 - b)) + 4 * b * t * cos(M_PI * t * (1 + b))) /
	       (M_PI * t * (1 - 16 * b * b * t * t));
}

/* the pulse as specified: RRC, tapered over the outer two of its ten symbols each side */
static double pulse(double t)
{
	double a = fabs(t);

	if (a >= 10)
		return 0;
	if (a <= 8)
		return rrc(t, 0.125);
	return rrc(t, 0.125) * (0.5 + 0.5 * cos(M_PI * (a - 8) / 2));
}

/* ---- symbol sources ---- */
struct src {
	uint64_t seed;
	int amp;
	struct smdsp_cplx *log;		/* symbols sent, if not NULL */
	long n, cap;
	int one_shot;			/* 1: one symbol of amp, then zeros */
};

static void get_sym(void *user, struct smdsp_cplx *c)
{
	struct src *s = user;

	if (s->one_shot) {
		c->re = s->n == 0 ? s->amp : 0;
		c->im = 0;
	} else {
		uint64_t r = t_rand64(&s->seed);

		c->re = (r & 1) ? s->amp : -s->amp;
		c->im = (r & 2) ? s->amp : -s->amp;
	}
	if (s->log && s->n < s->cap)
		s->log[s->n] = *c;
	s->n++;
}

static void test_tables(void)
{
	int r;

	for (r = 0; r < 6; r++) {
		double sps = 8000.0 / rates[r];

		CHECK(smdsp_v34_symrate_mbaud(r) == (uint32_t)lround(rates[r] * 1000), "rate %d", r);
		CHECK(smdsp_v34_carrier_mhz(r, false) == (uint32_t)lround(car[r][0] * 1000), "rate %d", r);
		CHECK(smdsp_v34_carrier_mhz(r, true) == (uint32_t)lround(car[r][1] * 1000), "rate %d", r);
		/* whole ticks a sample, and S / 8000 symbols a sample exactly */
		CHECK(fabs(smdsp_v34_ticks_per_sample(r) * sps - SMDSP_V34_TICKS) < 1e-9, "rate %d", r);
		CHECK(fabs(smdsp_v34_carrier_step(r, true) / 4294967296.0 * 8000 - car[r][1]) < 1e-5);
		/* no rate is a whole number of samples */
		CHECK(fabs(sps - floor(sps)) > 0.1);
	}
	CHECK(smdsp_v34_symrate_mbaud(6) == 0 && smdsp_v34_ticks_per_sample(6) == 0);
	CHECK(smdsp_v34_mod_create(6, false, NULL, NULL) == NULL);
	CHECK(smdsp_v34_demod_create(0, false, 3) == NULL);
}

/* one symbol through the modulator: out[n] = A p(n S/8000 - 10) cos(w n) */
static void test_pulse(void)
{
	int r, hi;

	for (r = 0; r < 6; r++)
		for (hi = 0; hi < 2; hi++) {
			struct src src = { .amp = 16000, .one_shot = 1 };
			struct smdsp_v34_mod *m = smdsp_v34_mod_create(r, hi, get_sym, &src);
			int16_t out[100];
			double err = 0;
			int n;

			smdsp_v34_mod_process(m, out, 100);
			for (n = 0; n < 100; n++) {
				double t = n * rates[r] / 8000 - 10;
				double want = src.amp * pulse(t) * cos(2 * M_PI * car[r][hi] * n / 8000);

				err = fmax(err, fabs(out[n] - want));
			}
			/* relative to the peak, ~16500 */
			CHECK(err < 6, "rate %d high %d: pulse error %.1f LSB", r, hi, err);
			if (hi)
				printf("pulse at %.0f baud: max error %.2f LSB of 16544\n", rates[r], err);
			smdsp_v34_mod_free(m);
		}
}

static void fft(double complex *x, int n)
{
	int i, j, len;

	for (i = 1, j = 0; i < n; i++) {
		int bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex t = x[i];

			x[i] = x[j];
			x[j] = t;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		double complex w = cexp(-2 * M_PI * I / len);

		for (i = 0; i < n; i += len) {
			double complex u = 1;

			for (j = 0; j < len / 2; j++, u *= w) {
				double complex a = x[i + j], b = x[i + j + len / 2] * u;

				x[i + j] = a + b;
				x[i + j + len / 2] = a - b;
			}
		}
	}
}

#define NFFT 512

static void test_spectrum(void)
{
	int r, hi;

	for (r = 0; r < 6; r++)
		for (hi = 0; hi < 2; hi++) {
			struct src src = { .seed = 77 + r, .amp = 4000 };
			struct smdsp_v34_mod *m = smdsp_v34_mod_create(r, hi, get_sym, &src);
			static int16_t x[NFFT * 200];
			double psd[NFFT / 2 + 1] = { 0 }, tot = 0, in = 0, out = 0, cen = 0, ms = 0, peak = 0;
			double lo3 = 0, hi3 = 0, want, half = rates[r] / 2, edge = half * 1.125, mid = 0;
			int nmid = 0;
			int seg, k, n;

			smdsp_v34_mod_process(m, x, NFFT * 200);
			for (n = NFFT * 10; n < NFFT * 200; n++)
				ms += (double)x[n] * x[n];
			ms /= NFFT * 190;
			for (seg = 10; seg < 199; seg++) {
				double complex b[NFFT];

				/* Hann window */
				for (n = 0; n < NFFT; n++)
					b[n] = x[seg * NFFT + n] * (0.5 - 0.5 * cos(2 * M_PI * n / NFFT));
				fft(b, NFFT);
				for (k = 0; k <= NFFT / 2; k++)
					psd[k] += creal(b[k] * conj(b[k]));
			}
			for (k = 0; k <= NFFT / 2; k++) {
				double f = k * 8000.0 / NFFT;

				tot += psd[k];
				cen += psd[k] * f;
				if (fabs(f - car[r][hi]) < half * 0.8)
					in += psd[k];
				if (fabs(f - car[r][hi]) > edge + 60)
					out += psd[k];
				if (fabs(f - car[r][hi]) < half * 0.6) {
					mid += psd[k];
					nmid++;
				}
			}
			peak = mid / nmid;
			cen /= tot;
			/* the -3 dB points: the first and last bins at half the mean in-band density */
			for (k = 0; k <= NFFT / 2; k++)
				if (psd[k] > peak / 2) {
					if (!lo3)
						lo3 = k * 8000.0 / NFFT;
					hi3 = k * 8000.0 / NFFT;
				}
			/* QPSK at amp: |A|^2 = 2 amp^2, a carrier of power |A|^2 / 2 */
			want = (double)src.amp * src.amp;
			CHECK(fabs(cen - car[r][hi]) < 15, "rate %d high %d: centre %.1f Hz", r, hi, cen);
			CHECK(fabs(lo3 - (car[r][hi] - half)) < 40 && fabs(hi3 - (car[r][hi] + half)) < 40,
			      "rate %d high %d: -3 dB at %.0f, %.0f Hz", r, hi, lo3, hi3);
			CHECK(10 * log10(out / in) < -40, "rate %d high %d: out of band %.1f dB", r, hi,
			      10 * log10(out / in));
			CHECK(fabs(10 * log10(ms / want)) < 0.1, "rate %d high %d: power %.2f dB off", r, hi,
			      10 * log10(ms / want));
			printf("spectrum %.0f baud on %.0f Hz: centre %.1f Hz, -3 dB %.0f-%.0f Hz, out of band %.1f dB, power %+.2f dB\n",
			       rates[r], car[r][hi], cen, lo3, hi3, 10 * log10(out / in), 10 * log10(ms / want));
			smdsp_v34_mod_free(m);
		}
}

/* mean |y/g - s|^2 over |s|^2 in dB (MER), g the best complex gain, over symbols [from, to) */
static double mer_db(const struct smdsp_cplx *y, const struct smdsp_cplx *s, long from, long to)
{
	double complex num = 0, g;
	double den = 0, e = 0, p = 0;
	long i;

	for (i = from; i < to; i++) {
		double complex yy = y[i].re + I * y[i].im, ss = s[i].re + I * s[i].im;

		num += yy * conj(ss);
		den += creal(ss * conj(ss));
	}
	g = num / den;
	for (i = from; i < to; i++) {
		double complex yy = (y[i].re + I * y[i].im) / g, ss = s[i].re + I * s[i].im;

		e += creal((yy - ss) * conj(yy - ss));
		p += creal(ss * conj(ss));
	}
	return 10 * log10(p / e);
}

/* modulate n_samples at rate r, through cfg (A to B), demodulate at B */
static double round_trip(int r, int hi, const struct line_cfg *cfg, long n_samples,
			 double *mer_end)
{
	long cap = (long)(n_samples * rates[r] / 8000) + 8;
	struct smdsp_cplx *sent = calloc(cap, sizeof(*sent)), *got = calloc(cap + 64, sizeof(*got));
	struct src src = { .seed = 5 + r * 2 + hi, .amp = 3000, .log = sent, .cap = cap };
	struct smdsp_v34_mod *m = smdsp_v34_mod_create(r, hi, get_sym, &src);
	struct smdsp_v34_demod *d = smdsp_v34_demod_create(r, hi, 1);
	struct line *l = line_create(cfg);
	int16_t a_tx[160], b_tx[160] = { 0 }, a_rx[160], b_rx[160];
	double mer;
	long ngot = 0, done, nsym;
	unsigned int step = smdsp_v34_ticks_per_sample(r);

	/* the line holds 16 samples beyond its delay */
	smdsp_v34_demod_adjust(d, (int32_t)(cfg->delay + 16) * step);
	for (done = 0; done < n_samples; done += 160) {
		smdsp_v34_mod_process(m, a_tx, 160);
		line_process(l, a_tx, a_rx, b_tx, b_rx, 160);
		ngot += smdsp_v34_demod_process(d, b_rx, 160, got + ngot, cap + 64 - ngot);
	}
	/* demodulator output k is symbol k */
	nsym = ngot < src.n ? ngot : src.n;
	mer = mer_db(got, sent, 40, 40 + (nsym - 80) / 4);
	*mer_end = mer_db(got, sent, nsym - (nsym - 80) / 4, nsym - 1);
	smdsp_v34_mod_free(m);
	smdsp_v34_demod_free(d);
	line_free(l);
	free(sent);
	free(got);
	return mer;
}

static void test_round_trips(void)
{
	int r, hi;

	for (r = 0; r < 6; r++)
		for (hi = 0; hi < 2; hi++) {
			struct line_cfg clean = { .loss_db = 0, .noise_dbm0 = -999, .echo_db = -999,
						  .delay = 0 };
			struct line_cfg noisy = { .loss_db = 6, .noise_dbm0 = -45, .echo_db = -999,
						  .delay = 37, .seed = 3 };
			double m0, m1, mend, snr;

			m0 = round_trip(r, hi, &clean, 8000, &mend);
			CHECK(m0 > 45, "rate %d high %d: clean MER %.1f dB", r, hi, m0);
			/* QPSK at amp 3000: a carrier of -9.7 dBm0 (3000^2 = mean square) */
			snr = 10 * log10(3000.0 * 3000 / pow(32767.0 * pow(10, -3.14 / 20), 2) * 2) -
			      6 - (-45);
			m1 = round_trip(r, hi, &noisy, 8000, &mend);
			/*
			 * the noise is white over 0-4 kHz, the matched filter keeps a band of S of
			 * it: Es/N0 = SNR 4000 / S
			 */
			snr += 10 * log10(4000 / rates[r]);
			CHECK(fabs(m1 - snr) < 1.0, "rate %d high %d: MER %.1f dB, Es/N0 %.1f dB", r, hi, m1,
			      snr);
			printf("round trip %.0f baud on %.0f Hz: MER %.1f dB clean; %.1f dB with noise (Es/N0 %.1f dB)\n",
			       rates[r], car[r][hi], m0, m1, snr);
		}
}

/*
 * The demodulator at instants anywhere between samples: two outputs a symbol,
 * moved by fractions of a symbol, straight from the modulator, against
 * sum_m s_m g(t - m), g the transmit and receive pulses convolved here.
 */
#define GK 280
static double g_tab[20 * GK + 1];

static double g_at(double t)
{
	double a = fabs(t) * GK;
	int i = (int)a;

	if (i >= 20 * GK)
		return 0;
	return g_tab[i] + (g_tab[i + 1] - g_tab[i]) * (a - i);
}

static void test_interpolation(void)
{
	static const double shifts[] = { 0, 0.37, -0.213, 0.5001 };
	int r, j, i;

	static double p[20 * GK + 1];

	for (i = 0; i <= 20 * GK; i++)
		p[i] = pulse((double)i / GK - 10);
	/* g(i / GK) = sum_k p(k) p(i / GK - k) / GK, both sampled on the same grid */
	for (i = 0; i <= 20 * GK; i++) {
		double sum = 0;
		int k;

		for (k = i; k <= 20 * GK; k++)
			sum += p[k] * p[k - i];
		g_tab[i] = sum / GK;
	}
	for (r = 0; r < 6; r++)
		for (j = 0; j < 4; j++) {
			long cap = 3000;
			struct smdsp_cplx *sent = calloc(cap, sizeof(*sent)), y[4000];
			struct src src = { .seed = 11 + r, .amp = 3000, .log = sent, .cap = cap };
			struct smdsp_v34_mod *m = smdsp_v34_mod_create(r, true, get_sym, &src);
			struct smdsp_v34_demod *d = smdsp_v34_demod_create(r, true, 2);
			int16_t x[4000];
			unsigned int got, k;
			double e = 0, p = 0, mer;

			smdsp_v34_demod_adjust(d, (int32_t)lround(shifts[j] * SMDSP_V34_TICKS));
			smdsp_v34_mod_process(m, x, 4000);
			got = smdsp_v34_demod_process(d, x, 4000, y, 4000);
			for (k = 40; k + 40 < got; k++) {
				double t = k / 2.0 + lround(shifts[j] * SMDSP_V34_TICKS) / (double)SMDSP_V34_TICKS;
				double complex want = 0, have = (y[k].re + I * y[k].im) / (1 << SMDSP_V34_DEMOD_SHIFT);
				long mm;

				for (mm = (long)floor(t) - 12; mm <= (long)floor(t) + 12; mm++)
					if (mm >= 0 && mm < src.n)
						want += (sent[mm].re + I * sent[mm].im) * g_at(t - mm);
				e += creal((have - want) * conj(have - want));
				p += creal(want * conj(want));
			}
			mer = 10 * log10(p / e);
			CHECK(mer > 44, "rate %d shift %.3f: %.1f dB", r, shifts[j], mer);
			if (j == 1)
				printf("demodulator between samples, %.0f baud, T/2 outputs shifted %.3f symbol: %.1f dB from the model\n",
				       rates[r], shifts[j], mer);
			smdsp_v34_mod_free(m);
			smdsp_v34_demod_free(d);
			free(sent);
		}
}

/* 60 s at each rate: exact symbol count; the last quarter as clean as the first */
static void test_long_run(void)
{
	int r;

	for (r = 0; r < 6; r++) {
		struct line_cfg clean = { .noise_dbm0 = -999, .echo_db = -999 };
		double m0, mend;
		long n = 8000L * 60;
		struct smdsp_v34_mod *m = smdsp_v34_mod_create(r, false, NULL, NULL);
		int16_t buf[1000];
		long i, want;

		for (i = 0; i < n; i += 1000)
			smdsp_v34_mod_process(m, buf, 1000);
		/* symbol k starts at sample k 8000 / S: those up to sample n - 1 */
		want = (long)floor((n - 1) * rates[r] / 8000 + 1e-9) + 1;
		CHECK(smdsp_v34_mod_symbols(m) == want, "rate %d: %u symbols, %ld expected", r,
		      smdsp_v34_mod_symbols(m), want);
		smdsp_v34_mod_free(m);
		m0 = round_trip(r, false, &clean, n, &mend);
		CHECK(m0 > 45 && mend > 45 && fabs(m0 - mend) < 1, "rate %d: MER %.1f dB, %.1f dB 60 s on", r,
		      m0, mend);
		printf("60 s at %.0f baud: %ld symbols; MER %.1f dB in the first quarter, %.1f dB in the last\n",
		       rates[r], want, m0, mend);
	}
}

/*
 * The sampling instants moved by a timing loop written here (Gardner's
 * detector on the T/2 outputs, a proportional-integral filter, the
 * correction through smdsp_v34_demod_adjust()), against the receiving end's
 * clock running +-150 ppm off for 20 s (3 ms of drift, 10 symbols at 3429
 * baud) and on the same clock. The last symbols must be as clean as the
 * first and the loop's total correction must be the offset.
 */
static void test_tracking(void)
{
	static const int rates_t[] = { SMDSP_V34_S2743, SMDSP_V34_S3429 };
	static const double ppms[] = { 150, -150, 0 };
	int ri, pi;

	for (ri = 0; ri < 2; ri++)
		for (pi = 0; pi < 3; pi++) {
			int r = rates_t[ri];
			long n = 8000L * 20, cap = (long)(n * rates[r] / 8000) + 64, ngot = 0, k, done;
			struct smdsp_cplx *sent = calloc(cap, sizeof(*sent)), *got = calloc(2 * cap + 64, sizeof(*got));
			struct smdsp_cplx *sym = calloc(cap, sizeof(*sym));
			struct src src = { .seed = 21 + r, .amp = 3000, .log = sent, .cap = cap };
			struct smdsp_v34_mod *m = smdsp_v34_mod_create(r, true, get_sym, &src);
			struct smdsp_v34_demod *d = smdsp_v34_demod_create(r, true, 2);
			/* a delay the clock offset cannot eat up in 20 s (3 ms) */
			struct line_cfg cfg = { .noise_dbm0 = -999, .echo_db = -999, .ppm = ppms[pi], .delay = 200 };
			struct line *l = line_create(&cfg);
			int16_t a_tx[160], b_tx[160] = { 0 }, a_rx[160], b_rx[160];
			double integ = 0, total = 0, frac = 0, m0, m1, want;
			long nsym = 0;

			smdsp_v34_demod_adjust(d, (200 + 16) * (int32_t)smdsp_v34_ticks_per_sample(r));
			for (done = 0; done < n; done += 160) {
				unsigned int got_now;

				smdsp_v34_mod_process(m, a_tx, 160);
				line_process(l, a_tx, a_rx, b_tx, b_rx, 160);
				got_now = smdsp_v34_demod_process(d, b_rx, 160, got + ngot, 2 * cap + 64 - ngot);
				/* outputs 2k on time, 2k + 1 between: one error per symbol */
				for (k = ngot; k < ngot + (long)got_now; k++) {
					double complex a, b, c;
					double e, p, step;
					int32_t t;

					if (k & 1 || k < 2)
						continue;
					a = got[k - 2].re + I * got[k - 2].im;
					b = got[k - 1].re + I * got[k - 1].im;
					c = got[k].re + I * got[k].im;
					if (nsym < cap)
						sym[nsym++] = got[k - 2];
					p = creal(a * conj(a)) + creal(c * conj(c)) + 1;
					/* late instants give a positive error: move earlier */
					e = creal((c - a) * conj(b)) / p;
					integ += 1e-3 * e;
					step = -(0.3 * e + integ) * SMDSP_V34_TICKS / 64 + frac;
					t = (int32_t)lround(step);
					frac = step - t;
					total += t;
					smdsp_v34_demod_adjust(d, t);
				}
				ngot += got_now;
				if (ngot > 2 * cap)
					break;
			}
			/*
			 * the modulation error in 25-symbol windows, each with its own gain: the
			 * carrier moves with the clock too (0.27 Hz at 1829 Hz, 7 degrees in 200
			 * symbols), and no carrier loop runs here
			 */
			{
				double mm[2] = { 0, 0 };
				int w;

				for (w = 0; w < 2; w++) {
					long from = w ? nsym - 1100 : 8000;
					int j;

					for (j = 0; j < 40; j++)
						mm[w] += mer_db(sym, sent, from + 25 * j, from + 25 * (j + 1)) / 40;
				}
				m0 = mm[0];
				m1 = mm[1];
			}
			/* B's clock fast: more samples a symbol, the instants later and later */
			want = n * smdsp_v34_ticks_per_sample(r) * ppms[pi] * 1e-6;
			CHECK(!line_starved(l));
			/*
			 * 8000 symbols in (the loop has caught up) and at the end: on the same clock as
			 * clean as with no loop; 150 ppm off, the line's clock converter
			 * (tools/line/resample.c) costs some: 32 dB at 3429 baud, whose band
			 * reaches 3.9 kHz
			 */
			CHECK(m0 > (ppms[pi] ? 30 : 42) && m1 > m0 - 1, "%.0f baud %+.0f ppm: MER %.1f dB first, %.1f dB last",
			      rates[r], ppms[pi], m0, m1);
			CHECK(fabs(total - want) < (ppms[pi] ? 0.01 * fabs(want) : 300), "%.0f baud %+.0f ppm: moved %.0f ticks,"
			      " %.0f expected", rates[r], ppms[pi], total, want);
			printf("timing loop, %.0f baud, clock %+.0f ppm for 20 s: moved %.0f ticks (%.0f expected), MER %.1f dB"
			       " 8000 symbols in, %.1f dB at the end\n", rates[r], ppms[pi], total, want, m0, m1);
			smdsp_v34_mod_free(m);
			smdsp_v34_demod_free(d);
			line_free(l);
			free(sent);
			free(got);
			free(sym);
		}
}

static void test_print_and_adjust(void)
{
	struct smdsp_v34_mod *m = smdsp_v34_mod_create(SMDSP_V34_S3429, true, NULL, NULL);
	struct smdsp_v34_demod *d = smdsp_v34_demod_create(SMDSP_V34_S3429, true, 2);
	char buf[128];
	int16_t x[800] = { 0 };
	struct smdsp_cplx y[800];
	unsigned int got;

	CHECK(smdsp_v34_mod_print(m, buf, sizeof(buf)) > 0 && !strncmp(buf, "v34_mod 3429", 12), "%s", buf);
	CHECK(smdsp_v34_demod_print(d, buf, sizeof(buf)) > 0 && !strncmp(buf, "v34_demod 3429", 14), "%s", buf);
	/* T/2: two outputs a symbol; 800 samples = 342.9 symbols, the first 10 in the span */
	got = smdsp_v34_demod_process(d, x, 800, y, 800);
	/* instants 10, 10.5, ... symbols up to 10 symbols before the last sample's 342.5 */
	CHECK(got == smdsp_v34_demod_outputs(d) && got >= 645 && got <= 646, "%u outputs", got);
	/* an adjust of a whole symbol later: two outputs fewer */
	smdsp_v34_demod_reset(d);
	smdsp_v34_demod_adjust(d, SMDSP_V34_TICKS);
	CHECK(smdsp_v34_demod_process(d, x, 800, y, 800) == got - 2);
	/* a big jump back: the instants left behind are dropped, not computed from stale samples */
	smdsp_v34_demod_adjust(d, -100 * SMDSP_V34_TICKS);
	got = smdsp_v34_demod_process(d, x, 1, y, 800);
	CHECK(got <= 8, "%u", got);
	/* outputs beyond max are counted, not written */
	smdsp_v34_demod_reset(d);
	CHECK(smdsp_v34_demod_process(d, x, 800, y, 10) == 10 && smdsp_v34_demod_outputs(d) > 600);
	CHECK(smdsp_v34_mod_set_rate(m, 7, false) == -EINVAL && smdsp_v34_demod_set_rate(d, 7, 0) == -EINVAL);
	smdsp_v34_mod_free(m);
	smdsp_v34_demod_free(d);
	smdsp_v34_mod_free(NULL);
	smdsp_v34_demod_free(NULL);
}

int main(void)
{
	test_tables();
	test_pulse();
	test_spectrum();
	test_round_trips();
	test_interpolation();
	test_long_run();
	test_tracking();
	test_print_and_adjust();
	return t_report("test_v34_mod");
}
