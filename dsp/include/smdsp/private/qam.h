/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/qam.h> (qam.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_QAM_H
#define SMDSP_PRIVATE_QAM_H

#include <smdsp/qam.h>
#include <smdsp/private/eq.h>

#define SMDSP_QAM_TX_SYMS 9	/* symbols under the transmit pulse */
#define SMDSP_QAM_RX_TAPS 48	/* baseband matched filter taps */
#define SMDSP_QAM_RX_PHASES 12	/* its fractional delays, 1/12 sample apart */
#define SMDSP_QAM_CAR_MAX 80	/* longest tabulated carrier period (1700 Hz) */
#define SMDSP_QAM_TUNIT 3072	/* the timing loops' unit: 1/3072 sample */
#define SMDSP_QAM_ACQ_SKIP 16	/* symbols before the phase estimate */
#define SMDSP_QAM_ACQ_LEN 32	/* symbols of phase estimate */
#define SMDSP_QAM_ONES_SYNC 24	/* descrambled ones not checked (23 to synchronise) */

/*
 * Transmitter: symbols at baseband through a pulse table, then onto the
 * carrier. The baud phase counts thirds of a sample; each symbol lasts
 * baud_len of them. Row r of the table (SMDSP_QAM_TX_SYMS taps, tap k for
 * the symbol k steps older than the newest) serves baud phase r * row_div.
 */
struct smdsp_qam_tx {
	int16_t car_cos[SMDSP_QAM_CAR_MAX];
	int16_t car_sin[SMDSP_QAM_CAR_MAX];
	unsigned int car_period;
	unsigned int car_idx;
	int16_t sym_re[2 * SMDSP_QAM_TX_SYMS];	/* recent symbols, stored twice */
	int16_t sym_im[2 * SMDSP_QAM_TX_SYMS];
	unsigned int sym_pos;
	unsigned int baud_phase;
	unsigned int baud_len;
	unsigned int row_step;	/* table offset per baud phase unit */
	const int16_t *tab;
	int32_t gain;
	/* the data and the end of the transmission (smdsp_qam_tx_data) */
	smdsp_get_bit_fn get_bit;
	smdsp_status_fn status_fn;
	void *user;
	uint32_t shutdown;	/* symbols left once stopping */
	bool data;		/* training done: bits come from get_bit */
	bool stopping;
	bool done;
};

/*
 * Receive front end: each sample goes to baseband by a tabulated carrier
 * and into a history; at every T/2 instant (tpos, in SMDSP_QAM_TUNIT, runs
 * out) the matched filter row for its fractional delay gives one complex
 * sample (DC gain 2 in Q13 compensates the mixing's 1/2).
 */
struct smdsp_qam_rx_front {
	const int16_t (*mf)[SMDSP_QAM_RX_TAPS];
	int16_t car_cos[SMDSP_QAM_CAR_MAX];
	int16_t car_sin[SMDSP_QAM_CAR_MAX];
	unsigned int car_period;
	unsigned int car_idx;
	int16_t hre[2 * SMDSP_QAM_RX_TAPS];	/* baseband history, newest first (qam.c) */
	int16_t him[2 * SMDSP_QAM_RX_TAPS];
	unsigned int hpos;	/* the newest sample's index */
	int32_t half_t;		/* T/2 in SMDSP_QAM_TUNIT */
	int32_t tpos;		/* time to the next T/2 sample */
};

/* Gardner timing detector on T/2 samples (symbol, mid-symbol, symbol). */
struct smdsp_qam_gardner {
	struct smdsp_cplx t2[3];
	int32_t t_int;
	int shift;		/* proportional gain 2^-shift */
	int int_shift;		/* integral gain 2^-int_shift */
	int frac;		/* t_int counts 2^-frac units (a quieter integrator) */
};

/*
 * Carrier detector and AGC on the T/2 samples' power |y|^2: on after 6
 * samples above on_pwr (and, after a loss, 6 dB above the lowest level
 * since), off after 4 below off_pwr or 15 dB under the level the AGC was
 * set on. The AGC is set during the first agc_points T/2 samples of carrier
 * so that sqrt(pwr * agc_num / agc_den) becomes target; a rise of 6 dB over
 * that level before the receiver is trained means it fired on noise.
 */
struct smdsp_qam_det {
	uint64_t pwr;
	uint64_t on_pwr;
	uint64_t off_pwr;
	uint64_t ref_pwr;
	uint64_t floor_pwr;
	uint32_t agc;		/* Q16 */
	unsigned int agc_count;
	unsigned int agc_points;
	uint32_t agc_num;
	uint32_t agc_den;
	uint32_t target;
	unsigned int on_count;
	unsigned int off_count;
	bool carrier;
	/*
	 * slow: the off threshold, the floor after a loss and the signal's end
	 * are judged on slower averages of |y|^2 than the AGC's, and the
	 * carrier comes on only with the slowest within 1.25 dB of on_pwr
	 * (V.17, V.29, V.27ter: their receivers must not flip on noise at
	 * the thresholds)
	 */
	bool slow;
	uint64_t pwr_mid;	/* over 8 samples: the signal's end */
	uint64_t pwr_slow;	/* over 32: the off threshold, the floor after a loss, the onset */
};

struct smdsp_qam_rx {
	struct smdsp_qam_rx_front fe;
	struct smdsp_qam_det det;
	struct smdsp_qam_gardner ted;
	bool half;
	struct smdsp_eq eq;
	uint32_t car_phase;
	int32_t car_freq;
	int32_t c, sn;		/* this symbol's carrier phasor, Q15 */
	int32_t pnorm;		/* the symbols' mean square, units^2 */
	uint32_t symbols;	/* in this stage */
	int64_t par;		/* A/B alternation: which symbols are A */
	int64_t s_re[2];	/* A/B alternation: sums of the odd and even symbols */
	int64_t s_im[2];
	int32_t prev_re;
	int32_t prev_im;
	bool odd_b;		/* A/B alternation: the odd symbols are B */
	unsigned int ones_bits;	/* the training's ones: bits checked, zeros among them */
	unsigned int ones_zeros;
	bool trained;
	int32_t mse;		/* smoothed squared error, units^2 >> 10 */
	smdsp_put_bit_fn put_bit;
	smdsp_status_fn status_fn;
	void *user;
};

/* The next data bit before scrambling: get_bit's during the data, else a one. */
static inline int smdsp_qam_tx_bit(const struct smdsp_qam_tx *t)
{
	int b = 1;

	if (t->data && !t->stopping && t->get_bit)
		b = t->get_bit(t->user) & 1;
	return b;
}

static inline void smdsp_qam_gardner_push(struct smdsp_qam_gardner *g, int32_t re, int32_t im)
{
	g->t2[0] = g->t2[1];
	g->t2[1] = g->t2[2];
	g->t2[2].re = re;
	g->t2[2].im = im;
}

static inline void smdsp_qam_rx_status(const struct smdsp_qam_rx *q, enum smdsp_status st)
{
	if (q->status_fn)
		q->status_fn(q->user, st);
}

/*
 * A training's verdict. A receiver that trained on noise, or on a signal
 * that came during its training, looks for the training again with its
 * AGC restarted rather than stay failed: the caller re-acquires when this
 * returns false.
 */
static inline bool smdsp_qam_rx_verdict(struct smdsp_qam_rx *q, bool ok)
{
	q->trained = ok;
	if (!ok) {
		smdsp_qam_rx_status(q, SMDSP_STATUS_TRAINING_FAILED);
		smdsp_qam_det_agc_restart(&q->det);
	}
	return ok;
}

/* The A/B alternation: 1 if B is due at this symbol. */
static inline unsigned int smdsp_qam_rx_b_due(const struct smdsp_qam_rx *q)
{
	return ((q->symbols & 1) != 0) == q->odd_b;
}

/* A descrambled bit: counted by the ones check, or to put_bit. */
static inline void smdsp_qam_rx_bit(struct smdsp_qam_rx *q, int b, bool ones)
{
	if (ones) {
		if (++q->ones_bits > SMDSP_QAM_ONES_SYNC && !b)
			q->ones_zeros++;
	} else if (q->put_bit) {
		q->put_bit(q->user, b);
	}
}

/* The ones check: few enough zeros (under a third) for a trained receiver. */
static inline bool smdsp_qam_rx_ones_ok(const struct smdsp_qam_rx *q)
{
	return q->ones_zeros * 3 <= q->ones_bits - SMDSP_QAM_ONES_SYNC;
}

void smdsp_qam_tx_init(struct smdsp_qam_tx *t, int32_t carrier_mhz, unsigned int car_period,
		       unsigned int baud_len, unsigned int row_div, const int16_t *tab);

void smdsp_qam_rx_front_init(struct smdsp_qam_rx_front *f, int32_t carrier_mhz,
			     unsigned int car_period);

void smdsp_qam_det_init(struct smdsp_qam_det *d, uint64_t on_pwr, uint64_t off_pwr,
			unsigned int agc_points, uint32_t agc_num, uint32_t agc_den, uint32_t target);

void smdsp_qam_rx_init(struct smdsp_qam_rx *q, int32_t carrier_mhz, unsigned int car_period,
		       smdsp_put_bit_fn put_bit, smdsp_status_fn status_fn, void *user);

#endif /* SMDSP_PRIVATE_QAM_H */
