/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DTE side of a T.31 (Class 1) DCE, on top of the fax pump
 * (faxmodem.h): the operations as the AT layer names them, the DTE's
 * bytes after CONNECT with their DLE shielding undone (DLE DLE is a data
 * DLE, DLE ETX ends a frame or the data; a frame whose control field has
 * the P/F bit is the final one), and what goes back to the DTE in order:
 * received frames and data DLE shielded and ended by DLE ETX, each
 * followed by its result (CONNECT, OK, ERROR after a frame with a bad
 * FCS, NO CARRIER, +FCERROR).
 *
 * No allocation after smdsp_faxdte_create(); serialized with the pump.
 */
#ifndef SMDSP_FAXDTE_H
#define SMDSP_FAXDTE_H

#include <smdsp/faxmodem.h>

#define SMDSP_DLE	0x10
#define SMDSP_ETX	0x03

enum smdsp_faxdte_op {
	SMDSP_FAXDTE_FTH = 1,	/* arg 3 */
	SMDSP_FAXDTE_FRH,	/* arg 3 */
	SMDSP_FAXDTE_FTM,	/* arg: modulation */
	SMDSP_FAXDTE_FRM,
	SMDSP_FAXDTE_FTS,	/* arg: 10 ms units */
	SMDSP_FAXDTE_FRS,
	SMDSP_FAXDTE_ABORT,	/* the DTE stopped a receive: OK follows */
	SMDSP_FAXDTE_ANSWER,	/* ATA: CED, then as +FTH=3 */
};

/* The results, in the order the DTE is to see them. */
enum smdsp_faxdte_rc {
	SMDSP_FAXDTE_RC_NONE,
	SMDSP_FAXDTE_RC_CONNECT,
	SMDSP_FAXDTE_RC_OK,
	SMDSP_FAXDTE_RC_ERROR,
	SMDSP_FAXDTE_RC_NO_CARRIER,
	SMDSP_FAXDTE_RC_FCERROR,
};

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
struct smdsp_faxdte *smdsp_faxdte_create(struct smdsp_faxmodem *fm);
void smdsp_faxdte_free(struct smdsp_faxdte *d);
/* An operation starts (the one running stops). 0 or -EINVAL. */
int smdsp_faxdte_command(struct smdsp_faxdte *d, enum smdsp_faxdte_op op, unsigned int arg);
/* ATD: as smdsp_faxmodem_call(); CONNECT when the answerer's flags come, then as +FRH=3. */
int smdsp_faxdte_call(struct smdsp_faxdte *d, const char *digits, unsigned int wait_ms);
/* On hook: everything dropped. */
void smdsp_faxdte_hangup(struct smdsp_faxdte *d);
/* DTE octets after CONNECT of +FTH/+FTM; returns how many were taken. */
unsigned int smdsp_faxdte_from_dte(struct smdsp_faxdte *d, const uint8_t *buf, unsigned int n);
/* How many DTE octets smdsp_faxdte_from_dte() takes at least. */
unsigned int smdsp_faxdte_room(const struct smdsp_faxdte *d);
/*
 * After smdsp_faxmodem_process(): up to max octets for the DTE into buf,
 * and in *rc the result that follows them (RC_NONE: none yet). Call again
 * while it returns octets or a result.
 */
unsigned int smdsp_faxdte_to_dte(struct smdsp_faxdte *d, uint8_t *buf, unsigned int max,
				 enum smdsp_faxdte_rc *rc);

#endif /* SMDSP_FAXDTE_H */
