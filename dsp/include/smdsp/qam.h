/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pieces shared by the passband PSK/QAM modems that work at baseband
 * (V.27ter, V.29, V.17): the transmit pulse shaper and carrier, the receive
 * front end (carrier to baseband, matched filter at T/2 instants), the
 * Gardner timing loop, the carrier detector with its AGC, the receiver's
 * common state (carrier events, symbol instants, carrier loop, A/B phase
 * acquisition, the check of the training's scrambled ones), and small
 * helpers.
 */
#ifndef SMDSP_QAM_H
#define SMDSP_QAM_H

#include <smdsp/fixmath.h>
#include <smdsp/bits.h>
#include <smdsp/eq.h>

#define SMDSP_QAM_TX_SYMS 9	/* symbols under the transmit pulse */
#define SMDSP_QAM_RX_TAPS 48	/* baseband matched filter taps */
#define SMDSP_QAM_RX_PHASES 12	/* its fractional delays, 1/12 sample apart */
#define SMDSP_QAM_CAR_MAX 80	/* longest tabulated carrier period (1700 Hz) */
#define SMDSP_QAM_TUNIT 3072	/* the timing loops' unit: 1/3072 sample */

/* Arithmetic shift with rounding: plain >> biases every loop towards -1. */
static inline int32_t smdsp_rsh(int64_t v, int s)
{
	return (int32_t)((v + (1LL << (s - 1))) >> s);
}

/*
 * One-pole average of a power, in either direction without overflow (both
 * steps computed: a branch on the direction would go either way at random).
 */
static inline uint64_t smdsp_smooth(uint64_t avg, uint64_t v, int shift)
{
	uint64_t rise = -(uint64_t)(v > avg);	/* all ones when rising */

	return avg + (((v - avg) >> shift) & rise) - (((avg - v) >> shift) & ~rise);
}

/* (re + j im)(c + j s) >> 15: a turn by a Q15 unit phasor. */
static inline struct smdsp_cplx smdsp_cturn(int32_t re, int32_t im, int32_t c, int32_t s)
{
	struct smdsp_cplx z;

	z.re = (int32_t)(((int64_t)re * c - (int64_t)im * s) >> 15);
	z.im = (int32_t)(((int64_t)im * c + (int64_t)re * s) >> 15);
	return z;
}

/* The scrambler 1 + x^-18 + x^-23 of V.29 and V.17. */
int smdsp_qam_scramble(uint32_t *reg, int bit);
int smdsp_qam_descramble(uint32_t *reg, int bit);

/* period samples of a carrier at freq_mhz, Q15 (period whole cycles long). */
void smdsp_qam_carrier(int16_t *car_cos, int16_t *car_sin, unsigned int period, int32_t freq_mhz);

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

/* The next symbol at baseband (0, 0 for silence). */
typedef void (*smdsp_qam_sym_fn)(void *user, int *re, int *im);

void smdsp_qam_tx_init(struct smdsp_qam_tx *t, int32_t carrier_mhz, unsigned int car_period,
		       unsigned int baud_len, unsigned int row_div, const int16_t *tab);
/*
 * Gain for an output at level_dbm0_10 when the symbols' mean square is sym_pow
 * and the mean over the table's rows of their sums of squares is tab_pow.
 */
int32_t smdsp_qam_tx_gain(int level_dbm0_10, uint64_t sym_pow, uint64_t tab_pow);
void smdsp_qam_tx_process(struct smdsp_qam_tx *t, int16_t *out, unsigned int n,
			  smdsp_qam_sym_fn next, void *user);
void smdsp_qam_tx_calls(struct smdsp_qam_tx *t, smdsp_get_bit_fn get_bit,
			smdsp_status_fn status_fn, void *user);
/* End of data: syms more symbols (ones, then silence as the modem wants), then none. */
void smdsp_qam_tx_stop(struct smdsp_qam_tx *t, uint32_t syms);
/* The next data bit before scrambling: get_bit's during the data, else a one. */
static inline int smdsp_qam_tx_bit(const struct smdsp_qam_tx *t)
{
	int b = 1;

	if (t->data && !t->stopping && t->get_bit)
		b = t->get_bit(t->user) & 1;
	return b;
}

/*
 * A symbol after the training: *step counts on up to end (the last
 * training segment's ones), then the data starts (SMDSP_STATUS_TRAINED);
 * once stopping, the shutdown's symbols count down. False when they have
 * run out: silence (SMDSP_STATUS_CARRIER_DOWN once) and done.
 */
bool smdsp_qam_tx_data(struct smdsp_qam_tx *t, uint32_t *step, uint32_t end);

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

typedef void (*smdsp_qam_half_fn)(void *user, int32_t re, int32_t im);

void smdsp_qam_rx_front_init(struct smdsp_qam_rx_front *f, int32_t carrier_mhz,
			     unsigned int car_period);
void smdsp_qam_rx_front_process(struct smdsp_qam_rx_front *f, const int16_t *x, unsigned int n,
				smdsp_qam_half_fn half, void *user);

/* Gardner timing detector on T/2 samples (symbol, mid-symbol, symbol). */
struct smdsp_gardner {
	struct smdsp_cplx t2[3];
	int32_t t_int;
	int shift;		/* proportional gain 2^-shift */
	int int_shift;		/* integral gain 2^-int_shift */
	int frac;		/* t_int counts 2^-frac units (a quieter integrator) */
};

static inline void smdsp_gardner_push(struct smdsp_gardner *g, int32_t re, int32_t im)
{
	g->t2[0] = g->t2[1];
	g->t2[1] = g->t2[2];
	g->t2[2].re = re;
	g->t2[2].im = im;
}

void smdsp_gardner_reset(struct smdsp_gardner *g, int shift, int int_shift);
/* At a symbol: the amount to take from the time to the next T/2 sample. */
int32_t smdsp_gardner_step(struct smdsp_gardner *g);

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

enum smdsp_qam_det_ev {
	SMDSP_QAM_IDLE,		/* no carrier: drop the sample */
	SMDSP_QAM_UP,		/* carrier up: start acquiring, then use the sample */
	SMDSP_QAM_DOWN,		/* carrier lost: drop the sample */
	SMDSP_QAM_AGAIN,	/* a stronger signal came: acquire again, use the sample */
	SMDSP_QAM_SIGNAL,	/* use the sample */
};

void smdsp_qam_det_init(struct smdsp_qam_det *d, uint64_t on_pwr, uint64_t off_pwr,
			unsigned int agc_points, uint32_t agc_num, uint32_t agc_den, uint32_t target);
/* Back to carrier search. */
void smdsp_qam_det_reset(struct smdsp_qam_det *d);
/* One T/2 sample: the event, and *re, *im scaled by the AGC. */
/* The AGC measures the level again (a new signal): the carrier stays. */
void smdsp_qam_det_agc_restart(struct smdsp_qam_det *d);
enum smdsp_qam_det_ev smdsp_qam_det_step(struct smdsp_qam_det *d, int32_t *re, int32_t *im,
					 bool trained);

/*
 * A receiver's common state: the front end, the carrier detector, the
 * timing loop and the equalizer fed at T/2, the second-order carrier loop
 * that turns the equalizer's symbol-rate output, the A/B alternation's
 * phase estimate (V.29, V.17) and the check of the scrambled ones that end
 * the training.
 */
#define SMDSP_QAM_ACQ_SKIP 16	/* symbols before the phase estimate */
#define SMDSP_QAM_ACQ_LEN 32	/* symbols of phase estimate */
#define SMDSP_QAM_ONES_SYNC 24	/* descrambled ones not checked (23 to synchronise) */

struct smdsp_qam_rx {
	struct smdsp_qam_rx_front fe;
	struct smdsp_qam_det det;
	struct smdsp_gardner ted;
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

typedef void (*smdsp_qam_acquire_fn)(void *modem);

void smdsp_qam_rx_init(struct smdsp_qam_rx *q, int32_t carrier_mhz, unsigned int car_period,
		       smdsp_put_bit_fn put_bit, smdsp_status_fn status_fn, void *user);
/* Start of an acquisition: the timing loop reset (gains 2^-shift, 2^-int_shift), the rest cleared. */
void smdsp_qam_rx_acquire(struct smdsp_qam_rx *q, int ted_shift, int ted_int_shift);
static inline void smdsp_qam_rx_status(const struct smdsp_qam_rx *q, enum smdsp_status st)
{
	if (q->status_fn)
		q->status_fn(q->user, st);
}

/*
 * One T/2 sample from the front end, before the AGC: the carrier detector's events
 * (acquire(modem) when the carrier comes up, or a stronger signal before
 * settled), then the timing detector and the equalizer. True at a symbol.
 */
bool smdsp_qam_rx_half(struct smdsp_qam_rx *q, int32_t zr, int32_t zi, bool settled,
		       smdsp_qam_acquire_fn acquire, void *modem);
/* At a symbol: the timing loop's step, the equalizer's output turned by the carrier phase. */
struct smdsp_cplx smdsp_qam_rx_symbol(struct smdsp_qam_rx *q);
/*
 * The loops on this symbol z against the point (dr, di): the equalizer
 * (unless eq is false) and the carrier phase (gains 2^-pshift, 2^-ishift).
 */
void smdsp_qam_rx_track(struct smdsp_qam_rx *q, struct smdsp_cplx z, int32_t dr, int32_t di,
			bool eq, int pshift, int ishift);
/*
 * One symbol of an alternation of A (ab[0], ab[1]) and B (ab[2], ab[3]),
 * B ahead of A (turned counterclockwise) when b_ahead: true once
 * SMDSP_QAM_ACQ_LEN symbols after SMDSP_QAM_ACQ_SKIP gave the parity of B
 * (odd_b) and the carrier phase; an estimate without an alternation starts
 * again.
 */
bool smdsp_qam_rx_acq_symbol(struct smdsp_qam_rx *q, struct smdsp_cplx z, const int8_t *ab,
			     bool b_ahead);
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

#endif /* SMDSP_QAM_H */
