/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v22bis.h> (v22bis_tx.c, v22bis_rx.c, v22bis.c),
 * for the blocks that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_V22BIS_H
#define SMDSP_PRIVATE_V22BIS_H

#include <smdsp/v22bis.h>
#include <smdsp/private/eq.h>

#define SMDSP_V22BIS_CAR_PERIOD 20	/* 1200 and 2400 Hz repeat every 20 samples */
#define SMDSP_V22BIS_GUARD_PERIOD 160	/* 550 Hz: 160 samples, 1800 Hz: 40 */
#define SMDSP_V22BIS_EQ_LEN 17	/* T/2 taps */
#define SMDSP_V22BIS_SCHED 4

struct smdsp_v22bis_tx {
	int16_t car_cos[SMDSP_V22BIS_CAR_PERIOD];
	int16_t car_sin[SMDSP_V22BIS_CAR_PERIOD];
	unsigned int car_idx;
	int16_t guard[SMDSP_V22BIS_GUARD_PERIOD];	/* the guard tone, already scaled */
	unsigned int guard_len;
	unsigned int guard_idx;
	int32_t gain;		/* see v22bis_tx.c */
	int16_t sym_re[2 * SMDSP_V22BIS_TX_SYMS];	/* recent symbols, stored twice */
	int16_t sym_im[2 * SMDSP_V22BIS_TX_SYMS];
	unsigned int sym_pos;
	unsigned int baud_phase;	/* 1/3 samples since the newest symbol */
	unsigned int quadrant;
	uint32_t scramble_reg;
	unsigned int ones;
	unsigned int s1_toggle;
	unsigned int idle_syms;	/* nonzero symbols in the filter */
	enum smdsp_v22bis_tx_mode mode;
	smdsp_get_bit_fn get_bit;
	void (*sym_hook)(void *user);	/* called before each symbol */
	void *user;
	/* as created: for smdsp_v22bis_tx_reset() */
	bool calling;
	int level_dbm0_10;
	enum smdsp_v22bis_guard guard_kind;
};

struct smdsp_v22bis_rx {
	const int16_t (*bp)[2][SMDSP_V22BIS_RX_TAPS];
	int16_t hist[2 * SMDSP_V22BIS_RX_TAPS];
	unsigned int hpos;
	uint32_t lo_phase;
	uint32_t lo_rate;
	int32_t tpos;		/* time to the next T/2 sample, 1/3072 sample */
	int32_t t_int;		/* timing loop integrator */
	int ted_shift;
	int ted_int_shift;
	/* power and AGC */
	uint64_t pwr;		/* smoothed |y|^2 before the AGC */
	uint64_t pwr_fast;	/* the same, faster, for the AGC */
	uint64_t pwr_slow;	/* the same over 64 T/2 samples: the carrier's onset */
	uint64_t agc_ref;	/* pwr_fast when the AGC was set */
	uint64_t floor_pwr;	/* lowest pwr since the carrier was lost */
	bool level_locked;	/* data mode: no more re-acquisition */
	uint64_t on_pwr;
	uint64_t off_pwr;
	uint32_t agc;		/* Q16 */
	unsigned int agc_count;
	bool carrier;
	unsigned int off_count;
	bool hold;		/* a lost carrier keeps the loops (set in data mode) */
	bool held;		/* lost while hold was set: resume, do not re-acquire */
	/* T/2 samples after the AGC, for the timing detector */
	struct smdsp_cplx t2[3];
	bool half;
	struct smdsp_eq eq;
	bool eq_adapt;
	bool sixteen;
	/* carrier recovery */
	uint32_t car_phase;
	int32_t car_freq;
	int car_p_shift;
	int car_i_shift;
	unsigned int quadrant;
	uint32_t descramble_reg;
	unsigned int ones;
	uint32_t symbols;
	int32_t mse;		/* smoothed err2 */
	smdsp_v22bis_sym_fn sym_fn;
	smdsp_status_fn status_fn;
	void *user;
};

struct smdsp_v22bis {
	struct smdsp_v22bis_config cfg;
	struct smdsp_v22bis_tx tx;
	struct smdsp_v22bis_rx rx;
	enum smdsp_v22bis_state state;
	uint16_t rate;			/* negotiated: 0 until known */
	int hs;				/* handshake step, see v22bis.c */
	uint32_t tx_syms;		/* symbols sent since start */
	uint32_t rx_syms;		/* symbols received in this step */
	uint32_t s1_run;		/* alternating 00/11 dibits */
	uint32_t u_run;			/* unscrambled ones (or zeros) */
	uint32_t sb1_run;		/* descrambled ones (or zeros) */
	uint8_t last_dibit;
	bool s1_sent;
	bool s1_seen;
	bool tx_ready;
	bool rx_ready;
	/* pending transmitter changes at absolute symbol counts */
	uint32_t sched_at[SMDSP_V22BIS_SCHED];
	uint8_t sched_mode[SMDSP_V22BIS_SCHED];
	unsigned int nsched;
	uint32_t bad_run;		/* symbols with a poor decision margin */
	uint32_t retrains;
	uint32_t train_syms;		/* symbols since training started */
};

void smdsp_v22bis_tx_init(struct smdsp_v22bis_tx *s, bool calling, int level_dbm0_10,
		       enum smdsp_v22bis_guard guard, smdsp_get_bit_fn get_bit, void *user);

void smdsp_v22bis_rx_init(struct smdsp_v22bis_rx *s, bool calling, smdsp_v22bis_sym_fn sym_fn,
		       smdsp_status_fn status_fn, void *user);

void smdsp_v22bis_init(struct smdsp_v22bis *m, const struct smdsp_v22bis_config *cfg);

#endif /* SMDSP_PRIVATE_V22BIS_H */
