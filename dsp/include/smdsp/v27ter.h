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

#define SMDSP_V27_TX_SYMS SMDSP_QAM_TX_SYMS
#define SMDSP_V27_RX_TAPS SMDSP_QAM_RX_TAPS
#define SMDSP_V27_RX_PHASES SMDSP_QAM_RX_PHASES
#define SMDSP_V27_CAR_PERIOD 40	/* 1800 Hz repeats every 40 samples */

/* Tables of v27ter_tx.c (root-raised-cosine, beta 0.5). */
extern const int16_t smdsp_v27_tx_rrc_4800[5][SMDSP_V27_TX_SYMS];
extern const int16_t smdsp_v27_tx_rrc_2400[20][SMDSP_V27_TX_SYMS];
extern const int16_t smdsp_v27_rx_rrc_4800[SMDSP_V27_RX_PHASES][SMDSP_V27_RX_TAPS];
extern const int16_t smdsp_v27_rx_rrc_2400[SMDSP_V27_RX_PHASES][SMDSP_V27_RX_TAPS];

/* The scrambler 1 + x^-6 + x^-7 with its guard against repetitive patterns. */
struct smdsp_v27_scrambler {
	uint32_t reg;
	unsigned int count;
};

int smdsp_v27_scramble(struct smdsp_v27_scrambler *s, int bit);
int smdsp_v27_descramble(struct smdsp_v27_scrambler *s, int bit);

struct smdsp_v27_tx {
	struct smdsp_qam_tx qt;	/* baud_len 15 (4800) or 20 (2400) */
	unsigned int rate;	/* 2400 or 4800 */
	unsigned int state;		/* phase, in 45 degree steps */
	struct smdsp_v27_scrambler scr;
	uint32_t step;			/* symbols sent since the start */
	bool tep;
};

/*
 * rate 2400 or 4800; level in tenths of dBm0 (0: -140); tep: send 185 ms
 * of unmodulated carrier (talker echo protection) before the training.
 */
int smdsp_v27_tx_init(struct smdsp_v27_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user);
struct smdsp_v27_tx *smdsp_v27_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
					 void *user);
void smdsp_v27_tx_free(struct smdsp_v27_tx *s);
/* End of data: 32 symbols of scrambled ones, then silence (SMDSP_STATUS_CARRIER_DOWN). */
void smdsp_v27_tx_stop(struct smdsp_v27_tx *s);
/* Fills out[n]; returns true while the transmitter has something to send. */
bool smdsp_v27_tx_process(struct smdsp_v27_tx *s, int16_t *out, unsigned int n);

#define SMDSP_V27_EQ_LEN 17	/* T/2 taps, the centre one even */

struct smdsp_v27_rx {
	struct smdsp_qam_rx q;	/* T/2: 2.5 samples (4800), 10/3 (2400) */
	unsigned int rate;
	unsigned int state;	/* last decision, in 45 degree steps */
	unsigned int ones;	/* symbols of the training's ones still to withhold */
	struct smdsp_v27_scrambler scr;
	uint32_t train_err;	/* the two-point training's last TRAIN_CHECK squared errors, units^2 >> 10 */
};

/* Constellation radius of the demodulator. */
#define SMDSP_V27_UNIT 2048

int smdsp_v27_rx_init(struct smdsp_v27_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user);
struct smdsp_v27_rx *smdsp_v27_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v27_rx_free(struct smdsp_v27_rx *s);
/* Back to carrier search, at the same or another rate; 0 or -EINVAL. */
int smdsp_v27_rx_restart(struct smdsp_v27_rx *s, unsigned int rate);
void smdsp_v27_rx_process(struct smdsp_v27_rx *s, const int16_t *x, unsigned int n);
bool smdsp_v27_rx_trained(const struct smdsp_v27_rx *s);

#endif /* SMDSP_V27TER_H */
