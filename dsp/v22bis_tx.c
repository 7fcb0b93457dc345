// SPDX-License-Identifier: GPL-2.0
/*
 * V.22/V.22bis modulator.
 *
 * Symbols at 600 baud are shaped at baseband by a root-raised-cosine pulse
 * (beta 0.75) from a 40-phase table, since 8000/600 = 40/3 samples per
 * symbol, and put on the 1200 Hz (calling) or 2400 Hz (answering) carrier.
 * The first two bits of each symbol pick the change of quadrant, the other
 * two (2400 bit/s only) the point inside the quadrant; all bits go through
 * the self-synchronising scrambler 1 + x^-14 + x^-17 with the V.22 rule
 * that 64 ones in a row invert the next input bit.
 */
#include <smdsp/private/v22bis.h>

/* dibit (first bit in bit 1) -> quadrant steps of 90 degrees */
static const uint8_t phase_step[4] = { 1, 0, 2, 3 };
/* point inside the first quadrant for the two low bits */
static const int8_t base_pt[4][2] = { { 1, 1 }, { 3, 1 }, { 1, 3 }, { 3, 3 } };

void smdsp_v22bis_map(unsigned int quadrant, unsigned int low, int *re, int *im)
{
	int x = base_pt[low & 3][0], y = base_pt[low & 3][1], t;
	unsigned int q;

	/* the other quadrants are the first one turned by 90 degrees steps */
	for (q = 0; q < (quadrant & 3); q++) {
		t = x;
		x = -y;
		y = t;
	}
	*re = x;
	*im = y;
}

void smdsp_v22bis_tx_init(struct smdsp_v22bis_tx *s, bool calling, int level_dbm0_10,
		       enum smdsp_v22bis_guard guard, smdsp_get_bit_fn get_bit, void *user)
{
	int data_level = level_dbm0_10;
	uint32_t rate, phase = 0;
	int32_t amp = 0;
	unsigned int i;
	uint64_t p;

	memset(s, 0, sizeof(*s));
	/* the carriers repeat exactly every 20 samples: tabulate one period */
	rate = smdsp_phase_rate(calling ? 1200000 : 2400000, SMDSP_RATE);
	for (i = 0; i < SMDSP_V22BIS_CAR_PERIOD; i++) {
		s->car_cos[i] = smdsp_cos(phase);
		s->car_sin[i] = smdsp_sin(phase);
		phase += rate;
	}
	if (!calling && guard != SMDSP_V22BIS_GUARD_NONE) {
		/* the guard tone takes its share of the total power */
		if (guard == SMDSP_V22BIS_GUARD_1800) {
			data_level -= 10;	/* 10 log(1 + 10^-0.6) */
			amp = smdsp_dbm0_to_amp(data_level - 60);
			rate = smdsp_phase_rate(1800000, SMDSP_RATE);
			s->guard_len = 40;
		} else {
			data_level -= 18;	/* 10 log(1 + 10^-0.3) */
			amp = smdsp_dbm0_to_amp(data_level - 30);
			rate = smdsp_phase_rate(550000, SMDSP_RATE);
			s->guard_len = 160;
		}
		for (i = 0, phase = 0; i < s->guard_len; i++, phase += rate)
			s->guard[i] = (int16_t)((amp * smdsp_sin(phase)) >> 15);
	}
	/*
	 * The shaped baseband signal of symbols with mean energy 10 (points at
	 * +-1, +-3) has passband power 5 * SMDSP_V22BIS_TX_POWER; the output is
	 * (v >> 13) * gain >> 16 with v = 2^29 times the passband value, so the
	 * gain is the ratio of the wanted RMS to sqrt(5 * SMDSP_V22BIS_TX_POWER).
	 */
	p = smdsp_dbm0_to_power(data_level);
	s->gain = (int32_t)(smdsp_isqrt64(p << 16) / smdsp_isqrt64(5ULL * SMDSP_V22BIS_TX_POWER_Q16));
	s->get_bit = get_bit;
	s->user = user;
	s->mode = SMDSP_V22BIS_TX_SILENCE;
	s->calling = calling;
	s->level_dbm0_10 = level_dbm0_10;
	s->guard_kind = guard;
}

void smdsp_v22bis_tx_set_mode(struct smdsp_v22bis_tx *s, enum smdsp_v22bis_tx_mode mode)
{
	if (mode == SMDSP_V22BIS_TX_S1 && s->mode != SMDSP_V22BIS_TX_S1)
		s->s1_toggle = 0;
	s->mode = mode;
}

static int scramble(struct smdsp_v22bis_tx *s, int bit)
{
	int out;

	if (s->ones >= 64) {
		bit ^= 1;
		s->ones = 0;
	}
	out = (bit ^ (s->scramble_reg >> 13) ^ (s->scramble_reg >> 16)) & 1;
	s->scramble_reg = (s->scramble_reg << 1) | out;
	if (out)
		s->ones++;
	else
		s->ones = 0;
	return out;
}

