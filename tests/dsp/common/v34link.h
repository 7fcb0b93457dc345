/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two of our V.34 ends (dsp/v34_train_*.c) over the line model, carrying random data (test code): 4-wire,
 * or 2-wire (the duplex sequence and the echo cancellers) for a line with its echoes on.
 */
#ifndef V34LINK_H
#define V34LINK_H
#include <stdbool.h>
#include <smdsp/v34_train.h>
#include "line.h"

struct link_res {
	enum smdsp_v34_train_state st[2];
	unsigned long bits[2], errors[2];
	unsigned int rate[2];
	int mse[2];
	double cpu_rx;		/* s of CPU in the two receivers */
	double seconds;
	struct smdsp_v34_train_stats stats[2];
	double data_at[2];		/* line seconds when each receiver reached the data mode (0: never) */
	/* line seconds when each transmitter first entered each state (-1: never), and entered S again */
	double tx_at[2][SMDSP_V34_T_FAILED + 1];
	double tx_s2_at[2];
	/* data: each receiver's decoder error (wmse_db10, dB) as a mean of its powers every 0.1 s from 0.5 s in */
	double wmse_mean[2];
	/* each transmitter's mean square in the data mode (from 0.5 s in), samples */
	double tx_power[2];
};

struct link_cfg {
	enum smdsp_v34_symrate symrate;
	bool high;
	unsigned int rate_ca, rate_ac;	/* bit/s each way */
	unsigned int b_rx_limit;	/* B's receiver allows call-to-answer at most this (0: rate_ca) */
	unsigned int preemph;
	bool trn16;
	bool trn16_call_only;		/* only the call modem's J asks for trn16's 16 points, the answer modem's for 4 */
	unsigned int trn4_symbols;	/* phase 4's TRN both ways (0: 512) */
	bool no_precoding;		/* both receivers ask for none */
	bool fixed_rate;		/* both receivers put their rate in MP, not the one their error supports */
	struct line_cfg line;
	double seconds;
	/*
	 * 2-wire: the duplex sequence and each end's echo canceller, told the
	 * round trip 2 (delay + 16) (the line's) and an echo latency of
	 * `latency` (each block's tx goes on the line before its rx is read);
	 * no_ec: without the cancellers.
	 */
	bool two_wire;
	bool no_ec;
	/*
	 * Each end hears the line latency samples late (an I/O loop's input
	 * side, 0 .. V34LINK_MAX_LATENCY), which its echo_latency is told.
	 */
	int latency;
	/* what each end's receiver asks for (enum smdsp_v34_ask: 0 its rule), A's first */
	unsigned int nonlinear[2], shaping[2];
};

#define V34LINK_MAX_LATENCY 1024

/* A (the caller) and B over lc->line for lc->seconds; each receiver checks the other's random bits. */
void run_link(const struct link_cfg *lc, struct link_res *res);
/* 1: each end's state at the end; 2: every 0.4 s too */
extern int v34link_verbose;

#endif
