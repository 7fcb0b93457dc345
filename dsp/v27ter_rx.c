// SPDX-License-Identifier: GPL-2.0
/*
 * V.27ter demodulator.
 *
 * Each input sample is brought to baseband by the 1800 Hz carrier (a
 * tabulated period of 40 samples) and enters a history buffer. At every T/2
 * instant, placed by the timing loop with 1/3072-sample resolution, a root-
 * raised-cosine matched filter chosen among 12 fractional delays gives the
 * complex baseband sample. The samples are scaled by an AGC set on the first
 * symbols of carrier, feed a Gardner timing detector and a fractionally
 * spaced LMS equalizer (eq.c), whose symbol-rate output is rotated by a
 * second-order decision-directed carrier loop and sliced.
 *
 * Training: the far end sends 180 degree reversals and then 1074 symbols
 * that change by 0 or 180 degrees only, so the first TRAIN_SYMS symbols
 * are sliced as two points on the real axis, which lets the loops and the
 * equalizer converge without the 45 degree ambiguity of 8-PSK. Then the
 * slicer takes all 8 (4800) or 4 (2400) points; the first change that is
 * neither 0 nor 180 degrees marks the end of the training, and from there
 * the phase changes are decoded, descrambled and delivered.
 */
#include <smdsp/v27ter.h>

#define U SMDSP_V27_UNIT
#define U45 1448		/* U / sqrt(2) */
#define TRAIN_SYMS 500		/* two-point slicing after the carrier came up */
#define AGC_SYMS 16		/* symbols of AGC acquisition */
#define TURN_OVER_2PI 683565276LL	/* 2^32 / (2 pi) */

static const int16_t pts[8][2] = {
	{ U, 0 }, { U45, U45 }, { 0, U }, { -U45, U45 },
	{ -U, 0 }, { -U45, -U45 }, { 0, -U }, { U45, -U45 },
};

/* phase change in 45 degree steps -> tribit (4800) */
static const uint8_t tribit_of[8] = { 1, 0, 2, 3, 7, 6, 4, 5 };
/* phase change in 90 degree steps -> dibit (2400) */
static const uint8_t dibit_of[4] = { 0, 1, 3, 2 };

/* Arithmetic shift with rounding: plain >> biases every loop towards -1. */
static inline int32_t rsh(int64_t v, int s)
{
	return (int32_t)((v + (1LL << (s - 1))) >> s);
}

static void acquire(struct smdsp_v27_rx *s)
{
	s->tpos = s->half_t;
	s->t_int = 0;
	s->agc = 1 << 16;
	s->agc_count = 0;
	s->ref_pwr = 0;
	memset(s->t2, 0, sizeof(s->t2));
	s->half = false;
	smdsp_eq_init(&s->eq, SMDSP_V27_EQ_LEN, SMDSP_V27_EQ_LEN / 2, 4);
	s->car_phase = 0;
	s->car_freq = 0;
	s->state = 0;
	s->scr.reg = 0;
	s->scr.count = 0;
	s->symbols = 0;
	s->trained = false;
	s->mse = 0;
}

int smdsp_v27_rx_restart(struct smdsp_v27_rx *s, unsigned int rate)
{
	if (rate != 2400 && rate != 4800)
		return -EINVAL;
	s->rate = rate;
	s->mf = rate == 4800 ? smdsp_v27_rx_rrc_4800 : smdsp_v27_rx_rrc_2400;
	/* T/2: 2.5 samples at 1600 baud, 10/3 at 1200 baud */
	s->half_t = rate == 4800 ? 7680 : 10240;
	s->carrier = false;
	s->on_count = 0;
	s->off_count = 0;
	s->floor_pwr = 0;
	acquire(s);
	return 0;
}

int smdsp_v27_rx_init(struct smdsp_v27_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user)
{
	if (rate != 2400 && rate != 4800)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_v27_carrier(s->car_cos, s->car_sin);
	/*
	 * |y|^2 is twice the passband mean square, about 7/8 of that for
	 * shaped data: carrier on at -43 dBm0, off at -48 dBm0.
	 */
	s->on_pwr = smdsp_dbm0_to_power(-430) * 7 / 4;
	s->off_pwr = smdsp_dbm0_to_power(-480) * 7 / 4;
	s->put_bit = put_bit;
	s->status_fn = status_fn;
	s->user = user;
	return smdsp_v27_rx_restart(s, rate);
}

struct smdsp_v27_rx *smdsp_v27_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v27_rx *s;

	if (rate != 2400 && rate != 4800)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v27_rx_init(s, rate, put_bit, status_fn, user);
	return s;
}

