// SPDX-License-Identifier: GPL-2.0
/*
 * The V.34 shell mapper (dsp/v34_shell.c) against the recommendation's
 * definitions (9.3-9.4):
 * - g2, g4, g8 and z8 against counts of ring combinations by brute force;
 * - the ordering: every 8-tuple of rings sorted by the rule (total cost, then
 *   the first half's cost, then the second half's index, then the first
 *   half's; inside a half the first pair's cost, then the second pair's
 *   index, then the first pair's; a pair by its first ring), written here as
 *   a comparator, against map() for every R0 with M = 2, 3, 4;
 * - map/unmap round trips, exhaustive for small M, sampled for large M;
 * - the shaping: ring i used no less often than ring i + 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34_shell.h>
#include "tutil.h"

static unsigned int cmp_m;

static int pair_key(const uint8_t *r)
{
	return r[0];
}

/* negative, 0, positive: a before, same as, after b in the recommendation's order */
static int cmp_half(const uint8_t *a, const uint8_t *b)
{
	int ca = a[0] + a[1], cb = b[0] + b[1];

	if (ca != cb)
		return ca - cb;
	if (pair_key(a + 2) != pair_key(b + 2))
		return pair_key(a + 2) - pair_key(b + 2);
	return pair_key(a) - pair_key(b);
}

static int cmp_tuple(const void *pa, const void *pb)
{
	const uint8_t *a = pa, *b = pb;
	int i, sa = 0, sb = 0, ha = 0, hb = 0, c;

	for (i = 0; i < 8; i++) {
		sa += a[i];
		sb += b[i];
		if (i < 4) {
			ha += a[i];
			hb += b[i];
		}
	}
	if (sa != sb)
		return sa - sb;
	if (ha != hb)
		return ha - hb;
	c = cmp_half(a + 4, b + 4);
	if (c)
		return c;
	return cmp_half(a, b);
}

static uint64_t ipow(uint64_t b, unsigned int e)
{
	uint64_t r = 1;

	while (e--)
		r *= b;
	return r;
}

static void test_counts(void)
{
	unsigned int m, p;

	for (m = 1; m <= 18; m++) {
		struct smdsp_v34_shell *s = smdsp_v34_shell_create(m, 0);
		uint64_t g2[40] = { 0 }, g4[80] = { 0 }, sum8 = 0;
		unsigned int a, b, c, d, bad = 0;

		CHECK(s != NULL, "M %u", m);
		if (!s)
			continue;
		for (a = 0; a < m; a++)
			for (b = 0; b < m; b++) {
				g2[a + b]++;
				for (c = 0; c < m; c++)
					for (d = 0; d < m; d++)
						g4[a + b + c + d]++;
			}
		for (p = 0; p < 80; p++) {
			if (smdsp_v34_shell_g(s, 2, p) != (p < 40 ? g2[p] : 0))
				bad++;
			if (smdsp_v34_shell_g(s, 4, p) != g4[p])
				bad++;
		}
		/* g8 by brute force where M^8 allows, else by the definition g8 = g4 * g4 */
		if (m <= 6) {
			static uint64_t g8[41];
			uint64_t n = ipow(m, 8), t;

			memset(g8, 0, sizeof(g8));
			for (t = 0; t < n; t++) {
				uint64_t v = t;
				unsigned int cost = 0, i;

				for (i = 0; i < 8; i++) {
					cost += (unsigned int)(v % m);
					v /= m;
				}
				g8[cost]++;
			}
			for (p = 0; p <= 40; p++)
				if (smdsp_v34_shell_g(s, 8, p) != g8[p])
					bad++;
		} else {
			for (p = 0; p <= 8 * (m - 1); p++) {
				uint64_t v = 0;

				for (a = 0; a <= p; a++)
					v += (a < 80 ? g4[a] : 0) * (p - a < 80 ? g4[p - a] : 0);
				if (smdsp_v34_shell_g(s, 8, p) != v)
					bad++;
			}
		}
		for (p = 0; p <= 8 * (m - 1); p++) {
			if (smdsp_v34_shell_z8(s, p) != sum8)
				bad++;
			sum8 += smdsp_v34_shell_g(s, 8, p);
		}
		CHECK(bad == 0 && sum8 == ipow(m, 8) && smdsp_v34_shell_z8(s, 8 * (m - 1) + 1) == sum8,
		      "M %u: %u wrong coefficients, %llu combinations", m, bad, (unsigned long long)sum8);
		smdsp_v34_shell_free(s);
	}
}

