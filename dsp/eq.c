// SPDX-License-Identifier: GPL-2.0
/*
 * Complex LMS equalizer. Inputs are int16 (the demodulator keeps its
 * constellation at about 1/8 of full scale), coefficients are Q28 in 32 bits
 * so that slow adaptation steps are not lost to rounding, and the dot
 * products run in 64 bits.
 */
#include <smdsp/private/eq.h>

void smdsp_eq_reset(struct smdsp_eq *e, unsigned int center)
{
	memset(e->cre, 0, sizeof(e->cre));
	memset(e->cim, 0, sizeof(e->cim));
	if (center < e->len)
		e->cre[center] = SMDSP_EQ_COEF_ONE;
	e->in_range = true;
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

/* Newest first: re[pos + k] is the sample k steps older than the newest. */
void smdsp_eq_push(struct smdsp_eq *e, int16_t re, int16_t im)
{
	e->pos = e->pos ? e->pos - 1 : e->len - 1;
	e->re[e->pos] = re;
	e->im[e->pos] = im;
	e->re[e->pos + e->len] = re;
	e->im[e->pos + e->len] = im;
}

/* Tap k applies to the sample k steps older than the newest one. */
struct smdsp_cplx smdsp_eq_output(const struct smdsp_eq *e)
{
	const int16_t *xr = e->re + e->pos;
	const int16_t *xi = e->im + e->pos;
	int64_t ar = 0, ai = 0;
	struct smdsp_cplx y;
	unsigned int k;

	for (k = 0; k < e->len; k++) {
		int64_t r = xr[k], i = xi[k];

		ar += e->cre[k] * r - e->cim[k] * i;
		ai += e->cre[k] * i + e->cim[k] * r;
	}
	y.re = smdsp_sat32(ar >> 28);
	y.im = smdsp_sat32(ai >> 28);
	return y;
}

/* a + b, saturated (smdsp_sat32 of the 64-bit sum), without branches */
static inline int32_t sat_add32(int32_t a, int32_t b)
{
	uint32_t s = (uint32_t)a + (uint32_t)b;
	/* overflow: both operands' sign differs from the sum's */
	uint32_t ovf = ((uint32_t)a ^ s) & ((uint32_t)b ^ s);

	return (int32_t)ovf < 0 ? (int32_t)(((uint32_t)a >> 31) + 0x7fffffffU) : (int32_t)s;
}

/*
 * One tap of update16(): 16 x 16 bit products, which vectorize well. The
 * new coefficients' magnitudes, ORed (c ^ (c >> 31) is below 2^30 when
 * -2^30 <= c < 2^30).
 */
static inline uint32_t tap16(int32_t *cre, int32_t *cim, int16_t r, int16_t i, int16_t err_re,
			     int16_t err_im, int sh, bool sat)
{
	int32_t rr = (int32_t)err_re * r, ii = (int32_t)err_im * i;
	int32_t ir = (int32_t)err_im * r, ri = (int32_t)err_re * i;
	int32_t dr = (rr + ii) >> sh, di = (ir - ri) >> sh;
	uint32_t mr, mi;

	if (sat) {
		*cre = sat_add32(*cre, dr);
		*cim = sat_add32(*cim, di);
	} else {
		*cre += dr;
		*cim += di;
	}
	mr = (uint32_t)*cre ^ (uint32_t)(*cre >> 31);
	mi = (uint32_t)*cim ^ (uint32_t)(*cim >> 31);
	return mr | mi;
}

/*
 * Errors within int16 and no leakage, the common case: err * conj(x) in
 * 32 bits (|err| <= 32767, |x| <= 32768: the sums of two products stay
 * below 2^31), the same as in 64 bits. With every coefficient within
 * +-2^30 (in_range) and a step of at most 2^30 (mu_shift >= 1) the sums
 * cannot overflow and need no saturation. The loops vectorize; not
 * inlined, since the caller's range check would let the compiler treat the
 * error as 32 bits wide and vectorize with 32-bit multiplies, twice as slow.
 */
static smdsp_noinline void update16(struct smdsp_eq *e, int16_t er, int16_t ei)
{
	const int16_t *xr = e->re + e->pos;
	const int16_t *xi = e->im + e->pos;
	int32_t *cre = e->cre, *cim = e->cim;
	unsigned int k, n = e->len & ~7U;
	int sh = e->mu_shift;
	uint32_t mag = 0;

	/* a multiple of 8 taps first: the compiler vectorizes that part */
	if (e->in_range && sh >= 1) {
		for (k = 0; k < n; k++)
			mag |= tap16(cre + k, cim + k, xr[k], xi[k], er, ei, sh, false);
		for (; k < e->len; k++)
			mag |= tap16(cre + k, cim + k, xr[k], xi[k], er, ei, sh, false);
	} else {
		for (k = 0; k < n; k++)
			mag |= tap16(cre + k, cim + k, xr[k], xi[k], er, ei, sh, true);
		for (; k < e->len; k++)
			mag |= tap16(cre + k, cim + k, xr[k], xi[k], er, ei, sh, true);
	}
	e->in_range = mag < (1U << 30);
}

void smdsp_eq_update(struct smdsp_eq *e, int32_t err_re, int32_t err_im)
{
	const int16_t *xr = e->re + e->pos;
	const int16_t *xi = e->im + e->pos;
	unsigned int k;

	if (!e->leak_shift && err_re > -32768 && err_re < 32768 && err_im > -32768 &&
	    err_im < 32768) {
		update16(e, (int16_t)err_re, (int16_t)err_im);
		return;
	}
	for (k = 0; k < e->len; k++) {
		int64_t r = xr[k], i = xi[k];
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
	e->in_range = false;	/* update16() checks them again */
}

int smdsp_eq_print(const struct smdsp_eq *e, char *buf, size_t len)
{
	return snprintf(buf, len, "eq len=%u pos=%u mu_shift=%d leak_shift=%d in_range=%d",
			e->len, e->pos, e->mu_shift, e->leak_shift, e->in_range);
}
