/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.25/V.8 answer tones: 2100 Hz ANS, ANS/PR, ANSam, ANSam/PR.
 */
#ifndef SMDSP_ANSTONE_H
#define SMDSP_ANSTONE_H

#include <smdsp/tone.h>

enum smdsp_ans_kind {
	SMDSP_ANS_NONE = 0,
	SMDSP_ANS_ANS,		/* plain 2100 Hz */
	SMDSP_ANS_ANS_PR,	/* with 450 ms phase reversals */
	SMDSP_ANS_ANSAM,	/* 15 Hz amplitude modulated */
	SMDSP_ANS_ANSAM_PR,
};

/* Fills *d for the given kind: 2100 Hz at level, lasting ms (3300 typical). */
void smdsp_anstone_desc(struct smdsp_tone_desc *d, enum smdsp_ans_kind kind,
			int level_dbm0_10, unsigned int ms);

#define SMDSP_ANS_BLOCK 40	/* 5 ms */
#define SMDSP_ANS_AM_BLOCKS 40	/* 200 ms: three cycles of 15 Hz */

struct smdsp_anstone_rx {
	struct smdsp_nco lo;
	struct smdsp_nco am_lo;	/* 15 Hz, stepped once per block */
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
	enum smdsp_ans_kind kind;
	bool present;
	uint32_t tone_ms;
};

void smdsp_anstone_rx_init(struct smdsp_anstone_rx *s, int32_t freq_mhz);
struct smdsp_anstone_rx *smdsp_anstone_rx_create(int32_t freq_mhz);
void smdsp_anstone_rx_free(struct smdsp_anstone_rx *s);
void smdsp_anstone_rx_process(struct smdsp_anstone_rx *s, const int16_t *x, unsigned int n);
/* What has been recognised in the current tone burst (NONE before ~200 ms of tone). */
enum smdsp_ans_kind smdsp_anstone_rx_kind(const struct smdsp_anstone_rx *s);
/* Milliseconds of continuous tone so far (0 when absent). */
uint32_t smdsp_anstone_rx_tone_ms(const struct smdsp_anstone_rx *s);

#endif /* SMDSP_ANSTONE_H */
