/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/hdlc.h> (hdlc_tx.c, hdlc_rx.c),
 * for the blocks that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_HDLC_H
#define SMDSP_PRIVATE_HDLC_H

#include <smdsp/hdlc.h>

struct smdsp_hdlc_tx {
	struct smdsp_hdlc_tx_config cfg;
	/* the queue: free-running octet counters, frame ends as q_in values */
	uint32_t q_in;
	uint32_t q_out;
	uint32_t ends[SMDSP_HDLC_TX_QFRAMES];
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
	bool cur32;			/* the FCS of the frame on the line */
	bool idle;			/* SMDSP_HDLC_TX_IDLE reported */
	uint32_t crc;
	uint8_t fcs[4];
	unsigned int fcs_pos;
	unsigned int fcs_len;
	unsigned int cur_len;		/* octets of the frame on the line so far */
	unsigned int sh;		/* the octet being sent, next bit in bit 0 */
	unsigned int nbits;
	unsigned int ones;
	bool stuff;			/* zero insertion on (frame octets) */
	struct smdsp_hdlc_tx_stats st;
	uint8_t q[SMDSP_HDLC_TX_QLEN];
};

struct smdsp_hdlc_rx {
	struct smdsp_hdlc_rx_config cfg;
	unsigned int fcs_len;		/* of the frame length limit (config.crc32) */
	int mode;			/* FCS accepted: 16-bit, 32-bit, either */
	unsigned int last_fcs;		/* FCS octets of the last good frame */
	unsigned int in_row;		/* back-to-back flags */
	unsigned int cap;		/* octets stored at most: max_len + FCS */
	unsigned int flags_seen;	/* back-to-back, towards sync_flags */
	bool synced;
	bool in_frame;			/* after a flag, collecting */
	unsigned int ones;
	unsigned int octet;
	unsigned int nbits;
	unsigned int len;
	uint32_t crc;
	struct smdsp_hdlc_rx_stats st;
	uint8_t buf[SMDSP_HDLC_MAX_LEN + 4];
};

int smdsp_hdlc_tx_init(struct smdsp_hdlc_tx *t, const struct smdsp_hdlc_tx_config *cfg);

int smdsp_hdlc_rx_init(struct smdsp_hdlc_rx *r, const struct smdsp_hdlc_rx_config *cfg);

#endif /* SMDSP_PRIVATE_HDLC_H */
