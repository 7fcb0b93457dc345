/* SPDX-License-Identifier: GPL-2.0 */
/* Two of our V.34 ends (dsp/v34_train_*.c), 4-wire over the line model, carrying random data (test code). */
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
};

struct link_cfg {
	enum smdsp_v34_symrate symrate;
	bool high;
	unsigned int rate_ca, rate_ac;	/* bit/s each way */
	unsigned int b_rx_limit;	/* B's receiver allows call-to-answer at most this (0: rate_ca) */
	unsigned int preemph;
	bool trn16;
	bool no_precoding;		/* both receivers ask for none */
	struct line_cfg line;
	double seconds;
};

/* A (the caller) and B over lc->line for lc->seconds; each receiver checks the other's random bits. */
void run_link(const struct link_cfg *lc, struct link_res *res);
/* 1: each end's state at the end; 2: every 0.4 s too */
extern int v34link_verbose;

#endif
