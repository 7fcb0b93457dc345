/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.42bis data compression: an encoder for the data we send and a decoder
 * for the data we receive, each with its own dictionary of P1 codewords
 * (allocated at create), strings of at most P2 characters, transparent and
 * compressed modes switched by a compressibility test.
 *
 * The encoder takes user bytes and leaves its output in a small queue that
 * the error-correcting layer reads (smdsp_v42bis_read()); flush it where a
 * frame ends so that the far decoder can decode all it received. The decoder
 * turns any byte sequence into data or a counted protocol error, after which
 * it takes nothing more until reset (V.42 releases the link).
 *
 * No lock: the caller serializes all calls on an instance.
 */
#ifndef SMDSP_V42BIS_H
#define SMDSP_V42BIS_H

#include <smdsp/compat.h>

#define SMDSP_V42BIS_MIN_P1	512
#define SMDSP_V42BIS_MAX_P1	65535
#define SMDSP_V42BIS_DEF_P1	2048
#define SMDSP_V42BIS_MIN_P2	6
#define SMDSP_V42BIS_MAX_P2	250
#define SMDSP_V42BIS_DEF_P2	32

/* directions, seen from this end (the AT+DS convention) */
#define SMDSP_V42BIS_DIR_NONE	0
#define SMDSP_V42BIS_DIR_TX	1	/* we compress what we send */
#define SMDSP_V42BIS_DIR_RX	2	/* we decompress what we receive */
#define SMDSP_V42BIS_DIR_BOTH	3

enum smdsp_v42bis_mode {
	SMDSP_V42BIS_AUTO = 0,		/* the compressibility test picks the mode */
	SMDSP_V42BIS_ALWAYS,		/* compressed mode from the first character */
	SMDSP_V42BIS_NEVER,		/* transparent mode only */
};

struct smdsp_v42bis_config {
	unsigned int dirs;		/* SMDSP_V42BIS_DIR_*: the rest passes through */
	unsigned int p1;		/* codewords (N2), 0: 2048 */
	unsigned int p2;		/* longest string (N7), 0: 32 */
	/*
	 * create only: the largest P1 a reset may ask for (the dictionaries'
	 * size), 0: p1
	 */
	unsigned int max_p1;
	enum smdsp_v42bis_mode mode;
};

struct smdsp_v42bis_stats {
	uint32_t enc_in;		/* user bytes the encoder took */
	uint32_t enc_out;		/* bytes it produced */
	uint32_t dec_in;		/* line bytes the decoder took */
	uint32_t dec_out;		/* user bytes it produced */
	uint32_t to_compressed;		/* encoder mode changes */
	uint32_t to_transparent;
	uint32_t flushes;		/* FLUSH codewords sent */
	uint32_t dec_resets;		/* RESET commands received */
	uint32_t errors;		/* decoder protocol errors */
	uint8_t enc_transparent;	/* current modes */
	uint8_t dec_transparent;
	uint8_t enc_c2;			/* current codeword sizes */
	uint8_t dec_c2;
};

struct smdsp_v42bis;

/* Allocates both dictionaries (max_p1 codewords each); NULL on failure. */
struct smdsp_v42bis *smdsp_v42bis_create(const struct smdsp_v42bis_config *cfg);
void smdsp_v42bis_free(struct smdsp_v42bis *s);
/*
 * Both directions back to their initial state (C-INIT) with cfg's P0, P1,
 * P2 (P1 capped at the size allocated at create). Returns 0, or -EINVAL and
 * changes nothing for P1/P2 outside the recommendation's ranges.
 */
int smdsp_v42bis_reset(struct smdsp_v42bis *s, const struct smdsp_v42bis_config *cfg);
/* the largest P1 a reset can take (what create allocated) */
unsigned int smdsp_v42bis_max_p1(const struct smdsp_v42bis *s);
void smdsp_v42bis_set_mode(struct smdsp_v42bis *s, enum smdsp_v42bis_mode mode);

/*
 * Encoder: takes up to len bytes while its output queue has room; returns
 * the number taken. Without DIR_TX the bytes pass through unchanged.
 */
unsigned int smdsp_v42bis_encode(struct smdsp_v42bis *s, const uint8_t *buf,
				 unsigned int len);
/* C-FLUSH: everything taken so far becomes decodable from the output */
void smdsp_v42bis_flush(struct smdsp_v42bis *s);
/* output bytes waiting to be read */
unsigned int smdsp_v42bis_pending(const struct smdsp_v42bis *s);
/* nothing waiting and nothing that a flush would still send */
int smdsp_v42bis_idle(const struct smdsp_v42bis *s);
unsigned int smdsp_v42bis_read(struct smdsp_v42bis *s, uint8_t *buf,
			       unsigned int max);

/* the most output one input byte can give the decoder (P2) */
#define SMDSP_V42BIS_DEC_MAX_OUT	SMDSP_V42BIS_MAX_P2
/*
 * Decoder: takes input bytes while out has room for what the next one can
 * give (P2 bytes), sets *used to the number taken and returns the bytes
 * written. A protocol error stops it there (counted, smdsp_v42bis_failed()
 * from then on; what came before it is returned); a call on a failed
 * decoder returns -EPROTO, until a reset. Without DIR_RX the bytes pass
 * through.
 */
int smdsp_v42bis_decode(struct smdsp_v42bis *s, const uint8_t *in,
			unsigned int len, uint8_t *out, unsigned int max,
			unsigned int *used);
/* the decoder met a protocol error (V.42bis: the link is to be released) */
int smdsp_v42bis_failed(const struct smdsp_v42bis *s);

void smdsp_v42bis_get_stats(const struct smdsp_v42bis *s,
			    struct smdsp_v42bis_stats *st);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v42bis_print(const struct smdsp_v42bis *s, char *buf, size_t len);

#endif /* SMDSP_V42BIS_H */
