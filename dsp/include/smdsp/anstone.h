/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.25/V.8 answer tones: 2100 Hz ANS, ANS/PR, ANSam, ANSam/PR.
 */
#ifndef SMDSP_ANSTONE_H
#define SMDSP_ANSTONE_H

#include <smdsp/tone.h>

enum smdsp_anstone_kind {
	SMDSP_ANS_NONE = 0,
	SMDSP_ANS_ANS,		/* plain 2100 Hz */
	SMDSP_ANS_ANS_PR,	/* with 450 ms phase reversals */
	SMDSP_ANS_ANSAM,	/* 15 Hz amplitude modulated */
	SMDSP_ANS_ANSAM_PR,
};

/* Fills *d for the given kind: 2100 Hz at level, lasting ms (3300 typical). */
void smdsp_anstone_desc(struct smdsp_tone_desc *d, enum smdsp_anstone_kind kind,
			int level_dbm0_10, unsigned int ms);

struct smdsp_anstone_rx;

struct smdsp_anstone_rx *smdsp_anstone_rx_create(int32_t freq_mhz);
void smdsp_anstone_rx_free(struct smdsp_anstone_rx *s);
/* Back to no tone heard, same frequency. */
void smdsp_anstone_rx_reset(struct smdsp_anstone_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_anstone_rx_print(const struct smdsp_anstone_rx *s, char *buf, size_t len);
void smdsp_anstone_rx_process(struct smdsp_anstone_rx *s, const int16_t *x, unsigned int n);
/* What has been recognised in the current tone burst (NONE before ~200 ms of tone). */
enum smdsp_anstone_kind smdsp_anstone_rx_kind(const struct smdsp_anstone_rx *s);
/* Milliseconds of continuous tone so far (0 when absent). */
uint32_t smdsp_anstone_rx_tone_ms(const struct smdsp_anstone_rx *s);

#endif /* SMDSP_ANSTONE_H */
