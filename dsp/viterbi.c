// SPDX-License-Identifier: GPL-2.0
/*
 * Viterbi decoder for the 8-state V.32/V.17 trellis code (see viterbi.h).
 *
 * Traceback depth: the code has three delay cells, and the rule of thumb
 * for truncated traceback is about five constraint lengths, 15-20 symbols.
 * tests/dsp/test_viterbi.c measures it at V.17 14400, Es/N0 20.5 dB (BER
 * about 5e-4): symbol errors of 200000 at depth 4, 8, 12, 16, 24, 32:
 * 9488, 5155, 3747, 3329, 3143, 3120 (the per-symbol slicer: 51539). 16 is
 * within 7 % of the limit (less than 0.1 dB) at a delay of 15 symbols
 * (6.25 ms at 2400 baud, as SpanDSP's receiver); the default.
 *
 * Path metrics are the survivors' summed branch metrics, renormalised every
 * symbol by subtracting the smallest: any state is reachable from any other
 * in three symbols, so their spread stays below three clamped branch
 * metrics and never wraps.
 */
#include <smdsp/viterbi.h>

#define BM_MAX (1U << 22)	/* a branch metric's clamp */
#define UNREACHED (1U << 24)	/* the start metric of states the encoder is not in */

void smdsp_viterbi_reset(struct smdsp_viterbi *v, int start_state)
{
	unsigned int s;

	for (s = 0; s < SMDSP_TRELLIS_STATES; s++)
		v->metric[s] = start_state < 0 || (int)s == start_state ? 0 : UNREACHED;
	v->pos = 0;
	v->filled = 0;
	v->hard = 0;
	v->hard_dist = 0;
}

int smdsp_viterbi_init(struct smdsp_viterbi *v, const int8_t *points, unsigned int npoints,
		       int32_t unit, unsigned int depth, int start_state)
{
	unsigned int s, y, n[SMDSP_TRELLIS_STATES];

	if (!points || !npoints || npoints % 8 || npoints > 256 || unit <= 0 || depth < 2 ||
	    depth > SMDSP_VITERBI_MAX_DEPTH || start_state >= SMDSP_TRELLIS_STATES)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	v->points = points;
	v->npoints = npoints;
	v->unit = unit;
	v->depth = depth;
	/* about 2^11 metric counts per squared constellation unit */
	while (((uint64_t)unit * unit >> v->shift) > 4096)
		v->shift++;
	/* the trellis, from the encoder's own next-state function */
	memset(n, 0, sizeof(n));
	for (s = 0; s < SMDSP_TRELLIS_STATES; s++) {
		for (y = 0; y < 4; y++) {
			unsigned int t = smdsp_trellis_next(s, y);

			v->from[t][n[t]] = (uint8_t)s;
			/* the branch's subset: Y2 Y1 from the input, Y0 from the state */
			v->sub[t][n[t]] = (uint8_t)((y << 1) | (s & 1));
			n[t]++;
		}
	}
	smdsp_viterbi_reset(v, start_state);
	return 0;
}

int smdsp_viterbi_step(struct smdsp_viterbi *v, int32_t re, int32_t im)
{
	uint32_t bm[8], nm[SMDSP_TRELLIS_STATES], best;
	uint8_t near[8] = { 0 };
	unsigned int k, s, i, col, b = 0;

	for (k = 0; k < 8; k++)
		bm[k] = UINT32_MAX;
	/* the nearest point of each subset */
	for (k = 0; k < v->npoints; k++) {
		int64_t dx = re - (int64_t)v->points[2 * k] * v->unit;
		int64_t dy = im - (int64_t)v->points[2 * k + 1] * v->unit;
		uint64_t d = (uint64_t)(dx * dx + dy * dy) >> v->shift;
		uint32_t d32 = d > BM_MAX ? BM_MAX : (uint32_t)d;

		if (d32 < bm[k & 7]) {
			bm[k & 7] = d32;
			near[k & 7] = (uint8_t)k;
		}
	}
	for (k = 1; k < 8; k++)
		if (bm[k] < bm[b])
			b = k;
	v->hard = near[b];
	v->hard_dist = bm[b];
	/* add, compare, select into the next column */
	col = v->filled ? v->pos + 1 : 0;
	if (col >= v->depth)
		col = 0;
	best = UINT32_MAX;
	for (s = 0; s < SMDSP_TRELLIS_STATES; s++) {
		uint32_t m = UINT32_MAX;
		unsigned int w = 0;

		for (i = 0; i < 4; i++) {
			uint32_t c = v->metric[v->from[s][i]] + bm[v->sub[s][i]];

			if (c < m) {
				m = c;
				w = i;
			}
		}
		nm[s] = m;
		v->prev[col][s] = v->from[s][w];
		v->code[col][s] = near[v->sub[s][w]];
		if (m < best) {
			best = m;
			b = s;
		}
	}
	for (s = 0; s < SMDSP_TRELLIS_STATES; s++)
		v->metric[s] = nm[s] - best;
	v->pos = col;
	if (v->filled < v->depth)
		v->filled++;
	if (v->filled < v->depth)
		return -1;
	/* trace back depth - 1 links from the best state */
	s = b;
	for (i = 0; i + 1 < v->depth; i++) {
		s = v->prev[col][s];
		col = col ? col - 1 : v->depth - 1;
	}
	return v->code[col][s];
}
