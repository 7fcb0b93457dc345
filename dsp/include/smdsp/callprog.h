/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-progress tone detection (dial tone, ringback, busy, congestion).
 */
#ifndef SMDSP_CALLPROG_H
#define SMDSP_CALLPROG_H

#include <smdsp/goertzel.h>

enum smdsp_cpt_plan {
	SMDSP_CPT_PLAN_NA = 0,	/* North America: 350+440 dial, 440+480 ringback, 480+620 busy */
	SMDSP_CPT_PLAN_ETSI,	/* ETSI/ITU E.180: 425 Hz (400-450) for all, by cadence */
};

enum smdsp_cpt_event {
	SMDSP_CPT_NONE = 0,
	SMDSP_CPT_DIALTONE,
	SMDSP_CPT_RINGBACK,
	SMDSP_CPT_BUSY,
	SMDSP_CPT_CONGESTION,
};

#define SMDSP_CPT_BLOCK 160	/* 20 ms */
#define SMDSP_CPT_NFREQ 7

struct smdsp_cpt {
	enum smdsp_cpt_plan plan;
	struct smdsp_goertzel g[SMDSP_CPT_NFREQ];
	uint64_t energy;
	unsigned int count;
	uint64_t min_energy;
	bool on;
	uint8_t kind;		/* frequency signature of the current burst */
	uint32_t seg_ms;	/* length of the current on or off segment */
	uint32_t last_on_ms;
	uint8_t last_kind;
	unsigned int busy_cycles;
	unsigned int cong_cycles;
	bool dial_reported;
	bool ring_reported;
	enum smdsp_cpt_event last;
};

void smdsp_cpt_init(struct smdsp_cpt *s, enum smdsp_cpt_plan plan);
struct smdsp_cpt *smdsp_cpt_create(enum smdsp_cpt_plan plan);
void smdsp_cpt_free(struct smdsp_cpt *s);
/* Returns the event completed inside this buffer (the last one if several). */
enum smdsp_cpt_event smdsp_cpt_process(struct smdsp_cpt *s, const int16_t *x, unsigned int n);
/* True while a call-progress tone is sounding. */
bool smdsp_cpt_tone_on(const struct smdsp_cpt *s);

#endif /* SMDSP_CALLPROG_H */
