/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v34_probe.h> (v34_probe_tx.c,
 * v34_probe_rx.c).
 */
#ifndef SMDSP_PRIVATE_V34_PROBE_H
#define SMDSP_PRIVATE_V34_PROBE_H

#include <smdsp/v34_probe.h>
#include <smdsp/fixmath.h>

#define SMDSP_V34P_N SMDSP_V34_PROBE_PERIOD
#define SMDSP_V34P_BIN_LO 1		/* bins computed: 3m - 2 .. 3m + 2 for m = 1..25 */
#define SMDSP_V34P_BIN_HI 77
#define SMDSP_V34P_BINS (SMDSP_V34P_BIN_HI + 1)
#define SMDSP_V34P_FOREVER ((uint32_t)~0u)	/* L2 until stopped */

struct smdsp_v34_probe_tx {
	int16_t l1[SMDSP_V34P_N], l2[SMDSP_V34P_N];	/* one period of each */
	unsigned int idx;
	uint32_t l1_left, l2_left;	/* samples still to send (l2: SMDSP_V34P_FOREVER) */
	bool busy;
	int level_dbm0_10;
};

struct smdsp_v34p_seg {
	uint64_t pow[SMDSP_V34P_BINS];	/* sum over periods of |Y_k|^2 */
	int64_t pair_re[SMDSP_V34_PROBE_SENT - 1], pair_im[SMDSP_V34_PROBE_SENT - 1];
	int64_t fo_re, fo_im;		/* sum of Y_21(p) conj(Y_21(p - 1)) */
	int32_t prev_re, prev_im;	/* Y_21 of the last period taken ... */
	uint32_t prev_at;		/* ... and where it began */
	uint64_t energy;		/* sum of x^2 over the periods taken */
	uint64_t ref;			/* the first period's energy: the segment's level */
	uint32_t start;			/* sample at its first period */
	unsigned int periods;
};

enum smdsp_v34p_state { SMDSP_V34P_IDLE, SMDSP_V34P_ACTIVE, SMDSP_V34P_DONE };

struct smdsp_v34_probe_rx {
	int16_t ctab[SMDSP_V34P_N];	/* cos(2 pi j / 160), Q15 */
	int16_t buf[SMDSP_V34P_N];
	unsigned int fill;
	int32_t y_re[SMDSP_V34P_BINS], y_im[SMDSP_V34P_BINS];	/* this period's DFT */
	uint64_t last_energy;		/* the previous period's */
	int32_t pend_re[SMDSP_V34P_BINS], pend_im[SMDSP_V34P_BINS];	/* a period waiting ... */
	uint64_t pend_e;		/* ... for the next to confirm its level */
	uint32_t pend_at;
	bool pend;
	struct smdsp_v34p_seg seg;	/* the segment being averaged (L2 at the end) */
	uint64_t prev_energy;		/* the segment before it (L1): its energy ... */
	unsigned int prev_periods;	/* ... and length */
	bool need_ref;			/* the next probing period starts a segment */
	unsigned int settle;		/* periods still to let pass before averaging */
	unsigned int quiet;		/* periods in a row that were not probing */
	enum smdsp_v34p_state state;
	uint32_t sample;
	int far_level_dbm0_10;
};

/* The sent tone slots in order, and each one's sign (+1 phase 0, -1 phase 180). */
extern const uint8_t smdsp_v34p_sent_m[SMDSP_V34_PROBE_SENT];
int smdsp_v34p_sign(unsigned int m);

void smdsp_v34_probe_tx_init(struct smdsp_v34_probe_tx *s, int level_dbm0_10);
void smdsp_v34_probe_rx_init(struct smdsp_v34_probe_rx *s, int far_level_dbm0_10);

#endif /* SMDSP_PRIVATE_V34_PROBE_H */
