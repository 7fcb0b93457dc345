// SPDX-License-Identifier: GPL-2.0
/*
 * Answer tone generator descriptions and detector.
 *
 * The detector correlates with 2100 Hz over 5 ms blocks. A block counts as
 * tone when it holds most of the block's energy; the phase step between
 * blocks measures the frequency error, a jump of about 180 degrees against
 * that trend is a phase reversal, and the 15 Hz component of the block
 * magnitudes over 200 ms tells ANSam from ANS.
 *
 * The detector hears the input through a notch at V.21's low channel (a
 * three-tap FIR with its zeros at 1080 Hz, 21 dB or more below its gain
 * at 2100 Hz across 980-1180 Hz): a V.8 caller listens for the answer tone
 * while its CI goes out, and over a 2-wire line CI's echo can be as loud
 * as an answer tone from a distant or quiet answerer. Without the notch
 * the echo took more than half of each block's energy, and every burst of
 * it cut the tone short of the time that tells ANS from ANSam.
 */
#include <smdsp/private/anstone.h>

void smdsp_anstone_desc(struct smdsp_tone_desc *d, enum smdsp_anstone_kind kind,
			int level_dbm0_10, unsigned int ms)
{
	memset(d, 0, sizeof(*d));
	d->freq_mhz[0] = 2100000;
	d->level_dbm0_10[0] = (int16_t)level_dbm0_10;
	d->on_ms = (uint16_t)ms;
	d->cycles = 1;
	if (kind == SMDSP_ANS_ANSAM || kind == SMDSP_ANS_ANSAM_PR) {
		d->am_freq_mhz = 15000;
		d->am_depth_q15 = 6554;	/* 0.2 */
	}
	if (kind == SMDSP_ANS_ANS_PR || kind == SMDSP_ANS_ANSAM_PR)
		d->reversal_ms = 450;
}

void smdsp_anstone_rx_init(struct smdsp_anstone_rx *s, int32_t freq_mhz)
{
	int32_t cn, ct, g;
	uint64_t a;

	memset(s, 0, sizeof(*s));
	s->freq_mhz = freq_mhz;
	smdsp_tone_nco_init(&s->lo, -freq_mhz);
	/* the envelope is sampled once per block: 200 Hz */
	s->am_lo.rate = smdsp_phase_rate(-15000, SMDSP_RATE / SMDSP_ANS_BLOCK);
	cn = smdsp_cos(smdsp_phase_rate(SMDSP_ANS_NOTCH_MHZ, SMDSP_RATE));
	ct = smdsp_cos(smdsp_phase_rate(freq_mhz, SMDSP_RATE));
	/* 2 cos(notch) in Q14 is cos(notch) in Q15 */
	s->notch_c = cn;
	/* the notch's gain at the tone, (cos - cos(notch)) / 2 after its shift by 2 */
	g = smdsp_abs32(ct - cn) / 2;
	if (g < 1)
		g = 1;
	/* |Z|^2 = (A g N / 2)^2 for a tone at -45 dBm0 */
	a = ((uint64_t)smdsp_dbm0_to_amp(-450) * (uint32_t)g >> 15) * SMDSP_ANS_BLOCK / 2;
	s->min_energy = a * a;
}

struct smdsp_anstone_rx *smdsp_anstone_rx_create(int32_t freq_mhz)
{
	struct smdsp_anstone_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_anstone_rx_init(s, freq_mhz);
	return s;
}

void smdsp_anstone_rx_free(struct smdsp_anstone_rx *s)
{
	smdsp_free(s);
}

static void lose_tone(struct smdsp_anstone_rx *s)
{
	s->present = false;
	s->present_blocks = 0;
	s->tone_ms = 0;
	s->reversals = 0;
	s->good_spacings = 0;
	s->blocks_since_rev = 0;
	s->am_state = 0;
	s->am_count = 0;
	s->am_re = 0;
	s->am_im = 0;
	s->env_sum = 0;
	s->kind = SMDSP_ANS_NONE;
	s->ref_ok = false;
	s->ref_gap = 0;
	s->normal_steps = 0;
	s->absent_blocks = 0;
	s->hold_blocks = 0;
	s->dphase = 0;
}

static void am_update(struct smdsp_anstone_rx *s, uint32_t env)
{
	int64_t m;

	s->am_re += ((int64_t)env * smdsp_cos(s->am_lo.phase)) >> 15;
	s->am_im += ((int64_t)env * smdsp_sin(s->am_lo.phase)) >> 15;
	s->am_lo.phase += s->am_lo.rate;
	s->env_sum += env;
	if (++s->am_count < SMDSP_ANS_AM_BLOCKS)
		return;
	/* depth = 2 |G| / sum(env); ANSam has 0.2, plain tones ~0 */
	m = (int64_t)smdsp_isqrt64((uint64_t)(s->am_re * s->am_re + s->am_im * s->am_im));
	if (m * 2 * 10 >= (int64_t)s->env_sum)		/* >= 0.1 */
		s->am_state = 1;
	else if (m * 2 * 25 < (int64_t)s->env_sum)	/* < 0.04 */
		s->am_state = -1;
	s->am_count = 0;
	s->am_re = 0;
	s->am_im = 0;
	s->env_sum = 0;
}

