/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.42 LAPM error correction: the detection phase (ODP/ADP), HDLC framing
 * (flags, bit stuffing, 16- or 32-bit FCS), XID negotiation, SABME/UA,
 * modulo-128 I frames, RR/RNR/REJ/SREJ, the T400/T401/T403 timers and the
 * N400 retry limit, DISC/DM; a byte stream in each direction, compressed
 * by V.42bis (smdsp/v42bis.h) where both ends agreed to in XID.
 *
 * Time is counted in line bits: every smdsp_v42_get_bit() call is one bit
 * time at config.bit_rate (smdsp_v42_tick() advances time while the
 * transmitter is not pulling bits). There is no clock.
 *
 * An instance has no lock: its callers serialize all calls on it (bit
 * pump and user byte stream alike). Instances are independent.
 */
#ifndef SMDSP_V42_H
#define SMDSP_V42_H

#include <smdsp/compat.h>
#include <smdsp/v42bis.h>

/* largest information field we can send or receive (octets) */
#define SMDSP_V42_MAX_N401	256
/* largest frame: address, two control octets, information, 32-bit FCS */
#define SMDSP_HDLC_MAX_FRAME	(3 + SMDSP_V42_MAX_N401 + 4)

/* ---- V.42 ---- */

enum smdsp_v42_status {
	SMDSP_V42_DETECTING = 0,	/* ODP/ADP exchange */
	SMDSP_V42_ESTABLISHING,		/* XID and SABME/UA */
	SMDSP_V42_CONNECTED,		/* information transfer */
	SMDSP_V42_DISCONNECTING,	/* DISC sent */
	SMDSP_V42_DISCONNECTED,		/* released by either end */
	SMDSP_V42_FAILED,		/* N400 retries without an answer */
	SMDSP_V42_NO_V42,		/* detection found no V.42 peer (T400 or ADP "no") */
};

struct smdsp_v42_config {
	int calling;			/* originator (1) or answerer (0) */
	int detect;			/* run the ODP/ADP detection phase first */
	uint32_t bit_rate;		/* line rate, converts the timers to bit counts */
	uint32_t t400_ms;		/* 0: 750 */
	uint32_t t401_ms;		/* 0: 1000 */
	uint32_t t403_ms;		/* 0: 10000 */
	unsigned int n400;		/* 0: 10 */
	unsigned int n401;		/* 0: 128; offered information field size */
	unsigned int k;			/* 0: 15; offered window */
	int srej;			/* offer selective reject */
	int fcs32;			/* offer the 32-bit FCS */
	unsigned int tx_buf;		/* 0: 4096; byte queue sizes (rounded up to 2^n) */
	unsigned int rx_buf;
	/*
	 * V.42bis offered in XID (the lower of each end's offer is agreed):
	 * its dictionaries are allocated at create, for v42bis_p1 codewords,
	 * only if v42bis is set there; a reset may lower P1, not raise it.
	 */
	int v42bis;
	unsigned int v42bis_dirs;	/* SMDSP_V42BIS_DIR_* (our view), 0: both */
	unsigned int v42bis_p1;		/* codewords, 0: 2048 */
	unsigned int v42bis_p2;		/* longest string, 0: 32 */
	/* optional, called on every status change (from get_bit/put_bit) */
	void (*status_cb)(void *user, int status);
	void *user;
};

