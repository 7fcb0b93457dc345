/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v34_info.h> (v34_info_tx.c,
 * v34_info_rx.c), for the blocks that will embed them by value.
 */
#ifndef SMDSP_PRIVATE_V34_INFO_H
#define SMDSP_PRIVATE_V34_INFO_H

#include <smdsp/v34_info.h>
#include <smdsp/fixmath.h>
#include <smdsp/tables.h>

#define SMDSP_V34I_CAR_PERIOD 20	/* 1200 and 2400 Hz repeat every 20 samples */
#define SMDSP_V34I_SYMS SMDSP_V22BIS_TX_SYMS	/* the transmit pulse spans 6 symbols */

struct smdsp_v34_info_tx {
	int16_t car_cos[SMDSP_V34I_CAR_PERIOD];
	unsigned int car_idx;
	int32_t gain;			/* Q16, see v34_info_tx.c */
	int8_t sym[2 * SMDSP_V34I_SYMS];	/* recent symbols (+1, -1, 0), stored twice */
	unsigned int sym_pos;
	unsigned int baud_phase;	/* 1/3 samples since the newest symbol */
	int8_t phase;			/* +1 or -1: the carrier's current sign */
	bool sounding;			/* the last symbol was not silence */
	bool tone;
	bool reverse;			/* a reversal waits for the next free symbol */
	uint8_t cur[SMDSP_V34_INFO_BYTES];	/* the frame going out */
	unsigned int cur_bits;
	unsigned int cur_pos;
	uint8_t next[SMDSP_V34_INFO_BYTES];	/* the frame queued after it */
	unsigned int next_bits;
	unsigned int idle_syms;		/* nonzero symbols still in the filter */
	uint32_t symbols;
	/* as created */
	bool calling;
	int level_dbm0_10;
};

#define SMDSP_V34I_K 8			/* timing phases per symbol */
#define SMDSP_V34I_SLOT 5		/* their spacing, 1/3 samples (a symbol is 40) */
#define SMDSP_V34I_TAPS 79		/* the matched filter: the pulse's 6 symbols */
#define SMDSP_V34I_TONE_SYMS 32		/* steady symbols before the tone counts */

/* one timing phase's decisions: bit history, newest in bit 0 of [0] */
struct smdsp_v34i_phase {
	int32_t prev_re, prev_im;	/* the previous symbol's matched filter output */
	uint64_t bits[2];
	uint64_t strong[2];		/* the decision was within 45 degrees of 0 or 180 */
	uint32_t count;			/* bits decided since create or reset (saturates) */
};

struct smdsp_v34_info_rx {
	int16_t car_cos[SMDSP_V34I_CAR_PERIOD];
	int16_t car_sin[SMDSP_V34I_CAR_PERIOD];
	unsigned int car_idx;
	int16_t taps[SMDSP_V34I_TAPS];
	int16_t hist_i[2 * SMDSP_V34I_TAPS];	/* mixed samples, stored twice */
	int16_t hist_q[2 * SMDSP_V34I_TAPS];
	unsigned int hpos;
	int32_t z_re, z_im;		/* the matched filter's last output */
	unsigned int slot_at;		/* next timing slot, 1/3 samples after the last sample */
	unsigned int slot_phase;	/* the timing phase of that slot */
	uint32_t sample;		/* samples since create or reset */
	unsigned int yshift;		/* matched filter output scaling, see v34_info_rx.c */
	struct smdsp_v34i_phase ph[SMDSP_V34I_K];
	/* energy */
	uint64_t pwr;			/* |y|^2 smoothed over ~32 slots: the carrier's onset */
	uint64_t pwr_fast;		/* over ~8 slots: its end */
	uint64_t on_pwr, off_pwr;
	bool carrier;
	/* frames */
	unsigned int kinds;
	uint32_t slots;			/* slots since create or reset */
	uint32_t quiet_until;		/* no frame taken before: the last one's copies */
	bool cand;			/* a frame sync seen, its frame not yet resolved */
	uint32_t cand_slot;
	unsigned int cand_phase;
	/* tone */
	bool tone;
	uint8_t recent;			/* the last 8 slots' decisions, 1: a phase change */
	uint32_t zrun;			/* steady-tone slots in a row */
	int64_t dsum_re, dsum_im;	/* their decisions summed: the tone's frequency */
	uint64_t tpwr;			/* the tone's |y|^2 */
	bool exc;			/* in an excursion from the steady tone */
	uint32_t exc_len;		/* its slots so far */
	uint32_t changed;		/* its slots up to the last one with a change */
	uint32_t zeros_after;		/* steady slots since */
	int64_t peak;
	uint32_t peak_sample;
	/* events */
	struct smdsp_v34_info_event ev[SMDSP_V34_INFO_RX_EVENTS];
	unsigned int ev_head, ev_count;
	struct smdsp_v34_info_rx_stats st;
	bool calling;
	unsigned int kinds_cfg;
};

void smdsp_v34_info_tx_init(struct smdsp_v34_info_tx *s, bool calling, int level_dbm0_10);
void smdsp_v34_info_rx_init(struct smdsp_v34_info_rx *s, bool calling, unsigned int kinds);

#endif /* SMDSP_PRIVATE_V34_INFO_H */
