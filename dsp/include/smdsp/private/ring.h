/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/ring.h> (ring.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_RING_H
#define SMDSP_PRIVATE_RING_H

#include <smdsp/ring.h>

#define SMDSP_RING_BLOCK 80	/* 10 ms */
#define SMDSP_RING_WIN 10	/* blocks judged together: 100 ms */

struct smdsp_ring {
	int32_t dc;		/* DC estimate, Q8 */
	int32_t lp1, lp2;	/* two one-pole low-pass stages, Q8 */
	int8_t sign;		/* last sign of the low-passed signal, with hysteresis */
	uint64_t lp_energy[SMDSP_RING_WIN];
	uint64_t all_energy[SMDSP_RING_WIN];
	uint8_t crossings[SMDSP_RING_WIN];
	unsigned int blk;
	unsigned int count;
	uint64_t min_energy;	/* per-window floor */
	int32_t hyst;
	bool on;
	uint32_t on_ms;
	uint32_t off_ms;
	bool counted;
	uint32_t rings;
};

void smdsp_ring_init(struct smdsp_ring *s);

#endif /* SMDSP_PRIVATE_RING_H */
