// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 superconstellation, differential encoding, 4D trellis codes and their
 * Viterbi decoder (9.5, 9.6.1, 9.6.3).
 *
 * Points have odd integer coordinates. Those congruent to (1, 1) modulo 4,
 * taken by increasing energy (ties: the larger y first), are the
 * quarter-superconstellation, 416 of them for the 1664-point
 * superconstellation; a clockwise turn by 90 degrees takes that coset to
 * (1, 3), then (3, 3), then (3, 1) modulo 4, so a point's coset tells its
 * rotation. The shell mapper's ring and the Q bits pick a quarter point
 * (index ring x 2^q + Q); the 4D symbol's first 2D point is turned by Z(m),
 * the differential encoder's running sum of I2 + 2 I3 (which makes the data
 * survive a 90 degree turn of the whole signal), its second by Z(m) + 2 I1 +
 * U0.
 *
 * The 2D subset labels (Figure 9) split the odd lattice into eight cosets of
 * the lattice spanned by (4, 4) and (4, -4) (minimum squared distance 32,
 * against 4 between neighbours): bits 0 and 1 are the coset modulo 4 in the
 * order of the rotations, bit 2 splits each in two. Table 13 names the 4D
 * subset (Y1-Y4) of a pair of labels; its Y0 is the parity of the two
 * labels' bit 0, which a 90 degree turn of the second point flips. The
 * encoder (Figures 10-12: 16, 32 or 64 states, Y0 a bit of the state) moves
 * on with the Y1-Y4 of the pair actually sent (after the precoder), and U0 =
 * Y0 + C0 + V0 turns the second point so that the pair sent has the state's
 * Y0, less the precoder's shift C0, inverted where the superframe sync
 * pattern says so (V0).
 *
 * The Viterbi decoder finds, for each received 2D point and each of the 8
 * labels, the nearest point of that coset (rounding in the (4, 4), (4, -4)
 * basis: the lattice is a scaled rotated square one, so rounding is
 * exact), makes the 32 4D subset metrics (the better of each subset's two
 * label pairs), then adds, compares and selects over the states' 16
 * branches each (16 states: 4 next states, 4 parallel subsets each). The
 * survivors keep their predecessor and label pair for 32 4D symbols; the
 * best path's oldest 4D symbol is the decision. The lattice is unbounded,
 * as the precoder's output is.
 *
 * Each step also weighs the V0 it was given against its inverse (the
 * margin): the best new metric had V0 been inverted, less the best with it,
 * from the best metric of each parity of state and the best subset of each
 * Y0, so no second add-compare-select. A decoder in step with the
 * transmitter's superframe finds its V0 fits by about a neighbour's squared
 * distance; one out of step, no better than its inverse.
 */
#include <smdsp/private/v34_trellis.h>

/* Table 13: Y4 Y3 Y2 Y1 of the 4D subset, by the labels of its first and second 2D points */
static const uint8_t table13[8][8] = {
	{ 0, 0, 1, 1, 8, 8, 9, 9 },
	{ 3, 2, 2, 3, 11, 10, 10, 11 },
	{ 5, 5, 4, 4, 13, 13, 12, 12 },
	{ 6, 7, 7, 6, 14, 15, 15, 14 },
	{ 8, 8, 9, 9, 0, 0, 1, 1 },
	{ 11, 10, 10, 11, 3, 2, 2, 3 },
	{ 13, 13, 12, 12, 5, 5, 4, 4 },
	{ 14, 15, 15, 14, 6, 7, 7, 6 },
};

/* a point of each label near the origin */
static const int8_t label_rep[8][2] = {
	{ 1, 1 }, { 1, -1 }, { -1, -1 }, { -1, 1 }, { 1, -3 }, { -3, -1 }, { -1, 3 }, { 3, 1 },
};

unsigned int smdsp_v34_rotation(int x, int y)
{
	static const uint8_t rot[4][4] = {
		/* y mod 4:  0  1  2  3 */
		{ 0, 0, 0, 0 }, { 0, 0, 0, 1 }, { 0, 0, 0, 0 }, { 0, 3, 0, 2 },
	};

	return rot[(unsigned int)x & 3][(unsigned int)y & 3];
}

