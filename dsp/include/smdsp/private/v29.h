/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v29.h> (v29_tx.c, v29_rx.c),
 * for the blocks that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_V29_H
#define SMDSP_PRIVATE_V29_H

#include <smdsp/v29.h>
#include <smdsp/private/qam.h>

/* Tables of v29_tx.c (root-raised-cosine, beta 0.25, dsp/tools/gen_v29_tables.py). */
extern const int16_t smdsp_v29_tx_rrc[10][SMDSP_QAM_TX_SYMS];
extern const int16_t smdsp_v29_rx_rrc[SMDSP_QAM_RX_PHASES][SMDSP_QAM_RX_TAPS];

#define SMDSP_V29_CAR_PERIOD 80	/* 1700 Hz repeats every 80 samples */
#define SMDSP_V29_EQ_LEN 32	/* T/2 taps */
#define SMDSP_V29_EQ_CENTRE 10	/* even; most taps after it, for echoes */

struct smdsp_v29_tx {
	struct smdsp_qam_tx qt;
	unsigned int rate;	/* 4800, 7200 or 9600 */
	unsigned int state;	/* phase, in 45 degree steps */
	uint32_t scr;
	uint32_t train;
	uint32_t step;		/* symbols sent since the start */
	int level_dbm0_10;	/* as created: for smdsp_v29_tx_reset() */
	bool tep;
};

struct smdsp_v29_rx {
	struct smdsp_qam_rx q;	/* T/2: 5/3 samples */
	unsigned int rate;
	unsigned int stage;
	uint32_t train;
	unsigned int state;	/* last data point's phase, 45 degree steps */
	uint32_t scr;
	uint32_t abab_err;	/* segment 2 after its acquisition: squared errors, units^2 >> 10 */
};

/*
 * rate 4800, 7200 or 9600; level in tenths of dBm0 (0: -140); tep: send
 * 200 ms of unmodulated carrier (talker echo protection) before the training.
 */
int smdsp_v29_tx_init(struct smdsp_v29_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user);

int smdsp_v29_rx_init(struct smdsp_v29_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user);

#endif /* SMDSP_PRIVATE_V29_H */
