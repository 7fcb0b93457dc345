/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.29 (9600 bit/s 16-point QAM, 7200 and 4800 bit/s subsets, 2400 baud,
 * 1700 Hz carrier): modulator and demodulator, the fax modem of T.30's
 * 9600 and 7200 bit/s.
 */
#ifndef SMDSP_V29_H
#define SMDSP_V29_H

#include <smdsp/fixmath.h>
#include <smdsp/bits.h>
#include <smdsp/eq.h>
#include <smdsp/qam.h>

/* The 16 points (0-7: the low ring at 0, 45, ... 315 degrees; 8-15: the high ring), units. */
extern const int8_t smdsp_v29_points[16][2];

/* The scrambler 1 + x^-18 + x^-23: smdsp_qam_scramble(), smdsp_qam_descramble(). */
/* Segment 3's generator 1 + x^-6 + x^-7 (start 0x2a): 0 for C, 1 for D. */
int smdsp_v29_train_bit(uint32_t *reg);

struct smdsp_v29_tx;

struct smdsp_v29_tx *smdsp_v29_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
					 void *user);
void smdsp_v29_tx_free(struct smdsp_v29_tx *s);
/* The training from the start, same rate, level and callbacks. */
void smdsp_v29_tx_reset(struct smdsp_v29_tx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v29_tx_print(const struct smdsp_v29_tx *s, char *buf, size_t len);
/* End of data: 32 symbols of scrambled ones, then silence (SMDSP_STATUS_CARRIER_DOWN). */
void smdsp_v29_tx_stop(struct smdsp_v29_tx *s);
/* Fills out[n]; returns true while the transmitter has something to send. */
bool smdsp_v29_tx_process(struct smdsp_v29_tx *s, int16_t *out, unsigned int n);

#define SMDSP_V29_UNIT 1024	/* the demodulator's constellation unit */

struct smdsp_v29_rx;

struct smdsp_v29_rx *smdsp_v29_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v29_rx_free(struct smdsp_v29_rx *s);
/* Back to carrier search at the same rate (as smdsp_v29_rx_restart()). */
void smdsp_v29_rx_reset(struct smdsp_v29_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v29_rx_print(const struct smdsp_v29_rx *s, char *buf, size_t len);
/* Back to carrier search, at the same or another rate; 0 or -EINVAL. */
int smdsp_v29_rx_restart(struct smdsp_v29_rx *s, unsigned int rate);
void smdsp_v29_rx_process(struct smdsp_v29_rx *s, const int16_t *x, unsigned int n);
bool smdsp_v29_rx_trained(const struct smdsp_v29_rx *s);

#endif /* SMDSP_V29_H */
