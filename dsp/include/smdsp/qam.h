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

struct smdsp_qam_tx;

/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_qam_tx_print(const struct smdsp_qam_tx *t, char *buf, size_t len);
/* The same under a modem's name, with its rate and symbols sent (V.27ter, V.29, V.17 tx). */
int smdsp_qam_tx_print_as(const struct smdsp_qam_tx *t, const char *name, unsigned int rate,
			  uint32_t step, char *buf, size_t len);
/* The next symbol at baseband (0, 0 for silence). */
typedef void (*smdsp_qam_sym_fn)(void *user, int *re, int *im);

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

/*
 * A symbol after the training: *step counts on up to end (the last
 * training segment's ones), then the data starts (SMDSP_STATUS_TRAINED);
 * once stopping, the shutdown's symbols count down. False when they have
 * run out: silence (SMDSP_STATUS_CARRIER_DOWN once) and done.
 */
bool smdsp_qam_tx_data(struct smdsp_qam_tx *t, uint32_t *step, uint32_t end);

struct smdsp_qam_rx_front;

typedef void (*smdsp_qam_half_fn)(void *user, int32_t re, int32_t im);

void smdsp_qam_rx_front_process(struct smdsp_qam_rx_front *f, const int16_t *x, unsigned int n,
				smdsp_qam_half_fn half, void *user);

struct smdsp_qam_gardner;

void smdsp_qam_gardner_reset(struct smdsp_qam_gardner *g, int shift, int int_shift);
/* At a symbol: the amount to take from the time to the next T/2 sample. */
int32_t smdsp_qam_gardner_step(struct smdsp_qam_gardner *g);

struct smdsp_qam_det;

enum smdsp_qam_det_ev {
	SMDSP_QAM_IDLE,		/* no carrier: drop the sample */
	SMDSP_QAM_UP,		/* carrier up: start acquiring, then use the sample */
	SMDSP_QAM_DOWN,		/* carrier lost: drop the sample */
	SMDSP_QAM_AGAIN,	/* a stronger signal came: acquire again, use the sample */
	SMDSP_QAM_SIGNAL,	/* use the sample */
};

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

struct smdsp_qam_rx;

/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_qam_rx_print(const struct smdsp_qam_rx *q, char *buf, size_t len);
/* The same line under a modem's name and with its rate (the V.27ter, V.29, V.17 receivers). */
int smdsp_qam_rx_print_as(const struct smdsp_qam_rx *q, const char *name, unsigned int rate,
			  char *buf, size_t len);
typedef void (*smdsp_qam_acquire_fn)(void *modem);

/* Start of an acquisition: the timing loop reset (gains 2^-shift, 2^-int_shift), the rest cleared. */
void smdsp_qam_rx_acquire(struct smdsp_qam_rx *q, int ted_shift, int ted_int_shift);

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

#endif /* SMDSP_QAM_H */
