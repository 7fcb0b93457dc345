/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v32bis.h> (v32bis_tx.c,
 * v32bis_rx.c), for the blocks that embed it by value.
 */
#ifndef SMDSP_PRIVATE_V32BIS_H
#define SMDSP_PRIVATE_V32BIS_H

#include <smdsp/v32bis.h>
#include <smdsp/private/qam.h>
#include <smdsp/private/trellis.h>
#include <smdsp/private/viterbi.h>
#include <smdsp/private/eq.h>
#include <smdsp/private/echo.h>
#include <smdsp/private/v34_onset.h>

#define SMDSP_V32BIS_QUEUE 8
#define SMDSP_V32BIS_TRN_AC 256		/* TRN's first symbols: A and C only */
#define SMDSP_V32BIS_SBAR_LEN 16
#define SMDSP_V32BIS_B1_LEN 128
#define SMDSP_V32BIS_RX_HIST 32	/* a power of 2: symbols the data's end may be found back */

struct smdsp_v32bis_seg {
	uint8_t sig;		/* enum smdsp_v32bis_sig */
	uint16_t arg;
	uint32_t syms;		/* 0: open-ended */
};

struct smdsp_v32bis_tx {
	struct smdsp_qam_tx qt;
	bool caller;
	int level_dbm0_10;
	struct smdsp_v32bis_seg cur;
	uint32_t cur_sent;	/* symbols of cur sent */
	struct smdsp_v32bis_seg queue[SMDSP_V32BIS_QUEUE];
	unsigned int qhead;
	unsigned int qlen;
	uint32_t scr;
	unsigned int quad;	/* the last 4800 bit/s point: 0 A, 1 B, 2 C, 3 D */
	unsigned int rate;	/* bit/s of B1 and the data */
	unsigned int bits;	/* data bits per symbol */
	bool uncoded;		/* 9600 bit/s on V.32's 16 points, no trellis code */
	const int8_t (*points)[2];
	struct smdsp_trellis_enc enc;
	uint32_t symbols;
};

struct smdsp_v32bis_rx {
	struct smdsp_qam_rx q;
	bool caller;
	unsigned int stage;
	unsigned int rate;
	unsigned int bits;
	bool coded;		/* the data through the Viterbi decoder (7200 to 14400, not uncoded 9600) */
	const int8_t (*points)[2];
	unsigned int npoints;
	struct smdsp_viterbi vit;
	uint32_t scr;
	unsigned int quad;	/* the last 4800 bit/s point decided */
	unsigned int diff;	/* the trellis differential decoder's Y2 Y1 */
	uint16_t win;		/* the last 16 bits of the 4800 bit/s stream, newest in bit 15 */
	uint16_t cand;		/* a rate word seen once */
	uint16_t rword;
	unsigned int wbits;	/* bits since the word boundary candidate */
	uint32_t abab_err;
	uint32_t trn_hist;	/* TRN's line bits, the newest in bit 0 */
	unsigned int trn_run;	/* symbols running as TRN's recurrence predicts */
	unsigned int trn_miss;
	bool trn_lock;		/* the predictions train the equalizer */
	unsigned int eq_skip;
	unsigned int ones_errs;
	unsigned int ones_bits;
	/*
	 * In the data: the far end's S (a rate renegotiation). The last
	 * symbols, the best survivor after each (the data's end decided as it
	 * stood before S), and the decisions held back until S would have been
	 * seen in them.
	 */
	uint32_t nsym;		/* data symbols since the data began */
	struct smdsp_cplx zh[SMDSP_V32BIS_RX_HIST];
	uint8_t snap[SMDSP_V32BIS_RX_HIST][SMDSP_VITERBI_DEPTH];	/* oldest first */
	uint8_t hard[SMDSP_V32BIS_RX_HIST];	/* the slicer's point, before the code decides */
	uint8_t dq[SMDSP_V32BIS_RX_HIST];	/* decided, not yet delivered: by symbol */
	uint32_t dq_lo, dq_hi;	/* the symbols held: dq_lo up to dq_hi - 1 */
	unsigned int s_run;	/* symbols running as S does */
	bool reneg;		/* following a renegotiation: S, S-bar, R, E, B1 (no TRN) */
	unsigned int hold_ones;	/* B1's ones after a renegotiation, not data */
	uint32_t raw_errs;	/* the slicer unlike the code's decision, in the data */
	uint32_t raw_syms;
};

