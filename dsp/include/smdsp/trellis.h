/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 8-state trellis code of V.32, V.17 and V.32bis: differential encoding
 * of the two low data bits (modulo-4 addition, which makes the code
 * transparent to 90 degree turns), then the systematic convolutional
 * encoder with feedback (three delay cells, two AND gates) that adds the
 * redundant bit Y0. A point's code has Y0 in bit 0, Y1 and Y2 (the
 * differentially encoded Q1, Q2) in bits 1 and 2, the uncoded Q3... above:
 * its low three bits name one of the eight subsets of the constellation.
 */
#ifndef SMDSP_TRELLIS_H
#define SMDSP_TRELLIS_H

#include <smdsp/fixmath.h>

#define SMDSP_TRELLIS_STATES 8

struct smdsp_trellis_enc;

/* An encoder as smdsp_trellis_enc_reset() leaves it; NULL without memory. */
struct smdsp_trellis_enc *smdsp_trellis_enc_create(unsigned int diff);
void smdsp_trellis_enc_free(struct smdsp_trellis_enc *e);
/* Starts with the differential encoder at diff (Y2 Y1) and the cells at 0. */
void smdsp_trellis_enc_reset(struct smdsp_trellis_enc *e, unsigned int diff);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_trellis_enc_print(const struct smdsp_trellis_enc *e, char *buf, size_t len);
/*
 * One symbol: q holds its data bits, the first (Q1) in bit 0. Returns the
 * point's code (Y0, Y1, Y2, then q's bits 2 and up).
 */
unsigned int smdsp_trellis_encode(struct smdsp_trellis_enc *e, unsigned int q);

/*
 * The convolutional encoder's next state from state with input y (Y1 in
 * bit 0, Y2 in bit 1); the branch's Y0 is bit 0 of state.
 */
static inline unsigned int smdsp_trellis_next(unsigned int state, unsigned int y)
{
	unsigned int s0 = state & 1, s1 = (state >> 1) & 1, s2 = (state >> 2) & 1;
	unsigned int y1 = y & 1, y2 = (y >> 1) & 1;
	unsigned int n0 = s1 ^ y2 ^ (s0 & y1);
	unsigned int n1 = s2 ^ y1 ^ y2 ^ (s0 & s1) ^ (s0 & y2);

	return n0 | (n1 << 1) | (s0 << 2);
}

/*
 * The differential decoder: the data bits of a decided point's code, given
 * *diff (Y2 Y1 of the point before, updated).
 */
static inline unsigned int smdsp_trellis_diff_decode(unsigned int *diff, unsigned int code)
{
	unsigned int y = (code >> 1) & 3, q = ((code >> 1) & ~3U) | ((y - *diff) & 3);

	*diff = y;
	return q;
}

#endif /* SMDSP_TRELLIS_H */
