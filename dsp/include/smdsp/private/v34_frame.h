/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_frame.h>, for the data-mode blocks that embed it. */
#ifndef SMDSP_PRIVATE_V34_FRAME_H
#define SMDSP_PRIVATE_V34_FRAME_H

#include <smdsp/v34_frame.h>

struct smdsp_v34_frame {
	struct smdsp_v34_frame_params p;
	unsigned int index;		/* next mapping frame in its data frame */
	unsigned int data_frame;	/* its data frame in the superframe */
	uint32_t frames;		/* mapping frames since reset */
};

int smdsp_v34_frame_init(struct smdsp_v34_frame *s, const struct smdsp_v34_frame_params *p);

#endif /* SMDSP_PRIVATE_V34_FRAME_H */
