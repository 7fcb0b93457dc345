/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Complex adaptive (LMS) equalizer, fractionally spaced.
 */
#ifndef SMDSP_EQ_H
#define SMDSP_EQ_H

#include <smdsp/fixmath.h>

#define SMDSP_EQ_MAX 32
#define SMDSP_EQ_COEF_ONE (1 << 28)	/* coefficient 1.0 */

struct smdsp_eq {
	unsigned int len;
	unsigned int pos;
	int16_t re[2 * SMDSP_EQ_MAX];	/* input history, stored twice */
	int16_t im[2 * SMDSP_EQ_MAX];
	int32_t cre[SMDSP_EQ_MAX];	/* coefficients, SMDSP_EQ_COEF_ONE = 1.0 */
	int32_t cim[SMDSP_EQ_MAX];
	int mu_shift;			/* larger = slower adaptation */
	int leak_shift;			/* 0: no leakage */
	bool in_range;			/* every coefficient within +-2^30 (eq.c) */
};

/* len taps (<= SMDSP_EQ_MAX), starting as a single unit tap at center. */
void smdsp_eq_init(struct smdsp_eq *e, unsigned int len, unsigned int center, int mu_shift);
struct smdsp_eq *smdsp_eq_create(unsigned int len, unsigned int center, int mu_shift);
void smdsp_eq_free(struct smdsp_eq *e);
void smdsp_eq_reset(struct smdsp_eq *e, unsigned int center);
/* Shift a new input sample in. */
void smdsp_eq_push(struct smdsp_eq *e, int16_t re, int16_t im);
/* Output for the current history. */
struct smdsp_cplx smdsp_eq_output(const struct smdsp_eq *e);
/* c += mu * err * conj(x), err in the same units as the output. */
void smdsp_eq_update(struct smdsp_eq *e, int32_t err_re, int32_t err_im);

#endif /* SMDSP_EQ_H */
