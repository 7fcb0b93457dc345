/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Viterbi decoder for the 8-state trellis code of trellis.h (V.32, V.17,
 * V.32bis), over any constellation whose point codes carry the subset in
 * their low three bits.
 *
 * Each received point gives eight branch metrics: the squared distance to
 * the nearest point of each subset (that point is also the decision for a
 * branch of that subset, the uncoded bits being decided per symbol). The
 * add-compare-select keeps one survivor per state; its decisions for the
 * last depth symbols live in this struct (no stack), copied along with the
 * survivor (register exchange: no traceback).
 * The output is the code of the point depth - 1 symbols back on the best
 * path: the decoding delay is depth - 1 symbols.
 */
#ifndef SMDSP_VITERBI_H
#define SMDSP_VITERBI_H

#include <smdsp/trellis.h>

#define SMDSP_VITERBI_MAX_DEPTH 32
#define SMDSP_VITERBI_DEPTH 16	/* the default traceback depth (see viterbi.c) */
#define SMDSP_VITERBI_SPAN 10	/* points within +-10 units: the fast nearest-point search */

struct smdsp_viterbi {
	const int8_t *points;		/* by code: re, im pairs, in constellation units */
	unsigned int npoints;
	int32_t unit;			/* received value of one constellation unit */
	uint32_t recip;			/* 2^(16 + 6) / unit: received to 1/64 units */
	/*
	 * When every subset is a coset of a Z^2 or of its checkerboard
	 * half (a = 2^(lat_shift - 6)): a point of each subset, and the code
	 * of each grid position (-1: none). lat_shift 0: search all points.
	 */
	int lat_shift;
	bool checker;
	int8_t off[8][2];
	int8_t map[2 * SMDSP_VITERBI_SPAN + 1][2 * SMDSP_VITERBI_SPAN + 1];
	unsigned int depth;
	unsigned int pos;		/* the newest column */
	unsigned int filled;		/* columns written, up to depth */
	uint32_t metric[SMDSP_TRELLIS_STATES];
	uint8_t from[SMDSP_TRELLIS_STATES][4];	/* the predecessors of each state */
	uint8_t sub[SMDSP_TRELLIS_STATES][4];	/* the subset of each of those branches */
	unsigned int cur;		/* which of path[] holds the survivors */
	/* each state's survivor: its last depth decisions, a ring at pos */
	struct smdsp_viterbi_path {
		uint8_t c[SMDSP_VITERBI_MAX_DEPTH];
	} path[2][SMDSP_TRELLIS_STATES];
	uint8_t hard;			/* the last symbol's nearest point */
	uint32_t hard_dist;		/* its squared distance, 4096 per squared unit */
};

/*
 * points: npoints pairs re, im (npoints a multiple of 8, at most 256), unit: the received
 * value of one constellation unit; depth 2..SMDSP_VITERBI_MAX_DEPTH;
 * start_state: the encoder's state at the first symbol (0..7), or -1 if
 * unknown. 0 or -EINVAL.
 */
int smdsp_viterbi_init(struct smdsp_viterbi *v, const int8_t *points, unsigned int npoints,
		       int32_t unit, unsigned int depth, int start_state);
/* Back to the start, same constellation and depth. */
void smdsp_viterbi_reset(struct smdsp_viterbi *v, int start_state);
/*
 * One received point (re, im in received units): returns the decided code
 * of the symbol depth - 1 symbols before it, or -1 while the first depth - 1
 * symbols fill the path memory.
 */
int smdsp_viterbi_step(struct smdsp_viterbi *v, int32_t re, int32_t im);

#endif /* SMDSP_VITERBI_H */
