/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HDLC framing at the bit level for the fax modems (T.30 control frames on
 * V.21 channel 2 now, ECM frames on V.27ter, V.29 and V.17 later): a
 * transmitter (smdsp_hdlctx, hdlc_tx.c) and a receiver (smdsp_hdlcrx,
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
 * The V.42 LAPM framer in v42_hdlc.c is a separate, simpler one (only good
 * frames, one frame at a time); the CRCs are shared (smdsp_crc16/32).
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
#define SMDSP_HDLCTX_QLEN	1024
#define SMDSP_HDLCTX_QFRAMES	16

/* ---- transmitter ---- */

enum smdsp_hdlctx_event {
	SMDSP_HDLCTX_SENT = 1,		/* a frame's closing flag has gone out */
	SMDSP_HDLCTX_UNDERRUN,		/* a frame ran dry on the line: abort sent */
	SMDSP_HDLCTX_IDLE,		/* preamble done, queue empty: flags only */
};

/* Called from smdsp_hdlctx_get_bit(); may queue the next frame. */
typedef void (*smdsp_hdlctx_event_fn)(void *user, enum smdsp_hdlctx_event ev);

struct smdsp_hdlctx_config {
	bool crc32;			/* 32-bit FCS instead of the 16-bit one */
	bool progressive;		/* start a frame before it is complete */
	unsigned int max_len;		/* longest frame accepted, FCS excluded (0: SMDSP_HDLC_MAX_LEN) */
	unsigned int inter_flags;	/* flags between frames (0: 1, the closing flag) */
	smdsp_hdlctx_event_fn event;	/* optional */
	void *user;
};

struct smdsp_hdlctx_stats {
	uint32_t frames;		/* sent whole */
	uint32_t octets;		/* in those, FCS excluded */
	uint32_t underruns;		/* frames ended by an abort because they ran dry */
	uint32_t aborts;		/* frames aborted by smdsp_hdlctx_abort() */
	uint32_t flags;			/* flag octets sent */
};

struct smdsp_hdlctx {
	struct smdsp_hdlctx_config cfg;
	/* the queue: free-running octet counters, frame ends as q_in values */
	uint32_t q_in;
	uint32_t q_out;
	uint32_t ends[SMDSP_HDLCTX_QFRAMES];
	uint32_t e_in;
	uint32_t e_out;
	uint32_t open_start;		/* q_in where the frame not yet ended began */
	unsigned int open_len;
	bool discard;			/* the open frame was aborted: drop the rest of it */
	/* the line */
	int state;
	unsigned int preamble;		/* flags still to send before the next frame */
	unsigned int gap;		/* flags owed between frames */
	bool abort_now;
	bool idle;			/* SMDSP_HDLCTX_IDLE reported */
	uint32_t crc;
	uint8_t fcs[4];
	unsigned int fcs_pos;
	unsigned int fcs_len;
	unsigned int cur_len;		/* octets of the frame on the line so far */
	unsigned int sh;		/* the octet being sent, next bit in bit 0 */
	unsigned int nbits;
	unsigned int ones;
	bool stuff;			/* zero insertion on (frame octets) */
	struct smdsp_hdlctx_stats st;
	uint8_t q[SMDSP_HDLCTX_QLEN];
};

int smdsp_hdlctx_init(struct smdsp_hdlctx *t, const struct smdsp_hdlctx_config *cfg);
struct smdsp_hdlctx *smdsp_hdlctx_create(const struct smdsp_hdlctx_config *cfg);
void smdsp_hdlctx_free(struct smdsp_hdlctx *t);
/* Empties the queue; the line goes back to flags (one before the next frame). */
void smdsp_hdlctx_reset(struct smdsp_hdlctx *t);
/* At least n flags before the next frame (T.30: 1 s of flags, 38 at 300 bit/s). */
void smdsp_hdlctx_preamble(struct smdsp_hdlctx *t, unsigned int n);
/*
 * Appends octets to the frame being queued; returns how many were taken
 * (fewer when the queue is full or the frame reached max_len).
 */
unsigned int smdsp_hdlctx_put(struct smdsp_hdlctx *t, const uint8_t *buf, unsigned int len);
/* Ends the frame being queued: FCS and closing flag follow its last octet. 0, or -EINVAL if empty. */
int smdsp_hdlctx_end_frame(struct smdsp_hdlctx *t);
/* A whole frame: 0, -EBUSY (a frame is being queued), -EMSGSIZE, -ENOSPC. */
int smdsp_hdlctx_frame(struct smdsp_hdlctx *t, const uint8_t *buf, unsigned int len);
/* Drops the frame being queued; if it is on the line already, an abort ends it there. */
void smdsp_hdlctx_abort(struct smdsp_hdlctx *t);
/* Queue space in octets. */
unsigned int smdsp_hdlctx_space(const struct smdsp_hdlctx *t);
/* Nothing queued or on the line but flags (the last closing flag is out). */
bool smdsp_hdlctx_idle(const struct smdsp_hdlctx *t);
/* The next line bit (0 or 1). */
int smdsp_hdlctx_get_bit(struct smdsp_hdlctx *t);
/* The same as an smdsp_get_bit_fn, user = the transmitter. */
int smdsp_hdlctx_bit_cb(void *user);
void smdsp_hdlctx_get_stats(const struct smdsp_hdlctx *t, struct smdsp_hdlctx_stats *st);

/* ---- receiver ---- */

enum smdsp_hdlcrx_status {
	SMDSP_HDLCRX_OK = 0,		/* FCS good */
	SMDSP_HDLCRX_BAD_FCS,		/* FCS wrong, or the closing flag not on an octet boundary */
	SMDSP_HDLCRX_ABORT,		/* seven ones inside the frame, or reset in mid-frame */
	SMDSP_HDLCRX_TOO_LONG,		/* more than max_len octets before the FCS */
	SMDSP_HDLCRX_FRAMING_OK,	/* sync_flags back-to-back flags seen (no frame) */
};

/*
 * A frame: len octets of it without the FCS; for OK and BAD_FCS the FCS
 * octets follow in buf (2 or 4, as received). For ABORT and TOO_LONG, what
 * came before (at most max_len octets). For FRAMING_OK, buf NULL, len 0.
 * Frames with a status other than OK only if config.report_bad.
 */
typedef void (*smdsp_hdlcrx_frame_fn)(void *user, const uint8_t *buf, unsigned int len,
				      enum smdsp_hdlcrx_status status);

struct smdsp_hdlcrx_config {
	bool crc32;			/* 32-bit FCS instead of the 16-bit one */
	bool report_bad;		/* hand over bad, aborted and overlong frames too */
	unsigned int max_len;		/* longest frame accepted, FCS excluded (0: SMDSP_HDLC_MAX_LEN) */
	unsigned int sync_flags;	/* back-to-back flags before the first frame (0: 1) */
	smdsp_hdlcrx_frame_fn frame;
	void *user;
};

struct smdsp_hdlcrx_stats {
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

struct smdsp_hdlcrx {
	struct smdsp_hdlcrx_config cfg;
	unsigned int fcs_len;
	unsigned int cap;		/* octets stored at most: max_len + FCS */
	unsigned int flags_seen;	/* back-to-back, towards sync_flags */
	bool synced;
	bool in_frame;			/* after a flag, collecting */
	unsigned int ones;
	unsigned int octet;
	unsigned int nbits;
	unsigned int len;
	uint32_t crc;
	struct smdsp_hdlcrx_stats st;
	uint8_t buf[SMDSP_HDLC_MAX_LEN + 4];
};

int smdsp_hdlcrx_init(struct smdsp_hdlcrx *r, const struct smdsp_hdlcrx_config *cfg);
struct smdsp_hdlcrx *smdsp_hdlcrx_create(const struct smdsp_hdlcrx_config *cfg);
void smdsp_hdlcrx_free(struct smdsp_hdlcrx *r);
/*
 * Carrier lost or a new reception: a frame in progress counts (and is
 * reported) as aborted; the flags must be found again. Statistics stay.
 */
void smdsp_hdlcrx_reset(struct smdsp_hdlcrx *r);
/* A line bit (nonzero: 1). */
void smdsp_hdlcrx_put_bit(struct smdsp_hdlcrx *r, int bit);
/* The same as an smdsp_put_bit_fn, user = the receiver. */
void smdsp_hdlcrx_bit_cb(void *user, int bit);
bool smdsp_hdlcrx_synced(const struct smdsp_hdlcrx *r);
void smdsp_hdlcrx_get_stats(const struct smdsp_hdlcrx *r, struct smdsp_hdlcrx_stats *st);

#endif /* SMDSP_HDLC_H */
