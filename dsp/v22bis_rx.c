// SPDX-License-Identifier: GPL-2.0
/*
 * V.22/V.22bis demodulator.
 *
 * Each input sample enters a history buffer. At every T/2 instant (1200 Hz,
 * placed by the timing loop with 1/3072-sample resolution) one complex
 * band-pass filter, a root-raised-cosine shifted to the carrier and chosen
 * among 12 fractional delays, gives the analytic signal, which a fixed
 * oscillator brings to baseband. No other filtering is needed: the filter
 * also rejects the echo of our own channel and the guard tones.
 *
 * The T/2 samples are scaled by an AGC that is set during the first 40 ms
 * of carrier and then frozen, feed a Gardner timing detector (symbol and
 * mid-symbol samples) and a 17-tap fractionally spaced LMS equalizer. Its
 * symbol-rate output is rotated by the carrier phase of a second-order
 * decision-directed loop, sliced (4 or 16 points), differentially decoded
 * and descrambled.
 */
#include <smdsp/private/v22bis.h>

#define U SMDSP_V22BIS_UNIT
#define HALF_T 20480		/* T/2 in 1/3072 samples: 20/3 samples */
#define AGC_TPOINTS 48		/* T/2 samples of AGC acquisition (40 ms) */
#define TURN_OVER_2PI 683565276LL	/* 2^32 / (2 pi) */

static const uint8_t phase_step[4] = { 1, 0, 2, 3 };

/* Arithmetic shift with rounding: plain >> biases every loop towards -1. */
static inline int32_t rsh(int64_t v, int s)
{
	return (int32_t)((v + (1LL << (s - 1))) >> s);
}

void smdsp_v22bis_rx_set_thresholds(struct smdsp_v22bis_rx *s, int on_dbm0_10, int off_dbm0_10)
{
	/*
	 * |y|^2 for a passband signal of mean square P: P G^2 / 2 for a tone at
	 * the carrier, about 0.81 of that for RRC-shaped data (G = DC gain).
	 */
	uint64_t g2 = ((uint64_t)SMDSP_V22BIS_RX_DCGAIN_Q16 * SMDSP_V22BIS_RX_DCGAIN_Q16) >> 16;

	s->on_pwr = (smdsp_dbm0_to_power(on_dbm0_10) * g2 * 22075) >> 32;
	s->off_pwr = (smdsp_dbm0_to_power(off_dbm0_10) * g2 * 22075) >> 32;
}

int smdsp_v22bis_rx_level(const struct smdsp_v22bis_rx *s)
{
	uint64_t g2 = ((uint64_t)SMDSP_V22BIS_RX_DCGAIN_Q16 * SMDSP_V22BIS_RX_DCGAIN_Q16) >> 16;

	if (!g2)
		return -999;
	/* P = pwr / (0.337 G^2), with g2 = G^2 in Q16 */
	return smdsp_power_to_dbm0(smdsp_div_u64(s->pwr << 16, (uint32_t)((g2 * 22075) >> 16)));
}

void smdsp_v22bis_rx_reset(struct smdsp_v22bis_rx *s)
{
	s->tpos = HALF_T;
	s->t_int = 0;
	s->ted_shift = 7;
	s->ted_int_shift = 14;
	s->agc = 1 << 16;
	s->agc_count = 0;
	s->carrier = false;
	s->off_count = 0;
	s->held = false;
	memset(s->t2, 0, sizeof(s->t2));
	s->half = false;
	smdsp_eq_init(&s->eq, SMDSP_V22BIS_EQ_LEN, SMDSP_V22BIS_EQ_LEN / 2, 5);
	s->eq_adapt = false;
	s->sixteen = false;
	s->car_phase = 0;
	s->car_freq = 0;
	s->car_p_shift = 2;
	s->car_i_shift = 7;
	s->quadrant = 0;
	s->descramble_reg = 0;
	s->ones = 0;
	s->symbols = 0;
	s->mse = 0;
	s->pwr_fast = s->pwr;
	s->agc_ref = 0;
	s->level_locked = false;
}

void smdsp_v22bis_rx_init(struct smdsp_v22bis_rx *s, bool calling, smdsp_v22bis_sym_fn sym_fn,
		       smdsp_status_fn status_fn, void *user)
{
	memset(s, 0, sizeof(*s));
	s->bp = smdsp_v22bis_rx_bp[calling ? 1 : 0];
	s->lo_rate = smdsp_phase_rate(calling ? 2400000 : 1200000, SMDSP_RATE);
	s->sym_fn = sym_fn;
	s->status_fn = status_fn;
	s->user = user;
	smdsp_v22bis_rx_set_thresholds(s, -430, -480);
	smdsp_v22bis_rx_reset(s);
}

