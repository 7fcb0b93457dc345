/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.17 (14400, 12000, 9600, 7200 bit/s, trellis-coded QAM, 2400 baud,
 * 1800 Hz carrier, long and short training): modulator and demodulator,
 * the fax modem of T.30's 14400 to 7200 bit/s.
 */
#ifndef SMDSP_V17_H
#define SMDSP_V17_H

#include <smdsp/fixmath.h>
#include <smdsp/bits.h>
#include <smdsp/eq.h>
#include <smdsp/qam.h>
#include <smdsp/trellis.h>
#include <smdsp/viterbi.h>

/*
 * The constellations (V.17 Figures 2 to 5), indexed by point code: Y0 in
 * bit 0, Y1 and Y2 in bits 1 and 2, Q3... above; units.
 */
extern const int8_t smdsp_v17_points_14400[128][2];
extern const int8_t smdsp_v17_points_12000[64][2];
extern const int8_t smdsp_v17_points_9600[32][2];
extern const int8_t smdsp_v17_points_7200[16][2];
/* The training points A, B, C, D. */
extern const int8_t smdsp_v17_abcd[4][2];

/* The constellation of a rate (NULL if none) and its size. */
const int8_t (*smdsp_v17_points(unsigned int rate, unsigned int *npoints))[2];
/* The scrambler 1 + x^-18 + x^-23 (V.17 8.2): smdsp_qam_scramble(), smdsp_qam_descramble(). */

struct smdsp_v17_tx;

struct smdsp_v17_tx *smdsp_v17_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 bool short_train, smdsp_get_bit_fn get_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v17_tx_free(struct smdsp_v17_tx *s);
/* The training from the start, same rate, level and callbacks. */
void smdsp_v17_tx_reset(struct smdsp_v17_tx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v17_tx_print(const struct smdsp_v17_tx *s, char *buf, size_t len);
/* End of data: 32 symbols of scrambled ones, then silence (SMDSP_STATUS_CARRIER_DOWN). */
void smdsp_v17_tx_stop(struct smdsp_v17_tx *s);
/* Fills out[n]; returns true while the transmitter has something to send. */
bool smdsp_v17_tx_process(struct smdsp_v17_tx *s, int16_t *out, unsigned int n);

#define SMDSP_V17_UNIT 512	/* the demodulator's constellation unit */

struct smdsp_v17_rx;

struct smdsp_v17_rx *smdsp_v17_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v17_rx_free(struct smdsp_v17_rx *s);
/* Back to carrier search at the same rate (as smdsp_v17_rx_restart()). */
void smdsp_v17_rx_reset(struct smdsp_v17_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v17_rx_print(const struct smdsp_v17_rx *s, char *buf, size_t len);
/*
 * Back to carrier search, at the same or another rate; short_train: expect
 * the short training (needs a long one received before). 0 or -EINVAL.
 */
int smdsp_v17_rx_restart(struct smdsp_v17_rx *s, unsigned int rate, bool short_train);
void smdsp_v17_rx_process(struct smdsp_v17_rx *s, const int16_t *x, unsigned int n);
bool smdsp_v17_rx_trained(const struct smdsp_v17_rx *s);

#endif /* SMDSP_V17_H */
