/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's superconstellation, its 90 degree rotations, the differential
 * encoder and the 16-, 32- and 64-state 4D trellis codes (9.5, 9.6.1,
 * 9.6.3), and a Viterbi decoder for them.
 *
 * Points are in the recommendation's units: odd integer coordinates. The
 * quarter-superconstellation is the 416 points congruent to (1, 1) modulo 4
 * of least energy, numbered by energy; its rotations by 90, 180 and 270
 * degrees are the other three cosets modulo 4.
 */
#ifndef SMDSP_V34_TRELLIS_H
#define SMDSP_V34_TRELLIS_H

#include <smdsp/compat.h>

#define SMDSP_V34_QUARTER 416		/* points in the quarter-superconstellation (1664 / 4) */
#define SMDSP_V34_VITERBI_DEPTH 32	/* 4D symbols of decision delay */

/* A point turned clockwise by rot x 90 degrees. */
static inline void smdsp_v34_rotate(int *x, int *y, unsigned int rot)
{
	int t;

	switch (rot & 3) {
	case 1:
		t = *x;
		*x = *y;
		*y = -t;
		break;
	case 2:
		*x = -*x;
		*y = -*y;
		break;
	case 3:
		t = *x;
		*x = -*y;
		*y = t;
		break;
	}
}

/* Which clockwise rotation of the quarter-superconstellation's coset a point is in (0-3). */
unsigned int smdsp_v34_rotation(int x, int y);
/* The point's 2D subset label, 0 to 7 (9.6.3.1). */
unsigned int smdsp_v34_label(int x, int y);
/* Y1 (bit 0) to Y4 (bit 3) of the 4D subset of two 2D subsets (Table 13). */
unsigned int smdsp_v34_subset4(unsigned int l0, unsigned int l1);
/* The 4D subset's Y0: flipped by a 90 degree turn of its second point. */
static inline unsigned int smdsp_v34_y0(unsigned int l0, unsigned int l1)
{
	return (l0 ^ l1) & 1;
}
/* The encoder's next state (Figures 10-12) from state and Y1-Y4; Y0 is bit 0 of a state. */
unsigned int smdsp_v34_trellis_next(unsigned int states, unsigned int state, unsigned int y);

struct smdsp_v34_trellis;

/* 16, 32 or 64 states; NULL otherwise. */
struct smdsp_v34_trellis *smdsp_v34_trellis_create(unsigned int states);
void smdsp_v34_trellis_free(struct smdsp_v34_trellis *s);
/* state 0, the differential encoder at 0 */
void smdsp_v34_trellis_reset(struct smdsp_v34_trellis *s);
int smdsp_v34_trellis_print(const struct smdsp_v34_trellis *s, char *buf, size_t len);
/* Quarter-superconstellation point idx (< SMDSP_V34_QUARTER); its index (-1 if none). */
void smdsp_v34_trellis_point(const struct smdsp_v34_trellis *s, unsigned int idx, int *x, int *y);
int smdsp_v34_trellis_index(const struct smdsp_v34_trellis *s, int x, int y);
/* The differential encoder (9.5): Z(m) = Z(m-1) + I2 + 2 I3 (modulo 4), from a 4D symbol's I bits. */
unsigned int smdsp_v34_trellis_diff(struct smdsp_v34_trellis *s, unsigned int ibits);
/* U0 for the second 2D symbol: Y0 of the state, C0 of the precoder, V0 of the superframe sync. */
unsigned int smdsp_v34_trellis_u0(const struct smdsp_v34_trellis *s, unsigned int c0, unsigned int v0);
/* The state moves on with the 4D subset of the two 2D points sent (their labels). */
void smdsp_v34_trellis_advance(struct smdsp_v34_trellis *s, unsigned int l0, unsigned int l1);
unsigned int smdsp_v34_trellis_state(const struct smdsp_v34_trellis *s);
unsigned int smdsp_v34_trellis_z(const struct smdsp_v34_trellis *s);

struct smdsp_v34_viterbi;

/* A decoder for the 16, 32 or 64-state code; NULL otherwise. */
struct smdsp_v34_viterbi *smdsp_v34_viterbi_create(unsigned int states);
void smdsp_v34_viterbi_free(struct smdsp_v34_viterbi *s);
/* all paths equal again, nothing decided yet */
void smdsp_v34_viterbi_reset(struct smdsp_v34_viterbi *s);
int smdsp_v34_viterbi_print(const struct smdsp_v34_viterbi *s, char *buf, size_t len);
/*
 * One 4D symbol received: rx[0..3] the two 2D points (x, y, x, y) in 1/128
 * of the recommendation's units, v0 its superframe sync inversion. Returns 1
 * with the 4D symbol decided SMDSP_V34_VITERBI_DEPTH - 1 symbols earlier in
 * out[0..3] (odd integer coordinates), 0 while the decoder fills.
 */
int smdsp_v34_viterbi_step(struct smdsp_v34_viterbi *s, const int32_t rx[4], unsigned int v0, int out[4]);
/*
 * How well the last step's v0 fits what came in: the best path metric had
 * its V0 been inverted, less the best with it as given (1/128 units
 * squared, within +-0x7fffffff). About the squared distance between
 * neighbours (4 units, 65536) when the decoder follows the transmitter's
 * superframe; about as often negative as positive on a signal it is out of
 * step with.
 */
int32_t smdsp_v34_viterbi_margin(const struct smdsp_v34_viterbi *s);

#endif /* SMDSP_V34_TRELLIS_H */
