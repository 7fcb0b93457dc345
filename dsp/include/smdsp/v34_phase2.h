/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34 phase 2 (10.1.2, 11.2): the controller that runs a whole phase 2 for
 * the call modem or the answer modem, samples in and samples out: the INFO0
 * exchange with its error recovery, tones A/B and their reversals with the
 * round trip, L1/L2 both ways with their analysis, INFO1c and INFO1a, and at
 * the end both directions' parameters (or why it failed).
 *
 * The sequence on the line (answer modem above, call modem below):
 *
 *   INFO0a A ...  A-bar     A  L1 L2 ... (B heard) .  ...  A  INFO1a
 *   INFO0c B ...  B ... B-bar  .  ...  B ...  B-bar L1 L2 ... INFO1c
 *
 * See v34_phase2.c for who waits for what, the timeouts and the recovery.
 */
#ifndef SMDSP_V34_PHASE2_H
#define SMDSP_V34_PHASE2_H

#include <smdsp/compat.h>
#include <smdsp/v34_info.h>

enum smdsp_v34_phase2_state {
	SMDSP_V34P2_INFO0 = 0,	/* sending INFO0, then the tone; waiting for the far INFO0 */
	SMDSP_V34P2_TONE,	/* the far INFO0 taken: tone, waiting to reverse or for a reversal */
	SMDSP_V34P2_RTD,	/* reversed, waiting for the far end's reversal */
	SMDSP_V34P2_PROBE_RX,	/* hearing the far end's L1/L2 */
	SMDSP_V34P2_PROBE_END,	/* the tone that ends the far end's L2 */
	SMDSP_V34P2_PROBE_TX,	/* sending L1/L2 */
	SMDSP_V34P2_INFO1,	/* INFO1c/INFO1a: sending ours, waiting for the far one */
	SMDSP_V34P2_DONE,	/* finished: smdsp_v34_phase2_result() holds the parameters */
	SMDSP_V34P2_FAILED,	/* gave up: the result says why */
	SMDSP_V34P2_STATES
};

enum smdsp_v34_phase2_fail {
	SMDSP_V34P2_OK = 0,
	SMDSP_V34P2_NO_INFO0,	/* no far INFO0 after every retransmission */
	SMDSP_V34P2_NO_REVERSAL,	/* the far tone's reversal never came (no round trip) */
	SMDSP_V34P2_NO_PROBE,	/* the far end's L1/L2 not heard, or too short to measure */
	SMDSP_V34P2_NO_TONE,	/* the tone that ends our L2 never came */
	SMDSP_V34P2_NO_INFO1,	/* the far INFO1 never came */
	SMDSP_V34P2_NO_RATE,	/* INFO1 came, but no symbol rate is usable both ways */
	SMDSP_V34P2_FAILS
};

/* One direction of transmission, as phase 2 settled it. */
struct smdsp_v34_phase2_dir {
	uint8_t symrate;	/* enum smdsp_v34_symrate */
	bool high_carrier;
	uint8_t preemph;	/* the transmitter's pre-emphasis filter, 0-10 */
	uint8_t power_red;	/* the transmitter's minimum power reduction, dB */
	uint8_t add_power_red;	/* the further reduction its receiver tolerates, dB */
	uint16_t max_rate;	/* projected maximum data rate, bit/s */
};

struct smdsp_v34_phase2_result {
	enum smdsp_v34_phase2_fail fail;	/* SMDSP_V34P2_OK when done */
	struct smdsp_v34_phase2_dir a_to_c, c_to_a;
	int32_t rtd;			/* the round trip this end measured, samples (-1: none) */
	struct smdsp_v34_info0 far_info0;
	struct smdsp_v34_info1c info1c;	/* as sent (call modem) or received (answer modem) */
	struct smdsp_v34_info1a info1a;
	uint32_t done_at;		/* samples since create or reset at the end (or failure) */
};

struct smdsp_v34_phase2_stats {
	uint32_t info0_sent;		/* INFO0s sent, the first included */
	uint32_t info0_heard;		/* far INFO0s received with a good CRC */
	uint32_t info0_retx_timeout;	/* ours sent again: no far INFO0 in time */
	uint32_t info0_retx_repeat;	/* ours sent again (ack bit set): the far end repeated its own */
	uint32_t restarts;		/* back to INFO0 from a later step */
	uint32_t frames_refused;	/* frames the DPSK receiver refused (bad CRC, truncated, range) */
	uint32_t fails[SMDSP_V34P2_FAILS];	/* failures, by reason */
	uint32_t far_restarts;		/* back to the reversals from a later step: the far end sent INFO0 again */
};

