/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Faults in V.34's phase 2 past its INFO0 exchange (test code), for phase 2
 * alone (test_v34_phase2) and whole calls (test_v34_call): each once, where
 * it first can be, from each end's phase 2 state after the block it sent
 * (INFO1a from the block the answer modem began it in, read from its
 * private state).
 */
#ifndef V34FAULT_H
#define V34FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include <smdsp/private/v34_phase2.h>

enum v34_fault {
	V34F_L2_AT_C = 1 << 0,		/* the line silent for 200 ms, 500 ms after the start of A's L1 */
	V34F_L2_AT_A = 1 << 1,		/* a noise burst of 200 ms over C's L2, 500 ms after its L1's start */
	V34F_TONE_B = 1 << 2,		/* C's tone B that ends A's L2 (and its B-bar) silenced */
	V34F_TONE_A = 1 << 3,		/* A's tone A that ends C's L2 silenced while C sends L2 */
	V34F_INFO1C_BAD = 1 << 4,	/* 20 samples of INFO1c turned over: a bad CRC */
	V34F_INFO1C_BURST = 1 << 5,	/* a noise burst of 300 ms over INFO1c */
	V34F_INFO1A_BAD = 1 << 6,
	V34F_INFO1A_LOST = 1 << 7,	/* the line silent 200 ms over INFO1a */
	V34F_GONE = 1 << 8,		/* A silent for good from its L1 on */
};
#define V34F_KINDS 9

struct v34_faults {
	unsigned int on;		/* enum v34_fault bits */
	long at[V34F_KINDS];		/* where each began (-1: not yet) */
	bool over[V34F_KINDS];		/* ... and whether it is over */
};

void v34_faults_init(struct v34_faults *f, unsigned int on);
/* what each end sends in the block from sample t, after it was sent and before the line */
void v34_faults_apply(struct v34_faults *f, long t, int16_t *c_tx, int16_t *a_tx, const struct smdsp_v34_phase2 *c,
		      const struct smdsp_v34_phase2 *a, int blk);

#endif /* V34FAULT_H */
