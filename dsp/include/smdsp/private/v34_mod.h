/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v34_mod.h> (v34_mod.c,
 * v34_demod.c) and the pulse they share.
 */
#ifndef SMDSP_PRIVATE_V34_MOD_H
#define SMDSP_PRIVATE_V34_MOD_H

#include <smdsp/v34_mod.h>

#define SMDSP_V34_PULSE_STEP 64		/* ticks between pulse table entries: 280 a symbol */
#define SMDSP_V34_PULSE_PER_SYM (SMDSP_V34_TICKS / SMDSP_V34_PULSE_STEP)
#define SMDSP_V34_HALF (SMDSP_V34_PULSE_SYMS / 2 * SMDSP_V34_TICKS)	/* half the span, ticks */
/* the pulse from its centre out, Q14, and one 0 beyond its end */
#define SMDSP_V34_PULSE_LEN (SMDSP_V34_HALF / SMDSP_V34_PULSE_STEP + 2)
#define SMDSP_V34_RING 128		/* demodulator history, > the span's samples (68 at 3429) */

/* Fills tab[SMDSP_V34_PULSE_LEN] with the pulse (integer arithmetic only). */
void smdsp_v34_pulse_init(int16_t *tab);

/* The pulse t ticks from its centre (|t| < SMDSP_V34_HALF), Q14, interpolated. */
static inline int32_t smdsp_v34_pulse_at(const int16_t *tab, int32_t t)
{
	uint32_t a = (uint32_t)(t < 0 ? -t : t);
	uint32_t i = a / SMDSP_V34_PULSE_STEP, f = a % SMDSP_V34_PULSE_STEP;

	return tab[i] + (((tab[i + 1] - tab[i]) * (int32_t)f) >> 6);
}

struct smdsp_v34_mod {
	int16_t pulse[SMDSP_V34_PULSE_LEN];
	struct smdsp_cplx sym[2 * SMDSP_V34_PULSE_SYMS];	/* newest symbols, stored twice */
	unsigned int sym_pos;
	uint32_t acc;			/* ticks since the newest symbol began */
	uint32_t step;			/* ticks a sample */
	uint32_t phase, phase_step;	/* carrier */
	uint32_t symbols;
	smdsp_v34_get_sym_t get;
	void *user;
	enum smdsp_v34_symrate rate;
	bool high;
};

struct smdsp_v34_demod {
	int16_t pulse[SMDSP_V34_PULSE_LEN];
	int16_t ring_i[SMDSP_V34_RING], ring_q[SMDSP_V34_RING];	/* mixed-down samples */
	unsigned int pos;		/* the newest sample's slot */
	int32_t next_rel;		/* next output's instant less the newest sample's, ticks */
	uint32_t step;
	uint32_t phase, phase_step;
	uint32_t outputs;
	unsigned int per_symbol;
	enum smdsp_v34_symrate rate;
	bool high;
};

void smdsp_v34_mod_init(struct smdsp_v34_mod *s, enum smdsp_v34_symrate rate, bool high,
			smdsp_v34_get_sym_t get, void *user);
void smdsp_v34_demod_init(struct smdsp_v34_demod *s, enum smdsp_v34_symrate rate, bool high,
			  unsigned int per_symbol);

#endif /* SMDSP_PRIVATE_V34_MOD_H */
