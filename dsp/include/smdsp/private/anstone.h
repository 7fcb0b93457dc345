/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/anstone.h> (anstone.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_ANSTONE_H
#define SMDSP_PRIVATE_ANSTONE_H

#include <smdsp/anstone.h>

#define SMDSP_ANS_BLOCK 40	/* 5 ms */
#define SMDSP_ANS_AM_BLOCKS 40	/* 200 ms: three cycles of 15 Hz */
/*
 * The notch's frequency: the middle of V.21's low channel (980/1180 Hz),
 * where a V.8 caller's CI is while it listens for the answer tone.
 */
#define SMDSP_ANS_NOTCH_MHZ 1080000

struct smdsp_anstone_rx {
	struct smdsp_tone_nco lo;
	int32_t freq_mhz;
	int32_t notch_c;	/* 2 cos(notch) in Q14 */
	int32_t x1, x2;		/* the last two input samples */
	struct smdsp_tone_nco am_lo;	/* 15 Hz, stepped once per block */
	int64_t zre, zim;	/* block correlation */
	uint64_t energy;
	unsigned int count;
	int32_t ref_re, ref_im;	/* last block usable as a phase reference */
	bool ref_ok;
	unsigned int ref_gap;	/* blocks since the reference */
	unsigned int normal_steps;	/* steps that matched the frequency trend */
	int32_t dphase;		/* mean phase step per block, 2^32 per turn */
	unsigned int present_blocks;
	unsigned int absent_blocks;
	unsigned int hold_blocks;	/* after a reversal */
	unsigned int blocks_since_rev;
	unsigned int reversals;
	unsigned int good_spacings;
	int64_t am_re, am_im;
	uint64_t env_sum;
	uint32_t last_env;
	unsigned int am_count;
	int am_state;		/* -1 no AM, 0 unknown, 1 AM */
	uint64_t min_energy;
	enum smdsp_anstone_kind kind;
	bool present;
	uint32_t tone_ms;
};

void smdsp_anstone_rx_init(struct smdsp_anstone_rx *s, int32_t freq_mhz);

#endif /* SMDSP_PRIVATE_ANSTONE_H */
