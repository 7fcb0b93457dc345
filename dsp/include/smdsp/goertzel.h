/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goertzel single-bin detector over fixed blocks.
 */
#ifndef SMDSP_GOERTZEL_H
#define SMDSP_GOERTZEL_H

#include <smdsp/fixmath.h>

struct smdsp_goertzel {
	int32_t coef;		/* 2 cos(w), Q14 */
	int32_t s1;
	int32_t s2;
};

void smdsp_goertzel_init(struct smdsp_goertzel *g, int32_t freq_mhz);
struct smdsp_goertzel *smdsp_goertzel_create(int32_t freq_mhz);
void smdsp_goertzel_free(struct smdsp_goertzel *g);

static inline void smdsp_goertzel_sample(struct smdsp_goertzel *g, int16_t x)
{
	int32_t s = x + (int32_t)(((int64_t)g->coef * g->s1) >> 14) - g->s2;

	g->s2 = g->s1;
	g->s1 = s;
}

void smdsp_goertzel_process(struct smdsp_goertzel *g, const int16_t *x, unsigned int n);
/*
 * Energy |X|^2 of the block so far, then restarts. For a sine of amplitude A
 * over N samples this is about (A N / 2)^2; compare with N/2 times the sum of
 * squares of the block to get the fraction of the energy in this bin.
 */
uint64_t smdsp_goertzel_result(struct smdsp_goertzel *g);

#endif /* SMDSP_GOERTZEL_H */
