// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 shell mapper and its inverse (9.3-9.4).
 *
 * The constellation of a data frame is split into M rings of equal size,
 * ring 0 the innermost, and a mapping frame's eight 2D symbols each take a
 * ring. Of the M^8 ring combinations the shell mapper uses the 2^K of lowest
 * total "cost" (the sum of the ring indices), which is what gives V.34 its
 * shaping gain: inner rings are used more often than outer ones.
 *
 * The combinations are counted by generating functions: g2(z) = 1 + z + ... +
 * z^(M-1) counts the pairs of rings by cost, g4 = g2^2 the quadruples, g8 =
 * g4^2 the octuples, and z8(p) the octuples costing less than p. Their
 * coefficients are computed at create into tables (the largest, z8 for
 * M = 18, reaches 18^8, hence 64 bits); mapping needs nothing else.
 *
 * R0, the K shell bits as an integer, is taken apart as the recommendation
 * does: the total cost A is the largest with z8(A) <= R0; the first half's
 * cost B the largest for which the combinations of cost A with a cheaper
 * first half still do not exceed what is left; what is left then is split
 * between the halves, the first half's index varying fastest (R mod g4(B));
 * each half likewise into two quarters (pairs of rings); a pair of cost C with
 * index i is (i, C - i) if C < M, else (C - M + 1 + i, M - 1 - i). Unmapping
 * adds the same terms back up.
 */
#include <smdsp/private/v34_shell.h>

static uint32_t g2_at(const struct smdsp_v34_shell *s, unsigned int p)
{
	return p <= 2 * (s->m - 1) ? s->g2[p] : 0;
}

static uint32_t g4_at(const struct smdsp_v34_shell *s, unsigned int p)
{
	return p <= 4 * (s->m - 1) ? s->g4[p] : 0;
}

int smdsp_v34_shell_init(struct smdsp_v34_shell *s, unsigned int m, unsigned int k)
{
	unsigned int p, q;

	memset(s, 0, sizeof(*s));
	if (m < 1 || m > SMDSP_V34_SHELL_MAX_M || k > SMDSP_V34_SHELL_MAX_K)
		return -EINVAL;
	s->m = m;
	s->k = k;
	for (p = 0; p <= 2 * (m - 1); p++)
		s->g2[p] = p < m ? p + 1 : 2 * m - 1 - p;
	for (p = 0; p <= 4 * (m - 1); p++)
		for (q = 0; q <= p; q++)
			s->g4[p] += g2_at(s, q) * g2_at(s, p - q);
	for (p = 0; p <= 8 * (m - 1); p++)
		for (q = 0; q <= p; q++)
			s->g8[p] += g4_at(s, q) * g4_at(s, p - q);
	for (p = 1; p <= 8 * (m - 1) + 1; p++)
		s->z8[p] = s->z8[p - 1] + s->g8[p - 1];
	/* all M^8 combinations: 2^K of them must exist */
	if ((1ULL << k) > s->z8[8 * (m - 1) + 1])
		return -EINVAL;
	return 0;
}

struct smdsp_v34_shell *smdsp_v34_shell_create(unsigned int m, unsigned int k)
{
	struct smdsp_v34_shell *s = smdsp_alloc(sizeof(*s));

	if (s && smdsp_v34_shell_init(s, m, k)) {
		smdsp_free(s);
		s = NULL;
	}
	return s;
}

void smdsp_v34_shell_free(struct smdsp_v34_shell *s)
{
	smdsp_free(s);
}

void smdsp_v34_shell_reset(struct smdsp_v34_shell *s)
{
	(void)s;
}

int smdsp_v34_shell_print(const struct smdsp_v34_shell *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_shell M=%u K=%u combinations=%llu", s->m, s->k,
			(unsigned long long)s->z8[8 * (s->m - 1) + 1]);
}

uint64_t smdsp_v34_shell_g(const struct smdsp_v34_shell *s, unsigned int order, unsigned int p)
{
	switch (order) {
	case 2:
		return g2_at(s, p);
	case 4:
		return g4_at(s, p);
	case 8:
		return p <= 8 * (s->m - 1) ? s->g8[p] : 0;
	default:
		return 0;
	}
}

