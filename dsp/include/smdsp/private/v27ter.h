/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v27ter.h> (v27ter_tx.c, v27ter_rx.c),
 * for the blocks that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_V27TER_H
#define SMDSP_PRIVATE_V27TER_H

#include <smdsp/v27ter.h>
#include <smdsp/private/qam.h>

#define SMDSP_V27TER_TX_SYMS SMDSP_QAM_TX_SYMS
#define SMDSP_V27TER_RX_TAPS SMDSP_QAM_RX_TAPS
#define SMDSP_V27TER_RX_PHASES SMDSP_QAM_RX_PHASES
#define SMDSP_V27TER_CAR_PERIOD 40	/* 1800 Hz repeats every 40 samples */
#define SMDSP_V27TER_EQ_LEN 17	/* T/2 taps, the centre one even */

/* The scrambler 1 + x^-6 + x^-7 with its guard against repetitive patterns. */
struct smdsp_v27ter_scrambler {
	uint32_t reg;
	unsigned int count;
};

struct smdsp_v27ter_tx {
	struct smdsp_qam_tx qt;	/* baud_len 15 (4800) or 20 (2400) */
	unsigned int rate;	/* 2400 or 4800 */
	unsigned int state;		/* phase, in 45 degree steps */
	struct smdsp_v27ter_scrambler scr;
	uint32_t step;			/* symbols sent since the start */
	bool tep;
	int level_dbm0_10;	/* as created: for smdsp_v27ter_tx_reset() */
};

struct smdsp_v27ter_rx {
	struct smdsp_qam_rx q;	/* T/2: 2.5 samples (4800), 10/3 (2400) */
	unsigned int rate;
	unsigned int state;	/* last decision, in 45 degree steps */
	unsigned int ones;	/* symbols of the training's ones still to withhold */
	struct smdsp_v27ter_scrambler scr;
	uint32_t train_err;	/* the two-point training's last TRAIN_CHECK squared errors, units^2 >> 10 */
};

/*
 * rate 2400 or 4800; level in tenths of dBm0 (0: -140); tep: send 185 ms
 * of unmodulated carrier (talker echo protection) before the training.
 */
int smdsp_v27ter_tx_init(struct smdsp_v27ter_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user);

int smdsp_v27ter_rx_init(struct smdsp_v27ter_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user);

int smdsp_v27ter_scramble(struct smdsp_v27ter_scrambler *s, int bit);

int smdsp_v27ter_descramble(struct smdsp_v27ter_scrambler *s, int bit);

/* Tables of v27ter_tx.c (root-raised-cosine, beta 0.5). */
extern const int16_t smdsp_v27ter_tx_rrc_4800[5][SMDSP_V27TER_TX_SYMS];

extern const int16_t smdsp_v27ter_tx_rrc_2400[20][SMDSP_V27TER_TX_SYMS];

extern const int16_t smdsp_v27ter_rx_rrc_4800[SMDSP_V27TER_RX_PHASES][SMDSP_V27TER_RX_TAPS];

extern const int16_t smdsp_v27ter_rx_rrc_2400[SMDSP_V27TER_RX_PHASES][SMDSP_V27TER_RX_TAPS];

#endif /* SMDSP_PRIVATE_V27TER_H */
