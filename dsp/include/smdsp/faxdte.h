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

struct smdsp_faxdte;

struct smdsp_faxdte *smdsp_faxdte_create(struct smdsp_faxmodem *fm);
void smdsp_faxdte_free(struct smdsp_faxdte *d);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_faxdte_print(const struct smdsp_faxdte *d, char *buf, size_t len);
/* An operation starts (the one running stops). 0 or -EINVAL. */
int smdsp_faxdte_command(struct smdsp_faxdte *d, enum smdsp_faxdte_op op, unsigned int arg);
/* ATD: as smdsp_faxmodem_call(); CONNECT when the answerer's flags come, then as +FRH=3. */
int smdsp_faxdte_call(struct smdsp_faxdte *d, const char *digits, unsigned int wait_ms);
/* On hook: everything dropped. */
void smdsp_faxdte_hangup(struct smdsp_faxdte *d);
/* DTE octets after CONNECT of +FTH/+FTM; returns how many were taken. */
unsigned int smdsp_faxdte_from_dte(struct smdsp_faxdte *d, const uint8_t *buf, unsigned int n);
/* The running operation has its final result (given or queued for the DTE). */
bool smdsp_faxdte_done(const struct smdsp_faxdte *d);
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