static int descramble(struct smdsp_v22bis_rx *s, int bit)
{
	int out = (bit ^ (s->descramble_reg >> 13) ^ (s->descramble_reg >> 16)) & 1;

	s->descramble_reg = (s->descramble_reg << 1) | bit;
	if (s->ones >= 64) {
		out ^= 1;
		s->ones = 0;
	}
	if (bit)
		s->ones++;
	else
		s->ones = 0;
	return out;
}

static int32_t slice(int32_t v)
{
	if (v < -2 * U)
		return -3;
	if (v < 0)
		return -1;
	if (v < 2 * U)
		return 1;
	return 3;
}

static unsigned int quadrant_of(int32_t re, int32_t im)
{
	if (re >= 0)
		return im >= 0 ? 0 : 3;
	return im >= 0 ? 1 : 2;
}

/* Nearest point: quadrant, low bits and the point in units of U. */
void smdsp_v22bis_slice(bool sixteen, int32_t zr, int32_t zi, unsigned int *q, unsigned int *low,
		     int32_t *dr, int32_t *di)
{
	int32_t x, y, t;
	int px, py;
	unsigned int k;

	if (!sixteen) {
		/* the 1200 bit/s points (3,1) j^q sit at 18.4 degrees: turn by (2+j) */
		*q = quadrant_of(2 * zr - zi, zr + 2 * zi);
		*low = 1;
	} else {
		x = slice(zr);
		y = slice(zi);
		*q = quadrant_of(x, y);
		/* rotate back into the first quadrant */
		for (k = 0; k < *q; k++) {
			t = x;
			x = y;
			y = -t;
		}
		*low = (x == 3 ? 1 : 0) | (y == 3 ? 2 : 0);
	}
	smdsp_v22bis_map(*q, *low, &px, &py);
	*dr = px * U;
	*di = py * U;
}

static void timing(struct smdsp_v22bis_rx *s)
{
	/* Gardner: positive when sampling late */
	int64_t e = (int64_t)(s->t2[2].re - s->t2[0].re) * s->t2[1].re +
		    (int64_t)(s->t2[2].im - s->t2[0].im) * s->t2[1].im;
	int32_t en = smdsp_sat32(e >> 4);

	s->t_int += rsh(en, s->ted_int_shift);
	/* 100 ppm is 4 units per symbol: keep the integrator sane */
	if (s->t_int > 400)
		s->t_int = 400;
	if (s->t_int < -400)
		s->t_int = -400;
	s->tpos -= rsh(en, s->ted_shift) + s->t_int;
}

/* The largest |Im(z conj(d))| whose product with TURN_OVER_2PI fits in 64 bits (about 2^33.6). */
#define PE_MAX (0x7fffffffffffffffLL / TURN_OVER_2PI)

/* rsh() in 64 bits: (v + 2^(s-1)) >> s without the sum, which could overflow. */
static inline int64_t rsh64(int64_t v, int s)
{
	return (v >> s) + ((v >> (s - 1)) & 1);
}

/*
 * The equalizer's output may lie anywhere in the 32-bit plane (one run
 * away on noise saturates at +-2^31): the turns saturate, the phase error
 * is clamped before its scaling, the frequency saturates and the squared
 * error stays within 31 bits. Where the old arithmetic neither overflowed
 * nor truncated, the results are the same.
 */
