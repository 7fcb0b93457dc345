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
#include <smdsp/private/viterbi.h>

#define BM_MAX (1U << 22)	/* a branch metric's clamp */
#define SPAN SMDSP_VITERBI_SPAN
#define U32_NONE 0xffffffffU	/* above any metric */
#define UNREACHED (1U << 24)	/* the start metric of states the encoder is not in */

/*
 * The subsets' lattice, if there is one: a, the largest power of two
 * dividing every coordinate difference within a subset, and whether the
 * differences' sums are multiples of 2a as well (the checkerboard).
 */
static void find_lattice(struct smdsp_viterbi *v)
{
	const int8_t *p = v->points;
	unsigned int k, j, a;
	bool checker = true;
	int g = 0;

	v->lat_shift = 0;
	memset(v->map, -1, sizeof(v->map));
	for (k = 0; k < v->npoints; k++) {
		int x = p[2 * k], y = p[2 * k + 1];

		if (x < -SPAN || x > SPAN || y < -SPAN || y > SPAN || v->map[x + SPAN][y + SPAN] >= 0)
			return;
		v->map[x + SPAN][y + SPAN] = (int8_t)k;
		j = k & 7;
		if (k < 8) {
			v->off[j][0] = (int8_t)x;
			v->off[j][1] = (int8_t)y;
			continue;
		}
		g |= (x - v->off[j][0]) | (y - v->off[j][1]);
	}
	if (!g)
		return;
	for (a = 1; !(g & a); a <<= 1)
		;
	for (k = 8; k < v->npoints; k++) {
		j = k & 7;
		if ((p[2 * k] - v->off[j][0] + p[2 * k + 1] - v->off[j][1]) % (int)(2 * a))
			checker = false;
	}
	v->checker = checker;
	for (v->lat_shift = 6; a > 1; a >>= 1)
		v->lat_shift++;
}