unsigned int smdsp_v34_label(int x, int y)
{
	unsigned int ux = (unsigned int)x, xo = ux ^ (unsigned int)y;

	return ((((xo >> 2) ^ (xo >> 1)) & 1) << 2) | (((ux >> 1) & 1) << 1) | ((xo >> 1) & 1);
}

unsigned int smdsp_v34_subset4(unsigned int l0, unsigned int l1)
{
	return table13[l0 & 7][l1 & 7];
}

unsigned int smdsp_v34_trellis_next(unsigned int states, unsigned int state, unsigned int y)
{
	unsigned int t1 = state & 1, t2 = (state >> 1) & 1, t3 = (state >> 2) & 1;
	unsigned int t4 = (state >> 3) & 1, t5 = (state >> 4) & 1, t6 = (state >> 5) & 1;
	unsigned int y1 = y & 1, y2 = (y >> 1) & 1, y3 = (y >> 2) & 1, y4 = (y >> 3) & 1;

	switch (states) {
	case 16:	/* Figure 10 */
		return (t2 ^ y1) | (t3 ^ y2) << 1 | (t4 ^ t1 ^ y2) << 2 | t1 << 3;
	case 32:	/* Figure 11 */
		return (t2 ^ y2) | (t3 ^ y4) << 1 | (t4 ^ y1) << 2 | (t5 ^ y2) << 3 | t1 << 4;
	default:	/* Figure 12 */
		return (t2 ^ t4 ^ y2) | t1 << 1 | t4 << 2 | (t4 ^ t5 ^ y1) << 3 |
		       (t6 ^ t5 ^ t3 ^ y3 ^ (y2 & t4)) << 4 | (t6 ^ t5 ^ ((t5 ^ y1) & t4) ^ y4) << 5;
	}
}

static bool states_ok(unsigned int states)
{
	return states == 16 || states == 32 || states == 64;
}

int smdsp_v34_trellis_init(struct smdsp_v34_trellis *s, unsigned int states)
{
	int i, j, n = 0;

	memset(s, 0, sizeof(*s));
	if (!states_ok(states))
		return -EINVAL;
	s->states = states;
	for (i = 0; i < SMDSP_V34_GRID; i++)
		for (j = 0; j < SMDSP_V34_GRID; j++)
			s->index[i][j] = -1;
	/* selection by energy, then y: 416 passes over the 625 candidates, at create only */
	while (n < SMDSP_V34_QUARTER) {
		int bi = 0, bj = 0, be = -1;

		for (i = 0; i < SMDSP_V34_GRID; i++) {
			for (j = 0; j < SMDSP_V34_GRID; j++) {
				int x = 4 * (i + SMDSP_V34_GRID_MIN) + 1, y = 4 * (j + SMDSP_V34_GRID_MIN) + 1;
				int e = x * x + y * y;

				if (s->index[i][j] >= 0)
					continue;
				if (be < 0 || e < be || (e == be && j > bj)) {
					be = e;
					bi = i;
					bj = j;
				}
			}
		}
		s->index[bi][bj] = (int16_t)n;
		s->pt[n][0] = (int8_t)(bi + SMDSP_V34_GRID_MIN);
		s->pt[n][1] = (int8_t)(bj + SMDSP_V34_GRID_MIN);
		n++;
	}
	return 0;
}

struct smdsp_v34_trellis *smdsp_v34_trellis_create(unsigned int states)
{
	struct smdsp_v34_trellis *s = smdsp_alloc(sizeof(*s));

	if (s && smdsp_v34_trellis_init(s, states)) {
		smdsp_free(s);
		s = NULL;
	}
	return s;
}

void smdsp_v34_trellis_free(struct smdsp_v34_trellis *s)
{
	smdsp_free(s);
}

void smdsp_v34_trellis_reset(struct smdsp_v34_trellis *s)
{
	s->state = 0;
	s->z = 0;
}

