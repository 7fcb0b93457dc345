/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/faxdte.h> (faxdte.c), for the blocks
 * that embed it by value. Users outside dsp/ go through the public header's
 * create/reset/process/free and accessors.
 */
#ifndef SMDSP_PRIVATE_FAXDTE_H
#define SMDSP_PRIVATE_FAXDTE_H

#include <smdsp/faxdte.h>

struct smdsp_faxdte {
	struct smdsp_faxmodem *fm;
	enum smdsp_faxdte_op op;
	bool connected;		/* CONNECT given for the running receive */
	bool done;		/* the running operation has its final result */
	/* from the DTE */
	bool dle;
	bool ended;		/* DLE ETX of the data or the final frame came */
	unsigned int flen;	/* octets of the frame being written */
	uint8_t ctl;		/* its control field */
	/* to the DTE: encoded octets, then the result after them */
	uint8_t out[2 * SMDSP_FAX_FRAME_MAX + 2];
	unsigned int out_len;
	unsigned int out_pos;
	enum smdsp_faxdte_rc out_rc;
	uint8_t frame[SMDSP_FAX_FRAME_MAX];
};

int smdsp_faxdte_init(struct smdsp_faxdte *d, struct smdsp_faxmodem *fm);

#endif /* SMDSP_PRIVATE_FAXDTE_H */