void smdsp_v27_rx_free(struct smdsp_v27_rx *s)
{
	smdsp_free(s);
}

bool smdsp_v27_rx_trained(const struct smdsp_v27_rx *s)
{
	return s->trained;
}

static void timing(struct smdsp_v27_rx *s)
{
	/* Gardner: positive when sampling late */
	int64_t e = (int64_t)(s->t2[2].re - s->t2[0].re) * s->t2[1].re +
		    (int64_t)(s->t2[2].im - s->t2[0].im) * s->t2[1].im;
	int32_t en = smdsp_sat32(e >> 4);

	s->t_int += rsh(en, 16);
	if (s->t_int > 400)
		s->t_int = 400;
	if (s->t_int < -400)
		s->t_int = -400;
	s->tpos -= rsh(en, 9) + s->t_int;
}

/* Nearest point, in 45 degree steps (comparisons only, no arctangent). */
static unsigned int decide(const struct smdsp_v27_rx *s, int32_t zr, int32_t zi)
{
	int32_t a, b;

	if (s->symbols < TRAIN_SYMS)
		return zr >= 0 ? 0 : 4;
	if (s->rate == 2400) {
		if (smdsp_abs32(zr) >= smdsp_abs32(zi))
			return zr >= 0 ? 0 : 4;
		return zi >= 0 ? 2 : 6;
	}
	/* turned by +22.5 degrees, the decision regions are the octants */
	a = (int32_t)(((int64_t)zr * 30274 - (int64_t)zi * 12540) >> 15);
	b = (int32_t)(((int64_t)zi * 30274 + (int64_t)zr * 12540) >> 15);
	if (b >= 0) {
		if (a > 0)
			return b < a ? 0 : 1;
		return b > -a ? 2 : 3;
	}
	if (a < 0)
		return -b < -a ? 4 : 5;
	return -b > a ? 6 : 7;
}

static void deliver(struct smdsp_v27_rx *s, unsigned int step)
{
	unsigned int bits, n, i;

	if (s->rate == 4800) {
		bits = tribit_of[step];
		n = 3;
	} else {
		bits = dibit_of[(step >> 1) & 3];
		n = 2;
	}
	for (i = n; i-- > 0;) {
		int b = smdsp_v27_descramble(&s->scr, (int)(bits >> i) & 1);

		if (s->trained && s->put_bit)
			s->put_bit(s->user, b);
	}
}

static void symbol(struct smdsp_v27_rx *s)
{
	struct smdsp_cplx y;
	int32_t c, sn, zr, zi, dr, di, er, ei, err2;
	int64_t pe;
	unsigned int k, step;

	timing(s);
	y = smdsp_eq_output(&s->eq);
	/* undo the carrier phase: z = y e^{-j phase} */
	c = smdsp_cos(s->car_phase);
	sn = smdsp_sin(s->car_phase);
	zr = (int32_t)(((int64_t)y.re * c + (int64_t)y.im * sn) >> 15);
	zi = (int32_t)(((int64_t)y.im * c - (int64_t)y.re * sn) >> 15);
	k = decide(s, zr, zi);
	dr = pts[k][0];
	di = pts[k][1];
	er = dr - zr;
	ei = di - zi;
	/* back into the equalizer's frame: err e^{+j phase} */
	smdsp_eq_update(&s->eq, (int32_t)(((int64_t)er * c - (int64_t)ei * sn) >> 15),
			(int32_t)(((int64_t)ei * c + (int64_t)er * sn) >> 15));
	/* phase error: Im(z conj(d)) / |d|^2 radians */
	pe = (int64_t)zi * dr - (int64_t)zr * di;
	pe = (pe * TURN_OVER_2PI) >> 22;	/* |d|^2 = U^2 = 2^22 for every point */
	s->car_freq += rsh(pe, s->symbols < TRAIN_SYMS ? 7 : 9);
	s->car_phase += (uint32_t)(s->car_freq + rsh(pe, s->symbols < TRAIN_SYMS ? 2 : 3));
	err2 = (int32_t)(((int64_t)er * er + (int64_t)ei * ei) >> 10);
	s->mse += (err2 - s->mse) >> 5;

	step = (k - s->state) & 7;
	s->state = k;
	if (s->symbols == TRAIN_SYMS) {
		/* the two-point part of the training is over: slower adaptation */
		s->eq.mu_shift = 6;
	} else if (s->symbols > TRAIN_SYMS && !s->trained && (step & 3)) {
		/* a change other than 0 or 180 degrees: the end of the training */
		s->trained = true;
		if (s->status_fn)
			s->status_fn(s->user, SMDSP_STATUS_TRAINED);
	}
	if (s->symbols > TRAIN_SYMS)
		deliver(s, step);
	s->symbols++;
}

