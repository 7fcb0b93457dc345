/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DTMF (Q.23/Q.24) generator and detector.
 */
#ifndef SMDSP_DTMF_H
#define SMDSP_DTMF_H

#include <smdsp/tone.h>
#include <smdsp/goertzel.h>

#define SMDSP_DTMF_QUEUE 32

struct smdsp_dtmf_tx {
	struct smdsp_tonegen gen;
	char queue[SMDSP_DTMF_QUEUE];
	unsigned int head;
	unsigned int tail;
	int16_t level_dbm0_10;	/* per tone (low group); high group +2 dB */
	uint16_t on_ms;
	uint16_t off_ms;
	bool active;
};

void smdsp_dtmf_tx_init(struct smdsp_dtmf_tx *s);
struct smdsp_dtmf_tx *smdsp_dtmf_tx_create(void);
void smdsp_dtmf_tx_free(struct smdsp_dtmf_tx *s);
/* Queues digits 0-9 * # A-D (others: ',' is a 2 s pause); returns how many were queued. */
int smdsp_dtmf_tx_put(struct smdsp_dtmf_tx *s, const char *digits);
/* Writes n samples; returns the number still queued or sounding (0 when idle). */
int smdsp_dtmf_tx_process(struct smdsp_dtmf_tx *s, int16_t *out, unsigned int n);

#define SMDSP_DTMF_BLOCK 102

struct smdsp_dtmf_rx {
	struct smdsp_goertzel row[4];
	struct smdsp_goertzel col[4];
	uint64_t energy;
	unsigned int count;
	char last_hit;		/* this block's candidate */
	char now;		/* digit being reported, 0 if none */
	unsigned int misses;
	char digits[SMDSP_DTMF_QUEUE];
	unsigned int head;
	unsigned int tail;
	uint64_t min_energy;	/* per-tone Goertzel energy at the lowest level */
};

void smdsp_dtmf_rx_init(struct smdsp_dtmf_rx *s);
struct smdsp_dtmf_rx *smdsp_dtmf_rx_create(void);
void smdsp_dtmf_rx_free(struct smdsp_dtmf_rx *s);
void smdsp_dtmf_rx_process(struct smdsp_dtmf_rx *s, const int16_t *x, unsigned int n);
/* Copies up to max-1 detected digits into buf (NUL-terminated); returns the count. */
int smdsp_dtmf_rx_get(struct smdsp_dtmf_rx *s, char *buf, int max);
/* The digit sounding now, 0 if none. */
char smdsp_dtmf_rx_current(const struct smdsp_dtmf_rx *s);

#endif /* SMDSP_DTMF_H */