int smdsp_v32bis_tx_init(struct smdsp_v32bis_tx *s, bool caller, int level_dbm0_10,
			 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user);
int smdsp_v32bis_rx_init(struct smdsp_v32bis_rx *s, bool caller, smdsp_put_bit_fn put_bit,
			 smdsp_status_fn status_fn, void *user);
/* The next symbol of the transmitter, in units of the constellation (white-box tests). */
void smdsp_v32bis_tx_symbol(struct smdsp_v32bis_tx *s, int *re, int *im);
/* V.32's uncoded 9600 bit/s: the point of quadrant quad (0 A's ... 3 D's) and Q3 Q4 (Q3 in bit 1). */
void smdsp_v32bis_u16_point(unsigned int quad, unsigned int q34, int8_t p[2]);

/* Tones and phase reversals on 5 ms blocks (40 samples: 1800 Hz and 600 Hz have whole periods). */
#define SMDSP_V32BIS_BLK 40
/*
 * Blocks a tone detector keeps: a reversal is the tone's phase against the
 * last block that held it, up to three blocks of the turn's spread between
 */
#define SMDSP_V32BIS_TD_HIST 5

struct smdsp_v32bis_tonedet {
	int16_t c1800[SMDSP_V32BIS_BLK], s1800[SMDSP_V32BIS_BLK];
	int16_t c600[SMDSP_V32BIS_BLK], s600[SMDSP_V32BIS_BLK];
	int16_t c3000[SMDSP_V32BIS_BLK], s3000[SMDSP_V32BIS_BLK];
	bool caller;		/* listens at 600 Hz, its own tone 1800; the answerer the other way */
	unsigned int i;
	int64_t a_re, a_im, b_re, b_im;	/* this block's sums at 1800 and 600 Hz */
	int64_t c_re, c_im;		/* and at 3000 Hz (AC's upper tone) */
	uint64_t pow;
	int32_t z[2][SMDSP_V32BIS_TD_HIST][2];	/* [1800, 600][the last blocks][re, im] */
	bool on[2][SMDSP_V32BIS_TD_HIST];
	unsigned int run[2];	/* blocks running with the tone */
	unsigned int rev[2];	/* reversals seen */
	unsigned int hold[2];	/* blocks before another can count */
	uint64_t lvl[2];	/* |z|^2 of the last block the tone held */
	unsigned int off;	/* blocks running without either tone */
	uint64_t own;		/* the last block's |z|^2 in this end's own tones' bins */
	uint32_t n;		/* samples seen */
	uint32_t end;		/* n at the last block's end */
	unsigned int blocks;	/* blocks seen */
};

/* the echo canceller: near and far taps, the largest far delay (700 ms), tx kept for the loop's latency */
#define SMDSP_V32BIS_EC_NEAR	256
#define SMDSP_V32BIS_EC_FAR	256
#define SMDSP_V32BIS_EC_DELAY	5600
#define SMDSP_V32BIS_HIST	8192	/* a power of 2: SMDSP_V32BIS_MAX_LATENCY and a block */
/* what smdsp_echo_size() gives for that configuration (dsp/echo.c's arrays_size()), in int64s */
#define SMDSP_V32BIS_EC_BYTES	(sizeof(struct smdsp_echo) + 12 * SMDSP_V32BIS_EC_NEAR + \
				 20 * SMDSP_V32BIS_EC_FAR + 2 * (SMDSP_V32BIS_EC_DELAY + 1 + 4 * SMDSP_ECHO_HIL_L + 2))