struct smdsp_v42_stats {
	uint32_t frames_tx;		/* all frames */
	uint32_t frames_rx;		/* good FCS */
	uint32_t iframes_tx;		/* including retransmissions */
	uint32_t iframes_rx;		/* accepted in sequence */
	uint32_t retransmissions;	/* I frames sent again */
	uint32_t rej_tx;
	uint32_t rej_rx;
	uint32_t srej_tx;
	uint32_t srej_rx;
	uint32_t rnr_tx;
	uint32_t rnr_rx;
	uint32_t polls_tx;		/* RR/RNR commands with P=1 (T401/T403) */
	uint32_t t401_expiries;
	uint32_t t403_expiries;
	uint32_t crc_errors;
	uint32_t aborts;
	uint32_t bad_frames;		/* misaligned, too long or too short */
	uint32_t out_of_sequence;	/* I frames not accepted in order */
	uint32_t duplicates;
	uint32_t busy_discards;		/* I frames dropped while the receive queue was full */
	uint32_t nr_errors;		/* N(R) outside the window, ignored */
	uint32_t resets;		/* SABME while connected */
	/* with V.42bis: the information fields' (compressed) bytes */
	uint32_t bytes_tx;		/* acknowledged user bytes */
	uint32_t bytes_rx;		/* user bytes delivered to the receive queue */
	uint32_t lost_on_reset;		/* unacknowledged bytes dropped by a reset */
	/* negotiated */
	unsigned int n401_tx;
	unsigned int n401_rx;
	unsigned int k_tx;
	unsigned int k_rx;
	int srej;
	int fcs32;
	/* V.42bis as agreed: directions in use (our view, 0: none), P1, P2 */
	unsigned int v42bis_dirs;
	unsigned int v42bis_p1;
	unsigned int v42bis_p2;
	uint32_t v42bis_tx_in;		/* user bytes compressed */
	uint32_t v42bis_tx_out;		/* what they became */
	uint32_t v42bis_rx_in;		/* received bytes decompressed */
	uint32_t v42bis_rx_out;		/* user bytes they gave */
	uint32_t v42bis_errors;		/* decoder protocol errors: each released the link */
};

struct smdsp_v42;

/* Allocates the instance and its queues (tx_buf, rx_buf); NULL on failure. */
struct smdsp_v42 *smdsp_v42_create(const struct smdsp_v42_config *cfg);
void smdsp_v42_free(struct smdsp_v42 *s);
/*
 * A new link on the same instance: every state, queue and statistic back to
 * what smdsp_v42_create() left, for cfg. Allocates nothing: the queue sizes
 * stay those of create (cfg->tx_buf and cfg->rx_buf are ignored), so a
 * modem can create the instance once and reset it for every call.
 * Returns 0, or -EINVAL (and changes nothing) for a bad cfg.
 */
int smdsp_v42_reset(struct smdsp_v42 *s, const struct smdsp_v42_config *cfg);
/* next transmit bit; also advances the timers by one bit */
int smdsp_v42_get_bit(struct smdsp_v42 *s);
void smdsp_v42_put_bit(struct smdsp_v42 *s, int bit);
void smdsp_v42_get_bits(struct smdsp_v42 *s, uint8_t *bits, unsigned int n);
void smdsp_v42_put_bits(struct smdsp_v42 *s, const uint8_t *bits,
			unsigned int n);
/* advance the timers without transmitting */
void smdsp_v42_tick(struct smdsp_v42 *s, unsigned int bits);
/* user data: returns the number of bytes queued / read */
unsigned int smdsp_v42_write(struct smdsp_v42 *s, const uint8_t *buf,
			     unsigned int len);
unsigned int smdsp_v42_read(struct smdsp_v42 *s, uint8_t *buf,
			    unsigned int len);
unsigned int smdsp_v42_tx_space(const struct smdsp_v42 *s);
/* bytes written but not yet acknowledged by the peer */
unsigned int smdsp_v42_tx_pending(const struct smdsp_v42 *s);
unsigned int smdsp_v42_rx_available(const struct smdsp_v42 *s);
/* release the link (DISC) */
void smdsp_v42_disconnect(struct smdsp_v42 *s);
int smdsp_v42_status(const struct smdsp_v42 *s);
void smdsp_v42_get_stats(const struct smdsp_v42 *s,
			 struct smdsp_v42_stats *st);
const char *smdsp_v42_status_name(int status);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v42_print(const struct smdsp_v42 *s, char *buf, size_t len);

/*
 * The LAPM frame handler on its own (frame without FCS), for fuzzing and
 * for callers that do their own framing.
 */
void smdsp_v42_rx_frame(struct smdsp_v42 *s, const uint8_t *buf,
			unsigned int len);

#endif /* SMDSP_V42_H */
