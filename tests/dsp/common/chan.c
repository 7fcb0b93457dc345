// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include "chan.h"
#include "tutil.h"

static void section(struct chan *c, int hp, double fc, double q)
{
	double k = tan(M_PI * fc / 8000), norm = 1 / (1 + k / q + k * k);
	double *b = c->b[c->n], *a = c->a[c->n];

	if (hp) {
		b[0] = norm;
		b[1] = -2 * norm;
		b[2] = norm;
	} else {
		b[0] = k * k * norm;
		b[1] = 2 * b[0];
		b[2] = b[0];
	}
	a[0] = 1;
	a[1] = 2 * (k * k - 1) * norm;
	a[2] = (1 - k / q + k * k) * norm;
	c->n++;
}

static void pole(struct chan *c, double fc)
{
	double k = tan(M_PI * fc / 8000);
	double *b = c->b[c->n], *a = c->a[c->n];

	b[0] = b[1] = k / (1 + k);
	b[2] = 0;
	a[0] = 1;
	a[1] = (k - 1) / (k + 1);
	a[2] = 0;
	c->n++;
}

/* Butterworth sections' Q for orders 2, 4, 6 */
static void butter(struct chan *c, int hp, double fc, int order)
{
	static const double q2[] = { 0.70710678 }, q4[] = { 0.54119610, 1.30656296 },
			    q6[] = { 0.51763809, 0.70710678, 1.93185165 };
	const double *q = order == 2 ? q2 : order == 4 ? q4 : q6;
	int i;

	for (i = 0; i < order / 2; i++)
		section(c, hp, fc, q[i]);
}

void chan_init(struct chan *c, enum chan_kind kind)
{
	memset(c, 0, sizeof(*c));
	switch (kind) {
	case CHAN_TELEPHONE:
		butter(c, 1, 200, 2);
		butter(c, 0, 3600, 4);
		break;
	case CHAN_LONG_LOOP:
		butter(c, 1, 300, 2);
		butter(c, 0, 3400, 4);
		pole(c, 1000);
		break;
	case CHAN_NARROW:
		butter(c, 1, 400, 4);
		butter(c, 0, 2900, 6);
		break;
	case CHAN_BASS_CUT:
		butter(c, 1, 600, 2);
		butter(c, 0, 3700, 4);
		break;
	default:
		break;
	}
}

const char *chan_name(enum chan_kind kind)
{
	static const char *const names[] = { "flat", "telephone", "long loop", "narrow", "bass cut" };

	return kind < CHAN_KINDS ? names[kind] : "?";
}

double chan_filter(struct chan *c, double v)
{
	int s;

	for (s = 0; s < c->n; s++) {
		/* transposed direct form II */
		double y = c->b[s][0] * v + c->z[s][0];

		c->z[s][0] = c->b[s][1] * v - c->a[s][1] * y + c->z[s][1];
		c->z[s][1] = c->b[s][2] * v - c->a[s][2] * y;
		v = y;
	}
	return v;
}

void chan_process(struct chan *c, int16_t *x, int n)
{
	int i;

	for (i = 0; i < n; i++)
		x[i] = t_sat16(chan_filter(c, x[i]));
}

double complex chan_response(const struct chan *c, double f)
{
	double complex z1 = cexp(-2 * M_PI * I * f / 8000), h = 1;
	int s;

	for (s = 0; s < c->n; s++)
		h *= (c->b[s][0] + c->b[s][1] * z1 + c->b[s][2] * z1 * z1) /
		     (1 + c->a[s][1] * z1 + c->a[s][2] * z1 * z1);
	return h;
}
