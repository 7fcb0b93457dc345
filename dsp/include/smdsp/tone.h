/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NCO and cadenced dual-tone generator (dial tones, DTMF, answer tones).
 */
#ifndef SMDSP_TONE_H
#define SMDSP_TONE_H

#include <smdsp/fixmath.h>

struct smdsp_tone_nco {
	uint32_t phase;
	uint32_t rate;
};

static inline void smdsp_tone_nco_init(struct smdsp_tone_nco *o, int32_t freq_mhz)
{
	o->phase = 0;
	o->rate = smdsp_phase_rate(freq_mhz, SMDSP_RATE);
}

/* Returns sin of the current phase (Q15), then advances. */
static inline int16_t smdsp_tone_nco_step(struct smdsp_tone_nco *o)
{
	int16_t v = smdsp_sin(o->phase);

	o->phase += o->rate;
	return v;
}

/* Complex exponential e^{j phase} (Q15 each), then advances. */
static inline void smdsp_tone_nco_step_cplx(struct smdsp_tone_nco *o, int16_t *re, int16_t *im)
{
	*re = smdsp_cos(o->phase);
	*im = smdsp_sin(o->phase);
	o->phase += o->rate;
}

struct smdsp_tone_desc {
	int32_t freq_mhz[2];		/* 0: component unused */
	int16_t level_dbm0_10[2];	/* per component, tenths of dBm0 */
	uint16_t on_ms;			/* 0: no tone at all */
	uint16_t off_ms;		/* 0: continuous while on_ms repeats */
	uint16_t cycles;		/* on/off cycles; 0 = forever */
	int32_t am_freq_mhz;		/* amplitude modulation (ANSam: 15 Hz) */
	uint16_t am_depth_q15;		/* modulation depth (ANSam: 0.2) */
	uint16_t reversal_ms;		/* phase reversal interval (ANS/PR: 450) */
};

struct smdsp_tone;

struct smdsp_tone *smdsp_tone_create(const struct smdsp_tone_desc *d);
void smdsp_tone_free(struct smdsp_tone *g);
/* The cadence from its start, same description. */
void smdsp_tone_reset(struct smdsp_tone *g);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_tone_print(const struct smdsp_tone *g, char *buf, size_t len);
/*
 * Writes n samples (silence once the cadence has finished). Returns the
 * number of samples that carried tone or cadence gaps, i.e. n while active,
 * less when the tone ends inside the buffer.
 */
unsigned int smdsp_tone_process(struct smdsp_tone *g, int16_t *out, unsigned int n);
bool smdsp_tone_done(const struct smdsp_tone *g);

#endif /* SMDSP_TONE_H */