static void symbol(struct smdsp_v22bis_rx *s)
{
	struct smdsp_v22bis_sym sym;
	struct smdsp_cplx y;
	int32_t c, sn, zr, zi, dr, di, er, ei;
	int64_t pe, d2;
	uint64_t e2;
	unsigned int q, low, dq;

	timing(s);
	y = smdsp_eq_output(&s->eq);
	/* undo the carrier phase: z = y e^{-j phase} */
	c = smdsp_cos(s->car_phase);
	sn = smdsp_sin(s->car_phase);
	zr = smdsp_sat32(((int64_t)y.re * c + (int64_t)y.im * sn) >> 15);
	zi = smdsp_sat32(((int64_t)y.im * c - (int64_t)y.re * sn) >> 15);
	smdsp_v22bis_slice(s->sixteen, zr, zi, &q, &low, &dr, &di);
	er = smdsp_sat32((int64_t)dr - zr);
	ei = smdsp_sat32((int64_t)di - zi);
	if (s->eq_adapt) {
		/* back into the equalizer's frame: err e^{+j phase} */
		smdsp_eq_update(&s->eq, smdsp_sat32(((int64_t)er * c - (int64_t)ei * sn) >> 15),
				smdsp_sat32(((int64_t)ei * c + (int64_t)er * sn) >> 15));
	}
	/* phase error: Im(z conj(d)) / |d|^2 radians (each product within +-2^43) */
	d2 = (int64_t)dr * dr + (int64_t)di * di;
	pe = (int64_t)zi * dr - (int64_t)zr * di;
	pe = pe > PE_MAX ? PE_MAX : pe < -PE_MAX ? -PE_MAX : pe;
	pe = smdsp_div_s64(pe * TURN_OVER_2PI, (int32_t)(d2 >> 4)) >> 4;
	/* the frequency saturates; the phase turns modulo 2^32 */
	s->car_freq = smdsp_sat32(s->car_freq + rsh64(pe, s->car_i_shift));
	s->car_phase += (uint32_t)(s->car_freq + rsh64(pe, s->car_p_shift));

	/* |er|, |ei| <= 2^31: the sum of squares fits in 64 unsigned bits; saturated to 31 */
	e2 = ((uint64_t)((int64_t)er * er) + (uint64_t)((int64_t)ei * ei)) >> 10;
	sym.err2 = (int32_t)(e2 < 0x7fffffffU ? e2 : 0x7fffffffU);
	s->mse += (sym.err2 - s->mse) >> 5;
	dq = (q - s->quadrant) & 3;
	s->quadrant = q;
	sym.dibit = phase_step[dq];
	sym.bits = (uint8_t)(descramble(s, sym.dibit >> 1) << 1);
	sym.bits |= (uint8_t)descramble(s, sym.dibit & 1);
	sym.nbits = 2;
	if (s->sixteen) {
		sym.bits = (uint8_t)(sym.bits << 1 | descramble(s, low >> 1));
		sym.bits = (uint8_t)(sym.bits << 1 | descramble(s, low & 1));
		sym.nbits = 4;
	}
	s->symbols++;
	if (s->sym_fn)
		s->sym_fn(s->user, &sym);
}

static void acquire(struct smdsp_v22bis_rx *s)
{
	/* the loops and the AGC start again on the signal now present */
	s->agc_count = 0;
	s->tpos = HALF_T;
	s->t_int = 0;
	s->ted_shift = 7;
	s->ted_int_shift = 14;
	s->car_phase = 0;
	s->car_freq = 0;
	s->car_p_shift = 2;
	s->car_i_shift = 7;
	smdsp_eq_reset(&s->eq, SMDSP_V22BIS_EQ_LEN / 2);
	s->symbols = 0;
}

static uint64_t smooth(uint64_t avg, uint64_t v, int shift)
{
	if (v > avg)
		return avg + ((v - avg) >> shift);
	return avg - ((avg - v) >> shift);
}

