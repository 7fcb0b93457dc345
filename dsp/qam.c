// SPDX-License-Identifier: GPL-2.0
/*
 * Shared passband PSK/QAM pieces (see qam.h): used by V.27ter, V.29 and V.17.
 */
#include <smdsp/private/qam.h>

int smdsp_qam_scramble(uint32_t *reg, int bit)
{
	int out = (bit ^ (int)(*reg >> 17) ^ (int)(*reg >> 22)) & 1;

	*reg = (*reg << 1) | (uint32_t)out;
	return out;
}

int smdsp_qam_descramble(uint32_t *reg, int bit)
{
	int out = (bit ^ (int)(*reg >> 17) ^ (int)(*reg >> 22)) & 1;

	*reg = (*reg << 1) | (uint32_t)(bit & 1);
	return out;
}

void smdsp_qam_carrier(int16_t *car_cos, int16_t *car_sin, unsigned int period, int32_t freq_mhz)
{
	uint32_t phase = 0, rate = smdsp_phase_rate(freq_mhz, SMDSP_RATE);
	unsigned int i;

	for (i = 0; i < period; i++, phase += rate) {
		car_cos[i] = smdsp_cos(phase);
		car_sin[i] = smdsp_sin(phase);
	}
}

void smdsp_qam_tx_init(struct smdsp_qam_tx *t, int32_t carrier_mhz, unsigned int car_period,
		       unsigned int baud_len, unsigned int row_div, const int16_t *tab)
{
	memset(t, 0, sizeof(*t));
	if (car_period > SMDSP_QAM_CAR_MAX)
		car_period = SMDSP_QAM_CAR_MAX;
	smdsp_qam_carrier(t->car_cos, t->car_sin, car_period, carrier_mhz);
	t->car_period = car_period;
	t->baud_len = baud_len;
	t->baud_phase = baud_len - 3;	/* the first symbol at the first sample */
	t->row_step = SMDSP_QAM_TX_SYMS / row_div;
	t->tab = tab;
}

int32_t smdsp_qam_tx_gain(int level_dbm0_10, uint64_t sym_pow, uint64_t tab_pow)
{
	/*
	 * The passband value v of smdsp_qam_tx_process() has mean square
	 * sym_pow tab_pow 2^30 / 2; the output is (v >> 24) gain >> 16.
	 */
	uint64_t p = smdsp_dbm0_to_power(level_dbm0_10 ? level_dbm0_10 : -140);
	uint32_t d = smdsp_isqrt64(sym_pow * tab_pow / 2) >> 9;

	return d ? (int32_t)(smdsp_isqrt64(p << 32) / d) : 0;
}

void smdsp_qam_tx_process(struct smdsp_qam_tx *t, int16_t *out, unsigned int n,
			  smdsp_qam_sym_fn next, void *user)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const int16_t *h, *sr, *si;
		int32_t xr = 0, xi = 0;
		int64_t v;

		t->baud_phase += 3;
		if (t->baud_phase >= t->baud_len) {
			int re = 0, im = 0;

			t->baud_phase -= t->baud_len;
			if (++t->sym_pos >= SMDSP_QAM_TX_SYMS)
				t->sym_pos = 0;
			next(user, &re, &im);
			/* twice, so that the newest SYMS symbols are always contiguous */
			t->sym_re[t->sym_pos] = (int16_t)re;
			t->sym_im[t->sym_pos] = (int16_t)im;
			t->sym_re[t->sym_pos + SMDSP_QAM_TX_SYMS] = (int16_t)re;
			t->sym_im[t->sym_pos + SMDSP_QAM_TX_SYMS] = (int16_t)im;
		}
		if (++t->car_idx >= t->car_period)
			t->car_idx = 0;
		h = t->tab + t->baud_phase * t->row_step;
		/* tap k weighs the symbol k steps older than the newest */
		sr = t->sym_re + t->sym_pos + SMDSP_QAM_TX_SYMS;
		si = t->sym_im + t->sym_pos + SMDSP_QAM_TX_SYMS;
		for (k = 0; k < SMDSP_QAM_TX_SYMS; k++) {
			xr += sr[-(int)k] * h[k];
			xi += si[-(int)k] * h[k];
		}
		v = (int64_t)xr * t->car_cos[t->car_idx] - (int64_t)xi * t->car_sin[t->car_idx];
		out[i] = smdsp_sat16((int32_t)(((v >> 24) * t->gain) >> 16));
	}
}

void smdsp_qam_tx_calls(struct smdsp_qam_tx *t, smdsp_get_bit_fn get_bit,
			smdsp_status_fn status_fn, void *user)
{
	t->get_bit = get_bit;
	t->status_fn = status_fn;
	t->user = user;
}

