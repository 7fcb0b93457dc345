/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34 shell mapping (9.3-9.4): the K shell bits of a mapping frame, as the
 * integer R0, to the ring indices of its eight 2D symbols, and back.
 */
#ifndef SMDSP_V34_SHELL_H
#define SMDSP_V34_SHELL_H

#include <smdsp/compat.h>

#define SMDSP_V34_SHELL_MAX_M 18	/* rings: V.34 uses 1 to 18 */
#define SMDSP_V34_SHELL_MAX_K 31	/* shell bits per mapping frame */
#define SMDSP_V34_SHELL_RINGS 8		/* ring indices per mapping frame */

struct smdsp_v34_shell;

/*
 * M rings, K bits per mapping frame; NULL if M or K is out of range or if
 * 2^K exceeds M^8, the number of ring combinations.
 */
struct smdsp_v34_shell *smdsp_v34_shell_create(unsigned int m, unsigned int k);
void smdsp_v34_shell_free(struct smdsp_v34_shell *s);
/* Nothing to forget: the tables stay (for the block conventions). */
void smdsp_v34_shell_reset(struct smdsp_v34_shell *s);
int smdsp_v34_shell_print(const struct smdsp_v34_shell *s, char *buf, size_t len);
/*
 * R0 (< 2^K: the first K bits of the mapping frame, the first in time its
 * least significant bit) to ring indices ring[0..7] (< M), for the frame's
 * 2D symbols in order. Returns 0, or -EINVAL if r0 >= 2^K.
 */
int smdsp_v34_shell_map(const struct smdsp_v34_shell *s, uint32_t r0,
			uint8_t ring[SMDSP_V34_SHELL_RINGS]);
/* The inverse: R0, or -EINVAL if a ring is >= M or the combination is not among the 2^K used. */
int64_t smdsp_v34_shell_unmap(const struct smdsp_v34_shell *s,
			      const uint8_t ring[SMDSP_V34_SHELL_RINGS]);
/* The generating functions' coefficients: g2(p), g4(p), g8(p) and z8(p) (0 outside their range). */
uint64_t smdsp_v34_shell_g(const struct smdsp_v34_shell *s, unsigned int order, unsigned int p);
uint64_t smdsp_v34_shell_z8(const struct smdsp_v34_shell *s, unsigned int p);

#endif /* SMDSP_V34_SHELL_H */
