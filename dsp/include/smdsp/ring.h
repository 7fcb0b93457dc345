/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring signal detection on the receive samples (15-68 Hz bursts).
 */
#ifndef SMDSP_RING_H
#define SMDSP_RING_H

#include <smdsp/fixmath.h>

struct smdsp_ring;

struct smdsp_ring *smdsp_ring_create(void);
void smdsp_ring_free(struct smdsp_ring *s);
/* Back to no ring heard, the count at 0. */
void smdsp_ring_reset(struct smdsp_ring *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_ring_print(const struct smdsp_ring *s, char *buf, size_t len);
/* Returns true when a ring burst has been recognised (once per burst, after 200 ms). */
bool smdsp_ring_process(struct smdsp_ring *s, const int16_t *x, unsigned int n);
/* Rings counted since init; time since the last burst ended (ms). */
uint32_t smdsp_ring_count(const struct smdsp_ring *s);
uint32_t smdsp_ring_quiet_ms(const struct smdsp_ring *s);

#endif /* SMDSP_RING_H */
