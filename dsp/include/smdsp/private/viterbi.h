/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/viterbi.h> (viterbi.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_VITERBI_H
#define SMDSP_PRIVATE_VITERBI_H

#include <smdsp/viterbi.h>
#include <smdsp/private/trellis.h>

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

#endif /* SMDSP_PRIVATE_VITERBI_H */
