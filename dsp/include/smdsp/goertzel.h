/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goertzel single-bin detector over fixed blocks.
 */
#ifndef SMDSP_GOERTZEL_H
#define SMDSP_GOERTZEL_H

#include <smdsp/fixmath.h>

struct smdsp_goertzel;

struct smdsp_goertzel *smdsp_goertzel_create(int32_t freq_mhz);
void smdsp_goertzel_free(struct smdsp_goertzel *g);
/* Clears the block so far (as smdsp_goertzel_result() does). */
void smdsp_goertzel_reset(struct smdsp_goertzel *g);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_goertzel_print(const struct smdsp_goertzel *g, char *buf, size_t len);

void smdsp_goertzel_process(struct smdsp_goertzel *g, const int16_t *x, unsigned int n);
/*
 * Energy |X|^2 of the block so far, then restarts. For a sine of amplitude A
 * over N samples this is about (A N / 2)^2; compare with N/2 times the sum of
 * squares of the block to get the fraction of the energy in this bin.
 */
uint64_t smdsp_goertzel_result(struct smdsp_goertzel *g);

#endif /* SMDSP_GOERTZEL_H */