static int data_bit(struct smdsp_v22bis_tx *s)
{
	return s->get_bit ? s->get_bit(s->user) & 1 : 1;
}

static int two_bits(struct smdsp_v22bis_tx *s, bool data)
{
	int b = scramble(s, data ? data_bit(s) : 1) << 1;

	return b | scramble(s, data ? data_bit(s) : 1);
}

static void next_symbol(struct smdsp_v22bis_tx *s, int8_t *re, int8_t *im)
{
	int low = 1;	/* the 1200 bit/s point */
	int x, y;

	switch (s->mode) {
	case SMDSP_V22BIS_TX_SILENCE:
		*re = 0;
		*im = 0;
		return;
	case SMDSP_V22BIS_TX_USB1:
		s->quadrant += phase_step[3];
		break;
	case SMDSP_V22BIS_TX_S1:
		s->quadrant += phase_step[s->s1_toggle ? 3 : 0];
		s->s1_toggle ^= 1;
		break;
	case SMDSP_V22BIS_TX_SB1:
	case SMDSP_V22BIS_TX_DATA_1200:
		s->quadrant += phase_step[two_bits(s, s->mode == SMDSP_V22BIS_TX_DATA_1200)];
		break;
	case SMDSP_V22BIS_TX_SB1_2400:
	case SMDSP_V22BIS_TX_DATA_2400:
		s->quadrant += phase_step[two_bits(s, s->mode == SMDSP_V22BIS_TX_DATA_2400)];
		low = two_bits(s, s->mode == SMDSP_V22BIS_TX_DATA_2400);
		break;
	}
	s->quadrant &= 3;
	smdsp_v22bis_map(s->quadrant, (unsigned int)low, &x, &y);
	*re = (int8_t)x;
	*im = (int8_t)y;
}

void smdsp_v22bis_tx_process(struct smdsp_v22bis_tx *s, int16_t *out, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const int16_t *h, *sr, *si;
		int32_t xr = 0, xi = 0;
		int64_t v;

		s->baud_phase += 3;
		if (s->baud_phase >= SMDSP_V22BIS_TX_PHASES) {
			int8_t re, im;

			s->baud_phase -= SMDSP_V22BIS_TX_PHASES;
			if (++s->sym_pos >= SMDSP_V22BIS_TX_SYMS)
				s->sym_pos = 0;
			if (s->sym_hook)
				s->sym_hook(s->user);
			next_symbol(s, &re, &im);
			/* twice, so that the newest SYMS symbols are always contiguous */
			s->sym_re[s->sym_pos] = re;
			s->sym_im[s->sym_pos] = im;
			s->sym_re[s->sym_pos + SMDSP_V22BIS_TX_SYMS] = re;
			s->sym_im[s->sym_pos + SMDSP_V22BIS_TX_SYMS] = im;
			if (re | im)
				s->idle_syms = SMDSP_V22BIS_TX_SYMS;
			else if (s->idle_syms)
				s->idle_syms--;
		}
		if (++s->car_idx >= SMDSP_V22BIS_CAR_PERIOD)
			s->car_idx = 0;
		if (!s->idle_syms) {
			out[i] = 0;
			continue;
		}
		h = smdsp_v22bis_tx_rrc[s->baud_phase];
		/* tap k weighs the symbol k steps older than the newest */
		sr = s->sym_re + s->sym_pos + SMDSP_V22BIS_TX_SYMS;
		si = s->sym_im + s->sym_pos + SMDSP_V22BIS_TX_SYMS;
		for (k = 0; k < SMDSP_V22BIS_TX_SYMS; k++) {
			xr += sr[-(int)k] * h[k];
			xi += si[-(int)k] * h[k];
		}
		v = (int64_t)xr * s->car_cos[s->car_idx] - (int64_t)xi * s->car_sin[s->car_idx];
		v = ((v >> 13) * s->gain) >> 16;
		if (s->guard_len) {
			v += s->guard[s->guard_idx];
			if (++s->guard_idx >= s->guard_len)
				s->guard_idx = 0;
		}
		out[i] = smdsp_sat16((int32_t)v);
	}
}

struct smdsp_v22bis_tx *smdsp_v22bis_tx_create(bool calling, int level_dbm0_10,
					     enum smdsp_v22bis_guard guard, smdsp_get_bit_fn get_bit,
					     void *user)
{
	struct smdsp_v22bis_tx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v22bis_tx_init(s, calling, level_dbm0_10, guard, get_bit, user);
	return s;
}

void smdsp_v22bis_tx_free(struct smdsp_v22bis_tx *s)
{
	smdsp_free(s);
}

void smdsp_v22bis_tx_reset(struct smdsp_v22bis_tx *s)
{
	smdsp_v22bis_tx_init(s, s->calling, s->level_dbm0_10, s->guard_kind, s->get_bit, s->user);
}

int smdsp_v22bis_tx_print(const struct smdsp_v22bis_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v22bis_tx mode=%d quadrant=%u guard_len=%u gain=%d",
			s->mode, s->quadrant, s->guard_len, s->gain);
}
