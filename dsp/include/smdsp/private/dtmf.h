/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/dtmf.h> (dtmf.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_DTMF_H
#define SMDSP_PRIVATE_DTMF_H

#include <smdsp/dtmf.h>
#include <smdsp/private/tone.h>
#include <smdsp/private/goertzel.h>

struct smdsp_dtmf_tx {
	struct smdsp_tone gen;
	char queue[SMDSP_DTMF_QUEUE];
	unsigned int head;
	unsigned int tail;
	int16_t level_dbm0_10;	/* per tone (low group); high group +2 dB */
	uint16_t on_ms;
	uint16_t off_ms;
	bool active;
};

struct smdsp_dtmf_rx {
	struct smdsp_goertzel row[4];
	struct smdsp_goertzel col[4];
	uint64_t energy;
	unsigned int count;
	char last_hit;		/* this block's candidate */
	char now;		/* digit being reported, 0 if none */
	unsigned int misses;
	char digits[SMDSP_DTMF_QUEUE];
	unsigned int head;
	unsigned int tail;
	uint64_t min_energy;	/* per-tone Goertzel energy at the lowest level */
};

void smdsp_dtmf_tx_init(struct smdsp_dtmf_tx *s);

void smdsp_dtmf_rx_init(struct smdsp_dtmf_rx *s);

#endif /* SMDSP_PRIVATE_DTMF_H */
