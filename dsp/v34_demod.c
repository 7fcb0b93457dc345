// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 demodulator for the six symbol rates at 8000 samples/s (the timing
 * unit of <smdsp/v34_mod.h>).
 *
 * Each sample is mixed down by the carrier (x e^(-jwt), kept in a ring of the
 * last 128). The output instants are kept in ticks relative to the newest
 * sample: every sample moves them a sample's ticks nearer, and an output is
 * made once the newest sample lies half the pulse's span past its instant.
 * It is the matched filter evaluated at that instant, an interpolating
 * filter at the same time: every sample within the span weighs in with the
 * pulse at its distance from the instant, read from the table 64 ticks
 * apart and interpolated linearly between entries (the pulse is smooth at
 * that step: 1/280 of a symbol, its error far below the pulse's own
 * intersymbol interference). So the instants can
 * sit anywhere, not only on samples or on fixed fractions of them, and a
 * timing loop moves them by any number of ticks (smdsp_v34_demod_adjust()).
 *
 * The sum over samples counts each symbol 8000/S times and the mixing halves
 * the amplitude, so the output is scaled by 2 S / 8000 (exactly: twice the
 * ticks a sample over the ticks a symbol): a symbol comes back with its
 * transmitted amplitude times the channel's gain.
 */
#include <smdsp/private/v34_mod.h>

void smdsp_v34_demod_init(struct smdsp_v34_demod *s, enum smdsp_v34_symrate rate, bool high,
			  unsigned int per_symbol)
{
	memset(s, 0, sizeof(*s));
	smdsp_v34_pulse_init(s->pulse);
	s->per_symbol = per_symbol == 2 ? 2 : 1;
	smdsp_v34_demod_set_rate(s, rate, high);
}

struct smdsp_v34_demod *smdsp_v34_demod_create(enum smdsp_v34_symrate rate, bool high,
					       unsigned int per_symbol)
{
	struct smdsp_v34_demod *s;

	if ((unsigned int)rate >= SMDSP_V34_SYMRATES || per_symbol < 1 || per_symbol > 2)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v34_demod_init(s, rate, high, per_symbol);
	return s;
}

void smdsp_v34_demod_free(struct smdsp_v34_demod *s)
{
	smdsp_free(s);
}

void smdsp_v34_demod_reset(struct smdsp_v34_demod *s)
{
	smdsp_v34_demod_set_rate(s, s->rate, s->high);
}

int smdsp_v34_demod_set_rate(struct smdsp_v34_demod *s, enum smdsp_v34_symrate rate, bool high)
{
	if ((unsigned int)rate >= SMDSP_V34_SYMRATES)
		return -EINVAL;
	memset(s->ring_i, 0, sizeof(s->ring_i));
	memset(s->ring_q, 0, sizeof(s->ring_q));
	s->pos = 0;
	s->outputs = 0;
	s->phase = 0;
	s->rate = rate;
	s->high = high;
	s->step = smdsp_v34_ticks_per_sample(rate);
	s->phase_step = smdsp_v34_carrier_step(rate, high);
	/* before the first sample the newest is sample -1, a sample before tick 0 */
	s->next_rel = SMDSP_V34_HALF + (int32_t)s->step;
	return 0;
}

int smdsp_v34_demod_print(const struct smdsp_v34_demod *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_demod %u baud carrier %u mHz per_symbol=%u outputs=%u next=%d",
			(smdsp_v34_symrate_mbaud(s->rate) + 500) / 1000, smdsp_v34_carrier_mhz(s->rate, s->high),
			s->per_symbol, s->outputs, s->next_rel);
}

void smdsp_v34_demod_adjust(struct smdsp_v34_demod *s, int32_t ticks)
{
	s->next_rel += ticks;
}

uint32_t smdsp_v34_demod_outputs(const struct smdsp_v34_demod *s)
{
	return s->outputs;
}

/* The matched filter at the instant next_rel ticks from the newest sample (next_rel <= -HALF). */
static void output(const struct smdsp_v34_demod *s, struct smdsp_cplx *y)
{
	int64_t re = 0, im = 0;
	/* the sample age a lies -a * step - next_rel ticks after the instant */
	uint32_t a = (uint32_t)(-s->next_rel - SMDSP_V34_HALF) / s->step + 1;
	int32_t t = -(int32_t)(a * s->step) - s->next_rel;

	for (; t > -SMDSP_V34_HALF; a++, t -= (int32_t)s->step) {
		unsigned int slot = (s->pos - a) & (SMDSP_V34_RING - 1);
		int32_t h = smdsp_v34_pulse_at(s->pulse, t);

		re += (int64_t)s->ring_i[slot] * h;
		im += (int64_t)s->ring_q[slot] * h;
	}
	/* Q14 pulse; times 2 step / 17920, and the output's fractional bits */
	re = smdsp_div_s64(re * s->step * (2 << SMDSP_V34_DEMOD_SHIFT), SMDSP_V34_TICKS << 14);
	im = smdsp_div_s64(im * s->step * (2 << SMDSP_V34_DEMOD_SHIFT), SMDSP_V34_TICKS << 14);
	y->re = smdsp_sat32(re);
	y->im = smdsp_sat32(im);
}

unsigned int smdsp_v34_demod_process(struct smdsp_v34_demod *s, const int16_t *x, unsigned int n,
				     struct smdsp_cplx *out, unsigned int max)
{
	const int32_t gap = SMDSP_V34_TICKS / (int32_t)s->per_symbol;
	unsigned int i, got = 0;

	for (i = 0; i < n; i++) {
		s->pos = (s->pos + 1) & (SMDSP_V34_RING - 1);
		s->ring_i[s->pos] = (int16_t)((x[i] * smdsp_cos(s->phase)) >> 15);
		s->ring_q[s->pos] = (int16_t)(-(x[i] * smdsp_sin(s->phase)) >> 15);
		s->phase += s->phase_step;
		s->next_rel -= (int32_t)s->step;
		while (s->next_rel <= -SMDSP_V34_HALF) {
			/* an instant left far behind (a big adjust) is skipped, not computed */
			if (s->next_rel > -SMDSP_V34_HALF - (int32_t)s->step * 4) {
				if (got < max)
					output(s, &out[got++]);
			}
			s->outputs++;
			s->next_rel += gap;
		}
	}
	return got;
}
