// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 line probing receiver: hears L1 and L2 and measures the channel.
 *
 * The signal repeats every 160 samples, so whatever the alignment a 160-point
 * DFT of any 160 samples of it has the tones on bins 3m (150 m Hz) and
 * nothing on the bins between (50 Hz apart). The receiver takes the DFT of
 * every 20 ms period at the bins it needs (2..76, from a cosine table, about
 * 24,000 multiplies a period) and:
 * - calls a period probing when its energy is above -48 dBm0, at least 70 %
 *   of it lies on the sent tones' bins (noise puts a quarter there; tones A
 *   and B, 1200 and 2400 Hz, are slots the probing signal leaves out, so they
 *   put none) and at least ten sent tones are within 20 dB of the strongest;
 * - averages probing periods of one level: a period more than 3 dB from the
 *   segment's level starts a new segment with the period after it (so L1, 6
 *   dB above, and L2 are told apart); the new segment's first three periods
 *   only set its level (the channel's response to the step dies away: a sharp
 *   band edge rings for some milliseconds), and a period is averaged only
 *   when the period after it is within 1 dB of it and of that level: the
 *   period that straddles the end is never followed by one like it, so it
 *   is left out however full it is (a level step inside a period leaks into
 *   the noise bins: one 82 % full, 0.8 dB down, put the noise 20 dB too high
 *   on a sharp channel);
 * - ends after two periods that are not probing, or after 64 averaged ones.
 *
 * From the last segment (L2): each tone's power is its bin's mean |Y|^2 less
 * the noise in it; the noise is the mean of the four bins around it (five
 * at a slot not sent), and the noise in the tone's 150 Hz slot three times
 * that; the gain is the tone's power over what the far end sent (its
 * nominal level, shared by 21 tones). The phase between neighbouring tones,
 * Y(m2) conj(Y(m1)) summed over the periods with the sent phases taken out,
 * is -2 pi df times their group delay plus the unknown start of the DFT
 * window; the window's part is the same for every pair, so the delays are
 * given relative to the band's mean (the 150 Hz pairs' sum sets it) and then
 * to their smallest. The 1050 Hz tone's phase from one period to the next
 * turns by its frequency offset times 20 ms: summed over the periods it
 * gives the offset INFO1 reports, in 0.02 Hz units, up to +-10 Hz.
 */
#include <smdsp/private/v34_probe.h>

#define FLOOR_DBM0_10 (-480)
#define Q_SHIFT 12		/* powers handed to smdsp_power_to_dbm0() in Q12 ... */
#define Q_DB10 361		/* ... which adds 36.1 dB */
#define M_1050 7
#define SETTLE 2		/* periods let pass after a change: the channel's transient */

void smdsp_v34_probe_rx_init(struct smdsp_v34_probe_rx *s, int far_level_dbm0_10)
{
	unsigned int j;

	memset(s, 0, sizeof(*s));
	for (j = 0; j < SMDSP_V34P_N; j++)
		s->ctab[j] = smdsp_cos((uint32_t)smdsp_div_u64((uint64_t)j << 32, SMDSP_V34P_N));
	s->far_level_dbm0_10 = far_level_dbm0_10;
	s->need_ref = true;
	s->state = SMDSP_V34P_IDLE;
}

struct smdsp_v34_probe_rx *smdsp_v34_probe_rx_create(int far_level_dbm0_10)
{
	struct smdsp_v34_probe_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_probe_rx_init(s, far_level_dbm0_10);
	return s;
}

void smdsp_v34_probe_rx_free(struct smdsp_v34_probe_rx *s)
{
	smdsp_free(s);
}

void smdsp_v34_probe_rx_reset(struct smdsp_v34_probe_rx *s)
{
	smdsp_v34_probe_rx_init(s, s->far_level_dbm0_10);
}

int smdsp_v34_probe_rx_print(const struct smdsp_v34_probe_rx *s, char *buf, size_t len)
{
	static const char *const names[] = { "idle", "active", "done" };

	return snprintf(buf, len, "v34_probe_rx %s periods=%u prev=%u sample=%u", names[s->state],
			s->seg.periods, s->prev_periods, s->sample);
}

bool smdsp_v34_probe_rx_done(const struct smdsp_v34_probe_rx *s)
{
	return s->state == SMDSP_V34P_DONE;
}

