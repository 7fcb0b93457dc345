/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.27ter (4800 bit/s 8-PSK at 1600 baud, 2400 bit/s 4-PSK at 1200 baud,
 * 1800 Hz carrier): modulator and demodulator, the first fax modulation.
 */
#ifndef SMDSP_V27TER_H
#define SMDSP_V27TER_H

#include <smdsp/fixmath.h>
#include <smdsp/bits.h>
#include <smdsp/eq.h>
#include <smdsp/qam.h>

struct smdsp_v27ter_scrambler;

struct smdsp_v27ter_tx;

struct smdsp_v27ter_tx *smdsp_v27ter_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
					 void *user);
void smdsp_v27ter_tx_free(struct smdsp_v27ter_tx *s);
/* The training from the start, same rate, level and callbacks. */
void smdsp_v27ter_tx_reset(struct smdsp_v27ter_tx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v27ter_tx_print(const struct smdsp_v27ter_tx *s, char *buf, size_t len);
/* End of data: 32 symbols of scrambled ones, then silence (SMDSP_STATUS_CARRIER_DOWN). */
void smdsp_v27ter_tx_stop(struct smdsp_v27ter_tx *s);
/* Fills out[n]; returns true while the transmitter has something to send. */
bool smdsp_v27ter_tx_process(struct smdsp_v27ter_tx *s, int16_t *out, unsigned int n);

struct smdsp_v27ter_rx;

/* Constellation radius of the demodulator. */
#define SMDSP_V27TER_UNIT 2048

struct smdsp_v27ter_rx *smdsp_v27ter_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v27ter_rx_free(struct smdsp_v27ter_rx *s);
/* Back to carrier search at the same rate (as smdsp_v27ter_rx_restart()). */
void smdsp_v27ter_rx_reset(struct smdsp_v27ter_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v27ter_rx_print(const struct smdsp_v27ter_rx *s, char *buf, size_t len);
/* Back to carrier search, at the same or another rate; 0 or -EINVAL. */
int smdsp_v27ter_rx_restart(struct smdsp_v27ter_rx *s, unsigned int rate);
void smdsp_v27ter_rx_process(struct smdsp_v27ter_rx *s, const int16_t *x, unsigned int n);
bool smdsp_v27ter_rx_trained(const struct smdsp_v27ter_rx *s);

#endif /* SMDSP_V27TER_H */
