// SPDX-License-Identifier: GPL-2.0
/* smline: polyphase (JACK) and fractional-rate (wire) resamplers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"

/* zeroth-order modified Bessel function, for the Kaiser window */
static double bessel_i0(double x)
{
	double sum = 1.0, term = 1.0;
	int k;

	for (k = 1; k < 50; k++) {
		term *= (x / (2.0 * k)) * (x / (2.0 * k));
		sum += term;
		if (term < 1e-12 * sum)
			break;
	}
	return sum;
}

static double kaiser(double x, double half, double beta)
{
	double r = x / half;

	if (r <= -1.0 || r >= 1.0)
		return 0.0;
	return bessel_i0(beta * sqrt(1.0 - r * r)) / bessel_i0(beta);
}

static double sinc(double x)
{
	return x == 0.0 ? 1.0 : sin(M_PI * x) / (M_PI * x);
}

/*
 * Prototype at the high rate: pass band to 3.4 kHz, stop band from 4.6 kHz
 * (alias-free down to 3.4 kHz after decimation), cutoff in the middle at
 * 4 kHz, Kaiser beta 8 (about 80 dB).
 */
int sml_poly_init(struct sml_poly *p, int L)
{
	double fc, sum = 0.0, mid;
	int k;

	memset(p, 0, sizeof(*p));
	if (L < 1 || L > 16)
		return -1;
	p->L = L;
	p->ntaps = L * SML_POLY_TAPS;
	p->h = calloc((size_t)p->ntaps, sizeof(double));
	p->dhist = calloc((size_t)p->ntaps, sizeof(double));
	if (!p->h || !p->dhist)
		return -1;
	fc = 0.5 / L;		/* 4 kHz in cycles per high-rate sample */
	mid = (p->ntaps - 1) / 2.0;
	for (k = 0; k < p->ntaps; k++) {
		double x = k - mid;

		p->h[k] = 2.0 * fc * sinc(2.0 * fc * x) * kaiser(x, mid + 1.0, 8.0);
		sum += p->h[k];
	}
	for (k = 0; k < p->ntaps; k++)
		p->h[k] /= sum;
	p->iphase = L;
	return 0;
}

void sml_poly_free(struct sml_poly *p)
{
	free(p->h);
	free(p->dhist);
	p->h = p->dhist = NULL;
}

int sml_poly_decim(struct sml_poly *p, float in, double *out)
{
	double acc = 0.0;
	int k, idx;

	p->dhist[p->dpos] = in;
	if (++p->dpos == p->ntaps)
		p->dpos = 0;
	if (++p->dphase < p->L)
		return 0;
	p->dphase = 0;
	/* dhist[dpos - 1] is the newest sample */
	idx = p->dpos;
	for (k = p->ntaps - 1; k >= 0; k--) {
		acc += p->h[k] * p->dhist[idx];
		if (++idx == p->ntaps)
			idx = 0;
	}
	*out = acc * 32768.0;
	return 1;
}

int sml_poly_interp_need(const struct sml_poly *p)
{
	return p->iphase >= p->L;
}

void sml_poly_interp_push(struct sml_poly *p, double line_sample)
{
	memmove(p->ihist + 1, p->ihist, sizeof(p->ihist) - sizeof(p->ihist[0]));
	p->ihist[0] = line_sample / 32768.0;
	p->iphase = 0;
}

float sml_poly_interp(struct sml_poly *p)
{
	double acc = 0.0;
	int t;

	/* output phase q uses taps q, q + L, q + 2L, ... times the gain L */
	for (t = 0; t < SML_POLY_TAPS; t++)
		acc += p->h[p->iphase + t * p->L] * p->ihist[t];
	p->iphase++;
	return (float)(acc * p->L);
}

double sml_poly_delay(const struct sml_poly *p)
{
	return (p->ntaps - 1) / 2.0 / p->L;
}

/* ---- fractional rate ---- */
int sml_drift_init(struct sml_drift *d, double ratio)
{
	const double fc = 0.45;	/* cycles per input sample: 3.6 kHz */
	const double half = SML_DRIFT_TAPS / 2.0;
	int ph, t;

	memset(d, 0, sizeof(*d));
	d->step = (uint64_t)llround(ratio * 4294967296.0);
	d->tab = calloc(SML_DRIFT_PHASES + 1, sizeof(*d->tab));
	if (!d->tab)
		return -1;
	/*
	 * tab[ph][t] weights input i0 - 7 + t for an output at i0 + ph/PHASES
	 * (taps t = 0..15 cover offsets -7..+8); each phase normalised to DC
	 * gain 1 so the clock offset never changes levels.
	 */
	for (ph = 0; ph <= SML_DRIFT_PHASES; ph++) {
		double frac = (double)ph / SML_DRIFT_PHASES, sum = 0.0;

		for (t = 0; t < SML_DRIFT_TAPS; t++) {
			double x = (t - (SML_DRIFT_TAPS / 2 - 1)) - frac;

			d->tab[ph][t] = 2.0 * fc * sinc(2.0 * fc * x) *
					kaiser(x, half + 0.5, 7.0);
			sum += d->tab[ph][t];
		}
		for (t = 0; t < SML_DRIFT_TAPS; t++)
			d->tab[ph][t] /= sum;
	}
	return 0;
}

void sml_drift_free(struct sml_drift *d)
{
	free(d->tab);
	d->tab = NULL;
}

int sml_drift_process(struct sml_drift *d, const double *in, int n,
		      double *out, int max)
{
	int nout = 0, i;

	for (i = 0; i < n; i++) {
		d->hist[d->nin % SML_DRIFT_HIST] = in[i];
		d->nin++;
		/*
		 * Emit every output whose taps are all in: an output at
		 * position p needs inputs up to floor(p) + 8; positions are
		 * counted from input 7, which makes the delay a constant
		 * 7 + 8 = 15 input samples.
		 */
		for (;;) {
			int64_t i0 = (int64_t)(d->pos >> 32) + (SML_DRIFT_TAPS / 2 - 1);
			uint32_t fr = (uint32_t)d->pos;
			double a = (double)(fr & 0xFFFFFF) / 16777216.0;
			int ph = (int)(fr >> 24);
			double acc = 0.0;
			int t;

			if (i0 + SML_DRIFT_TAPS / 2 >= d->nin || nout >= max)
				break;
			for (t = 0; t < SML_DRIFT_TAPS; t++) {
				int64_t k = i0 - (SML_DRIFT_TAPS / 2 - 1) + t;
				double w = d->tab[ph][t] * (1.0 - a) + d->tab[ph + 1][t] * a;

				acc += w * (k >= 0 ? d->hist[k % SML_DRIFT_HIST] : 0.0);
			}
			out[nout++] = acc;
			d->pos += d->step;
		}
	}
	return nout;
}
