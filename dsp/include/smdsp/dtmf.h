/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DTMF (Q.23/Q.24) generator and detector.
 */
#ifndef SMDSP_DTMF_H
#define SMDSP_DTMF_H

#include <smdsp/tone.h>
#include <smdsp/goertzel.h>

#define SMDSP_DTMF_QUEUE 32

struct smdsp_dtmf_tx;

struct smdsp_dtmf_tx *smdsp_dtmf_tx_create(void);
void smdsp_dtmf_tx_free(struct smdsp_dtmf_tx *s);
/* Drops the queue and the digit sounding. */
void smdsp_dtmf_tx_reset(struct smdsp_dtmf_tx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_dtmf_tx_print(const struct smdsp_dtmf_tx *s, char *buf, size_t len);
/* Queues digits 0-9 * # A-D (others: ',' is a 2 s pause); returns how many were queued. */
int smdsp_dtmf_tx_put(struct smdsp_dtmf_tx *s, const char *digits);
/* Tone and gap lengths of the digits (defaults 70 and 70 ms). */
void smdsp_dtmf_tx_set_timing(struct smdsp_dtmf_tx *s, unsigned int on_ms, unsigned int off_ms);
/* Writes n samples; returns the number still queued or sounding (0 when idle). */
int smdsp_dtmf_tx_process(struct smdsp_dtmf_tx *s, int16_t *out, unsigned int n);

#define SMDSP_DTMF_BLOCK 102

struct smdsp_dtmf_rx;

struct smdsp_dtmf_rx *smdsp_dtmf_rx_create(void);
void smdsp_dtmf_rx_free(struct smdsp_dtmf_rx *s);
/* Forgets the digits heard and the one sounding. */
void smdsp_dtmf_rx_reset(struct smdsp_dtmf_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_dtmf_rx_print(const struct smdsp_dtmf_rx *s, char *buf, size_t len);
void smdsp_dtmf_rx_process(struct smdsp_dtmf_rx *s, const int16_t *x, unsigned int n);
/* Copies up to max-1 detected digits into buf (NUL-terminated); returns the count. */
int smdsp_dtmf_rx_get(struct smdsp_dtmf_rx *s, char *buf, int max);
/* The digit sounding now, 0 if none. */
char smdsp_dtmf_rx_current(const struct smdsp_dtmf_rx *s);

#endif /* SMDSP_DTMF_H */
