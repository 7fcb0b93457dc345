// SPDX-License-Identifier: GPL-2.0
/*
 * V.21 FSK modem.
 *
 * Transmit: a phase-continuous oscillator switched between the mark and
 * space frequencies at 300 baud (fractional bit clock, 8000/300 samples).
 *
 * Receive: a band-pass filter for the wanted channel (which also removes the
 * echo of our own transmit channel), then sliding quadrature correlators
 * over 26 samples at the mark and space frequencies; whichever holds more
 * energy is the current bit. A digital PLL on the decision transitions
 * samples each bit in its middle.
 *
 * The receiver works on blocks of up to SMDSP_FSK_BLK samples: the filter,
 * then the correlators and decisions for the whole block (no callbacks
 * there), then sample by sample the carrier detector and the PLL, which
 * call back. A callback that re-initializes the receiver ends the block:
 * the rest of the samples go through the receiver afresh, as they would
 * one sample at a time.
 */
#include <smdsp/private/fsk.h>

static const int32_t fsk_mhz[2][2] = {
	{ 1180000, 980000 },	/* channel 1: space, mark */
	{ 1850000, 1650000 },	/* channel 2 */
};

void smdsp_fsk_tx_init(struct smdsp_fsk_tx *s, enum smdsp_fsk_channel ch, int level_dbm0_10,
		       smdsp_get_bit_fn get_bit, void *user)
{
	memset(s, 0, sizeof(*s));
	s->rate[0] = smdsp_phase_rate(fsk_mhz[ch][0], SMDSP_RATE);
	s->rate[1] = smdsp_phase_rate(fsk_mhz[ch][1], SMDSP_RATE);
	s->amp = smdsp_dbm0_to_amp(level_dbm0_10);
	s->bit = 1;
	s->get_bit = get_bit;
	s->user = user;
}

struct smdsp_fsk_tx *smdsp_fsk_tx_create(enum smdsp_fsk_channel ch, int level_dbm0_10,
					 smdsp_get_bit_fn get_bit, void *user)
{
	struct smdsp_fsk_tx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_fsk_tx_init(s, ch, level_dbm0_10, get_bit, user);
	return s;
}

void smdsp_fsk_tx_free(struct smdsp_fsk_tx *s)
{
	smdsp_free(s);
}

void smdsp_fsk_tx_process(struct smdsp_fsk_tx *s, int16_t *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		s->baud_acc += 300;
		if (s->baud_acc >= SMDSP_RATE) {
			s->baud_acc -= SMDSP_RATE;
			s->bit = s->get_bit ? (s->get_bit(s->user) & 1) : 1;
		}
		out[i] = (int16_t)((s->amp * smdsp_sin(s->phase)) >> 15);
		s->phase += s->rate[s->bit];
	}
}

void smdsp_fsk_rx_set_thresholds(struct smdsp_fsk_rx *s, int on_dbm0_10, int off_dbm0_10)
{
	s->on_power = smdsp_dbm0_to_power(on_dbm0_10) << 8;
	s->off_power = smdsp_dbm0_to_power(off_dbm0_10) << 8;
}

void smdsp_fsk_rx_init(struct smdsp_fsk_rx *s, enum smdsp_fsk_channel ch,
		       smdsp_put_bit_fn put_bit, smdsp_status_fn status, void *user)
{
	memset(s, 0, sizeof(*s));
	s->bp = smdsp_v21_rx_bp[ch];
	s->rate[0] = smdsp_phase_rate(-fsk_mhz[ch][0], SMDSP_RATE);
	s->rate[1] = smdsp_phase_rate(-fsk_mhz[ch][1], SMDSP_RATE);
	s->baud_rate = smdsp_phase_rate(300000, SMDSP_RATE);
	s->last_dec = 1;
	s->put_bit = put_bit;
	s->status = status;
	s->user = user;
	smdsp_fsk_rx_set_thresholds(s, -435, -475);
}

struct smdsp_fsk_rx *smdsp_fsk_rx_create(enum smdsp_fsk_channel ch, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status, void *user)
{
	struct smdsp_fsk_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_fsk_rx_init(s, ch, put_bit, status, user);
	return s;
}

void smdsp_fsk_rx_free(struct smdsp_fsk_rx *s)
{
	smdsp_free(s);
}

bool smdsp_fsk_rx_carrier(const struct smdsp_fsk_rx *s)
{
	return s->carrier;
}

