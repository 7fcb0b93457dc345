/*
 * T.30-style HDLC over V.21 channel 2 for the tests: a transmitter (ours:
 * smdsp_hdlc_tx on smdsp_fsk_tx; SpanDSP's: hdlc_tx on fsk_tx) making
 * bursts of carrier (a preamble of flags, numbered frames, a closing flag),
 * and both receivers (ours: smdsp_fsk_rx into smdsp_hdlc_rx; SpanDSP's:
 * fsk_rx in synchronous mode into hdlc_rx) on the very same samples, each
 * frame received matched against the frames sent.
 */
#ifndef HDLCEP_H
#define HDLCEP_H
#include <stdint.h>
#include "refs.h"
#include <smdsp/hdlc.h>

#define HDLCEP_MAX_FRAMES 4096

struct hdlc_sig_cfg {
	int ours_tx;		/* 1: our transmitter, 0: SpanDSP's */
	int crc32;
	int bursts;		/* carrier bursts, each with its preamble */
	int frames;		/* frames per burst (<= 16) */
	int frame_len;		/* octets before the FCS (>= 5); 0: random 5..64 */
	int preamble;		/* flags before the first frame (0: 38, 1 s) */
	int gap_ms;		/* silence between bursts (0: 200) */
	double level_dbm0;	/* 0: -12 */
	uint64_t seed;
};

/* what was sent */
struct hdlc_log {
	int n;
	uint16_t len[HDLCEP_MAX_FRAMES];
	uint8_t *data[HDLCEP_MAX_FRAMES];
};

/* Makes the signal (malloc'd, *n samples); frames go into log. */
int16_t *hdlc_make_signal(const struct hdlc_sig_cfg *c, long *n, struct hdlc_log *log);
void hdlc_log_free(struct hdlc_log *log);

struct hdlc_rx_res {
	int matched;		/* distinct frames sent that arrived intact with a good FCS */
	int good;		/* frames with a good FCS (duplicates, false ones included) */
	int false_good;		/* good FCS but not a frame that was sent */
	int bad;		/* frames with a bad FCS */
	int aborts;
	int too_long;
	double cpu;		/* seconds of CPU in the receiver */
};

/*
 * Runs one receiver over x[n]: ours (1) or SpanDSP's (0); sync_flags
 * back-to-back flags before frames; max_len 0: default.
 */
void hdlc_receive(const int16_t *x, long n, int ours, int crc32, int sync_flags,
		  const struct hdlc_log *log, struct hdlc_rx_res *r);

#endif
