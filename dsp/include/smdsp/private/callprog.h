/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/callprog.h> (callprog.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_CALLPROG_H
#define SMDSP_PRIVATE_CALLPROG_H

#include <smdsp/callprog.h>
#include <smdsp/private/goertzel.h>

#define SMDSP_CALLPROG_BLOCK 160	/* 20 ms */
#define SMDSP_CALLPROG_NFREQ 7

struct smdsp_callprog {
	enum smdsp_callprog_plan plan;
	struct smdsp_goertzel g[SMDSP_CALLPROG_NFREQ];
	uint64_t energy;
	unsigned int count;
	uint64_t min_energy;
	bool on;
	uint8_t kind;		/* frequency signature of the current burst */
	uint32_t seg_ms;	/* length of the current on or off segment */
	uint32_t last_on_ms;
	uint8_t last_kind;
	unsigned int busy_cycles;
	unsigned int cong_cycles;
	bool dial_reported;
	bool ring_reported;
	enum smdsp_callprog_event last;
};

void smdsp_callprog_init(struct smdsp_callprog *s, enum smdsp_callprog_plan plan);

#endif /* SMDSP_PRIVATE_CALLPROG_H */