/*
 * Band-passes x[0..n) (n <= SMDSP_FSK_BLK) into s->y. The history is linear,
 * oldest first, so that each output is one forward dot product (that
 * vectorizes) and no sample is loaded right after it was stored.
 */
static smdsp_noinline void bandpass_block(struct smdsp_fsk_rx *s, const int16_t *x, unsigned int n)
{
	const int16_t *bp = s->bp;
	unsigned int i;
	int k;

	memcpy(s->hist + SMDSP_V21_BP_TAPS - 1, x, n * sizeof(*x));
	/* two outputs at a time share the taps' loads (the block is even but for the last) */
	for (i = 0; i + 1 < n; i += 2) {
		const int16_t *h = s->hist + i;
		int32_t acc0 = 0, acc1 = 0;

		for (k = 0; k < SMDSP_V21_BP_TAPS; k++) {
			acc0 += (int32_t)h[k] * bp[k];
			acc1 += (int32_t)h[k + 1] * bp[k];
		}
		s->y[i] = acc0 >> 15;
		s->y[i + 1] = acc1 >> 15;
	}
	if (i < n) {
		const int16_t *h = s->hist + i;
		int32_t acc = 0;

		for (k = 0; k < SMDSP_V21_BP_TAPS; k++)
			acc += (int32_t)h[k] * bp[k];
		s->y[i] = acc >> 15;
	}
	memmove(s->hist, s->hist + n, (SMDSP_V21_BP_TAPS - 1) * sizeof(*x));
}

/* one-pole mean square of y, ~16 ms (branch-free: the sign is noise) */
static inline uint64_t mean_square(uint64_t p, int32_t y)
{
	uint64_t sq = (uint64_t)((int64_t)y * y) << 8;
	uint64_t m = 0 - (uint64_t)(sq <= p);	/* all ones when going down */
	uint64_t step = (((sq - p) ^ m) - m) >> 7;

	return p + ((step ^ m) - m);
}

/*
 * smdsp_cos() and smdsp_sin() at one phase (one fraction, indices a quarter
 * turn apart), each times y, Q15. The interpolated value lies between two
 * table entries, so it needs no cast to int16_t.
 */
static inline void mix(uint32_t ph, int32_t y, int32_t *re, int32_t *im)
{
	const int16_t *ts = smdsp_sin_tab + (ph >> (32 - SMDSP_SIN_BITS));
	const int16_t *tc = smdsp_sin_tab + (((ph >> (32 - SMDSP_SIN_BITS)) + SMDSP_SIN_TAB_LEN / 4) &
					     (SMDSP_SIN_TAB_LEN - 1));
	int32_t frac = (int32_t)((ph >> (16 - SMDSP_SIN_BITS)) & 0xffff);
	int32_t sn = ts[0] + (((ts[1] - ts[0]) * frac) >> 16);
	int32_t cs = tc[0] + (((tc[1] - tc[0]) * frac) >> 16);

	*re = (y * cs) >> 15;
	*im = (y * sn) >> 15;
}

/*
 * The decisions for the block in s->y, 1 for mark: the products with
 * e^{-jwn} at both tones into the sliding window sums, the tone with more
 * energy. The products are kept in line after the window's, so that the
 * sums stay in registers. No callbacks here.
 */
static smdsp_noinline void correlate_block(struct smdsp_fsk_rx *s, unsigned int n)
{
	int32_t sr0 = s->sum[0], si0 = s->sum[1], sr1 = s->sum[2], si1 = s->sum[3];
	int32_t *p0 = s->prod[0], *p1 = s->prod[1], *p2 = s->prod[2], *p3 = s->prod[3];
	uint32_t ph0 = s->phase[0], ph1 = s->phase[1];
	unsigned int i;
	int t;

	for (i = 0; i < n; i++) {
		int32_t y = s->y[i];
		int32_t re0, im0, re1, im1;
		int64_t e0, e1;

		mix(ph0, y, &re0, &im0);
		mix(ph1, y, &re1, &im1);
		ph0 += s->rate[0];
		ph1 += s->rate[1];
		p0[SMDSP_FSK_CORR + i] = re0;
		p1[SMDSP_FSK_CORR + i] = im0;
		p2[SMDSP_FSK_CORR + i] = re1;
		p3[SMDSP_FSK_CORR + i] = im1;
		sr0 += re0 - p0[i];
		si0 += im0 - p1[i];
		sr1 += re1 - p2[i];
		si1 += im1 - p3[i];
		e0 = (int64_t)sr0 * sr0 + (int64_t)si0 * si0;
		e1 = (int64_t)sr1 * sr1 + (int64_t)si1 * si1;
		s->dec[i] = e1 > e0;
	}
	for (t = 0; t < 4; t++)
		memmove(s->prod[t], s->prod[t] + n, SMDSP_FSK_CORR * sizeof(s->prod[t][0]));
	s->sum[0] = sr0;
	s->sum[1] = si0;
	s->sum[2] = sr1;
	s->sum[3] = si1;
	s->phase[0] = ph0;
	s->phase[1] = ph1;
}