void smdsp_qam_tx_stop(struct smdsp_qam_tx *t, uint32_t syms)
{
	if (!t->stopping) {
		t->stopping = true;
		t->shutdown = syms;
	}
}

bool smdsp_qam_tx_data(struct smdsp_qam_tx *t, uint32_t *step, uint32_t end)
{
	if (*step < end) {
		(*step)++;
	} else if (!t->data) {
		t->data = true;
		if (t->status_fn)
			t->status_fn(t->user, SMDSP_STATUS_TRAINED);
	}
	if (t->stopping) {
		if (!t->shutdown) {
			if (!t->done && t->status_fn)
				t->status_fn(t->user, SMDSP_STATUS_CARRIER_DOWN);
			t->done = true;
			return false;
		}
		t->shutdown--;
	}
	return true;
}

void smdsp_qam_rx_front_init(struct smdsp_qam_rx_front *f, int32_t carrier_mhz,
			     unsigned int car_period)
{
	memset(f, 0, sizeof(*f));
	if (car_period > SMDSP_QAM_CAR_MAX)
		car_period = SMDSP_QAM_CAR_MAX;
	smdsp_qam_carrier(f->car_cos, f->car_sin, car_period, carrier_mhz);
	f->car_period = car_period;
}

/*
 * The history is linear, newest first: tap k of the sample at hpos weighs
 * hre[hpos + k]. New samples go below hpos; when it reaches the bottom,
 * the newest TAPS - 1 samples move to the top and the space below them
 * takes the next RX_ROOM samples. The samples of a stretch are brought to
 * baseband first, then the T/2 instants among them are filtered (the
 * loads then seldom wait for the stores just made).
 */
#define RX_HIST (2 * SMDSP_QAM_RX_TAPS)
#define RX_ROOM (RX_HIST - SMDSP_QAM_RX_TAPS + 1)
#define RX_KEEP ((SMDSP_QAM_RX_TAPS - 1) * sizeof(int16_t))	/* bytes moved up */

void smdsp_qam_rx_front_process(struct smdsp_qam_rx_front *f, const int16_t *x, unsigned int n,
				smdsp_qam_half_fn half, void *user)
{
	unsigned int i = 0, j, k, m, top;

	while (i < n) {
		if (!f->hpos) {
			memmove(f->hre + RX_ROOM, f->hre, RX_KEEP);
			memmove(f->him + RX_ROOM, f->him, RX_KEEP);
			f->hpos = RX_ROOM;
		}
		/* this stretch's samples go to top - 1 down to top - m */
		top = f->hpos;
		m = n - i < top ? n - i : top;
		for (j = 0; j < m; j++) {
			int16_t s = x[i + j];

			f->hre[top - 1 - j] = (int16_t)((s * f->car_cos[f->car_idx]) >> 15);
			f->him[top - 1 - j] = (int16_t)(-((s * f->car_sin[f->car_idx]) >> 15));
			if (++f->car_idx >= f->car_period)
				f->car_idx = 0;
		}
		for (j = 0; j < m; j++) {
			/* the T/2 instant lies -tpos/3072 samples before this sample */
			const int16_t *wr = f->hre + top - 1 - j;
			const int16_t *wi = f->him + top - 1 - j;
			const int16_t *h;
			/* 32 bits suffice: the taps' absolute sum is below 2^16 */
			int32_t yr = 0, yi = 0;
			int frac;

			f->tpos -= SMDSP_QAM_TUNIT;
			if (f->tpos > 0)
				continue;
			frac = (-f->tpos) >> 8;
			if (frac > SMDSP_QAM_RX_PHASES - 1)
				frac = SMDSP_QAM_RX_PHASES - 1;
			h = f->mf[frac];
			/* forward over both arrays: the compiler can vectorize it */
			for (k = 0; k < SMDSP_QAM_RX_TAPS; k++) {
				yr += wr[k] * h[k];
				yi += wi[k] * h[k];
			}
			f->tpos += f->half_t;
			half(user, yr >> 13, yi >> 13);
		}
		f->hpos = top - m;
		i += m;
	}
}

void smdsp_qam_gardner_reset(struct smdsp_qam_gardner *g, int shift, int int_shift)
{
	memset(g, 0, sizeof(*g));
	g->shift = shift;
	g->int_shift = int_shift;
}