uint64_t smdsp_v34_shell_z8(const struct smdsp_v34_shell *s, unsigned int p)
{
	return p <= 8 * (s->m - 1) + 1 ? s->z8[p] : s->z8[8 * (s->m - 1) + 1];
}

/* a pair of rings of cost c, the i-th of them */
static void pair(const struct smdsp_v34_shell *s, unsigned int c, uint32_t i, uint8_t *ring)
{
	if (c < s->m) {
		ring[0] = (uint8_t)i;
		ring[1] = (uint8_t)(c - i);
	} else {
		ring[0] = (uint8_t)(c - s->m + 1 + i);
		ring[1] = (uint8_t)(s->m - 1 - i);
	}
}

/* four rings of cost c, the r-th of them */
static void quad(const struct smdsp_v34_shell *s, unsigned int c, uint32_t r, uint8_t *ring)
{
	unsigned int first = 0;
	uint32_t t;

	/* the first pair's cost: the largest whose cheaper-first combinations fit in r */
	while ((t = g2_at(s, first) * g2_at(s, c - first)) <= r) {
		r -= t;
		first++;
	}
	pair(s, first, r % g2_at(s, first), ring);
	pair(s, c - first, r / g2_at(s, first), ring + 2);
}

int smdsp_v34_shell_map(const struct smdsp_v34_shell *s, uint32_t r0,
			uint8_t ring[SMDSP_V34_SHELL_RINGS])
{
	unsigned int lo = 0, hi = 8 * (s->m - 1), a, b = 0;
	uint32_t r, t;

	if ((uint64_t)r0 >= (1ULL << s->k))
		return -EINVAL;
	/* the total cost: the largest A with z8(A) <= R0 (z8 only grows) */
	while (lo < hi) {
		unsigned int mid = (lo + hi + 1) / 2;

		if (s->z8[mid] <= r0)
			lo = mid;
		else
			hi = mid - 1;
	}
	a = lo;
	r = (uint32_t)(r0 - s->z8[a]);
	/* the first half's cost */
	while ((t = g4_at(s, b) * g4_at(s, a - b)) <= r) {
		r -= t;
		b++;
	}
	quad(s, b, r % g4_at(s, b), ring);
	quad(s, a - b, r / g4_at(s, b), ring + 4);
	return 0;
}

static uint32_t pair_index(const struct smdsp_v34_shell *s, const uint8_t *ring)
{
	unsigned int c = ring[0] + ring[1];

	return c < s->m ? ring[0] : s->m - 1 - ring[1];
}

static uint64_t quad_index(const struct smdsp_v34_shell *s, const uint8_t *ring)
{
	unsigned int c1 = ring[0] + ring[1], c = c1 + ring[2] + ring[3], p;
	uint64_t r = 0;

	for (p = 0; p < c1; p++)
		r += (uint64_t)g2_at(s, p) * g2_at(s, c - p);
	return r + pair_index(s, ring) + (uint64_t)g2_at(s, c1) * pair_index(s, ring + 2);
}

int64_t smdsp_v34_shell_unmap(const struct smdsp_v34_shell *s,
			      const uint8_t ring[SMDSP_V34_SHELL_RINGS])
{
	unsigned int i, a = 0, b = 0, p;
	uint64_t r;

	for (i = 0; i < SMDSP_V34_SHELL_RINGS; i++) {
		if (ring[i] >= s->m)
			return -EINVAL;
		a += ring[i];
		if (i < 4)
			b += ring[i];
	}
	r = s->z8[a];
	for (p = 0; p < b; p++)
		r += (uint64_t)g4_at(s, p) * g4_at(s, a - p);
	r += quad_index(s, ring) + (uint64_t)g4_at(s, b) * quad_index(s, ring + 4);
	if (r >= (1ULL << s->k))
		return -EINVAL;
	return (int64_t)r;
}
