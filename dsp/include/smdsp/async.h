/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Asynchronous character framing over a synchronous bit stream: start bit,
 * 5..8 data bits LSB first, optional parity, 1 or 2 stop bits, and the V.14
 * rate adaption (stop bit deletion by the transmitter, re-insertion by the
 * receiver, break signalling) used when async data rides a synchronous modem.
 */
#ifndef SMDSP_ASYNC_H
#define SMDSP_ASYNC_H

#include <smdsp/compat.h>

enum smdsp_async_parity {
	SMDSP_ASYNC_PARITY_NONE = 0,
	SMDSP_ASYNC_PARITY_EVEN = 1,
	SMDSP_ASYNC_PARITY_ODD = 2,
};

/* Passed to put_byte instead of a character when a break was received. */
#define SMDSP_ASYNC_BREAK	(-1)

/* Returns the next character (0..255) or a negative value when there is none. */
typedef int (*smdsp_async_get_byte_fn)(void *user);
/* Receives a character (0..255) or SMDSP_ASYNC_BREAK. */
typedef void (*smdsp_async_put_byte_fn)(void *user, int byte);

struct smdsp_async_config {
	int data_bits;		/* 5..8 */
	int parity;		/* enum smdsp_async_parity */
	int stop_bits;		/* 1 or 2 */
	int v14;		/* rx: accept deleted stop bits (V.14) */
	/*
	 * tx: delete the stop bit of one character in every v14_interval
	 * back-to-back characters (8: V.14 basic range, 4: extended range,
	 * 0: never). Ignored unless v14 is set.
	 */
	int v14_interval;
};

struct smdsp_async_tx_stats {
	uint32_t chars;
	uint32_t stops_deleted;
	uint32_t idle_bits;
	uint32_t breaks;
};

struct smdsp_async_rx_stats {
	uint32_t chars;
	uint32_t framing_errors;
	uint32_t parity_errors;
	uint32_t stops_inserted;
	uint32_t breaks;
};

struct smdsp_async_tx;

struct smdsp_async_rx;

/* NULL on a bad configuration or out of memory. */
struct smdsp_async_tx *smdsp_async_tx_create(const struct smdsp_async_config *cfg,
					     smdsp_async_get_byte_fn get_byte,
					     void *user);
void smdsp_async_tx_free(struct smdsp_async_tx *s);
/* Idle again (nothing half sent, no break pending), statistics cleared. */
void smdsp_async_tx_reset(struct smdsp_async_tx *s);
/* Next line bit (0 or 1); marks (1) when no character is available. */
int smdsp_async_tx_get_bit(struct smdsp_async_tx *s);
/* n bits, one per byte (0 or 1). */
void smdsp_async_tx_get_bits(struct smdsp_async_tx *s, uint8_t *bits,
			     unsigned int n);
/* Send a break (2M+3 bits of space, M = bits per character) after the current character. */
void smdsp_async_tx_break(struct smdsp_async_tx *s);
void smdsp_async_tx_get_stats(const struct smdsp_async_tx *s,
			      struct smdsp_async_tx_stats *st);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_async_tx_print(const struct smdsp_async_tx *s, char *buf, size_t len);

struct smdsp_async_rx *smdsp_async_rx_create(const struct smdsp_async_config *cfg,
					     smdsp_async_put_byte_fn put_byte,
					     void *user);
void smdsp_async_rx_free(struct smdsp_async_rx *s);
/* Hunting for a start bit again, nothing held back, statistics cleared. */
void smdsp_async_rx_reset(struct smdsp_async_rx *s);
void smdsp_async_rx_put_bit(struct smdsp_async_rx *s, int bit);
void smdsp_async_rx_put_bits(struct smdsp_async_rx *s, const uint8_t *bits,
			     unsigned int n);
void smdsp_async_rx_get_stats(const struct smdsp_async_rx *s,
			      struct smdsp_async_rx_stats *st);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_async_rx_print(const struct smdsp_async_rx *s, char *buf, size_t len);

#endif /* SMDSP_ASYNC_H */
