/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/goertzel.h> (goertzel.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_GOERTZEL_H
#define SMDSP_PRIVATE_GOERTZEL_H

#include <smdsp/goertzel.h>

struct smdsp_goertzel {
	int32_t coef;		/* 2 cos(w), Q14 */
	int32_t s1;
	int32_t s2;
};

static inline void smdsp_goertzel_sample(struct smdsp_goertzel *g, int16_t x)
{
	int32_t s = x + (int32_t)(((int64_t)g->coef * g->s1) >> 14) - g->s2;

	g->s2 = g->s1;
	g->s1 = s;
}

void smdsp_goertzel_init(struct smdsp_goertzel *g, int32_t freq_mhz);

#endif /* SMDSP_PRIVATE_GOERTZEL_H */
