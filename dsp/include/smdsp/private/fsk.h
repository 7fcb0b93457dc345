/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/fsk.h> (fsk.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_FSK_H
#define SMDSP_PRIVATE_FSK_H

#include <smdsp/fsk.h>

#define SMDSP_FSK_CORR 26	/* correlation window, a little under one bit */
#define SMDSP_FSK_BLK 40	/* samples taken through the receiver at a time */

struct smdsp_fsk_tx {
	uint32_t phase;
	uint32_t rate[2];	/* [space, mark] */
	int32_t amp;
	uint32_t baud_acc;
	int bit;
	smdsp_get_bit_fn get_bit;
	void *user;
};

struct smdsp_fsk_rx {
	const int16_t *bp;	/* receive band-pass taps */
	/* the last TAPS - 1 samples, oldest first, then the block being filtered */
	int16_t hist[SMDSP_V21_BP_TAPS - 1 + SMDSP_FSK_BLK];
	int32_t y[SMDSP_FSK_BLK];	/* the block band-passed */
	uint8_t dec[SMDSP_FSK_BLK];	/* its decisions: 1 for mark */
	uint32_t phase[2];
	uint32_t rate[2];	/* [space, mark] */
	/* the products in the window then the block's: [space re, im, mark re, im][] */
	int32_t prod[4][SMDSP_FSK_CORR + SMDSP_FSK_BLK];
	int32_t sum[4];
	uint32_t baud_phase;
	uint32_t baud_rate;
	int last_dec;
	uint64_t power;		/* mean square of the band-passed signal, Q8 */
	uint64_t on_power;
	uint64_t off_power;
	bool carrier;
	bool busy;		/* in smdsp_fsk_rx_process (a callback's re-init clears it) */
	unsigned int settle;	/* samples before bits are trusted after carrier up */
	smdsp_put_bit_fn put_bit;
	smdsp_status_fn status;
	void *user;
};

void smdsp_fsk_tx_init(struct smdsp_fsk_tx *s, enum smdsp_fsk_channel ch, int level_dbm0_10,
		       smdsp_get_bit_fn get_bit, void *user);

void smdsp_fsk_rx_init(struct smdsp_fsk_rx *s, enum smdsp_fsk_channel ch,
		       smdsp_put_bit_fn put_bit, smdsp_status_fn status, void *user);

#endif /* SMDSP_PRIVATE_FSK_H */