bool smdsp_v34_probe_rx_active(const struct smdsp_v34_probe_rx *s)
{
	return s->state == SMDSP_V34P_ACTIVE && !s->quiet;
}

uint32_t smdsp_v34_probe_rx_l2_start(const struct smdsp_v34_probe_rx *s)
{
	return s->seg.periods ? s->seg.start : 0;
}

static uint64_t mag2(int32_t re, int32_t im)
{
	return (uint64_t)((int64_t)re * re) + (uint64_t)((int64_t)im * im);
}

static void dft(struct smdsp_v34_probe_rx *s)
{
	unsigned int k, n;

	for (k = SMDSP_V34P_BIN_LO; k <= SMDSP_V34P_BIN_HI; k++) {
		int64_t re = 0, im = 0;
		unsigned int j = 0;

		for (n = 0; n < SMDSP_V34P_N; n++) {
			/* sin(2 pi j / 160) = cos(2 pi (j - 40) / 160) */
			re += (int32_t)s->buf[n] * s->ctab[j];
			im -= (int32_t)s->buf[n] * s->ctab[j >= 40 ? j - 40 : j + 120];
			j += k;
			if (j >= SMDSP_V34P_N)
				j -= SMDSP_V34P_N;
		}
		s->y_re[k] = (int32_t)((re + (1 << 14)) >> 15);
		s->y_im[k] = (int32_t)((im + (1 << 14)) >> 15);
	}
}

/* the pending period into the segment's sums */
static void take(struct smdsp_v34_probe_rx *s)
{
	struct smdsp_v34p_seg *g = &s->seg;
	const int32_t *yr = s->pend_re, *yi = s->pend_im;
	unsigned int k, i;
	int32_t re = yr[3 * M_1050], im = yi[3 * M_1050];

	for (k = SMDSP_V34P_BIN_LO; k <= SMDSP_V34P_BIN_HI; k++)
		g->pow[k] += mag2(yr[k], yi[k]);
	for (i = 0; i + 1 < SMDSP_V34_PROBE_SENT; i++) {
		unsigned int b1 = 3 * smdsp_v34p_sent_m[i], b2 = 3 * smdsp_v34p_sent_m[i + 1];

		/* Y(b2) conj(Y(b1)) */
		g->pair_re[i] += (int64_t)yr[b2] * yr[b1] + (int64_t)yi[b2] * yi[b1];
		g->pair_im[i] += (int64_t)yi[b2] * yr[b1] - (int64_t)yr[b2] * yi[b1];
	}
	if (!g->periods)
		g->start = s->pend_at;
	/* the 1050 Hz tone's turn over 20 ms: only between neighbouring periods */
	if (g->periods && s->pend_at - g->prev_at == SMDSP_V34P_N) {
		g->fo_re += (int64_t)re * g->prev_re + (int64_t)im * g->prev_im;
		g->fo_im += (int64_t)im * g->prev_re - (int64_t)re * g->prev_im;
	}
	g->prev_re = re;
	g->prev_im = im;
	g->prev_at = s->pend_at;
	g->energy += s->pend_e;
	g->periods++;
}

static bool probing(const struct smdsp_v34_probe_rx *s, uint64_t e)
{
	uint64_t tonal = 0, peak = 0;
	unsigned int i, strong = 0;

	if (e < smdsp_dbm0_to_power(FLOOR_DBM0_10) * SMDSP_V34P_N)
		return false;
	for (i = 0; i < SMDSP_V34_PROBE_SENT; i++) {
		unsigned int b = 3 * smdsp_v34p_sent_m[i];
		uint64_t p = mag2(s->y_re[b], s->y_im[b]);

		tonal += p;
		if (p > peak)
			peak = p;
	}
	for (i = 0; i < SMDSP_V34_PROBE_SENT; i++) {
		unsigned int b = 3 * smdsp_v34p_sent_m[i];

		if (mag2(s->y_re[b], s->y_im[b]) * 100 >= peak)
			strong++;
	}
	/* a bin's share of the period's energy is 2 |Y|^2 / N: at least 70 % on the tones */
	return strong >= 10 && 2 * tonal * 10 >= e * SMDSP_V34P_N * 7;
}

static void finish(struct smdsp_v34_probe_rx *s)
{
	uint32_t t;

	if (s->seg.periods >= SMDSP_V34_PROBE_MIN_PERIODS) {
		s->state = SMDSP_V34P_DONE;
		return;
	}
	/* too short to measure anything: wait for another (the sample count goes on) */
	t = s->sample;
	smdsp_v34_probe_rx_init(s, s->far_level_dbm0_10);
	s->sample = t;
}

