/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v34_shell.h>, for the V.34
 * modulator and demodulator that will embed it by value.
 */
#ifndef SMDSP_PRIVATE_V34_SHELL_H
#define SMDSP_PRIVATE_V34_SHELL_H

#include <smdsp/v34_shell.h>

/* the costs of 2, 4 and 8 rings: 0 to 2(M-1), 4(M-1), 8(M-1) */
#define SMDSP_V34_SHELL_C2 (2 * (SMDSP_V34_SHELL_MAX_M - 1) + 1)
#define SMDSP_V34_SHELL_C4 (4 * (SMDSP_V34_SHELL_MAX_M - 1) + 1)
#define SMDSP_V34_SHELL_C8 (8 * (SMDSP_V34_SHELL_MAX_M - 1) + 1)

struct smdsp_v34_shell {
	unsigned int m, k;
	uint32_t g2[SMDSP_V34_SHELL_C2];	/* ways 2 rings cost p */
	uint32_t g4[SMDSP_V34_SHELL_C4];	/* ... 4 rings (at most M^3) */
	uint32_t g8[SMDSP_V34_SHELL_C8];	/* ... 8 rings (at most M^7) */
	uint64_t z8[SMDSP_V34_SHELL_C8 + 1];	/* 8-ring combinations costing less than p */
};

int smdsp_v34_shell_init(struct smdsp_v34_shell *s, unsigned int m, unsigned int k);

#endif /* SMDSP_PRIVATE_V34_SHELL_H */
