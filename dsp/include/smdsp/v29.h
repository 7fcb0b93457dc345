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

#define SMDSP_V29_CAR_PERIOD 80	/* 1700 Hz repeats every 80 samples */

/* Tables of v29_tx.c (root-raised-cosine, beta 0.25, dsp/tools/gen_v29_tables.py). */
extern const int16_t smdsp_v29_tx_rrc[10][SMDSP_QAM_TX_SYMS];
extern const int16_t smdsp_v29_rx_rrc[SMDSP_QAM_RX_PHASES][SMDSP_QAM_RX_TAPS];

/* The 16 points (0-7: the low ring at 0, 45, ... 315 degrees; 8-15: the high ring), units. */
extern const int8_t smdsp_v29_points[16][2];

/* The scrambler 1 + x^-18 + x^-23: smdsp_qam_scramble(), smdsp_qam_descramble(). */
/* Segment 3's generator 1 + x^-6 + x^-7 (start 0x2a): 0 for C, 1 for D. */
int smdsp_v29_train_bit(uint32_t *reg);

struct smdsp_v29_tx {
	struct smdsp_qam_tx qt;
	unsigned int rate;	/* 4800, 7200 or 9600 */
	unsigned int state;	/* phase, in 45 degree steps */
	uint32_t scr;
	uint32_t train;
	uint32_t step;		/* symbols sent since the start */
};

/*
 * rate 4800, 7200 or 9600; level in tenths of dBm0 (0: -140); tep: send
 * 200 ms of unmodulated carrier (talker echo protection) before the training.
 */
int smdsp_v29_tx_init(struct smdsp_v29_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user);
struct smdsp_v29_tx *smdsp_v29_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
					 void *user);
void smdsp_v29_tx_free(struct smdsp_v29_tx *s);
/* End of data: 32 symbols of scrambled ones, then silence (SMDSP_STATUS_CARRIER_DOWN). */
void smdsp_v29_tx_stop(struct smdsp_v29_tx *s);
/* Fills out[n]; returns true while the transmitter has something to send. */
bool smdsp_v29_tx_process(struct smdsp_v29_tx *s, int16_t *out, unsigned int n);

#define SMDSP_V29_EQ_LEN 32	/* T/2 taps */
#define SMDSP_V29_EQ_CENTRE 10	/* even; most taps after it, for echoes */
#define SMDSP_V29_UNIT 1024	/* the demodulator's constellation unit */

struct smdsp_v29_rx {
	struct smdsp_qam_rx q;	/* T/2: 5/3 samples */
	unsigned int rate;
	unsigned int stage;
	uint32_t train;
	unsigned int state;	/* last data point's phase, 45 degree steps */
	uint32_t scr;
	uint32_t abab_err;	/* segment 2 after its acquisition: squared errors, units^2 >> 10 */
};

int smdsp_v29_rx_init(struct smdsp_v29_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user);
struct smdsp_v29_rx *smdsp_v29_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v29_rx_free(struct smdsp_v29_rx *s);
/* Back to carrier search, at the same or another rate; 0 or -EINVAL. */
int smdsp_v29_rx_restart(struct smdsp_v29_rx *s, unsigned int rate);
void smdsp_v29_rx_process(struct smdsp_v29_rx *s, const int16_t *x, unsigned int n);
bool smdsp_v29_rx_trained(const struct smdsp_v29_rx *s);

#endif /* SMDSP_V29_H */
