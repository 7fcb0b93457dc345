/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-progress tone detection (dial tone, ringback, busy, congestion).
 */
#ifndef SMDSP_CALLPROG_H
#define SMDSP_CALLPROG_H

#include <smdsp/goertzel.h>

enum smdsp_callprog_plan {
	SMDSP_CALLPROG_PLAN_NA = 0,	/* North America: 350+440 dial, 440+480 ringback, 480+620 busy */
	SMDSP_CALLPROG_PLAN_ETSI,	/* ETSI/ITU E.180: 425 Hz (400-450) for all, by cadence */
};

enum smdsp_callprog_event {
	SMDSP_CALLPROG_NONE = 0,
	SMDSP_CALLPROG_DIALTONE,
	SMDSP_CALLPROG_RINGBACK,
	SMDSP_CALLPROG_BUSY,
	SMDSP_CALLPROG_CONGESTION,
};

struct smdsp_callprog;

struct smdsp_callprog *smdsp_callprog_create(enum smdsp_callprog_plan plan);
void smdsp_callprog_free(struct smdsp_callprog *s);
/* Back to silence heard, same plan. */
void smdsp_callprog_reset(struct smdsp_callprog *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_callprog_print(const struct smdsp_callprog *s, char *buf, size_t len);
/* Returns the event completed inside this buffer (the last one if several). */
enum smdsp_callprog_event smdsp_callprog_process(struct smdsp_callprog *s, const int16_t *x, unsigned int n);
/* True while a call-progress tone is sounding. */
bool smdsp_callprog_tone_on(const struct smdsp_callprog *s);

#endif /* SMDSP_CALLPROG_H */
