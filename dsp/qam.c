// SPDX-License-Identifier: GPL-2.0
/*
 * Shared passband PSK/QAM pieces (see qam.h): used by V.27ter and V.29.
 */
#include <smdsp/qam.h>

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

void smdsp_qam_rx_front_init(struct smdsp_qam_rx_front *f, int32_t carrier_mhz,
			     unsigned int car_period)
{
	memset(f, 0, sizeof(*f));
	if (car_period > SMDSP_QAM_CAR_MAX)
		car_period = SMDSP_QAM_CAR_MAX;
	smdsp_qam_carrier(f->car_cos, f->car_sin, car_period, carrier_mhz);
	f->car_period = car_period;
}

void smdsp_qam_rx_front_process(struct smdsp_qam_rx_front *f, const int16_t *x, unsigned int n,
				smdsp_qam_half_fn half, void *user)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		int16_t re = (int16_t)((x[i] * f->car_cos[f->car_idx]) >> 15);
		int16_t im = (int16_t)(-((x[i] * f->car_sin[f->car_idx]) >> 15));

		if (++f->car_idx >= f->car_period)
			f->car_idx = 0;
		f->hre[f->hpos] = re;
		f->him[f->hpos] = im;
		f->hre[f->hpos + SMDSP_QAM_RX_TAPS] = re;
		f->him[f->hpos + SMDSP_QAM_RX_TAPS] = im;
		if (++f->hpos >= SMDSP_QAM_RX_TAPS)
			f->hpos = 0;
		f->tpos -= SMDSP_QAM_TUNIT;
		if (f->tpos > 0)
			continue;
		{
			/* the T/2 instant lies -tpos/3072 samples before this sample */
			int frac = (-f->tpos) >> 8;
			/* newest sample at hpos + TAPS - 1: tap k is k samples older */
			const int16_t *wr = f->hre + f->hpos + SMDSP_QAM_RX_TAPS - 1;
			const int16_t *wi = f->him + f->hpos + SMDSP_QAM_RX_TAPS - 1;
			const int16_t *h;
			/* 32 bits suffice: the taps' absolute sum is below 2^16 */
			int32_t yr = 0, yi = 0;

			if (frac > SMDSP_QAM_RX_PHASES - 1)
				frac = SMDSP_QAM_RX_PHASES - 1;
			h = f->mf[frac];
			for (k = 0; k < SMDSP_QAM_RX_TAPS; k++) {
				yr += wr[-(int)k] * h[k];
				yi += wi[-(int)k] * h[k];
			}
			f->tpos += f->half_t;
			half(user, yr >> 13, yi >> 13);
		}
	}
}

void smdsp_gardner_reset(struct smdsp_gardner *g, int shift, int int_shift)
{
	memset(g, 0, sizeof(*g));
	g->shift = shift;
	g->int_shift = int_shift;
}

int32_t smdsp_gardner_step(struct smdsp_gardner *g)
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

static void agc_restart(struct smdsp_qam_det *d)
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

	d->pwr = smdsp_smooth(d->pwr, p, 2);
	if (!d->carrier) {
		/*
		 * 6 T/2 samples above the threshold, so that noise peaks do not
		 * count, and after a lost carrier 6 dB above the lowest level
		 * since (not the tail of the signal just lost).
		 */
		if (d->pwr < d->floor_pwr)
			d->floor_pwr = d->pwr;
		if (d->pwr < d->on_pwr || d->pwr < 4 * d->floor_pwr) {
			d->on_count = 0;
			return SMDSP_QAM_IDLE;
		}
		if (++d->on_count < 6)
			return SMDSP_QAM_IDLE;
		agc_restart(d);
		d->carrier = true;
		d->off_count = 0;
		ev = SMDSP_QAM_UP;
	} else if (d->pwr < d->off_pwr || d->pwr < d->ref_pwr >> 5) {
		/* 2 symbols below the threshold, or 15 dB below the AGC's level */
		if (++d->off_count >= 4) {
			d->carrier = false;
			d->on_count = 0;
			d->floor_pwr = d->pwr;
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
		agc_restart(d);
		ev = SMDSP_QAM_AGAIN;
	}
	*re = smdsp_sat16((int32_t)(((int64_t)*re * d->agc) >> 16));
	*im = smdsp_sat16((int32_t)(((int64_t)*im * d->agc) >> 16));
	return ev;
}