#define SMDSP_V32BIS_EC_WORDS	((SMDSP_V32BIS_EC_BYTES + 7) / 8)

struct smdsp_v32bis {
	struct smdsp_v32bis_tx tx;
	struct smdsp_v32bis_rx rx;
	struct smdsp_v32bis_tonedet td;
	struct smdsp_v32bis_config cfg;
	unsigned int state;
	uint32_t now;		/* samples since the start */
	uint32_t t0;		/* when the measured interval began */
	int rtd;
	unsigned int far;	/* the rates the far end offered */
	unsigned int rate;
	bool notcm;		/* the call without the trellis code (a word's B8 = 0): 9600 uncoded */
	int snr_10;
	bool rx_trained;
	uint32_t start;		/* when this start-up (or retrain) began */
	unsigned int low;	/* blocks of data with the SNR too low for the rate */
	unsigned int retrains;
	bool no_auto;		/* no retrain on a low SNR */
	unsigned int cap;	/* the rates still allowed: a low SNR's retrain takes its rate off */
	struct smdsp_echo *ec;	/* in ecmem; NULL on a 4-wire line */
	int64_t ecmem[SMDSP_V32BIS_EC_WORDS];
	int16_t hist[SMDSP_V32BIS_HIST];	/* the tx samples sent, the echo canceller's input */
	uint32_t sent;		/* tx samples sent since the start */
	int lat;		/* the loop's latency in samples, 0 until known */
	/* the near echo's own delay, timed on this end's first tone (near_watch()) */
	bool near_on;
	uint32_t near_t0;	/* the tx sample the tone began at */
	uint64_t near_floor;	/* the own tones' bins before its echo could be back */
	unsigned int near_run;	/* blocks in a row above the floor */
	uint32_t near_at;	/* the first of them, samples after near_t0 */
	unsigned int near_blocks;	/* td.blocks judged */
	int near_lat;		/* the delay found (-1: none) */
	uint32_t ec_learn, ec_on, ec_off;	/* the training window's times (now), 0: none */
	unsigned int ec_gear;
	uint32_t ec_track_at;	/* when the canceller starts tracking, 0: not pending */
	uint32_t deaf_until;	/* the receiver reset until then (our own training's echo), 0: none */
	int erle_q8;
	/* the far echo found in the training window's residual (far_seek_start()) */
	struct smdsp_v34_onset far_seek;
	bool far_sought;
	int far_delay;		/* the far window's delay on the canceller's line */
	/* rate renegotiation (V.32bis): R4 from the end that starts it, R5 from the other */
	bool no_reneg;		/* a low SNR retrains instead */
	bool cleared;		/* a cleardown sent or heard */
	unsigned int rn_offer;	/* the rates this end's R4 or R5 offered */
	uint32_t rn_start;
	bool rn_from_far;	/* the far end asked */
	bool rn_frozen;		/* the canceller frozen through this end's S */
	unsigned int rn_was;	/* the rate before */
	unsigned int renegs;	/* renegotiations done */
	unsigned int rn_fails;	/* renegotiations that ended in a retrain */
	unsigned int rn_asked;	/* renegotiations this end started */
	uint32_t rn_up_after;	/* no renegotiation up before then (now), 0: none pending */
	unsigned int good;	/* blocks of data with the SNR for a higher rate */
	uint32_t q_errs;	/* the receiver's raw errors at the last block */
	uint16_t q_w[4];	/* those of the last four blocks */
	unsigned int q_i;
	uint32_t q_last;	/* the last burst of them (now), 0: none */
	unsigned int q_bad;	/* two bursts close together: too fast */
};

int smdsp_v32bis_init(struct smdsp_v32bis *s, const struct smdsp_v32bis_config *c);

#endif /* SMDSP_PRIVATE_V32BIS_H */
