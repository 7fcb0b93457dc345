/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/trellis.h> (trellis.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_TRELLIS_H
#define SMDSP_PRIVATE_TRELLIS_H

#include <smdsp/trellis.h>

struct smdsp_trellis_enc {
	uint8_t diff;		/* Y2 Y1 of the last symbol */
	uint8_t conv;		/* the delay cells: bit 0 gives Y0 */
};

/* Starts with the differential encoder at diff (Y2 Y1) and the cells at 0. */
void smdsp_trellis_enc_init(struct smdsp_trellis_enc *e, unsigned int diff);

#endif /* SMDSP_PRIVATE_TRELLIS_H */
