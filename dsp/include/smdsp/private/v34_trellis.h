/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_trellis.h>, for the data-mode blocks that embed it. */
#ifndef SMDSP_PRIVATE_V34_TRELLIS_H
#define SMDSP_PRIVATE_V34_TRELLIS_H

#include <smdsp/v34_trellis.h>

#define SMDSP_V34_MAX_STATES 64
/* the quarter-superconstellation's coordinates 4i + 1 fit in i = -12 .. 12 */
#define SMDSP_V34_GRID 25
#define SMDSP_V34_GRID_MIN (-12)

struct smdsp_v34_trellis {
	unsigned int states;
	unsigned int state;			/* the convolutional encoder's */
	unsigned int z;				/* the differential encoder's Z(m-1) */
	int8_t pt[SMDSP_V34_QUARTER][2];	/* (x - 1) / 4, (y - 1) / 4 */
	int16_t index[SMDSP_V34_GRID][SMDSP_V34_GRID];	/* -1: not a point */
};

struct smdsp_v34_viterbi {
	unsigned int states;
	unsigned int pos, filled;
	uint8_t next[SMDSP_V34_MAX_STATES][16];
	/*
	 * The code's parallel transitions: Y1-Y4 in groups that lead from any
	 * state to one next state (4 of 4 subsets at 16 states, 8 of 2 at 32,
	 * 16 of 1 at 64), each group's subsets in increasing order; each 4D
	 * subset's two label pairs (the smaller first) by its Y0
	 */
	unsigned int groups, group_len;
	uint8_t group_y[16][16];
	/* each state's predecessors (in increasing order) and the group each comes by */
	uint8_t npred[SMDSP_V34_MAX_STATES];
	uint8_t pred[SMDSP_V34_MAX_STATES][16], pred_g[SMDSP_V34_MAX_STATES][16];
	uint8_t pairs[2][16][2];
	int64_t metric[SMDSP_V34_MAX_STATES];
	int64_t best[SMDSP_V34_MAX_STATES];	/* scratch: the new metrics */
	/*
	 * scratch of a step, here rather than on the stack (the kernel's
	 * receive path is deep): each 2D half's squared distance to its 8
	 * labels' nearest points, each 4D subset's best metric and pair
	 */
	int64_t d[2][8], bm[2][16];
	uint8_t bp[2][16];
	int64_t gm[2][16];			/* each group's best subset metric by Y0, and its pair */
	uint8_t gp[2][16];
	/* per step: each state's predecessor and the label pair it took, the subsets' nearest points */
	uint8_t prev[SMDSP_V34_VITERBI_DEPTH][SMDSP_V34_MAX_STATES];
	uint8_t pair[SMDSP_V34_VITERBI_DEPTH][SMDSP_V34_MAX_STATES];
	int16_t near[SMDSP_V34_VITERBI_DEPTH][2][8][2];
	uint32_t steps;
	int32_t margin;				/* the last step's V0 margin (smdsp_v34_viterbi_margin()) */
};

int smdsp_v34_trellis_init(struct smdsp_v34_trellis *s, unsigned int states);
int smdsp_v34_viterbi_init(struct smdsp_v34_viterbi *s, unsigned int states);

#endif /* SMDSP_PRIVATE_V34_TRELLIS_H */
