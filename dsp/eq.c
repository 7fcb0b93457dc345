// SPDX-License-Identifier: GPL-2.0
/*
 * Complex LMS equalizer. Inputs are int16 (the demodulator keeps its
 * constellation at about 1/8 of full scale), coefficients are Q28 in 32 bits
 * so that slow adaptation steps are not lost to rounding, and the dot
 * products run in 64 bits.
 */
#include <smdsp/eq.h>

void smdsp_eq_reset(struct smdsp_eq *e, unsigned int center)
{
	memset(e->cre, 0, sizeof(e->cre));
	memset(e->cim, 0, sizeof(e->cim));
	if (center < e->len)
		e->cre[center] = SMDSP_EQ_COEF_ONE;
}

void smdsp_eq_init(struct smdsp_eq *e, unsigned int len, unsigned int center, int mu_shift)
{
	memset(e, 0, sizeof(*e));
	e->len = len > SMDSP_EQ_MAX ? SMDSP_EQ_MAX : len;
	e->mu_shift = mu_shift;
	smdsp_eq_reset(e, center);
}

struct smdsp_eq *smdsp_eq_create(unsigned int len, unsigned int center, int mu_shift)
{
	struct smdsp_eq *e = smdsp_alloc(sizeof(*e));

	if (e)
		smdsp_eq_init(e, len, center, mu_shift);
	return e;
}

void smdsp_eq_free(struct smdsp_eq *e)
{
	smdsp_free(e);
}

void smdsp_eq_push(struct smdsp_eq *e, int16_t re, int16_t im)
{
	e->re[e->pos] = re;
	e->im[e->pos] = im;
	e->re[e->pos + e->len] = re;
	e->im[e->pos + e->len] = im;
	if (++e->pos >= e->len)
		e->pos = 0;
}

/*
 * Tap k applies to the sample k steps older than the newest one; in the
 * doubled history the newest sample is at pos + len - 1.
 */
struct smdsp_cplx smdsp_eq_output(const struct smdsp_eq *e)
{
	const int16_t *xr = e->re + e->pos + e->len - 1;
	const int16_t *xi = e->im + e->pos + e->len - 1;
	int64_t ar = 0, ai = 0;
	struct smdsp_cplx y;
	unsigned int k;

	for (k = 0; k < e->len; k++) {
		int64_t r = xr[-(int)k], i = xi[-(int)k];

		ar += e->cre[k] * r - e->cim[k] * i;
		ai += e->cre[k] * i + e->cim[k] * r;
	}
	y.re = smdsp_sat32(ar >> 28);
	y.im = smdsp_sat32(ai >> 28);
	return y;
}

void smdsp_eq_update(struct smdsp_eq *e, int32_t err_re, int32_t err_im)
{
	const int16_t *xr = e->re + e->pos + e->len - 1;
	const int16_t *xi = e->im + e->pos + e->len - 1;
	unsigned int k;

	for (k = 0; k < e->len; k++) {
		int64_t r = xr[-(int)k], i = xi[-(int)k];
		/* err * conj(x) */
		int64_t dr = ((int64_t)err_re * r + (int64_t)err_im * i) >> e->mu_shift;
		int64_t di = ((int64_t)err_im * r - (int64_t)err_re * i) >> e->mu_shift;

		if (e->leak_shift) {
			dr -= e->cre[k] >> e->leak_shift;
			di -= e->cim[k] >> e->leak_shift;
		}
		e->cre[k] = smdsp_sat32(e->cre[k] + dr);
		e->cim[k] = smdsp_sat32(e->cim[k] + di);
	}
}
