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

#define SMDSP_V17_CAR_PERIOD 40	/* 1800 Hz repeats every 40 samples */

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
#define SMDSP_V17_SCR_INIT 0x2ecdd5	/* the scrambler's state at the start of training */
#define SMDSP_V17_BRIDGE 0x8880		/* segment 3's repeated 16 bits */

struct smdsp_v17_tx {
	struct smdsp_qam_tx qt;
	unsigned int rate;
	unsigned int bits;	/* data bits per symbol */
	const int8_t (*points)[2];
	struct smdsp_trellis_enc enc;
	unsigned int abcd;	/* the training point last sent */
	uint32_t scr;
	uint32_t step;		/* symbols sent since the start */
	bool short_train;
};

/*
 * rate 7200, 9600, 12000 or 14400; level in tenths of dBm0 (0: -140); tep:
 * 200 ms of unmodulated carrier (talker echo protection) first; short_train:
 * the short training (for a receiver that trained on a long one before).
 */
int smdsp_v17_tx_init(struct smdsp_v17_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      bool short_train, smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
		      void *user);
struct smdsp_v17_tx *smdsp_v17_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 bool short_train, smdsp_get_bit_fn get_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v17_tx_free(struct smdsp_v17_tx *s);
/* End of data: 32 symbols of scrambled ones, then silence (SMDSP_STATUS_CARRIER_DOWN). */
void smdsp_v17_tx_stop(struct smdsp_v17_tx *s);
/* Fills out[n]; returns true while the transmitter has something to send. */
bool smdsp_v17_tx_process(struct smdsp_v17_tx *s, int16_t *out, unsigned int n);

#define SMDSP_V17_EQ_LEN 24	/* T/2 taps */
#define SMDSP_V17_EQ_CENTRE 8	/* even; most taps after it, for echoes */
#define SMDSP_V17_UNIT 512	/* the demodulator's constellation unit */

struct smdsp_v17_rx {
	struct smdsp_qam_rx q;	/* T/2: 5/3 samples */
	unsigned int rate;
	unsigned int bits;
	const int8_t (*points)[2];
	unsigned int npoints;
	struct smdsp_viterbi vit;
	unsigned int stage;
	unsigned int abcd;	/* segment 3: the last training point */
	unsigned int diff;	/* the differential decoder's last Y2 Y1 */
	uint32_t scr;
	bool short_train;	/* expect the short training */
	bool have_long;		/* a long training succeeded: its equalizer is kept */
	struct smdsp_eq eq_save;
	int32_t car_freq_save;
	int32_t t_int_save;	/* the timing loop's integrator, data units */
	unsigned int eq_skip;	/* data symbols until the equalizer's next update */
	uint32_t abab_err;	/* segment 1 after its acquisition: squared errors, units^2 >> 10 */
	uint32_t ones_ref;	/* segment 4: the transmitter's scrambler */
	unsigned int ones_errs;	/* segment 4: bits unlike its scrambled ones */
};

int smdsp_v17_rx_init(struct smdsp_v17_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user);
struct smdsp_v17_rx *smdsp_v17_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user);
void smdsp_v17_rx_free(struct smdsp_v17_rx *s);
/*
 * Back to carrier search, at the same or another rate; short_train: expect
 * the short training (needs a long one received before). 0 or -EINVAL.
 */
int smdsp_v17_rx_restart(struct smdsp_v17_rx *s, unsigned int rate, bool short_train);
void smdsp_v17_rx_process(struct smdsp_v17_rx *s, const int16_t *x, unsigned int n);
bool smdsp_v17_rx_trained(const struct smdsp_v17_rx *s);

#endif /* SMDSP_V17_H */