static void half_baud(struct smdsp_v22bis_rx *s, int32_t zr, int32_t zi)
{
	uint64_t p = (uint64_t)((int64_t)zr * zr + (int64_t)zi * zi);

	s->pwr = smooth(s->pwr, p, s->carrier ? 5 : 4);
	s->pwr_fast = smooth(s->pwr_fast, p, 3);
	s->pwr_slow = smooth(s->pwr_slow, p, 6);
	if (!s->carrier) {
		/*
		 * 5 ms above the threshold, so that noise peaks do not count,
		 * the slower average then no more than 0.6 dB under it (noise
		 * whose mean lies a few dB under the threshold has runs of
		 * peaks above it: it came up on them and went down again on a
		 * dip under the off threshold); and after a loss 6 dB above
		 * the lowest level since (the slow average still remembers the
		 * signal just lost; noise that stayed above the threshold is
		 * not a signal coming back)
		 */
		if (s->pwr < s->floor_pwr)
			s->floor_pwr = s->pwr;
		if ((s->held ? s->pwr_fast : s->pwr) < s->on_pwr || s->pwr < 4 * s->floor_pwr) {
			s->off_count = 0;
			return;
		}
		if (s->off_count < 6)
			s->off_count++;
		if (s->off_count < 6 || (!s->held && s->pwr_slow < s->on_pwr - (s->on_pwr >> 3)))
			return;
		if (s->held) {
			/*
			 * The same far transmitter, back after a gap: its timing
			 * and carrier are where the loops left them (a skipped
			 * period is a whole number of symbols), so carry on.
			 */
			s->held = false;
			s->off_count = 0;
		} else {
			smdsp_v22bis_rx_reset(s);
		}
		s->carrier = true;
		if (s->status_fn)
			s->status_fn(s->user, SMDSP_STATUS_CARRIER_UP);
	} else if (s->pwr_fast < s->off_pwr || (s->agc_ref && s->pwr_fast < s->agc_ref >> 5)) {
		/*
		 * 10 ms below the threshold, or 15 dB under the level the AGC
		 * was set on (the signal's end, when noise on the line stays
		 * above the threshold): the carrier is gone
		 */
		if (++s->off_count >= 12) {
			s->floor_pwr = s->pwr;
			if (s->hold) {
				s->carrier = false;
				s->held = true;
				s->off_count = 0;
			} else {
				smdsp_v22bis_rx_reset(s);
			}
			if (s->status_fn)
				s->status_fn(s->user, SMDSP_STATUS_CARRIER_DOWN);
			return;
		}
	} else {
		s->off_count = 0;
	}
	if (s->agc_count < AGC_TPOINTS) {
		/* T/2 samples of data average about 9 U^2: aim |z| at 3 U */
		uint32_t r = smdsp_isqrt64(s->pwr_fast);

		if (r)
			s->agc = (uint32_t)smdsp_div_u64((uint64_t)3 * U << 16, r);
		if (++s->agc_count == AGC_TPOINTS)
			s->agc_ref = s->pwr_fast;
	} else if (!s->level_locked && s->pwr_fast > 4 * s->agc_ref) {
		/*
		 * 6 dB more than what the AGC was set on: the carrier detector
		 * fired on noise (or an echo) before the far modem started.
		 */
		acquire(s);
	}
	zr = smdsp_sat16((int32_t)(((int64_t)zr * s->agc) >> 16));
	zi = smdsp_sat16((int32_t)(((int64_t)zi * s->agc) >> 16));
	s->t2[0] = s->t2[1];
	s->t2[1] = s->t2[2];
	s->t2[2].re = zr;
	s->t2[2].im = zi;
	smdsp_eq_push(&s->eq, (int16_t)zr, (int16_t)zi);
	s->half = !s->half;
	if (!s->half)
		symbol(s);
}

void smdsp_v22bis_rx_process(struct smdsp_v22bis_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		uint32_t theta = s->lo_phase;

		s->hist[s->hpos] = x[i];
		s->hist[s->hpos + SMDSP_V22BIS_RX_TAPS] = x[i];
		if (++s->hpos >= SMDSP_V22BIS_RX_TAPS)
			s->hpos = 0;
		s->lo_phase += s->lo_rate;
		s->tpos -= 3072;
		if (s->tpos > 0)
			continue;
		{
			/* the T/2 instant lies -tpos/3072 samples before this sample */
			int frac = (-s->tpos) >> 8;
			const int16_t *w = s->hist + s->hpos;
			const int16_t *hr, *hi;
			int64_t yr = 0, yi = 0;
			int32_t c, sn, zr, zi;

			if (frac > SMDSP_V22BIS_RX_PHASES - 1)
				frac = SMDSP_V22BIS_RX_PHASES - 1;
			hr = s->bp[frac][0];
			hi = s->bp[frac][1];
			for (k = 0; k < SMDSP_V22BIS_RX_TAPS; k++) {
				yr += (int32_t)w[k] * hr[k];
				yi += (int32_t)w[k] * hi[k];
			}
			yr >>= 14;
			yi >>= 14;
			/* to baseband: y e^{-j theta} */
			c = smdsp_cos(theta);
			sn = smdsp_sin(theta);
			zr = (int32_t)((yr * c + yi * sn) >> 15);
			zi = (int32_t)((yi * c - yr * sn) >> 15);
			s->tpos += HALF_T;
			half_baud(s, zr, zi);
		}
	}
}

struct smdsp_v22bis_rx *smdsp_v22bis_rx_create(bool calling, smdsp_v22bis_sym_fn sym_fn,
					     smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v22bis_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v22bis_rx_init(s, calling, sym_fn, status_fn, user);
	return s;
}

void smdsp_v22bis_rx_free(struct smdsp_v22bis_rx *s)
{
	smdsp_free(s);
}

int smdsp_v22bis_rx_print(const struct smdsp_v22bis_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v22bis_rx carrier=%d sixteen=%d symbols=%u mse=%d level=%d",
			s->carrier, s->sixteen, s->symbols, s->mse, smdsp_v22bis_rx_level(s));
}
