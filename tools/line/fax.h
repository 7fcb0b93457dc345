/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fax terminal: SpanDSP 0.0.6's T.30 with its fax modems (V.21 HDLC
 * control, V.17 / V.29 / V.27ter image), sending a TIFF/F file or writing
 * the pages it receives to one. The answerer sends CED, the caller CNG
 * (SpanDSP does both). Used as the line's far end (route word `fax`) and,
 * in the tests, as the guest's stand-in. Time is the number of samples
 * passed to sml_fax_process(); nothing reads a clock.
 */
#ifndef SML_FAX_H
#define SML_FAX_H

#include "sml.h"

#define SML_FAX_MAX_EVENTS 256

struct sml_fax_cfg {
	bool on;		/* "fax": a T.30 terminal instead of a data modem */
	bool answer;		/* answering role: CED; else caller: CNG */
	char send[512];		/* faxsend=PATH: TIFF/F to send, "" none */
	char recv[512];		/* faxrecv=PATH: received pages, "" none */
	int modems;		/* T30_SUPPORT_V27TER | V29 | V17 */
	bool ecm;		/* offer error correction mode */
	char ident[21];		/* our TSI/CSI (T.30: at most 20 characters) */
	/* --events: the call to stamp them with (0: none), the line sample of our sample 0 */
	int event_call;
	int64_t event_origin;
};

void sml_fax_cfg_default(struct sml_fax_cfg *c);
/* one word of a party's list; 0 taken, 1 not a fax word, -1 bad */
int sml_fax_cfg_parse_word(struct sml_fax_cfg *c, const char *w);
/*
 * The files are usable: faxsend a bilevel TIFF SpanDSP can send, faxrecv
 * in a writable place. Returns 0, or -1 with a one-line reason in why.
 */
int sml_fax_cfg_check(const struct sml_fax_cfg *c, char *why, size_t len);

/* what T.30 did, in our samples (-1: never) */
struct sml_fax_event {
	int64_t t;
	const char *kind;	/* "frame", "phase-b", "phase-d", "phase-e" */
	bool tx;		/* frames: sent by us */
	int code;		/* frame type (FCF) or completion code */
	const char *text;	/* frame name or completion text */
};

struct sml_fax_stats {
	int pages_tx, pages_rx;
	int bit_rate;		/* image transfer */
	const char *modem;	/* "V.17", "V.29", "V.27ter", NULL before DCS */
	bool ecm;
	int x_resolution, y_resolution;	/* pixels per metre, last page */
	int width, length;	/* pixels, last page */
	int image_size;		/* bytes of the last page's image */
	int bad_rows;
	int ecm_retries;
	int ecm_frames[2];	/* ECM image frames (FCD, RCP) sent, received */
	int completion;		/* T.30 completion code, -1 before phase E */
	char completion_text[64];
	char remote_ident[24];
	int64_t dcs_sample;	/* first DCS (image transfer agreed), -1 never */
	int64_t end_sample;	/* phase E, -1 never */
	struct sml_fax_event ev[SML_FAX_MAX_EVENTS];
	int nev;
};

struct sml_fax;

/* who: the --events source and log name ("far", "testmodem") */
struct sml_fax *sml_fax_new(const struct sml_fax_cfg *cfg, const char *who);
/* ends T.30 (phase E with a code if it had none yet) and frees */
void sml_fax_free(struct sml_fax *f);
/* rx: n samples heard; tx: n samples to send (always filled) */
void sml_fax_process(struct sml_fax *f, const int16_t *rx, int16_t *tx, int n);
/* T.30 reached phase E */
bool sml_fax_done(const struct sml_fax *f);
/* stops T.30 now (phase E with SpanDSP's code for a dropped call) */
void sml_fax_stop(struct sml_fax *f);
const struct sml_fax_stats *sml_fax_stats(struct sml_fax *f);
/* the record's "fax" object; origin: the line sample of the fax's sample 0 */
void sml_fax_json(const struct sml_fax_stats *s, int64_t origin, struct sml_json *j);

#endif /* SML_FAX_H */
