/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/tone.h> (tone.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_TONE_H
#define SMDSP_PRIVATE_TONE_H

#include <smdsp/tone.h>

struct smdsp_tone {
	struct smdsp_tone_desc d;
	struct smdsp_tone_nco osc[2];
	struct smdsp_tone_nco am;
	int32_t amp[2];
	uint32_t on_samples;
	uint32_t off_samples;
	uint32_t rev_samples;
	uint32_t pos;		/* sample within the current cycle */
	uint32_t rev_pos;
	uint32_t cycle;
	bool done;
};

void smdsp_tone_init(struct smdsp_tone *g, const struct smdsp_tone_desc *d);

#endif /* SMDSP_PRIVATE_TONE_H */
