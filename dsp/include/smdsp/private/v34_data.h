/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_data.h>. */
#ifndef SMDSP_PRIVATE_V34_DATA_H
#define SMDSP_PRIVATE_V34_DATA_H

#include <smdsp/v34_data.h>
#include <smdsp/private/v34_frame.h>
#include <smdsp/private/v34_scramble.h>
#include <smdsp/private/v34_shell.h>
#include <smdsp/private/v34_trellis.h>
#include <smdsp/private/v34_precode.h>

struct smdsp_v34_data_tx {
	struct smdsp_v34_data_config cfg;
	struct smdsp_v34_frame frame;
	struct smdsp_v34_scramble scr;
	struct smdsp_v34_shell shell;
	struct smdsp_v34_trellis trellis;
	struct smdsp_v34_precode pre;
	uint32_t power;
	uint32_t frames;
	struct smdsp_v34_frame_params pm;	/* room for minimum shaping's, to weigh expanded shaping */
};

struct smdsp_v34_data_rx {
	struct smdsp_v34_data_config cfg;
	struct smdsp_v34_frame in_frame;	/* framing of the points coming in (V0) */
	struct smdsp_v34_frame out_frame;	/* ... of the decisions coming out */
	struct smdsp_v34_scramble scr;
	struct smdsp_v34_shell shell;
	struct smdsp_v34_trellis map;		/* the constellation's tables */
	struct smdsp_v34_viterbi vit;
	struct smdsp_v34_precode pre;
	struct smdsp_v34_mframe in_mf;		/* layout of the frame coming in */
	unsigned int in_sym;			/* its next 4D symbol */
	unsigned int z;				/* the differential decoder's Z(m-1) */
	unsigned int out_sym;			/* 4D symbols of the frame going out so far */
	uint8_t ring[8];
	struct smdsp_v34_mframe out_mf;
	int64_t sf_sum;				/* the sync margins of the superframe coming in */
	unsigned int sf_n, sf_miss;		/* ... their number, the misses */
	uint32_t power;				/* the transmitter's smdsp_v34_data_tx_power() */
	struct smdsp_v34_frame_params pm;	/* room for minimum shaping's, to weigh expanded shaping */
	struct smdsp_v34_data_stats stats;
};

#endif /* SMDSP_PRIVATE_V34_DATA_H */