int32_t smdsp_qam_gardner_step(struct smdsp_qam_gardner *g)
{
	/* positive when sampling late */
	int64_t e = (int64_t)(g->t2[2].re - g->t2[0].re) * g->t2[1].re +
		    (int64_t)(g->t2[2].im - g->t2[0].im) * g->t2[1].im;
	int32_t en = smdsp_sat32(e >> 4);

	int32_t lim = 400 << g->frac;

	g->t_int += smdsp_rsh(en, g->int_shift);
	/* 100 ppm is a few units per symbol: keep the integrator sane */
	if (g->t_int > lim)
		g->t_int = lim;
	if (g->t_int < -lim)
		g->t_int = -lim;
	return smdsp_rsh(en, g->shift) + (g->frac ? smdsp_rsh(g->t_int, g->frac) : g->t_int);
}

void smdsp_qam_det_reset(struct smdsp_qam_det *d)
{
	d->carrier = false;
	d->on_count = 0;
	d->off_count = 0;
	d->floor_pwr = 0;
	d->agc = 1 << 16;
	d->agc_count = 0;
	d->ref_pwr = 0;
}

void smdsp_qam_det_init(struct smdsp_qam_det *d, uint64_t on_pwr, uint64_t off_pwr,
			unsigned int agc_points, uint32_t agc_num, uint32_t agc_den, uint32_t target)
{
	memset(d, 0, sizeof(*d));
	d->on_pwr = on_pwr;
	d->off_pwr = off_pwr;
	d->agc_points = agc_points;
	d->agc_num = agc_num;
	d->agc_den = agc_den;
	d->target = target;
	smdsp_qam_det_reset(d);
}

void smdsp_qam_det_agc_restart(struct smdsp_qam_det *d)
{
	d->agc = 1 << 16;
	d->agc_count = 0;
	d->ref_pwr = 0;
}

enum smdsp_qam_det_ev smdsp_qam_det_step(struct smdsp_qam_det *d, int32_t *re, int32_t *im,
					 bool trained)
{
	uint64_t p = (uint64_t)((int64_t)*re * *re + (int64_t)*im * *im);
	enum smdsp_qam_det_ev ev = SMDSP_QAM_SIGNAL;
	uint64_t off, end;

	d->pwr = smdsp_smooth(d->pwr, p, 2);
	off = d->pwr;
	end = d->pwr;
	if (d->slow) {
		d->pwr_mid = smdsp_smooth(d->pwr_mid, p, 3);
		d->pwr_slow = smdsp_smooth(d->pwr_slow, p, 5);
		off = d->pwr_slow;
		end = d->pwr_mid;
	}
	if (!d->carrier) {
		/*
		 * 6 T/2 samples above the threshold, so that noise peaks do not
		 * count, the slow average (slow) then no more than 1.25 dB under
		 * it (at a signal's onset at once; near the threshold as the
		 * slow average comes up): noise whose mean lies a few dB under
		 * the threshold has runs of fast peaks above it, and came up at
		 * its onset to go down again on a dip of the slow average under
		 * the off threshold (V.27ter 4800: noise at -43 dBm0 over 0-4
		 * kHz is 1.5 dB above the off threshold in its band); and after
		 * a lost carrier 6 dB above the lowest level since (not the tail
		 * of the signal just lost).
		 */
		if (off < d->floor_pwr)
			d->floor_pwr = off;
		if (d->pwr < d->on_pwr || off < 4 * d->floor_pwr) {
			d->on_count = 0;
			return SMDSP_QAM_IDLE;
		}
		if (d->on_count < 6)
			d->on_count++;
		if (d->on_count < 6 || off < d->on_pwr - (d->on_pwr >> 2))
			return SMDSP_QAM_IDLE;
		smdsp_qam_det_agc_restart(d);
		d->carrier = true;
		d->off_count = 0;
		ev = SMDSP_QAM_UP;
	} else if (off < d->off_pwr || end < d->ref_pwr >> 5) {
		/* 2 symbols below the threshold, or 15 dB below the AGC's level */
		if (++d->off_count >= 4) {
			d->carrier = false;
			d->on_count = 0;
			d->floor_pwr = off;
			return SMDSP_QAM_DOWN;
		}
	} else {
		d->off_count = 0;
	}
	if (d->agc_count < d->agc_points) {
		uint32_t r = smdsp_isqrt64(smdsp_div_u64(d->pwr * d->agc_num, d->agc_den));

		if (r)
			d->agc = (uint32_t)smdsp_div_u64((uint64_t)d->target << 16, r);
		if (++d->agc_count == d->agc_points)
			d->ref_pwr = d->pwr;
	} else if (!trained && d->pwr > 4 * d->ref_pwr) {
		/*
		 * 6 dB more than what the AGC was set on: the carrier detector
		 * fired on noise before the far modem started.
		 */
		smdsp_qam_det_agc_restart(d);
		ev = SMDSP_QAM_AGAIN;
	}
	*re = smdsp_sat16((int32_t)(((int64_t)*re * d->agc) >> 16));
	*im = smdsp_sat16((int32_t)(((int64_t)*im * d->agc) >> 16));
	return ev;
}