int smdsp_v34_trellis_print(const struct smdsp_v34_trellis *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_trellis states=%u state=%u z=%u", s->states, s->state, s->z);
}

void smdsp_v34_trellis_point(const struct smdsp_v34_trellis *s, unsigned int idx, int *x, int *y)
{
	if (idx >= SMDSP_V34_QUARTER)
		idx = 0;
	*x = 4 * s->pt[idx][0] + 1;
	*y = 4 * s->pt[idx][1] + 1;
}

int smdsp_v34_trellis_index(const struct smdsp_v34_trellis *s, int x, int y)
{
	int i, j;

	if (((unsigned int)x & 3) != 1 || ((unsigned int)y & 3) != 1)
		return -1;
	i = (x - 1) / 4 - SMDSP_V34_GRID_MIN;
	j = (y - 1) / 4 - SMDSP_V34_GRID_MIN;
	if (i < 0 || j < 0 || i >= SMDSP_V34_GRID || j >= SMDSP_V34_GRID)
		return -1;
	return s->index[i][j];
}

unsigned int smdsp_v34_trellis_diff(struct smdsp_v34_trellis *s, unsigned int ibits)
{
	s->z = (s->z + ((ibits >> 1) & 3)) & 3;
	return s->z;
}

unsigned int smdsp_v34_trellis_u0(const struct smdsp_v34_trellis *s, unsigned int c0, unsigned int v0)
{
	return (s->state ^ c0 ^ v0) & 1;
}

void smdsp_v34_trellis_advance(struct smdsp_v34_trellis *s, unsigned int l0, unsigned int l1)
{
	s->state = smdsp_v34_trellis_next(s->states, s->state, smdsp_v34_subset4(l0, l1));
}

unsigned int smdsp_v34_trellis_state(const struct smdsp_v34_trellis *s)
{
	return s->state;
}

unsigned int smdsp_v34_trellis_z(const struct smdsp_v34_trellis *s)
{
	return s->z;
}

/* -- the Viterbi decoder ------------------------------------------------------------------------ */

/*
 * The groups of parallel transitions: Y1-Y4 values with the same next state
 * from state 0, which the decoder's add-compare-select takes as one branch.
 * The codes of Figures 10-12 are built so (the next state's dependence on
 * Y1-Y4 is linear where it matters): the same groups from every state, and
 * every state the next of as many states as there are groups. False if not.
 */
static bool viterbi_groups(struct smdsp_v34_viterbi *s)
{
	/* no arrays here: the data mode's start (its configure) runs this on the receive path's stack */
	unsigned int st, y, y2, g, j, n = 0;
	bool ok = true;

	for (y = 0; y < 16; y++) {
		for (g = 0; g < n; g++)
			if (s->next[0][s->group_y[g][0]] == s->next[0][y])
				break;
		if (g == n)
			n++;
		for (y2 = 0, j = 0; y2 < y; y2++)
			j += s->next[0][y2] == s->next[0][y];
		s->group_y[g][j] = (uint8_t)y;
	}
	for (y = 0; y < 16; y++) {
		for (y2 = 0, j = 0; y2 < 16; y2++)
			j += s->next[0][y2] == s->next[0][y];
		ok &= j * n == 16;
	}
	for (st = 0; st < s->states; st++)
		for (y = 0; y < 16; y++)
			for (y2 = 0; y2 < 16; y2++)
				ok &= (s->next[st][y] == s->next[st][y2]) == (s->next[0][y] == s->next[0][y2]);
	s->groups = n;
	s->group_len = 16 / n;
	/* states x groups branches, none with more than groups: each exactly so many */
	for (st = 0; ok && st < s->states; st++) {
		for (g = 0; ok && g < n; g++) {
			unsigned int ns = s->next[st][s->group_y[g][0]];

			ok = s->npred[ns] < n;
			if (ok) {
				s->pred[ns][s->npred[ns]] = (uint8_t)st;
				s->pred_g[ns][s->npred[ns]++] = (uint8_t)g;
			}
		}
	}
	return ok;
}

