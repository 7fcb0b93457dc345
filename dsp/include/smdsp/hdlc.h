/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HDLC framing at the bit level for the fax modems (T.30 control frames on
 * V.21 channel 2 now, ECM frames on V.27ter, V.29 and V.17 later): a
 * transmitter (smdsp_hdlc_tx, hdlc_tx.c) and a receiver (smdsp_hdlc_rx,
 * hdlc_rx.c), each its own block.
 *
 * The transmitter takes frames as octets (whole, or piece by piece as a
 * T.31 DCE gets them from the DTE), sends a preamble of flags of a given
 * length, the frames with zero-bit insertion and a 16-bit (or 32-bit) FCS,
 * and flags between and after them. A frame that runs dry while it is on
 * the line (progressive mode only) is ended with an abort, then flags.
 *
 * The receiver finds the flags (optionally only after a number of
 * back-to-back flags, the T.30 preamble), deletes the inserted zeros,
 * checks the FCS and hands over every frame with its status: good, bad
 * FCS, aborted, too long. It counts frames and octets of good and bad
 * frames.
 *
 * Bits go one at a time, in line order (each octet least significant bit
 * first), so that either block sits on any modulator's get_bit/put_bit.
 * V.42 LAPM (v42.c) runs on the same two blocks: its transmitter pulls
 * each frame at a flag boundary (config.pull, so that the N(R) in it is as
 * fresh as possible) and picks the FCS per frame (smdsp_hdlc_tx_set_crc32());
 * its receiver may take either FCS (smdsp_hdlc_rx_set_fcs()) and counts
 * back-to-back flags (smdsp_hdlc_rx_flags_in_row(), for V.42 detection).
 *
 * No allocation after *_create(); an instance has no lock: its users
 * serialize all calls on it.
 */
#ifndef SMDSP_HDLC_H
#define SMDSP_HDLC_H

#include <smdsp/compat.h>

/* longest frame either block handles, FCS excluded (T.30 ECM: 256 octets of data + 4) */
#define SMDSP_HDLC_MAX_LEN	400
/* transmit queue: octets (power of 2) and frames */
#define SMDSP_HDLC_TX_QLEN	1024
#define SMDSP_HDLC_TX_QFRAMES	16

/* ---- transmitter ---- */

enum smdsp_hdlc_tx_event {
	SMDSP_HDLC_TX_SENT = 1,		/* a frame's closing flag has gone out */
	SMDSP_HDLC_TX_UNDERRUN,		/* a frame ran dry on the line: abort sent */
	SMDSP_HDLC_TX_IDLE,		/* preamble done, queue empty: flags only */
};

/* Called from smdsp_hdlc_tx_get_bit(); may queue the next frame. */
typedef void (*smdsp_hdlc_tx_event_fn)(void *user, enum smdsp_hdlc_tx_event ev);

/*
 * Called from smdsp_hdlc_tx_get_bit() at a flag boundary when nothing is
 * queued: fills buf (max octets, FCS excluded) with the next frame and
 * returns its length, or 0 for none (another flag).
 */
typedef unsigned int (*smdsp_hdlc_tx_pull_fn)(void *user, uint8_t *buf, unsigned int max);

struct smdsp_hdlc_tx_config {
	bool crc32;			/* 32-bit FCS instead of the 16-bit one */
	bool progressive;		/* start a frame before it is complete */
	unsigned int max_len;		/* longest frame accepted, FCS excluded (0: SMDSP_HDLC_MAX_LEN) */
	unsigned int inter_flags;	/* flags between frames (0: 1, the closing flag) */
	smdsp_hdlc_tx_event_fn event;	/* optional */
	smdsp_hdlc_tx_pull_fn pull;	/* optional: frames pulled instead of queued */
	void *user;
};

struct smdsp_hdlc_tx_stats {
	uint32_t frames;		/* sent whole */
	uint32_t octets;		/* in those, FCS excluded */
	uint32_t underruns;		/* frames ended by an abort because they ran dry */
	uint32_t aborts;		/* frames aborted by smdsp_hdlc_tx_abort() */
	uint32_t flags;			/* flag octets sent */
};

struct smdsp_hdlc_tx;

struct smdsp_hdlc_tx *smdsp_hdlc_tx_create(const struct smdsp_hdlc_tx_config *cfg);
void smdsp_hdlc_tx_free(struct smdsp_hdlc_tx *t);
/* Empties the queue; the line goes back to flags (one before the next frame). */
void smdsp_hdlc_tx_reset(struct smdsp_hdlc_tx *t);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_hdlc_tx_print(const struct smdsp_hdlc_tx *t, char *buf, size_t len);
/* At least n flags before the next frame (T.30: 1 s of flags, 38 at 300 bit/s). */
void smdsp_hdlc_tx_preamble(struct smdsp_hdlc_tx *t, unsigned int n);
/*
 * Appends octets to the frame being queued; returns how many were taken
 * (fewer when the queue is full or the frame reached max_len).
 */
