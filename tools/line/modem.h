/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A complete SpanDSP 0.0.6 modem: answer tone (ANS, or ANSam through V.8),
 * V.21 / V.22 / V.22bis data pump (V.32 and V.32bis: ours, v32far.c),
 * optional V.8 and V.42 LAPM, async 8N1
 * framing when V.42 is off. Used as the line's far-end modem and, in the
 * tests, as the stand-in for the guest's modem. Time is the number of
 * samples passed to sml_modem_process(); nothing reads a clock.
 */
#ifndef SML_MODEM_H
#define SML_MODEM_H

#include "sml.h"
#include "v42bis_far.h"
#include "v34far.h"

/*
 * V.32 and V.32bis: ours (v32far.c), with V.32bis's automode to V.22bis;
 * V.34: ours (v34far.c), through V.8, which falls to V.32bis or V.22bis
 */
enum sml_mod { SML_MOD_V21, SML_MOD_V22, SML_MOD_V22BIS, SML_MOD_V32, SML_MOD_V32BIS,
	       SML_MOD_V34 };

struct sml_modem_cfg {
	enum sml_mod mod;
	bool v8;
	bool v42;
	struct sml_v42bis_cfg v42bis;	/* V.42bis over V.42 (on unless "nov42bis") */
	bool answer;		/* answering role: sends the answer tone */
	int ans_delay_ms;	/* answerer: silence before ANS (V.25: >= 1.8 s) */
	double tx_dbm0;		/* transmit level */
	double rx_cutoff_dbm0;	/* carrier detect; 0 = from measured noise */
	int wait_ans_ms;	/* caller: give up without an answer tone */
	int train_timeout_ms;	/* give up without a data link */
	int carrier_loss_ms;	/* carrier gone this long in data: lost */
	/* --events: the call to stamp them with (0: none), the line sample of our sample 0 */
	int event_call;
	int64_t event_origin;
	/* the samples smline moves a block: V.32bis's and V.34's echo cancellers' latency (0: the first block's) */
	int block;
	unsigned int v34_max_rate;	/* V.34: the most we send or take, bit/s ("v34max=") */
};

/* V.34's default limit: see sml_modem_cfg_default() */
#define SML_V34_MAX_RATE 33600

void sml_modem_cfg_default(struct sml_modem_cfg *c);
/* "v22bis,v42,v8" style list; returns 0 or -1 (unknown word in *bad) */
int sml_modem_cfg_parse_word(struct sml_modem_cfg *c, const char *word);
const char *sml_mod_name(enum sml_mod m);

enum sml_modem_phase {
	SML_PH_IDLE,
	SML_PH_WAIT_ANS,	/* caller: listening for the answer tone */
	SML_PH_BILLING,		/* answerer: silence before the answer tone */
	SML_PH_ANS,		/* answer tone on the line */
	SML_PH_V8,		/* V.8 CM/JM/CJ exchange */
	SML_PH_TRAINING,	/* data pump start-up */
	SML_PH_LINK,		/* V.42 detection and LAPM establishment */
	SML_PH_DATA,		/* user data flows */
	SML_PH_FAILED,		/* no answer tone, V.8 or training failed */
	SML_PH_CARRIER_LOST,
	SML_PH_STOPPED,		/* told to hang up */
};
const char *sml_modem_phase_name(enum sml_modem_phase p);

struct sml_modem_stats {
	enum sml_mod mod;	/* after V.8 selection (and V.32bis's automode) */
	int rate;		/* bit/s in data phase, 0 before */
	bool v8_done;		/* V.8 negotiation completed */
	bool v42;		/* LAPM carries the data */
	struct sml_v42bis_stats v42bis;	/* what V.42bis agreed and did */
	uint64_t bytes_tx, bytes_rx;
	uint64_t fcs_errors;	/* V.42 frames with a bad FCS */
	/*
	 * the same two counts while the near end's loop was open (it hung up,
	 * or broke the loop): what this receiver made of the silence after its
	 * carrier, not errors of the link (sml_modem_near_open())
	 */
	uint64_t fcs_errors_open, framing_errors_open;
	uint64_t retransmissions; /* V.42 I frames sent again */
	uint64_t rej_rx;	/* V.42 REJ/SREJ received */
	uint64_t rnr_rx;	/* V.42 RNR received: the modem's receiver busy */
	uint64_t framing_errors; /* async 8N1 stop-bit errors */
	uint64_t carrier_drops;
	uint64_t retrains;	/* receiver trained again during the call */
	int64_t data_sample;	/* when SML_PH_DATA was entered, -1 if never */
	struct sml_v34far_info v34;	/* V.34's rates, symbol rates, round trip, ERLE */
	char fail_reason[64];
};

struct sml_modem;

typedef void (*sml_modem_event_fn)(void *user, int64_t sample,
				   enum sml_modem_phase phase,
				   const char *detail);

/*
 * tx_fifo holds bytes to send, rx_fifo receives bytes; both belong to the
 * caller. who: a short name used in log lines ("peer", "modem").
 */
struct sml_modem *sml_modem_new(const struct sml_modem_cfg *cfg,
				struct sml_fifo *tx_fifo,
				struct sml_fifo *rx_fifo, const char *who,
				sml_modem_event_fn ev, void *ev_user);
void sml_modem_free(struct sml_modem *m);
/* rx: n samples heard; tx: n samples to send (always filled) */
void sml_modem_process(struct sml_modem *m, const int16_t *rx, int16_t *tx,
		       int n);
/*
 * The near end's loop open (true: nothing of its signal reaches us from
 * now, and it may have opened up to lag samples ago: the hook detector's
 * delay) or closed again; the exchange says so as the hook changes, before
 * it decides that a break is a hang-up. Errors from then on are counted
 * apart (the stats' *_open).
 */
void sml_modem_near_open(struct sml_modem *m, bool open, int64_t lag);
/* stop transmitting (hang up); the phase becomes SML_PH_STOPPED */
void sml_modem_stop(struct sml_modem *m);
enum sml_modem_phase sml_modem_phase(const struct sml_modem *m);
const struct sml_modem_stats *sml_modem_stats(const struct sml_modem *m);
int64_t sml_modem_now(const struct sml_modem *m);
/* V.42: true while LAPM holds unacknowledged or queued data */
bool sml_modem_tx_busy(const struct sml_modem *m);

#endif /* SML_MODEM_H */