static bool within(uint64_t a, uint64_t b, unsigned int num, unsigned int den)
{
	/* a / b within [den / num, num / den] */
	return a * num >= b * den && b * num >= a * den;
}

static void period(struct smdsp_v34_probe_rx *s)
{
	uint64_t e = 0;
	unsigned int n;

	for (n = 0; n < SMDSP_V34P_N; n++)
		e += (uint64_t)((int32_t)s->buf[n] * s->buf[n]);
	dft(s);
	if (!probing(s, e)) {
		if (s->state == SMDSP_V34P_ACTIVE && ++s->quiet >= 2)
			finish(s);
		s->last_energy = 0;
		s->pend = false;
		return;
	}
	s->quiet = 0;
	s->state = SMDSP_V34P_ACTIVE;
	if (s->need_ref) {
		if (s->seg.periods >= 2) {
			s->prev_energy = s->seg.energy;
			s->prev_periods = s->seg.periods;
		}
		memset(&s->seg, 0, sizeof(s->seg));
		s->seg.ref = e;
		s->settle = SETTLE;
		s->need_ref = false;
		s->pend = false;
	} else if (!within(e, s->seg.ref, 2, 1)) {
		/* more than 3 dB from the segment: a new one from the next period */
		s->need_ref = true;
	} else if (s->settle) {
		/* the channel's response to the change dies away; the level it settles at */
		s->settle--;
		s->seg.ref = e;
	} else if (within(e, s->seg.ref, 5, 4)) {
		/* a period is taken once the next one has its level too (1 dB) */
		if (s->pend && within(e, s->pend_e, 5, 4))
			take(s);
		memcpy(s->pend_re, s->y_re, sizeof(s->pend_re));
		memcpy(s->pend_im, s->y_im, sizeof(s->pend_im));
		s->pend_e = e;
		s->pend_at = s->sample - SMDSP_V34P_N;
		s->pend = true;
	} else {
		s->pend = false;
	}
	s->last_energy = e;
	if (s->seg.periods >= SMDSP_V34_PROBE_MAX_PERIODS)
		s->state = SMDSP_V34P_DONE;
}

void smdsp_v34_probe_rx_process(struct smdsp_v34_probe_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		s->sample++;
		if (s->state == SMDSP_V34P_DONE)
			continue;
		s->buf[s->fill++] = x[i];
		if (s->fill == SMDSP_V34P_N) {
			s->fill = 0;
			period(s);
		}
	}
}

/* 10 log10 of a mean square given as |Y|^2 summed over periods: 2 |Y|^2 / N^2 each */
static int bin_dbm0_10(uint64_t pow_sum, unsigned int periods, unsigned int bins)
{
	uint64_t v = smdsp_div_u64(pow_sum, periods) * bins * 2;

	if (!v)
		return -999;
	return smdsp_power_to_dbm0(smdsp_div_u64(v << Q_SHIFT, SMDSP_V34P_N * SMDSP_V34P_N)) - Q_DB10;
}

/* the angle of a 64-bit complex number, 2^32 a turn */
static uint32_t angle64(int64_t re, int64_t im)
{
	while (re > 0x3fffffff || re < -0x3fffffff || im > 0x3fffffff || im < -0x3fffffff) {
		re >>= 1;
		im >>= 1;
	}
	return smdsp_atan2((int32_t)im, (int32_t)re);
}