unsigned int smdsp_hdlc_tx_put(struct smdsp_hdlc_tx *t, const uint8_t *buf, unsigned int len);
/* Ends the frame being queued: FCS and closing flag follow its last octet. 0, or -EINVAL if empty. */
int smdsp_hdlc_tx_end_frame(struct smdsp_hdlc_tx *t);
/* A whole frame: 0, -EBUSY (a frame is being queued), -EMSGSIZE, -ENOSPC. */
int smdsp_hdlc_tx_frame(struct smdsp_hdlc_tx *t, const uint8_t *buf, unsigned int len);
/* Drops the frame being queued; if it is on the line already, an abort ends it there. */
void smdsp_hdlc_tx_abort(struct smdsp_hdlc_tx *t);
/* The FCS of the frames started from now on: 32-bit (true) or 16-bit. */
void smdsp_hdlc_tx_set_crc32(struct smdsp_hdlc_tx *t, bool crc32);
/* Queue space in octets. */
unsigned int smdsp_hdlc_tx_space(const struct smdsp_hdlc_tx *t);
/* Nothing queued or on the line but flags (the last closing flag is out). */
bool smdsp_hdlc_tx_idle(const struct smdsp_hdlc_tx *t);
/* The next line bit (0 or 1). */
int smdsp_hdlc_tx_get_bit(struct smdsp_hdlc_tx *t);
/* The same as an smdsp_get_bit_fn, user = the transmitter. */
int smdsp_hdlc_tx_bit_cb(void *user);
void smdsp_hdlc_tx_get_stats(const struct smdsp_hdlc_tx *t, struct smdsp_hdlc_tx_stats *st);

/* ---- receiver ---- */

enum smdsp_hdlc_rx_status {
	SMDSP_HDLC_RX_OK = 0,		/* FCS good */
	SMDSP_HDLC_RX_BAD_FCS,		/* FCS wrong, or the closing flag not on an octet boundary */
	SMDSP_HDLC_RX_ABORT,		/* seven ones inside the frame, or reset in mid-frame */
	SMDSP_HDLC_RX_TOO_LONG,		/* more than max_len octets before the FCS */
	SMDSP_HDLC_RX_FRAMING_OK,	/* sync_flags back-to-back flags seen (no frame) */
};

/*
 * A frame: len octets of it without the FCS; for OK and BAD_FCS the FCS
 * octets follow in buf (2 or 4, as received). For ABORT and TOO_LONG, what
 * came before (at most max_len octets). For FRAMING_OK, buf NULL, len 0.
 * Frames with a status other than OK only if config.report_bad.
 */
typedef void (*smdsp_hdlc_rx_frame_fn)(void *user, const uint8_t *buf, unsigned int len,
				      enum smdsp_hdlc_rx_status status);

struct smdsp_hdlc_rx_config {
	bool crc32;			/* 32-bit FCS instead of the 16-bit one */
	bool report_bad;		/* hand over bad, aborted and overlong frames too */
	unsigned int max_len;		/* longest frame accepted, FCS excluded (0: SMDSP_HDLC_MAX_LEN) */
	unsigned int min_len;		/* shorter frames (FCS excluded) are runts (0: 1) */
	unsigned int abort_bits;	/* data bits before an abort for it to count (0: 1) */
	unsigned int sync_flags;	/* back-to-back flags before the first frame (0: 1) */
	smdsp_hdlc_rx_frame_fn frame;
	void *user;
};

struct smdsp_hdlc_rx_stats {
	uint32_t flags;
	uint32_t good_frames;
	uint32_t good_octets;		/* in good frames, FCS excluded */
	uint32_t bad_frames;		/* FCS wrong or misaligned */
	uint32_t bad_octets;		/* in those, FCS excluded */
	uint32_t misaligned;		/* of bad_frames: not a whole number of octets */
	uint32_t aborts;		/* frames ended by seven ones or a reset */
	uint32_t too_long;
	uint32_t runts;			/* between flags, too short to hold an FCS */
};

struct smdsp_hdlc_rx;

struct smdsp_hdlc_rx *smdsp_hdlc_rx_create(const struct smdsp_hdlc_rx_config *cfg);
void smdsp_hdlc_rx_free(struct smdsp_hdlc_rx *r);
/*
 * Carrier lost or a new reception: a frame in progress counts (and is
 * reported) as aborted; the flags must be found again. Statistics stay.
 */
void smdsp_hdlc_rx_reset(struct smdsp_hdlc_rx *r);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_hdlc_rx_print(const struct smdsp_hdlc_rx *r, char *buf, size_t len);
/* A line bit (nonzero: 1). */
void smdsp_hdlc_rx_put_bit(struct smdsp_hdlc_rx *r, int bit);
/* The same as an smdsp_put_bit_fn, user = the receiver. */
void smdsp_hdlc_rx_bit_cb(void *user, int bit);
bool smdsp_hdlc_rx_synced(const struct smdsp_hdlc_rx *r);
/*
 * Which FCS a frame may carry from the next frame on (at least one): with
 * both, the 32-bit one is tried first. The frame length limit stays the one
 * set up by config.crc32.
 */
void smdsp_hdlc_rx_set_fcs(struct smdsp_hdlc_rx *r, bool crc16, bool crc32);
/* The FCS octets (2 or 4) of the good frame just handed over. */
unsigned int smdsp_hdlc_rx_fcs_len(const struct smdsp_hdlc_rx *r);
/* Flags just seen back to back (no zero shared between them); 0 after seven ones. */
unsigned int smdsp_hdlc_rx_flags_in_row(const struct smdsp_hdlc_rx *r);
void smdsp_hdlc_rx_get_stats(const struct smdsp_hdlc_rx *r, struct smdsp_hdlc_rx_stats *st);

/* ---- the FCS (reflected; start with all ones, send the complement low-order octet first) ---- */

uint16_t smdsp_crc16(uint16_t crc, const uint8_t *buf, unsigned int len);
uint32_t smdsp_crc32(uint32_t crc, const uint8_t *buf, unsigned int len);

#endif /* SMDSP_HDLC_H */
