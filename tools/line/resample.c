// SPDX-License-Identifier: GPL-2.0
/* smline: the JACK and clock-offset resamplers, on liquid-dsp. */
#include <stdlib.h>
#include <string.h>

#include <liquid/liquid.h>

#include "resample.h"

/*
 * The JACK prototype at L * 8 kHz, 24 taps per phase, 80 dB Kaiser, its
 * -6 dB point 1 % above 4 kHz: that much more pass band takes the round
 * trip's droop at 3400 Hz from 0.29 to 0.18 dB, and what it lets alias
 * lands above 3.9 kHz. Measured (tests/line/unit.c): images and aliases
 * below -89 dB.
 */
#define POLY_FC 0.505f	/* times 8 kHz / (L * 8 kHz) */
#define POLY_AS 80.0f

/*
 * The clock-offset converter: 2 x 16 taps at the line rate, cutoff at
 * 0.48 x 8 kHz, 70 dB, 1024 phases. Flat within 0.1 dB to 3400 Hz; the
 * timing of liquid's float phase accumulator limits its signal to noise
 * ratio to about 68 dB at 1 kHz and 57 dB at 3.4 kHz.
 */
#define DRIFT_M SML_DRIFT_DELAY
#define DRIFT_FC 0.48f
#define DRIFT_AS 70.0f
#define DRIFT_NPFB 1024

int sml_poly_init(struct sml_poly *p, int L)
{
	int n = L * SML_POLY_TAPS, k;
	float *h;
	double sum = 0.0;

	memset(p, 0, sizeof(*p));
	if (L < 1 || L > SML_POLY_MAX_L)
		return -1;
	p->L = L;
	p->iphase = L;
	if (L == 1)
		return 0;
	h = malloc(sizeof(*h) * (size_t)n);
	if (!h)
		return -1;
	liquid_firdes_kaiser((unsigned int)n, POLY_FC / L, POLY_AS, 0.0f, h);
	/* DC gain exactly 1 both ways: the hook's DC must survive (README) */
	for (k = 0; k < n; k++)
		sum += h[k];
	for (k = 0; k < n; k++)
		h[k] = (float)(h[k] / sum);
	p->dec = firfilt_rrrf_create(h, (unsigned int)n);
	for (k = 0; k < n; k++)
		h[k] *= (float)L;
	p->itp = firinterp_rrrf_create((unsigned int)L, h, (unsigned int)n);
	free(h);
	return p->dec && p->itp ? 0 : -1;
}

void sml_poly_free(struct sml_poly *p)
{
	if (p->dec)
		firfilt_rrrf_destroy(p->dec);
	if (p->itp)
		firinterp_rrrf_destroy(p->itp);
	p->dec = NULL;
	p->itp = NULL;
}

int sml_poly_decim(struct sml_poly *p, float in, double *out)
{
	float y = in;

	/*
	 * firdecim computes on the first of every L inputs: filtering on the
	 * last, as soon as it is in, keeps the round trip at the whole 23
	 * line samples it always was (sml_poly_delay)
	 */
	if (p->dec)
		firfilt_rrrf_push(p->dec, in);
	if (++p->dphase < p->L)
		return 0;
	p->dphase = 0;
	if (p->dec)
		firfilt_rrrf_execute(p->dec, &y);
	*out = y * 32768.0;
	return 1;
}

int sml_poly_interp_need(const struct sml_poly *p)
{
	return p->iphase >= p->L;
}

void sml_poly_interp_push(struct sml_poly *p, double line_sample)
{
	float x = (float)(line_sample / 32768.0);

	if (p->itp)
		firinterp_rrrf_execute(p->itp, x, p->iout);
	else
		p->iout[0] = x;
	p->iphase = 0;
}

float sml_poly_interp(struct sml_poly *p)
{
	return p->iout[p->iphase++];
}

double sml_poly_delay(const struct sml_poly *p)
{
	/*
	 * Each pass delays by (L * TAPS - 1) / 2 high-rate samples; the
	 * decimator keeps the last of every L, L - 1 of them sooner.
	 */
	return p->L > 1 ? SML_POLY_TAPS - 1 : 0;
}

/* ---- fractional rate ---- */
/*
 * Designing the 32769-tap prototype costs about 0.25 s of CPU: once per
 * process, every converter is a copy (its filter bank read-only after).
 */
static resamp_rrrf drift_proto(void)
{
	static resamp_rrrf proto;

	if (!proto)
		proto = resamp_rrrf_create(1.0f, DRIFT_M, DRIFT_FC, DRIFT_AS, DRIFT_NPFB);
	return proto;
}

int sml_drift_init(struct sml_drift *d, double ratio)
{
	memset(d, 0, sizeof(*d));
	/* a clock offset, not a rate change: at most 2 outputs per input */
	if (!(ratio >= 0.5 && ratio <= 2.0) || !drift_proto())
		return -1;
	d->q = resamp_rrrf_copy(drift_proto());
	if (!d->q)
		return -1;
	resamp_rrrf_set_rate(d->q, (float)(1.0 / ratio));
	resamp_rrrf_reset(d->q);
	return 0;
}

void sml_drift_free(struct sml_drift *d)
{
	if (d->q)
		resamp_rrrf_destroy(d->q);
	d->q = NULL;
}

int sml_drift_process(struct sml_drift *d, const double *in, int n,
		      double *out, int max)
{
	int nout = 0, i;

	for (i = 0; i < n; i++) {
		float y[2];
		unsigned int k, w;

		resamp_rrrf_execute(d->q, (float)in[i], y, &w);
		for (k = 0; k < w; k++) {
			if (nout < max)
				out[nout++] = y[k];
			else
				d->dropped++;
		}
	}
	return nout;
}

/* ---- one direction between two clocks ---- */
static int link_room(struct sml_link *l, int n)
{
	double *q;
	int cap, i;

	if (l->len + n <= l->cap)
		return 0;
	cap = 2 * (l->len + n);
	q = malloc(sizeof(*q) * (size_t)cap);
	if (!q)
		return -1;
	for (i = 0; i < l->len; i++)
		q[i] = l->q[(l->head + i) % l->cap];
	free(l->q);
	l->q = q;
	l->cap = cap;
	l->head = 0;
	return 0;
}

int sml_link_init(struct sml_link *l, double ratio, int prefill)
{
	memset(l, 0, sizeof(*l));
	l->drift = ratio != 1.0;
	if (l->drift && sml_drift_init(&l->d, ratio))
		return -1;
	if (link_room(l, prefill + 1024))
		return -1;
	memset(l->q, 0, sizeof(*l->q) * (size_t)prefill);
	l->len = prefill;
	return 0;
}

void sml_link_free(struct sml_link *l)
{
	if (l->drift)
		sml_drift_free(&l->d);
	free(l->q);
	l->q = NULL;
}

int sml_link_push(struct sml_link *l, const double *in, int n)
{
	int max = 2 * n + 4, i;	/* room for any ratio above 1/2 */
	double tmp[max];

	if (l->drift)
		n = sml_drift_process(&l->d, in, n, tmp, max);
	else
		memcpy(tmp, in, sizeof(*tmp) * (size_t)n);
	if (link_room(l, n))
		return -1;
	for (i = 0; i < n; i++)
		l->q[(l->head + l->len + i) % l->cap] = tmp[i];
	l->len += n;
	return 0;
}

void sml_link_pull(struct sml_link *l, double *out, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!l->len) {
			out[i] = 0.0;
			l->underruns++;
			continue;
		}
		out[i] = l->q[l->head];
		l->head = (l->head + 1) % l->cap;
		l->len--;
	}
}