int smdsp_v34_viterbi_init(struct smdsp_v34_viterbi *s, unsigned int states)
{
	unsigned int st, y, l;

	memset(s, 0, sizeof(*s));
	if (!states_ok(states))
		return -EINVAL;
	s->states = states;
	for (st = 0; st < states; st++)
		for (y = 0; y < 16; y++)
			s->next[st][y] = (uint8_t)smdsp_v34_trellis_next(states, st, y);
	if (!viterbi_groups(s))
		return -EINVAL;
	/* Table 13 holds each 4D subset four times, two of each Y0 (0xff: a place not taken yet) */
	memset(s->pairs, 0xff, sizeof(s->pairs));
	for (l = 0; l < 64; l++) {
		unsigned int y0 = smdsp_v34_y0(l >> 3, l & 7);
		uint8_t *p;

		y = smdsp_v34_subset4(l >> 3, l & 7);
		p = s->pairs[y0][y];
		p[p[0] != 0xff] = (uint8_t)l;
	}
	return 0;
}

struct smdsp_v34_viterbi *smdsp_v34_viterbi_create(unsigned int states)
{
	struct smdsp_v34_viterbi *s = smdsp_alloc(sizeof(*s));

	if (s && smdsp_v34_viterbi_init(s, states)) {
		smdsp_free(s);
		s = NULL;
	}
	return s;
}

void smdsp_v34_viterbi_free(struct smdsp_v34_viterbi *s)
{
	smdsp_free(s);
}

void smdsp_v34_viterbi_reset(struct smdsp_v34_viterbi *s)
{
	smdsp_v34_viterbi_init(s, s->states);
}

int smdsp_v34_viterbi_print(const struct smdsp_v34_viterbi *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_viterbi states=%u steps=%u", s->states, (unsigned int)s->steps);
}

/* v / 1024 rounded to the nearest integer, halves away from zero */
static int32_t round1024(int32_t v)
{
	return v >= 0 ? (v + 512) / 1024 : -((-v + 512) / 1024);
}

/* far beyond any point a precoder makes, within int16 decisions and int64 metrics */
#define RX_LIMIT (4000 << 7)

static int32_t clamp_rx(int32_t v)
{
	return v > RX_LIMIT ? RX_LIMIT : v < -RX_LIMIT ? -RX_LIMIT : v;
}

/*
 * The step's best new metric is the least over the states of their metric
 * and their Y0's best subset; with V0 inverted each state would take the
 * other Y0's. Only the best of each parity of state counts for either.
 */
static void v34_margin(struct smdsp_v34_viterbi *s, unsigned int v0)
{
	int64_t p[2] = { s->metric[0], s->metric[1] }, b[2], as, alt, m;
	unsigned int st, g, k;

	/* the metrics and the subsets' are never negative (every subset has its pairs) */
	for (st = 2; st < s->states; st++) {
		m = s->metric[st];
		p[st & 1] = m < p[st & 1] ? m : p[st & 1];
	}
	for (k = 0; k < 2; k++) {
		b[k] = s->gm[k][0];
		for (g = 1; g < s->groups; g++)
			b[k] = s->gm[k][g] < b[k] ? s->gm[k][g] : b[k];
	}
	/* a state of parity q takes subsets of Y0 q ^ v0 */
	as = p[0] + b[v0 & 1];
	m = p[1] + b[(v0 & 1) ^ 1];
	as = m < as ? m : as;
	alt = p[0] + b[(v0 & 1) ^ 1];
	m = p[1] + b[v0 & 1];
	alt = m < alt ? m : alt;
	m = alt - as;
	s->margin = m > 0x7fffffff ? 0x7fffffff : m < -0x7fffffff ? -0x7fffffff : (int32_t)m;
}

int32_t smdsp_v34_viterbi_margin(const struct smdsp_v34_viterbi *s)
{
	return s->margin;
}

