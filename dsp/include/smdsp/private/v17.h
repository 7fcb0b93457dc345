/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v17.h> (v17_tx.c, v17_rx.c),
 * for the blocks that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_V17_H
#define SMDSP_PRIVATE_V17_H

#include <smdsp/v17.h>
#include <smdsp/private/qam.h>
#include <smdsp/private/trellis.h>
#include <smdsp/private/viterbi.h>
#include <smdsp/private/eq.h>

#define SMDSP_V17_CAR_PERIOD 40	/* 1800 Hz repeats every 40 samples */
#define SMDSP_V17_SCR_INIT 0x2ecdd5	/* the scrambler's state at the start of training */
#define SMDSP_V17_BRIDGE 0x8880		/* segment 3's repeated 16 bits */
#define SMDSP_V17_EQ_LEN 24	/* T/2 taps */
#define SMDSP_V17_EQ_CENTRE 8	/* even; most taps after it, for echoes */
#define SMDSP_V17_TX_UNIT 1024	/* the modulator's constellation unit */

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
	int level_dbm0_10;	/* as created: for smdsp_v17_tx_reset() */
	bool tep;
};

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

/*
 * rate 7200, 9600, 12000 or 14400; level in tenths of dBm0 (0: -140); tep:
 * 200 ms of unmodulated carrier (talker echo protection) first; short_train:
 * the short training (for a receiver that trained on a long one before).
 */
int smdsp_v17_tx_init(struct smdsp_v17_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      bool short_train, smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
		      void *user);

/*
 * qt as V.17's modulator (1800 Hz, V.29's pulse) at level_dbm0_10 for points
 * of mean square 40 at SMDSP_V17_TX_UNIT: every V.17 rate and its training,
 * and V.32bis's (the same constellations).
 */
void smdsp_v17_qam_tx_init(struct smdsp_qam_tx *qt, int level_dbm0_10);

/*
 * The QAM receiver's set-up V.17 and V.32bis share (1800 Hz, the carrier
 * loop, segment 1's AGC and carrier thresholds), all the rest zeroed.
 */
void smdsp_v17_qam_rx_init(struct smdsp_qam_rx *q, smdsp_put_bit_fn put_bit, smdsp_status_fn status_fn,
			   void *user);

int smdsp_v17_rx_init(struct smdsp_v17_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user);

/*
 * One symbol z of segment 1 (V.32bis's S is the same segment, at the same
 * unit, 512). *stage SMDSP_V17_ST_ACQ: its acquisition, which sets it to
 * SMDSP_V17_ST_ABAB once A and B are found; then its ABAB on q's schedule
 * of B, followed and its squared error added to *err (units^2 >> 10) while
 * it goes ON; END at the C that stands where an A was due (z is segment 2's
 * first point, for the caller to follow; *stage is then next and the
 * symbol count 1); LOST where the alternation was not
 * followed closely enough (the acquisition found it in noise) or never
 * ended. Each receiver's own stages start with these two.
 */
enum { SMDSP_V17_ST_ACQ, SMDSP_V17_ST_ABAB };
enum smdsp_v17_abab { SMDSP_V17_ABAB_ON, SMDSP_V17_ABAB_END, SMDSP_V17_ABAB_LOST };
enum smdsp_v17_abab smdsp_v17_rx_seg1(struct smdsp_qam_rx *q, struct smdsp_cplx z, unsigned int *stage,
				      unsigned int next, uint32_t *err);

#endif /* SMDSP_PRIVATE_V17_H */