#define TURN_OVER_2PI 683565276LL	/* 2^32 / (2 pi) */

void smdsp_qam_rx_init(struct smdsp_qam_rx *q, int32_t carrier_mhz, unsigned int car_period,
		       smdsp_put_bit_fn put_bit, smdsp_status_fn status_fn, void *user)
{
	smdsp_qam_rx_front_init(&q->fe, carrier_mhz, car_period);
	q->put_bit = put_bit;
	q->status_fn = status_fn;
	q->user = user;
}

void smdsp_qam_rx_acquire(struct smdsp_qam_rx *q, int ted_shift, int ted_int_shift)
{
	q->fe.tpos = q->fe.half_t;
	smdsp_qam_gardner_reset(&q->ted, ted_shift, ted_int_shift);
	q->half = false;
	q->car_phase = 0;
	q->symbols = 0;
	q->par = 0;
	memset(q->s_re, 0, sizeof(q->s_re));
	memset(q->s_im, 0, sizeof(q->s_im));
	q->prev_re = 0;
	q->prev_im = 0;
	q->trained = false;
	q->mse = 0;
}

bool smdsp_qam_rx_half(struct smdsp_qam_rx *q, int32_t zr, int32_t zi, bool settled,
		       smdsp_qam_acquire_fn acquire, void *modem)
{
	switch (smdsp_qam_det_step(&q->det, &zr, &zi, settled)) {
	case SMDSP_QAM_IDLE:
		return false;
	case SMDSP_QAM_UP:
		acquire(modem);
		smdsp_qam_rx_status(q, SMDSP_STATUS_CARRIER_UP);
		break;
	case SMDSP_QAM_DOWN:
		/*
		 * V.27ter's silence between the echo protection tone and the
		 * training is only 32 symbols: the detector gives up after 2.
		 */
		q->trained = false;
		smdsp_qam_rx_status(q, SMDSP_STATUS_CARRIER_DOWN);
		return false;
	case SMDSP_QAM_AGAIN:
		acquire(modem);
		break;
	case SMDSP_QAM_SIGNAL:
		break;
	}
	smdsp_qam_gardner_push(&q->ted, zr, zi);
	smdsp_eq_push(&q->eq, (int16_t)zr, (int16_t)zi);
	q->half = !q->half;
	return !q->half;
}

struct smdsp_cplx smdsp_qam_rx_symbol(struct smdsp_qam_rx *q)
{
	struct smdsp_cplx y;

	q->fe.tpos -= smdsp_qam_gardner_step(&q->ted);
	y = smdsp_eq_output(&q->eq);
	/* undo the carrier phase: z = y e^{-j phase} */
	q->c = smdsp_cos(q->car_phase);
	q->sn = smdsp_sin(q->car_phase);
	return smdsp_cturn(y.re, y.im, q->c, -q->sn);
}

/* The largest |Im(z conj(d))| whose product with TURN_OVER_2PI fits in 64 bits (about 2^33.6). */
#define PE_MAX (0x7fffffffffffffffLL / TURN_OVER_2PI)

/* smdsp_rsh() in 64 bits: (v + 2^(s-1)) >> s without the sum, which could overflow. */
static inline int64_t rsh64(int64_t v, int s)
{
	return (v >> s) + ((v >> (s - 1)) & 1);
}

/*
 * z may lie anywhere in the 32-bit plane (an equalizer that ran away on
 * noise saturates at +-2^31): nothing here may overflow. Where the old
 * arithmetic neither overflowed nor truncated, the results are the same.
 */
