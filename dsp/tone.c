// SPDX-License-Identifier: GPL-2.0
/*
 * Cadenced dual-tone generator with optional amplitude modulation and
 * periodic phase reversals, so that one block makes dial/busy tones, DTMF
 * digits and the V.25/V.8 answer tones (ANS, ANS/PR, ANSam, ANSam/PR).
 */
#include <smdsp/private/tone.h>

#define MS_TO_SAMPLES(ms) ((uint32_t)(ms) * (SMDSP_RATE / 1000))

void smdsp_tone_init(struct smdsp_tone *g, const struct smdsp_tone_desc *d)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->d = *d;
	for (i = 0; i < 2; i++) {
		smdsp_tone_nco_init(&g->osc[i], d->freq_mhz[i]);
		g->amp[i] = d->freq_mhz[i] ? smdsp_dbm0_to_amp(d->level_dbm0_10[i]) : 0;
		if (d->am_freq_mhz) {
			/* keep the peaks of the modulated tone inside the range */
			g->amp[i] = (int32_t)(((int64_t)g->amp[i] * 32768) /
					      (32768 + d->am_depth_q15));
		}
	}
	smdsp_tone_nco_init(&g->am, d->am_freq_mhz);
	g->on_samples = MS_TO_SAMPLES(d->on_ms);
	g->off_samples = MS_TO_SAMPLES(d->off_ms);
	g->rev_samples = MS_TO_SAMPLES(d->reversal_ms);
	g->done = d->on_ms == 0;
}

struct smdsp_tone *smdsp_tone_create(const struct smdsp_tone_desc *d)
{
	struct smdsp_tone *g = smdsp_alloc(sizeof(*g));

	if (g)
		smdsp_tone_init(g, d);
	return g;
}

void smdsp_tone_free(struct smdsp_tone *g)
{
	smdsp_free(g);
}

bool smdsp_tone_done(const struct smdsp_tone *g)
{
	return g->done;
}

static int16_t tone_sample(struct smdsp_tone *g)
{
	int32_t v = 0;
	int i;

	for (i = 0; i < 2; i++) {
		if (g->amp[i])
			v += (g->amp[i] * (int32_t)smdsp_sin(g->osc[i].phase)) >> 15;
		g->osc[i].phase += g->osc[i].rate;
	}
	if (g->d.am_freq_mhz) {
		int32_t m = 32768 + ((g->d.am_depth_q15 * (int32_t)smdsp_tone_nco_step(&g->am)) >> 15);

		v = (v * m) >> 15;
	}
	if (g->rev_samples && ++g->rev_pos >= g->rev_samples) {
		g->rev_pos = 0;
		g->osc[0].phase += 0x80000000u;
		g->osc[1].phase += 0x80000000u;
	}
	return smdsp_sat16(v);
}

unsigned int smdsp_tone_process(struct smdsp_tone *g, int16_t *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && !g->done; i++) {
		out[i] = g->pos < g->on_samples ? tone_sample(g) : 0;
		if (++g->pos >= g->on_samples + g->off_samples) {
			g->pos = 0;
			if (g->d.cycles && ++g->cycle >= g->d.cycles)
				g->done = true;
		}
	}
	memset(out + i, 0, (n - i) * sizeof(*out));
	return i;
}

void smdsp_tone_reset(struct smdsp_tone *g)
{
	struct smdsp_tone_desc d = g->d;

	smdsp_tone_init(g, &d);
}

int smdsp_tone_print(const struct smdsp_tone *g, char *buf, size_t len)
{
	return snprintf(buf, len, "tone f=%d,%d mHz on=%u off=%u ms cycle=%u pos=%u done=%d",
			g->d.freq_mhz[0], g->d.freq_mhz[1], g->d.on_ms, g->d.off_ms,
			g->cycle, g->pos, g->done);
}