static uint64_t smooth(uint64_t avg, uint64_t v, int shift)
{
	if (v > avg)
		return avg + ((v - avg) >> shift);
	return avg - ((avg - v) >> shift);
}

static void half_baud(struct smdsp_v27_rx *s, int32_t zr, int32_t zi)
{
	uint64_t p = (uint64_t)((int64_t)zr * zr + (int64_t)zi * zi);

	s->pwr = smooth(s->pwr, p, 2);
	if (!s->carrier) {
		/*
		 * 6 T/2 samples above the threshold, so that noise peaks do not
		 * count, and after a lost carrier 6 dB above the lowest level
		 * since (not the tail of the signal just lost).
		 */
		if (s->pwr < s->floor_pwr)
			s->floor_pwr = s->pwr;
		if (s->pwr < s->on_pwr || s->pwr < 4 * s->floor_pwr) {
			s->on_count = 0;
			return;
		}
		if (++s->on_count < 6)
			return;
		acquire(s);
		s->carrier = true;
		s->off_count = 0;
		if (s->status_fn)
			s->status_fn(s->user, SMDSP_STATUS_CARRIER_UP);
	} else if (s->pwr < s->off_pwr || s->pwr < s->ref_pwr >> 5) {
		/*
		 * 2 symbols below the threshold, or 15 dB below the level the
		 * AGC was set on: the carrier is gone (the silence between the
		 * echo protection tone and the training is only 32 symbols).
		 */
		if (++s->off_count >= 4) {
			s->carrier = false;
			s->on_count = 0;
			s->floor_pwr = s->pwr;
			s->trained = false;
			if (s->status_fn)
				s->status_fn(s->user, SMDSP_STATUS_CARRIER_DOWN);
			return;
		}
	} else {
		s->off_count = 0;
	}
	if (s->agc_count < 2 * AGC_SYMS) {
		/* the shaped signal averages about 7/8 of the symbols' power */
		uint32_t r = smdsp_isqrt64(s->pwr * 8 / 7);

		if (r)
			s->agc = (uint32_t)smdsp_div_u64((uint64_t)U << 16, r);
		if (++s->agc_count == 2 * AGC_SYMS)
			s->ref_pwr = s->pwr;
	} else if (!s->trained && s->pwr > 4 * s->ref_pwr) {
		/*
		 * 6 dB more than what the AGC was set on: the carrier detector
		 * fired on noise before the far modem started.
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

void smdsp_v27_rx_process(struct smdsp_v27_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		int16_t re = (int16_t)((x[i] * s->car_cos[s->car_idx]) >> 15);
		int16_t im = (int16_t)(-((x[i] * s->car_sin[s->car_idx]) >> 15));

		if (++s->car_idx >= SMDSP_V27_CAR_PERIOD)
			s->car_idx = 0;
		s->hre[s->hpos] = re;
		s->him[s->hpos] = im;
		s->hre[s->hpos + SMDSP_V27_RX_TAPS] = re;
		s->him[s->hpos + SMDSP_V27_RX_TAPS] = im;
		if (++s->hpos >= SMDSP_V27_RX_TAPS)
			s->hpos = 0;
		s->tpos -= 3072;
		if (s->tpos > 0)
			continue;
		{
			/* the T/2 instant lies -tpos/3072 samples before this sample */
			int frac = (-s->tpos) >> 8;
			/* newest sample at hpos + TAPS - 1: tap k is k samples older */
			const int16_t *wr = s->hre + s->hpos + SMDSP_V27_RX_TAPS - 1;
			const int16_t *wi = s->him + s->hpos + SMDSP_V27_RX_TAPS - 1;
			const int16_t *h;
			/* 32 bits suffice: the taps' absolute sum is below 2^16 */
			int32_t yr = 0, yi = 0;

			if (frac > SMDSP_V27_RX_PHASES - 1)
				frac = SMDSP_V27_RX_PHASES - 1;
			h = s->mf[frac];
			for (k = 0; k < SMDSP_V27_RX_TAPS; k++) {
				yr += wr[-(int)k] * h[k];
				yi += wi[-(int)k] * h[k];
			}
			s->tpos += s->half_t;
			half_baud(s, yr >> 13, yi >> 13);
		}
	}
}
