/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_scramble.h>. */
#ifndef SMDSP_PRIVATE_V34_SCRAMBLE_H
#define SMDSP_PRIVATE_V34_SCRAMBLE_H

#include <smdsp/v34_scramble.h>

struct smdsp_v34_scramble {
	uint32_t reg;		/* the last 23 line bits, the newest in bit 0 */
	unsigned int tap;	/* 18 or 5 */
	uint32_t bits;		/* bits through since reset */
};

void smdsp_v34_scramble_init(struct smdsp_v34_scramble *s, bool caller);

#endif /* SMDSP_PRIVATE_V34_SCRAMBLE_H */