static void classify(struct smdsp_anstone_rx *s)
{
	bool pr = s->reversals >= 2 ? s->good_spacings >= 1 : s->reversals == 1;

	if (s->tone_ms < 200)
		return;
	if (s->am_state > 0)
		s->kind = pr ? SMDSP_ANS_ANSAM_PR : SMDSP_ANS_ANSAM;
	else
		s->kind = pr ? SMDSP_ANS_ANS_PR : SMDSP_ANS_ANS;
}

static uint32_t phase_step(int32_t re, int32_t im, int32_t pre, int32_t pim)
{
	int64_t cre = (int64_t)re * pre + (int64_t)im * pim;
	int64_t cim = (int64_t)im * pre - (int64_t)re * pim;

	while (cre >= (1LL << 30) || cre <= -(1LL << 30) ||
	       cim >= (1LL << 30) || cim <= -(1LL << 30)) {
		cre >>= 1;
		cim >>= 1;
	}
	return smdsp_atan2((int32_t)cim, (int32_t)cre);
}

static void end_block(struct smdsp_anstone_rx *s)
{
	/* scale the correlation down: N * 32768 / 2 fits in 20 bits */
	int32_t re = (int32_t)(s->zre >> 4);
	int32_t im = (int32_t)(s->zim >> 4);
	uint64_t mag2 = (uint64_t)((int64_t)re * re + (int64_t)im * im) << 8;
	uint32_t env;
	bool ok;

	/* tone: above the floor, and >= half of N/2 sum(x^2) */
	ok = mag2 >= s->min_energy && mag2 * 2 >= s->energy * (SMDSP_ANS_BLOCK / 2);
	if (!ok) {
		if (s->present_blocks && ++s->absent_blocks < 4) {
			/* a reversal or a noise burst: hold on */
			s->ref_gap++;
			return;
		}
		if (s->present_blocks)
			lose_tone(s);
		return;
	}
	s->absent_blocks = 0;
	env = smdsp_isqrt64(mag2);
	s->ref_gap++;
	if (s->ref_ok) {
		int32_t step = (int32_t)phase_step(re, im, s->ref_re, s->ref_im);
		/* phases: modulo 2^32 (unsigned arithmetic, which wraps) */
		int32_t dev = (int32_t)((uint32_t)step - (uint32_t)s->dphase * s->ref_gap);

		if (dev > 0x50000000 || dev < -0x50000000) {
			/* about 180 degrees off the trend: a phase reversal */
			if (s->present_blocks > 8 && !s->hold_blocks) {
				if (s->reversals && s->blocks_since_rev >= 84 &&
				    s->blocks_since_rev <= 96)
					s->good_spacings++;
				s->reversals++;
				s->blocks_since_rev = 0;
				s->hold_blocks = 20;
			}
			env = s->last_env;
			s->ref_gap = 0;
		} else if (dev > -0x20000000 && dev < 0x20000000) {
			/* learn the frequency error, fast at first */
			if (s->ref_gap == 1) {
				s->dphase += dev >> (s->normal_steps < 8 ? 1 : 3);
				s->normal_steps++;
			}
			s->ref_gap = 0;
		} else {
			/* half way through a reversal: not a usable reference */
			env = s->last_env;
			if (s->ref_gap > 4)
				s->ref_gap = 0;
		}
	} else {
		s->ref_gap = 0;
	}
	if (!s->ref_gap) {
		s->ref_re = re;
		s->ref_im = im;
		s->ref_ok = true;
	}
	if (s->hold_blocks)
		s->hold_blocks--;
	s->blocks_since_rev++;
	s->last_env = env;
	am_update(s, env);
	s->present_blocks++;
	/* 25 Hz of frequency error is 45 degrees per block */
	if (s->normal_steps >= 8 && s->normal_steps * 4 >= s->present_blocks * 3 &&
	    s->dphase < 0x20000000 && s->dphase > -0x20000000)
		s->present = true;
	if (s->present)
		s->tone_ms = s->present_blocks * 5;
	classify(s);
}

void smdsp_anstone_rx_process(struct smdsp_anstone_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* the notch: x[n] - 2 cos(notch) x[n-1] + x[n-2], a quarter of it */
		int32_t v = (x[i] + s->x2 - ((s->notch_c * s->x1) >> 14)) >> 2;

		s->x2 = s->x1;
		s->x1 = x[i];

		s->zre += v * smdsp_cos(s->lo.phase);
		s->zim += v * smdsp_sin(s->lo.phase);
		s->lo.phase += s->lo.rate;
		s->energy += (uint64_t)(v * v);
		if (++s->count >= SMDSP_ANS_BLOCK) {
			/* Z is in Q15: bring it to sample units */
			s->zre >>= 15;
			s->zim >>= 15;
			end_block(s);
			s->zre = 0;
			s->zim = 0;
			s->energy = 0;
			s->count = 0;
		}
	}
}

enum smdsp_anstone_kind smdsp_anstone_rx_kind(const struct smdsp_anstone_rx *s)
{
	return s->kind;
}

uint32_t smdsp_anstone_rx_tone_ms(const struct smdsp_anstone_rx *s)
{
	return s->tone_ms;
}

void smdsp_anstone_rx_reset(struct smdsp_anstone_rx *s)
{
	smdsp_anstone_rx_init(s, s->freq_mhz);
}

int smdsp_anstone_rx_print(const struct smdsp_anstone_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "anstone_rx kind=%d present=%d tone_ms=%u reversals=%u am=%d",
			s->kind, s->present, s->tone_ms, s->reversals, s->am_state);
}
