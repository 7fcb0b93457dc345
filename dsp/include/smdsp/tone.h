/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NCO and cadenced dual-tone generator (dial tones, DTMF, answer tones).
 */
#ifndef SMDSP_TONE_H
#define SMDSP_TONE_H

#include <smdsp/fixmath.h>

struct smdsp_nco {
	uint32_t phase;
	uint32_t rate;
};

static inline void smdsp_nco_init(struct smdsp_nco *o, int32_t freq_mhz)
{
	o->phase = 0;
	o->rate = smdsp_phase_rate(freq_mhz, SMDSP_RATE);
}

/* Returns sin of the current phase (Q15), then advances. */
static inline int16_t smdsp_nco_step(struct smdsp_nco *o)
{
	int16_t v = smdsp_sin(o->phase);

	o->phase += o->rate;
	return v;
}

/* Complex exponential e^{j phase} (Q15 each), then advances. */
static inline void smdsp_nco_step_cplx(struct smdsp_nco *o, int16_t *re, int16_t *im)
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

struct smdsp_tonegen {
	struct smdsp_tone_desc d;
	struct smdsp_nco osc[2];
	struct smdsp_nco am;
	int32_t amp[2];
	uint32_t on_samples;
	uint32_t off_samples;
	uint32_t rev_samples;
	uint32_t pos;		/* sample within the current cycle */
	uint32_t rev_pos;
	uint32_t cycle;
	bool done;
};

void smdsp_tonegen_init(struct smdsp_tonegen *g, const struct smdsp_tone_desc *d);
struct smdsp_tonegen *smdsp_tonegen_create(const struct smdsp_tone_desc *d);
void smdsp_tonegen_free(struct smdsp_tonegen *g);
/*
 * Writes n samples (silence once the cadence has finished). Returns the
 * number of samples that carried tone or cadence gaps, i.e. n while active,
 * less when the tone ends inside the buffer.
 */
unsigned int smdsp_tonegen_process(struct smdsp_tonegen *g, int16_t *out, unsigned int n);
bool smdsp_tonegen_done(const struct smdsp_tonegen *g);

#endif /* SMDSP_TONE_H */
