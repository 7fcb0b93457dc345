/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.21 300 bit/s FSK, both channels.
 */
#ifndef SMDSP_FSK_H
#define SMDSP_FSK_H

#include <smdsp/tone.h>
#include <smdsp/bits.h>
#include <smdsp/tables.h>

enum smdsp_fsk_channel {
	SMDSP_V21_CH1 = 0,	/* calling modem sends: mark 980, space 1180 Hz */
	SMDSP_V21_CH2 = 1,	/* answering modem sends: mark 1650, space 1850 Hz */
};

struct smdsp_fsk_tx;

struct smdsp_fsk_tx *smdsp_fsk_tx_create(enum smdsp_fsk_channel ch, int level_dbm0_10,
					 smdsp_get_bit_fn get_bit, void *user);
void smdsp_fsk_tx_free(struct smdsp_fsk_tx *s);
/* The bit clock and the phase from the start, same channel and level. */
void smdsp_fsk_tx_reset(struct smdsp_fsk_tx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_fsk_tx_print(const struct smdsp_fsk_tx *s, char *buf, size_t len);
void smdsp_fsk_tx_process(struct smdsp_fsk_tx *s, int16_t *out, unsigned int n);

struct smdsp_fsk_rx;

struct smdsp_fsk_rx *smdsp_fsk_rx_create(enum smdsp_fsk_channel ch, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status, void *user);
void smdsp_fsk_rx_free(struct smdsp_fsk_rx *s);
/* Back to carrier search, same channel, callbacks and thresholds. */
void smdsp_fsk_rx_reset(struct smdsp_fsk_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_fsk_rx_print(const struct smdsp_fsk_rx *s, char *buf, size_t len);
void smdsp_fsk_rx_process(struct smdsp_fsk_rx *s, const int16_t *x, unsigned int n);
/* Carrier detect thresholds in tenths of dBm0 (defaults -435 on, -475 off). */
void smdsp_fsk_rx_set_thresholds(struct smdsp_fsk_rx *s, int on_dbm0_10, int off_dbm0_10);
bool smdsp_fsk_rx_carrier(const struct smdsp_fsk_rx *s);

#endif /* SMDSP_FSK_H */
