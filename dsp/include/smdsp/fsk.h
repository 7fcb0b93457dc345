/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.21 300 bit/s FSK, both channels.
 */
#ifndef SMDSP_FSK_H
#define SMDSP_FSK_H

#include <smdsp/tone.h>
#include <smdsp/bits.h>
#include <smdsp/tables.h>

enum smdsp_v21_channel {
	SMDSP_V21_CH1 = 0,	/* calling modem sends: mark 980, space 1180 Hz */
	SMDSP_V21_CH2 = 1,	/* answering modem sends: mark 1650, space 1850 Hz */
};

struct smdsp_fsk_tx {
	uint32_t phase;
	uint32_t rate[2];	/* [space, mark] */
	int32_t amp;
	uint32_t baud_acc;
	int bit;
	smdsp_get_bit_fn get_bit;
	void *user;
};

void smdsp_fsk_tx_init(struct smdsp_fsk_tx *s, enum smdsp_v21_channel ch, int level_dbm0_10,
		       smdsp_get_bit_fn get_bit, void *user);
struct smdsp_fsk_tx *smdsp_fsk_tx_create(enum smdsp_v21_channel ch, int level_dbm0_10,
					 smdsp_get_bit_fn get_bit, void *user);
void smdsp_fsk_tx_free(struct smdsp_fsk_tx *s);
void smdsp_fsk_tx_process(struct smdsp_fsk_tx *s, int16_t *out, unsigned int n);

#define SMDSP_FSK_CORR 26	/* correlation window, a little under one bit */
#define SMDSP_FSK_BLK 40	/* samples taken through the receiver at a time */

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

void smdsp_fsk_rx_init(struct smdsp_fsk_rx *s, enum smdsp_v21_channel ch,
		       smdsp_put_bit_fn put_bit, smdsp_status_fn status, void *user);
struct smdsp_fsk_rx *smdsp_fsk_rx_create(enum smdsp_v21_channel ch, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status, void *user);
void smdsp_fsk_rx_free(struct smdsp_fsk_rx *s);
void smdsp_fsk_rx_process(struct smdsp_fsk_rx *s, const int16_t *x, unsigned int n);
/* Carrier detect thresholds in tenths of dBm0 (defaults -435 on, -475 off). */
void smdsp_fsk_rx_set_thresholds(struct smdsp_fsk_rx *s, int on_dbm0_10, int off_dbm0_10);
bool smdsp_fsk_rx_carrier(const struct smdsp_fsk_rx *s);

#endif /* SMDSP_FSK_H */
