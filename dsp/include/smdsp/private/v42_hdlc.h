/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v42.h> (v42_hdlc.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_V42_HDLC_H
#define SMDSP_PRIVATE_V42_HDLC_H

#include <smdsp/v42.h>

struct smdsp_v42_hdlc_tx {
	smdsp_v42_hdlc_next_frame_fn next_frame;
	void *user;
	int fcs32;			/* FCS type for the next frame */
	int cur32;			/* FCS type of the frame being sent */
	unsigned int min_flags;		/* flags to send before the next frame */
	int state;
	uint32_t crc;
	unsigned int octet;		/* bits of the octet being sent, LSB first */
	unsigned int nbits;
	unsigned int ones;
	int stuffing;
	unsigned int len;
	unsigned int pos;
	uint32_t frames;
	uint8_t buf[SMDSP_HDLC_MAX_FRAME];
};

struct smdsp_v42_hdlc_rx {
	smdsp_v42_hdlc_frame_fn frame;
	void *user;
	int accept16;
	int accept32;
	int in_frame;			/* a flag has been seen */
	unsigned int consec_flags;	/* back-to-back flags just seen (idle HDLC) */
	int overflow;
	unsigned int ones;
	unsigned int octet;
	unsigned int nbits;
	unsigned int len;
	struct smdsp_v42_hdlc_rx_stats st;
	uint8_t buf[SMDSP_HDLC_MAX_FRAME];
};

void smdsp_v42_hdlc_tx_init(struct smdsp_v42_hdlc_tx *t, smdsp_v42_hdlc_next_frame_fn next,
			void *user);

void smdsp_v42_hdlc_rx_init(struct smdsp_v42_hdlc_rx *r, smdsp_v42_hdlc_frame_fn frame,
			void *user);

#endif /* SMDSP_PRIVATE_V42_HDLC_H */
