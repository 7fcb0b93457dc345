/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/eq.h> (eq.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_EQ_H
#define SMDSP_PRIVATE_EQ_H

#include <smdsp/eq.h>

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

#endif /* SMDSP_PRIVATE_EQ_H */
