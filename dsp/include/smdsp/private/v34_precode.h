/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_precode.h>, for the data-mode blocks that embed it. */
#ifndef SMDSP_PRIVATE_V34_PRECODE_H
#define SMDSP_PRIVATE_V34_PRECODE_H

#include <smdsp/v34_precode.h>

struct smdsp_v34_precode {
	int16_t h[6];
	unsigned int w;
	int32_t x[3][2];	/* x(n-1), x(n-2), x(n-3), 1/128 units */
	int32_t p[2];		/* p(n) */
	int c[2];		/* c(n) */
	uint32_t n;
};

void smdsp_v34_precode_init(struct smdsp_v34_precode *s, const int16_t h[6], unsigned int w);

#endif /* SMDSP_PRIVATE_V34_PRECODE_H */