/*
 * The receiver's state that changes at every sample is kept in locals;
 * around a callback it goes back into s and is taken again from s after
 * (the callback may re-initialize s).
 */
#define FSK_SAVE(s)						\
	do {							\
		(s)->power = p;					\
		(s)->baud_phase = bph;				\
		(s)->last_dec = last;				\
		(s)->settle = settle;				\
	} while (0)
#define FSK_LOAD(s)						\
	do {							\
		p = (s)->power;					\
		bph = (s)->baud_phase;				\
		last = (s)->last_dec;				\
		settle = (s)->settle;				\
	} while (0)

void smdsp_fsk_rx_process(struct smdsp_fsk_rx *s, const int16_t *x, unsigned int n)
{
	while (n) {
		unsigned int m = n < SMDSP_FSK_BLK ? n : SMDSP_FSK_BLK;
		unsigned int i, settle;
		uint32_t bph;
		uint64_t p;
		int last;

		bandpass_block(s, x, m);
		correlate_block(s, m);
		s->busy = true;
		FSK_LOAD(s);
		for (i = 0; i < m; i++) {
			uint32_t before, mask;
			int dec;

			p = mean_square(p, s->y[i]);
			if (!s->carrier && p >= s->on_power) {
				s->carrier = true;
				settle = SMDSP_FSK_CORR;
				if (s->status) {
					FSK_SAVE(s);
					s->status(s->user, SMDSP_STATUS_CARRIER_UP);
					FSK_LOAD(s);
				}
			} else if (s->carrier && p < s->off_power) {
				s->carrier = false;
				if (s->status) {
					FSK_SAVE(s);
					s->status(s->user, SMDSP_STATUS_CARRIER_DOWN);
					FSK_LOAD(s);
				}
			}
			/* a callback's re-init zeroed the sums: no tone wins */
			dec = s->busy ? s->dec[i] : 0;
			/* a transition should sit on a bit boundary (phase 0) */
			mask = 0 - (uint32_t)(dec != last);
			before = bph - ((uint32_t)((int32_t)bph / 4) & mask);
			last = dec;
			bph = before + s->baud_rate;
			/* mid-bit: sample */
			if (before < 0x80000000u && bph >= 0x80000000u && s->carrier && !settle &&
			    s->put_bit) {
				FSK_SAVE(s);
				s->put_bit(s->user, dec);
				FSK_LOAD(s);
			}
			settle -= settle != 0;
			if (!s->busy) {
				/* re-initialized by a callback: go on afresh after this sample */
				m = i + 1;
				break;
			}
		}
		FSK_SAVE(s);
		s->busy = false;
		x += m;
		n -= m;
	}
}

void smdsp_fsk_tx_reset(struct smdsp_fsk_tx *s)
{
	s->phase = 0;
	s->baud_acc = 0;
	s->bit = 1;
}

int smdsp_fsk_tx_print(const struct smdsp_fsk_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "fsk_tx bit=%d amp=%d", s->bit, s->amp);
}

void smdsp_fsk_rx_reset(struct smdsp_fsk_rx *s)
{
	struct smdsp_fsk_rx keep = *s;

	memset(s, 0, sizeof(*s));
	s->bp = keep.bp;
	s->rate[0] = keep.rate[0];
	s->rate[1] = keep.rate[1];
	s->baud_rate = keep.baud_rate;
	s->last_dec = 1;
	s->on_power = keep.on_power;
	s->off_power = keep.off_power;
	s->put_bit = keep.put_bit;
	s->status = keep.status;
	s->user = keep.user;
}

int smdsp_fsk_rx_print(const struct smdsp_fsk_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "fsk_rx carrier=%d power=%llu on=%llu off=%llu",
			s->carrier, (unsigned long long)s->power,
			(unsigned long long)s->on_power, (unsigned long long)s->off_power);
}