struct smdsp_v34_phase2_config {
	bool calling;			/* the call modem (1200 Hz, tone B), else the answer modem */
	int level_dbm0_10;		/* our nominal transmit level, tenths of dBm0 */
	int far_level_dbm0_10;		/* the far end's nominal level (its L2), for the gains */
	struct smdsp_v34_info0 info0;	/* our capabilities (the ack bit is ours to set) */
	/* the MD our phase 3 sends before S, 35 ms units (0-127), in our INFO1 (Tables 13, 14) */
	uint8_t md_len;
	/*
	 * Listen only: send nothing and follow the far end's side of phase 2
	 * (a recording of one direction): smdsp_v34_phase2_steps() says what
	 * was heard; the far end's round trip is its reversals' spacing less 40 ms.
	 */
	bool listen_only;
};

/* What a listener heard of the far end's phase 2 (bits of smdsp_v34_phase2_steps()). */
enum smdsp_v34_phase2_step {
	SMDSP_V34P2_HEARD_INFO0 = 1 << 0,
	SMDSP_V34P2_HEARD_TONE = 1 << 1,
	SMDSP_V34P2_HEARD_REV1 = 1 << 2,
	SMDSP_V34P2_HEARD_REV2 = 1 << 3,	/* the reversal after the first */
	SMDSP_V34P2_HEARD_PROBE = 1 << 4,	/* L1/L2, measured */
	SMDSP_V34P2_HEARD_TONE2 = 1 << 5,	/* the tone again after the probing */
	SMDSP_V34P2_HEARD_INFO1 = 1 << 6,
};

struct smdsp_v34_phase2;

/*
 * cfg: see above; NULL for an answer modem at -12 dBm0 with every option.
 * NULL if cfg's INFO0 has a field out of Table 12's range.
 */
/* What create takes for a NULL configuration: the answer modem at -12 dBm0, every symbol rate on offer. */
void smdsp_v34_phase2_default_config(struct smdsp_v34_phase2_config *cfg);
struct smdsp_v34_phase2 *smdsp_v34_phase2_create(const struct smdsp_v34_phase2_config *cfg);
void smdsp_v34_phase2_free(struct smdsp_v34_phase2 *s);
/* Phase 2 from its start again (the 75 ms silence of phase 1 is the caller's). */
void smdsp_v34_phase2_reset(struct smdsp_v34_phase2 *s);
int smdsp_v34_phase2_print(const struct smdsp_v34_phase2 *s, char *buf, size_t len);
/* rx: what the line brings; tx: what to send (silence once done or failed). */
void smdsp_v34_phase2_process(struct smdsp_v34_phase2 *s, const int16_t *rx, int16_t *tx, unsigned int n);
enum smdsp_v34_phase2_state smdsp_v34_phase2_state(const struct smdsp_v34_phase2 *s);
/*
 * The parameters once DONE, the reason once FAILED; false before either. A
 * listener's result holds the far INFO0 and the INFO1 it heard (info1c or
 * info1a), not the directions' parameters.
 */
bool smdsp_v34_phase2_result(const struct smdsp_v34_phase2 *s, struct smdsp_v34_phase2_result *r);
void smdsp_v34_phase2_get_stats(const struct smdsp_v34_phase2 *s, struct smdsp_v34_phase2_stats *st);
/* enum smdsp_v34_phase2_step bits: what was heard of the far end so far. */
unsigned int smdsp_v34_phase2_steps(const struct smdsp_v34_phase2 *s);
/*
 * The answer modem done and still fed: true while an INFO0c with the ack bit
 * set (the call modem lost our INFO1a) would take it back to the reversals
 * (4.5 s and two round trips from its end).
 */
bool smdsp_v34_phase2_reopenable(const struct smdsp_v34_phase2 *s);
/*
 * ... and back now, as on that INFO0c, when the owner has heard the call
 * modem's tone B instead (v34.c's phase 3, where our own training's echo may
 * hide the INFO0c): our tone A, the reversals once the INFO0c is heard or
 * due; false if not reopenable.
 */
bool smdsp_v34_phase2_reopen_tone(struct smdsp_v34_phase2 *s);
/* The far end's round trip from its reversals' spacing (listen only), samples; -1 if not heard. */
int32_t smdsp_v34_phase2_far_rtd(const struct smdsp_v34_phase2 *s);
const char *smdsp_v34_phase2_state_name(enum smdsp_v34_phase2_state st);
const char *smdsp_v34_phase2_fail_name(enum smdsp_v34_phase2_fail f);

#endif /* SMDSP_V34_PHASE2_H */
