// SPDX-License-Identifier: GPL-2.0
/*
 * Goertzel detector. The state grows to N times the input amplitude, so the
 * recursion runs in 32 bits with a 64-bit product; blocks up to a few
 * thousand samples of full-scale input cannot overflow.
 */
#include <smdsp/private/goertzel.h>

void smdsp_goertzel_init(struct smdsp_goertzel *g, int32_t freq_mhz)
{
	/* cos() in Q15 is 2 cos() in Q14 */
	g->coef = smdsp_cos(smdsp_phase_rate(freq_mhz, SMDSP_RATE));
	g->s1 = 0;
	g->s2 = 0;
}

struct smdsp_goertzel *smdsp_goertzel_create(int32_t freq_mhz)
{
	struct smdsp_goertzel *g = smdsp_alloc(sizeof(*g));

	if (g)
		smdsp_goertzel_init(g, freq_mhz);
	return g;
}

void smdsp_goertzel_free(struct smdsp_goertzel *g)
{
	smdsp_free(g);
}

void smdsp_goertzel_process(struct smdsp_goertzel *g, const int16_t *x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		smdsp_goertzel_sample(g, x[i]);
}

uint64_t smdsp_goertzel_result(struct smdsp_goertzel *g)
{
	int64_t s1 = g->s1;
	int64_t s2 = g->s2;
	int64_t e = s1 * s1 + s2 * s2 - ((g->coef * s1 >> 7) * s2 >> 7);

	g->s1 = 0;
	g->s2 = 0;
	return e < 0 ? 0 : (uint64_t)e;
}

void smdsp_goertzel_reset(struct smdsp_goertzel *g)
{
	g->s1 = 0;
	g->s2 = 0;
}

int smdsp_goertzel_print(const struct smdsp_goertzel *g, char *buf, size_t len)
{
	return snprintf(buf, len, "goertzel coef=%d s1=%d s2=%d", g->coef, g->s1, g->s2);
}