void smdsp_qam_rx_track(struct smdsp_qam_rx *q, struct smdsp_cplx z, int32_t dr, int32_t di,
			bool eq, int pshift, int ishift)
{
	int32_t er = smdsp_sat32((int64_t)dr - z.re), ei = smdsp_sat32((int64_t)di - z.im);
	uint64_t e2;
	int64_t pe;

	if (eq) {
		/* back into the equalizer's frame: err e^{+j phase} */
		struct smdsp_cplx e = smdsp_cturn(er, ei, q->c, q->sn);

		smdsp_eq_update(&q->eq, e.re, e.im);
	}
	/*
	 * phase error: Im(z conj(d)) over the mean square, radians (each
	 * product is within +-2^62, their difference fits), clamped so that
	 * the scaling cannot overflow
	 */
	pe = (int64_t)z.im * dr - (int64_t)z.re * di;
	pe = pe > PE_MAX ? PE_MAX : pe < -PE_MAX ? -PE_MAX : pe;
	pe = smdsp_div_s64(pe * TURN_OVER_2PI, q->pnorm);
	/* the frequency saturates; the phase turns modulo 2^32 */
	q->car_freq = smdsp_sat32(q->car_freq + rsh64(pe, ishift));
	q->car_phase += (uint32_t)(q->car_freq + rsh64(pe, pshift));
	/* |er|, |ei| <= 2^31: the sum of squares fits in 64 unsigned bits; saturated to 31 */
	e2 = ((uint64_t)((int64_t)er * er) + (uint64_t)((int64_t)ei * ei)) >> 10;
	q->mse += (int32_t)(((int64_t)(e2 < 0x7fffffffU ? e2 : 0x7fffffffU) - q->mse) >> 5);
}

/* End of the phase estimate: the parity of B and the carrier phase. */
static bool acq_done(struct smdsp_qam_rx *q, const int8_t *ab, bool b_ahead)
{
	int64_t p = q->par < 0 ? -q->par : q->par, sr = 0, si = 0;
	unsigned int k;

	/* |Im(B conj(A))| is at least half the mean square: expect more than 0.3 of it */
	if (p < (int64_t)SMDSP_QAM_ACQ_LEN * q->pnorm * 3 / 10) {
		/* no alternation (the echo protection tone): again */
		q->symbols = SMDSP_QAM_ACQ_SKIP;
		q->par = 0;
		memset(q->s_re, 0, sizeof(q->s_re));
		memset(q->s_im, 0, sizeof(q->s_im));
		return false;
	}
	/* Im(z_k conj(z_k-1)), B's sign where z_k is B: par sums it with odd k positive */
	q->odd_b = b_ahead ? q->par > 0 : q->par < 0;
	for (k = 0; k < 2; k++) {
		/* k = 1: the odd symbols */
		const int8_t *d = ab + ((k == 1) == q->odd_b ? 2 : 0);

		/* sum z conj(d) */
		sr += q->s_re[k] * d[0] + q->s_im[k] * d[1];
		si += q->s_im[k] * d[0] - q->s_re[k] * d[1];
	}
	while (sr > 0x3fffffff || sr < -0x3fffffff || si > 0x3fffffff || si < -0x3fffffff) {
		sr >>= 1;
		si >>= 1;
	}
	q->car_phase = smdsp_atan2((int32_t)si, (int32_t)sr);
	return true;
}

bool smdsp_qam_rx_acq_symbol(struct smdsp_qam_rx *q, struct smdsp_cplx z, const int8_t *ab,
			     bool b_ahead)
{
	if (q->symbols >= SMDSP_QAM_ACQ_SKIP) {
		int64_t w = (int64_t)z.im * q->prev_re - (int64_t)z.re * q->prev_im;

		q->par += (q->symbols & 1) ? w : -w;
		q->s_re[q->symbols & 1] += z.re;
		q->s_im[q->symbols & 1] += z.im;
	}
	q->prev_re = z.re;
	q->prev_im = z.im;
	if (++q->symbols == SMDSP_QAM_ACQ_SKIP + SMDSP_QAM_ACQ_LEN)
		return acq_done(q, ab, b_ahead);
	return false;
}

int smdsp_qam_tx_print_as(const struct smdsp_qam_tx *t, const char *name, unsigned int rate,
			  uint32_t step, char *buf, size_t len)
{
	return snprintf(buf, len, "%s rate=%u step=%u baud_len=%u data=%d stopping=%d done=%d",
			name, rate, step, t->baud_len, t->data, t->stopping, t->done);
}

int smdsp_qam_tx_print(const struct smdsp_qam_tx *t, char *buf, size_t len)
{
	return smdsp_qam_tx_print_as(t, "qam_tx", 0, 0, buf, len);
}

int smdsp_qam_rx_print_as(const struct smdsp_qam_rx *q, const char *name, unsigned int rate,
			  char *buf, size_t len)
{
	return snprintf(buf, len, "%s rate=%u carrier=%d trained=%d symbols=%u mse=%d agc=%u",
			name, rate, q->det.carrier, q->trained, q->symbols, q->mse, q->det.agc);
}

int smdsp_qam_rx_print(const struct smdsp_qam_rx *q, char *buf, size_t len)
{
	return smdsp_qam_rx_print_as(q, "qam_rx", 0, buf, len);
}
