// SPDX-License-Identifier: GPL-2.0
/*
 * V.32 / V.17 / V.32bis trellis encoder (see trellis.h).
 *
 * Differential encoding (V.17 Table 2): Y2Y1 = Q2Q1 + Y2Y1 of the previous
 * symbol, modulo 4. The convolutional encoder (V.17 Figure 3) keeps three
 * delay cells s0, s1, s2 and sends Y0 = s0; its next state is
 *   s0' = s1 ^ Y2 ^ (s0 & Y1)
 *   s1' = s2 ^ Y1 ^ Y2 ^ (s0 & s1) ^ (s0 & Y2)
 *   s2' = s0
 * (smdsp_trellis_next(), shared with the Viterbi decoder).
 */
#include <smdsp/private/trellis.h>

void smdsp_trellis_enc_init(struct smdsp_trellis_enc *e, unsigned int diff)
{
	e->diff = diff & 3;
	e->conv = 0;
}

unsigned int smdsp_trellis_encode(struct smdsp_trellis_enc *e, unsigned int q)
{
	unsigned int y0 = e->conv & 1;

	e->diff = (e->diff + q) & 3;
	e->conv = (uint8_t)smdsp_trellis_next(e->conv, e->diff);
	return ((q & ~3U) << 1) | ((unsigned int)e->diff << 1) | y0;
}

struct smdsp_trellis_enc *smdsp_trellis_enc_create(unsigned int diff)
{
	struct smdsp_trellis_enc *e = smdsp_alloc(sizeof(*e));

	if (e)
		smdsp_trellis_enc_init(e, diff);
	return e;
}

void smdsp_trellis_enc_free(struct smdsp_trellis_enc *e)
{
	smdsp_free(e);
}

void smdsp_trellis_enc_reset(struct smdsp_trellis_enc *e, unsigned int diff)
{
	smdsp_trellis_enc_init(e, diff);
}

int smdsp_trellis_enc_print(const struct smdsp_trellis_enc *e, char *buf, size_t len)
{
	return snprintf(buf, len, "trellis_enc diff=%u conv=%u", e->diff, e->conv);
}