static void group_delay(const struct smdsp_v34p_seg *g, struct smdsp_v34_probe_result *r)
{
	int64_t ref_re = 0, ref_im = 0;
	uint32_t ref;
	int32_t min = 0;
	unsigned int i;

	/* the sent phases out: a pair of opposite signs turns by half a turn more */
	for (i = 0; i + 1 < SMDSP_V34_PROBE_SENT; i++) {
		unsigned int m1 = smdsp_v34p_sent_m[i], m2 = smdsp_v34p_sent_m[i + 1];
		int sg = smdsp_v34p_sign(m1) * smdsp_v34p_sign(m2);

		if (m2 - m1 == 1) {
			ref_re += sg * g->pair_re[i];
			ref_im += sg * g->pair_im[i];
		}
	}
	ref = angle64(ref_re, ref_im);
	r->gd_pairs = SMDSP_V34_PROBE_SENT - 1;
	for (i = 0; i + 1 < SMDSP_V34_PROBE_SENT; i++) {
		unsigned int m1 = smdsp_v34p_sent_m[i], m2 = smdsp_v34p_sent_m[i + 1];
		int sg = smdsp_v34p_sign(m1) * smdsp_v34p_sign(m2);
		uint32_t a = angle64(sg * g->pair_re[i], sg * g->pair_im[i]);
		int32_t d = (int32_t)(a - ref * (m2 - m1));
		int32_t us_per_turn = 1000000 / (150 * (int32_t)(m2 - m1));

		/* -d / (2 pi df): d in turns times 1e6 / df microseconds */
		r->gd_us[i] = (int32_t)(-((int64_t)d * us_per_turn) >> 32);
		r->gd_mid_hz[i] = (uint16_t)(75 * (m1 + m2));
		if (!i || r->gd_us[i] < min)
			min = r->gd_us[i];
	}
	for (i = 0; i < r->gd_pairs; i++)
		r->gd_us[i] -= min;
}

void smdsp_v34_probe_rx_result(const struct smdsp_v34_probe_rx *s, struct smdsp_v34_probe_result *r)
{
	const struct smdsp_v34p_seg *g = &s->seg;
	unsigned int m, p = g->periods;
	int far_tone = s->far_level_dbm0_10 - 132;	/* 10 log10(21) = 13.2 dB */

	memset(r, 0, sizeof(*r));
	r->freq_offset = -512;
	r->l1_dbm0_10 = -999;
	r->l2_dbm0_10 = -999;
	r->l2_periods = (uint16_t)p;
	if (!p)
		return;
	r->valid = p >= SMDSP_V34_PROBE_MIN_PERIODS;
	r->l2_dbm0_10 = (int16_t)smdsp_power_to_dbm0(smdsp_div_u64(g->energy, p * SMDSP_V34P_N));
	/* the segment before, 3 dB or more above: L1 */
	if (s->prev_periods >= 2 &&
	    smdsp_div_u64(s->prev_energy, s->prev_periods) > 2 * smdsp_div_u64(g->energy, p)) {
		r->l1_dbm0_10 = (int16_t)smdsp_power_to_dbm0(smdsp_div_u64(s->prev_energy,
									   s->prev_periods * SMDSP_V34P_N));
		r->l1_periods = (uint16_t)s->prev_periods;
	}
	for (m = 1; m <= SMDSP_V34_PROBE_TONES; m++) {
		uint64_t nb, tone;
		int t, nz;

		nb = g->pow[3 * m - 2] + g->pow[3 * m - 1] + g->pow[3 * m + 1] + g->pow[3 * m + 2];
		if (smdsp_v34_probe_sent(m)) {
			nb /= 4;
			tone = g->pow[3 * m] > nb ? g->pow[3 * m] - nb : 0;
		} else {
			nb = smdsp_div_u64(nb + g->pow[3 * m], 5);
			tone = 0;
		}
		nz = bin_dbm0_10(nb, p, 3);
		r->noise_dbm0_10[m] = (int16_t)nz;
		if (!smdsp_v34_probe_sent(m))
			continue;
		t = bin_dbm0_10(tone, p, 1);
		r->gain_db10[m] = (int16_t)(t - far_tone);
		r->snr_db10[m] = (int16_t)(t - nz);
	}
	/* the slots not sent (never the first or last) from their neighbours */
	for (m = 2; m < SMDSP_V34_PROBE_TONES; m++)
		if (!smdsp_v34_probe_sent(m)) {
			r->gain_db10[m] = (int16_t)((r->gain_db10[m - 1] + r->gain_db10[m + 1]) / 2);
			r->snr_db10[m] = (int16_t)((r->snr_db10[m - 1] + r->snr_db10[m + 1]) / 2);
		}
	group_delay(g, r);
	if (r->valid && r->snr_db10[M_1050] >= 200 && p >= 2) {
		int32_t a = (int32_t)angle64(g->fo_re, g->fo_im);
		/* turns a period (20 ms) times 50 Hz, in 0.02 Hz: turns times 2500 */
		int64_t fo = ((int64_t)a * 2500 + (a >= 0 ? 1LL << 31 : -(1LL << 31))) >> 32;

		if (fo >= -511 && fo <= 511)
			r->freq_offset = (int16_t)fo;
	}
}
