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
 */
#include <smdsp/fsk.h>

static const int32_t fsk_mhz[2][2] = {
	{ 1180000, 980000 },	/* channel 1: space, mark */
	{ 1850000, 1650000 },	/* channel 2 */
};

void smdsp_fsk_tx_init(struct smdsp_fsk_tx *s, enum smdsp_v21_channel ch, int level_dbm0_10,
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

struct smdsp_fsk_tx *smdsp_fsk_tx_create(enum smdsp_v21_channel ch, int level_dbm0_10,
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

void smdsp_fsk_rx_init(struct smdsp_fsk_rx *s, enum smdsp_v21_channel ch,
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

struct smdsp_fsk_rx *smdsp_fsk_rx_create(enum smdsp_v21_channel ch, smdsp_put_bit_fn put_bit,
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

static int32_t bandpass(struct smdsp_fsk_rx *s, int16_t x)
{
	const int16_t *h = s->hist + s->hpos;
	int32_t acc = 0;
	int k;

	/* the history is stored twice so that the window is contiguous */
	s->hist[s->hpos] = x;
	s->hist[s->hpos + SMDSP_V21_BP_TAPS] = x;
	h = s->hist + s->hpos + 1;
	for (k = 0; k < SMDSP_V21_BP_TAPS; k++)
		acc += (int32_t)h[k] * s->bp[k];
	if (++s->hpos >= SMDSP_V21_BP_TAPS)
		s->hpos = 0;
	return acc >> 15;
}

static void carrier_detect(struct smdsp_fsk_rx *s, int32_t y)
{
	/* one-pole mean square, ~16 ms */
	uint64_t sq = (uint64_t)((int64_t)y * y) << 8;

	if (sq > s->power)
		s->power += (sq - s->power) >> 7;
	else
		s->power -= (s->power - sq) >> 7;
	if (!s->carrier && s->power >= s->on_power) {
		s->carrier = true;
		s->settle = SMDSP_FSK_CORR;
		if (s->status)
			s->status(s->user, SMDSP_STATUS_CARRIER_UP);
	} else if (s->carrier && s->power < s->off_power) {
		s->carrier = false;
		if (s->status)
			s->status(s->user, SMDSP_STATUS_CARRIER_DOWN);
	}
}

void smdsp_fsk_rx_process(struct smdsp_fsk_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i;
	int t;

	for (i = 0; i < n; i++) {
		int32_t y = bandpass(s, x[i]);
		int64_t e[2];
		int dec;

		/* products with e^{-jwn} at both tones, into the sliding sums */
		for (t = 0; t < 2; t++) {
			int32_t re = (y * smdsp_cos(s->phase[t])) >> 15;
			int32_t im = (y * smdsp_sin(s->phase[t])) >> 15;

			s->phase[t] += s->rate[t];
			s->sum[2 * t] += re - s->prod[s->cpos][2 * t];
			s->sum[2 * t + 1] += im - s->prod[s->cpos][2 * t + 1];
			s->prod[s->cpos][2 * t] = re;
			s->prod[s->cpos][2 * t + 1] = im;
		}
		if (++s->cpos >= SMDSP_FSK_CORR)
			s->cpos = 0;
		carrier_detect(s, y);
		for (t = 0; t < 2; t++)
			e[t] = (int64_t)s->sum[2 * t] * s->sum[2 * t] +
			       (int64_t)s->sum[2 * t + 1] * s->sum[2 * t + 1];
		dec = e[1] > e[0];
		if (dec != s->last_dec) {
			/* a transition should sit on a bit boundary (phase 0) */
			int32_t err = (int32_t)s->baud_phase;

			s->baud_phase -= err / 4;
			s->last_dec = dec;
		}
		{
			uint32_t before = s->baud_phase;

			s->baud_phase += s->baud_rate;
			/* mid-bit: sample */
			if (before < 0x80000000u && s->baud_phase >= 0x80000000u && s->carrier &&
			    !s->settle && s->put_bit)
				s->put_bit(s->user, dec);
		}
		if (s->settle)
			s->settle--;
	}
}