int smdsp_v34_viterbi_step(struct smdsp_v34_viterbi *s, const int32_t rx[4], unsigned int v0, int out[4])
{
	int64_t (*d)[8] = s->d, (*bm)[16] = s->bm, *best = s->best, low;
	uint8_t (*bp)[16] = s->bp;
	unsigned int k, l, st, y, pos = s->pos, n = s->states, bst = 0, idx;

	for (k = 0; k < 2; k++) {
		int32_t px = clamp_rx(rx[2 * k]), py = clamp_rx(rx[2 * k + 1]);

		for (l = 0; l < 8; l++) {
			int32_t dx = px - label_rep[l][0] * 128, dy = py - label_rep[l][1] * 128;
			int32_t a = round1024(dx + dy), b = round1024(dx - dy);
			int32_t nx = label_rep[l][0] + 4 * (a + b), ny = label_rep[l][1] + 4 * (a - b);
			int64_t ex = px - nx * 128, ey = py - ny * 128;

			d[k][l] = ex * ex + ey * ey;
			s->near[pos][k][l][0] = (int16_t)nx;
			s->near[pos][k][l][1] = (int16_t)ny;
		}
	}
	/* each 4D subset's better label pair (the smaller pair on a tie), by Y0 */
	for (k = 0; k < 2; k++) {
		for (y = 0; y < 16; y++) {
			unsigned int la = s->pairs[k][y][0], lb = s->pairs[k][y][1];
			int64_t ma = d[0][la >> 3] + d[1][la & 7], mb = d[0][lb >> 3] + d[1][lb & 7];

			bm[k][y] = mb < ma ? mb : ma;
			bp[k][y] = (uint8_t)(mb < ma ? lb : la);
		}
	}
	/*
	 * each group of parallel subsets' best (the first in its order on a
	 * tie): every state's branches into one next state take the same group
	 */
	for (k = 0; k < 2; k++) {
		for (l = 0; l < s->groups; l++) {
			const uint8_t *gy = s->group_y[l];
			unsigned int j, b = gy[0];

			for (j = 1; j < s->group_len; j++)
				b = bm[k][gy[j]] < bm[k][b] ? gy[j] : b;
			s->gm[k][l] = bm[k][b];
			s->gp[k][l] = bp[k][b];
		}
	}
	v34_margin(s, v0);
	/*
	 * each next state's survivor: the best of its predecessors (as many as
	 * groups, viterbi_groups()) by their groups, the first in increasing
	 * order on a tie (as over every branch)
	 */
	for (st = 0; st < n; st++) {
		const uint8_t *ps = s->pred[st], *pg = s->pred_g[st];
		unsigned int j, b = 0;
		int64_t m, bmin = s->metric[ps[0]] + s->gm[(ps[0] ^ v0) & 1][pg[0]];

		for (j = 1; j < s->npred[st]; j++) {
			m = s->metric[ps[j]] + s->gm[(ps[j] ^ v0) & 1][pg[j]];
			b = m < bmin ? j : b;
			bmin = m < bmin ? m : bmin;
		}
		best[st] = bmin;
		s->prev[pos][st] = ps[b];
		s->pair[pos][st] = s->gp[(ps[b] ^ v0) & 1][pg[b]];
	}
	low = best[0];
	for (st = 1; st < n; st++) {
		if (best[st] < low) {
			low = best[st];
			bst = st;
		}
	}
	for (st = 0; st < n; st++)
		s->metric[st] = best[st] - low;
	s->steps++;
	s->pos = (pos + 1) % SMDSP_V34_VITERBI_DEPTH;
	if (s->filled < SMDSP_V34_VITERBI_DEPTH)
		s->filled++;
	if (s->filled < SMDSP_V34_VITERBI_DEPTH)
		return 0;
	/* back along the best path to the oldest step kept */
	st = bst;
	idx = pos;
	for (k = 0; k < SMDSP_V34_VITERBI_DEPTH - 1; k++) {
		st = s->prev[idx][st];
		idx = (idx + SMDSP_V34_VITERBI_DEPTH - 1) % SMDSP_V34_VITERBI_DEPTH;
	}
	l = s->pair[idx][st];
	out[0] = s->near[idx][0][l >> 3][0];
	out[1] = s->near[idx][0][l >> 3][1];
	out[2] = s->near[idx][1][l & 7][0];
	out[3] = s->near[idx][1][l & 7][1];
	return 1;
}