void smdsp_viterbi_reset(struct smdsp_viterbi *v, int start_state)
{
	unsigned int s;

	for (s = 0; s < SMDSP_TRELLIS_STATES; s++)
		v->metric[s] = start_state < 0 || (int)s == start_state ? 0 : UNREACHED;
	v->pos = 0;
	v->filled = 0;
	v->cur = 0;
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
	v->recip = (uint32_t)((1U << 22) / (uint32_t)unit);
	find_lattice(v);
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

/*
 * The nearest point of each subset (re, im in 1/64 units; 4096
 * per squared unit) by trying them all: keys d << 5 | k >> 3 (d < 2^24
 * after the clamp, k < 256) whose minimum per subset needs no branch.
 */
static void nearest_all(const struct smdsp_viterbi *v, int32_t re, int32_t im, uint32_t *bm,
			uint8_t *near)
{
	uint32_t key[8];
	unsigned int k, g;

	for (k = 0; k < 8; k++)
		key[k] = U32_NONE;
	for (g = 0; g < v->npoints; g += 8) {
		const int8_t *p = v->points + 2 * g;

		for (k = 0; k < 8; k++) {
			int32_t dx = re - p[2 * k] * 64, dy = im - p[2 * k + 1] * 64;
			uint32_t d = ((uint32_t)(dx * dx + dy * dy) << 5) | (g >> 3);

			key[k] = d < key[k] ? d : key[k];
		}
	}
	for (k = 0; k < 8; k++) {
		bm[k] = key[k] >> 5;
		near[k] = (uint8_t)(((key[k] & 31) << 3) | k);
	}
}

/*
 * The same by rounding to each subset's lattice; a subset whose nearest
 * lattice point is not in the constellation (near or outside its edge) is
 * searched point by point.
 */
static void nearest_lattice(const struct smdsp_viterbi *v, int32_t re, int32_t im, uint32_t *bm,
			    uint8_t *near)
{
	int sh = v->lat_shift, a = 1 << (sh - 6);
	int32_t half = 1 << (sh - 1);
	unsigned int j, miss = 0;

	for (j = 0; j < 8; j++) {
		int32_t tx = re - v->off[j][0] * 64, ty = im - v->off[j][1] * 64;
		int32_t m = (tx + half) >> sh, n = (ty + half) >> sh, x, y, dx, dy;

		if (v->checker) {
			/*
			 * Off the checkerboard: move the coordinate that was
			 * rounded more (without branches: they would go either
			 * way at random).
			 */
			int32_t rx = tx - m * (1 << sh), ry = ty - n * (1 << sh);
			int32_t odd = (m + n) & 1;
			int32_t mx = odd & ((rx < 0 ? -rx : rx) > (ry < 0 ? -ry : ry));

			m += mx * (rx > 0 ? 1 : -1);
			n += (odd - mx) * (ry > 0 ? 1 : -1);
		}
		x = v->off[j][0] + m * a;
		y = v->off[j][1] + n * a;
		if (x < -SPAN || x > SPAN || y < -SPAN || y > SPAN || v->map[x + SPAN][y + SPAN] < 0) {
			miss |= 1U << j;
			continue;
		}
		near[j] = (uint8_t)v->map[x + SPAN][y + SPAN];
		dx = re - x * 64;
		dy = im - y * 64;
		bm[j] = (uint32_t)(dx * dx + dy * dy);
	}
	/* those not found: the subset's own points */
	for (j = 0; miss; j++, miss >>= 1) {
		unsigned int k;

		if (!(miss & 1))
			continue;
		bm[j] = U32_NONE;
		for (k = j; k < v->npoints; k += 8) {
			int32_t dx = re - v->points[2 * k] * 64, dy = im - v->points[2 * k + 1] * 64;
			uint32_t d = (uint32_t)(dx * dx + dy * dy);

			near[j] = d < bm[j] ? (uint8_t)k : near[j];
			bm[j] = d < bm[j] ? d : bm[j];
		}
	}
}

static int32_t clamp_q(int64_t v)
{
	return v > 32 * 64 ? 32 * 64 : v < -32 * 64 ? -32 * 64 : (int32_t)v;
}

int smdsp_viterbi_step(struct smdsp_viterbi *v, int32_t re, int32_t im)
{
	uint32_t bm[8], nm[SMDSP_TRELLIS_STATES], best;
	const struct smdsp_viterbi_path *src;
	struct smdsp_viterbi_path *dst;
	uint8_t near[8];
	unsigned int k, s, i, col, b = 0;

	/* in 1/64 units, within 32 units of the centre: 32-bit distances */
	re = clamp_q((int64_t)re * v->recip >> 16);
	im = clamp_q((int64_t)im * v->recip >> 16);
	if (v->lat_shift)
		nearest_lattice(v, re, im, bm, near);
	else
		nearest_all(v, re, im, bm, near);
	for (k = 0; k < 8; k++)
		if (bm[k] > BM_MAX)
			bm[k] = BM_MAX;
	for (k = 1; k < 8; k++)
		b = bm[k] < bm[b] ? k : b;
	v->hard = near[b];
	v->hard_dist = bm[b];
	/* add, compare, select; each survivor takes its predecessor's path */
	col = v->filled ? v->pos + 1 : 0;
	if (col >= v->depth)
		col = 0;
	src = v->path[v->cur];
	dst = v->path[v->cur ^ 1];
	best = U32_NONE;
	for (s = 0; s < SMDSP_TRELLIS_STATES; s++) {
		const uint8_t *f = v->from[s], *u = v->sub[s];
		uint32_t m = v->metric[f[0]] + bm[u[0]];
		unsigned int w = 0;

		for (i = 1; i < 4; i++) {
			uint32_t c = v->metric[f[i]] + bm[u[i]];

			w = c < m ? i : w;
			m = c < m ? c : m;
		}
		nm[s] = m;
		dst[s] = src[f[w]];
		dst[s].c[col] = near[u[w]];
		b = m < best ? s : b;
		best = m < best ? m : best;
	}
	v->cur ^= 1;
	for (s = 0; s < SMDSP_TRELLIS_STATES; s++)
		v->metric[s] = nm[s] - best;
	v->pos = col;
	if (v->filled < v->depth)
		v->filled++;
	if (v->filled < v->depth)
		return -1;
	/* the best survivor's oldest decision, depth - 1 symbols back */
	col = col + 1 < v->depth ? col + 1 : 0;
	return dst[b].c[col];
}

struct smdsp_viterbi *smdsp_viterbi_create(const int8_t *points, unsigned int npoints,
				     int32_t unit, unsigned int depth, int start_state)
{
	struct smdsp_viterbi *v = smdsp_alloc(sizeof(*v));

	if (v && smdsp_viterbi_init(v, points, npoints, unit, depth, start_state)) {
		smdsp_free(v);
		v = NULL;
	}
	return v;
}

void smdsp_viterbi_free(struct smdsp_viterbi *v)
{
	smdsp_free(v);
}

int smdsp_viterbi_print(const struct smdsp_viterbi *v, char *buf, size_t len)
{
	return snprintf(buf, len, "viterbi npoints=%u depth=%u filled=%u hard=%u dist=%u",
			v->npoints, v->depth, v->filled, v->hard, v->hard_dist);
}