/* every R0 against the rule's order of all M^8 combinations */
static void test_order(unsigned int m, unsigned int k)
{
	struct smdsp_v34_shell *s = smdsp_v34_shell_create(m, k);
	uint64_t n = ipow(m, 8), t, used = 1ULL << k;
	uint8_t *all = malloc(n * 8), ring[8];
	unsigned int bad_map = 0, bad_unmap = 0, bad_unused = 0;

	CHECK(s && all);
	if (!s || !all)
		return;
	for (t = 0; t < n; t++) {
		uint64_t v = t;
		unsigned int i;

		for (i = 0; i < 8; i++) {
			all[t * 8 + i] = (uint8_t)(v % m);
			v /= m;
		}
	}
	cmp_m = m;
	qsort(all, n, 8, cmp_tuple);
	for (t = 0; t < n; t++) {
		int64_t back = smdsp_v34_shell_unmap(s, all + t * 8);

		if (t < used) {
			if (smdsp_v34_shell_map(s, (uint32_t)t, ring) || memcmp(ring, all + t * 8, 8))
				bad_map++;
			if (back != (int64_t)t)
				bad_unmap++;
		} else if (back != -EINVAL) {
			bad_unused++;
		}
	}
	printf("order M %u K %u: %llu of %llu combinations used; %u map, %u unmap, %u unused wrong\n", m, k,
	       (unsigned long long)used, (unsigned long long)n, bad_map, bad_unmap, bad_unused);
	CHECK(bad_map == 0 && bad_unmap == 0 && bad_unused == 0, "M %u K %u", m, k);
	CHECK(smdsp_v34_shell_map(s, (uint32_t)used, ring) == -EINVAL || used > 0xffffffffULL);
	free(all);
	smdsp_v34_shell_free(s);
}

/* round trips and ring use: every R0 up to 2^20, a sample beyond */
static void test_round_trip(unsigned int m, unsigned int k)
{
	struct smdsp_v34_shell *s = smdsp_v34_shell_create(m, k);
	uint64_t n = 1ULL << k, t, step = n > (1u << 20) ? n / 200000 : 1, seed = m * 1000 + k, uses[18] = { 0 };
	unsigned int bad = 0, checked = 0, decreasing = 1, i, last_cost = 0, cost_order = 0;
	uint8_t ring[8];

	CHECK(s != NULL, "M %u K %u", m, k);
	if (!s)
		return;
	for (t = 0; t < n; t += step) {
		/* sampled: a random R0 in each step, the ends always */
		uint32_t r0 = (uint32_t)(step > 1 ? t + t_rand64(&seed) % step : t);
		unsigned int cost = 0;

		if (t + step >= n)
			r0 = (uint32_t)(n - 1);
		if (smdsp_v34_shell_map(s, r0, ring)) {
			bad++;
			continue;
		}
		for (i = 0; i < 8; i++) {
			if (ring[i] >= m)
				bad++;
			else
				uses[ring[i]]++;
			cost += ring[i];
		}
		/* R0 in increasing order: the total cost never falls */
		if (cost < last_cost)
			cost_order++;
		last_cost = cost;
		if (smdsp_v34_shell_unmap(s, ring) != (int64_t)r0)
			bad++;
		checked++;
	}
	for (i = 0; i + 1 < m; i++) {
		/* exhaustive: exact; sampled: within 4 standard deviations */
		double slack = step > 1 ? 4 * sqrt((double)uses[i + 1]) : 0;

		if ((double)uses[i] + slack < (double)uses[i + 1])
			decreasing = 0;
	}
	printf("round trip M %2u K %2u: %u R0 %s, %u wrong, cost order %u wrong; ring use", m, k, checked,
	       step > 1 ? "sampled" : "(all)", bad, cost_order);
	for (i = 0; i < m; i++)
		printf(" %.4f", (double)uses[i] / (8.0 * checked));
	printf("\n");
	CHECK(bad == 0 && cost_order == 0, "M %u K %u", m, k);
	/* all M^8 combinations used: every ring equally often; fewer: the inner ones more */
	CHECK(decreasing && (m == 1 || n == ipow(m, 8) ? uses[0] == uses[m - 1] : uses[0] > uses[m - 1]),
	      "M %u K %u: ring use does not fall", m, k);
	smdsp_v34_shell_free(s);
}

static void test_refusals(void)
{
	struct smdsp_v34_shell *s = smdsp_v34_shell_create(3, 12);
	uint8_t ring[8] = { 0 };

	CHECK(!smdsp_v34_shell_create(0, 0) && !smdsp_v34_shell_create(19, 8) && !smdsp_v34_shell_create(18, 32));
	CHECK(!smdsp_v34_shell_create(2, 9) && smdsp_v34_shell_create(2, 8) != NULL);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(smdsp_v34_shell_map(s, 4096, ring) == -EINVAL && smdsp_v34_shell_map(s, 0xffffffffu, ring) == -EINVAL);
	CHECK(smdsp_v34_shell_map(s, 0, ring) == 0 && !memcmp(ring, "\0\0\0\0\0\0\0\0", 8));
	ring[3] = 3;
	CHECK(smdsp_v34_shell_unmap(s, ring) == -EINVAL);
	/* the costliest combination is not among the 4096 used */
	memset(ring, 2, 8);
	CHECK(smdsp_v34_shell_unmap(s, ring) == -EINVAL);
	smdsp_v34_shell_free(s);
}

int main(void)
{
	static const unsigned int cfg[][2] = {
		{ 1, 0 }, { 2, 4 }, { 2, 8 }, { 3, 10 }, { 4, 12 }, { 5, 18 }, { 6, 20 }, { 7, 20 },
		{ 8, 23 }, { 11, 27 }, { 12, 28 }, { 14, 28 }, { 16, 31 }, { 18, 31 },
	};
	unsigned int i;

	test_counts();
	test_order(2, 8);
	test_order(3, 12);
	test_order(4, 16);
	test_order(4, 13);
	for (i = 0; i < SMDSP_ARRAY_SIZE(cfg); i++)
		test_round_trip(cfg[i][0], cfg[i][1]);
	test_refusals();
	return t_report("test_v34_shell");
}
