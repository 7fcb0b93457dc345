/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring signal detection on the receive samples (15-68 Hz bursts).
 */
#ifndef SMDSP_RING_H
#define SMDSP_RING_H

#include <smdsp/fixmath.h>

#define SMDSP_RING_BLOCK 80	/* 10 ms */
#define SMDSP_RING_WIN 10	/* blocks judged together: 100 ms */

struct smdsp_ring {
	int32_t dc;		/* DC estimate, Q8 */
	int32_t lp1, lp2;	/* two one-pole low-pass stages, Q8 */
	int8_t sign;		/* last sign of the low-passed signal, with hysteresis */
	uint64_t lp_energy[SMDSP_RING_WIN];
	uint64_t all_energy[SMDSP_RING_WIN];
	uint8_t crossings[SMDSP_RING_WIN];
	unsigned int blk;
	unsigned int count;
	uint64_t min_energy;	/* per-window floor */
	int32_t hyst;
	bool on;
	uint32_t on_ms;
	uint32_t off_ms;
	bool counted;
	uint32_t rings;
};

void smdsp_ring_init(struct smdsp_ring *s);
struct smdsp_ring *smdsp_ring_create(void);
void smdsp_ring_free(struct smdsp_ring *s);
/* Returns true when a ring burst has been recognised (once per burst, after 200 ms). */
bool smdsp_ring_process(struct smdsp_ring *s, const int16_t *x, unsigned int n);
/* Rings counted since init; time since the last burst ended (ms). */
uint32_t smdsp_ring_count(const struct smdsp_ring *s);
uint32_t smdsp_ring_quiet_ms(const struct smdsp_ring *s);

#endif /* SMDSP_RING_H */
