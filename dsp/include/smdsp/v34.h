/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One V.34 end, the call modem or the answer modem, from the silence that
 * ends phase 1 to the data mode: phase 2 (v34_phase2.c), then phases 3 and 4
 * and the data mode (v34_train_tx.c, v34_train_rx.c) with the parameters
 * phase 2 settled for each direction, carrying the user's bits both ways.
 *
 * The sequence on a 4-wire line after phase 2 (answer modem above):
 *
 *   INFO1a S S-bar PP TRN J ..................... J J' TRN MP .. MP' E B1 data
 *   INFO1c ....... (silence) ...... S S-bar PP TRN J ... J J' TRN MP MP' E B1 data
 *
 * On a 2-wire line (two_wire: an echo canceller in our receiver, trained on
 * our own training while the far end is silent):
 *
 *   INFO1a S S-bar PP TRN J ... J .......(silence)........ S S-bar TRN MP .. MP' E B1 data
 *   INFO1c .... (silence) .... S S-bar PP TRN J ...... J J' TRN MP MP' E B1 data
 *
 * See v34.c for who waits for what and the timeouts.
 *
 * In the data mode (v34.c's second part): a rate renegotiation from either
 * end (S, S-bar, TRN, MP, MP', E, B1, then data at the new rates, no
 * retrain), asked for (smdsp_v34_renegotiate()) or by our receiver whose
 * error grew past its rate's margin; the cleardown (a renegotiation to no
 * rate: both ends CLEARED); a retrain (tone A or B, then phase 2 again),
 * asked for (smdsp_v34_retrain()), or when our receiver has lost the far
 * signal's sync while it is still there, or no lower rate is left.
 */
#ifndef SMDSP_V34_H
#define SMDSP_V34_H

#include <smdsp/compat.h>
#include <smdsp/bits.h>
#include <smdsp/v34_info.h>
#include <smdsp/v34_mp.h>
#include <smdsp/v34_phase2.h>

enum smdsp_v34_state {
	SMDSP_V34_PHASE2 = 0,	/* INFO0, tones, probing, INFO1 */
	SMDSP_V34_PHASE3,	/* S, S-bar, PP, TRN, J (ours or the far end's) */
	SMDSP_V34_PHASE4,	/* J', TRN, MP, MP', E, B1 */
	SMDSP_V34_DATA,		/* both directions carry the user's bits */
	SMDSP_V34_FAILED,	/* gave up: smdsp_v34_fail() says why */
	SMDSP_V34_RENEG,	/* data mode, a rate renegotiation (or the cleardown) under way */
	SMDSP_V34_RETRAIN,	/* data mode left for a retrain: our tone, then phase 2 again */
	SMDSP_V34_CLEARED,	/* the cleardown done: silent, the call over */
	SMDSP_V34_STATES
};

enum smdsp_v34_fail {
	SMDSP_V34_OK = 0,
	SMDSP_V34_FAIL_PHASE2,		/* phase 2 failed: smdsp_v34_phase2_result()'s reason */
	SMDSP_V34_FAIL_NO_S,		/* the far end's S never came */
	SMDSP_V34_FAIL_NO_J,		/* its S came, but not its J (our receiver never trained) */
	SMDSP_V34_FAIL_NO_MP,		/* trained, but no MP' and E from the far end */
	SMDSP_V34_FAIL_NO_DATA,		/* our transmitter never reached the data */
	SMDSP_V34_FAIL_RATE,		/* the MPs settled a rate the data mode refused */
	/*
	 * in the data mode, the far signal gone (decisions no better than
	 * noise), or our decoder out of step with its frames (the stats'
	 * sync_lost: SMDSP_V34_SYNC_LOST bad superframes in a row)
	 */
	SMDSP_V34_FAIL_LOST,
	SMDSP_V34_FAIL_RENEG,		/* a rate renegotiation or cleardown not finished in time */
	SMDSP_V34_FAIL_RETRAIN,		/* our retrain's tone not answered by the far end's */
	SMDSP_V34_FAILS
};

struct smdsp_v34_config {
	bool calling;			/* the call modem, else the answer modem */
	int level_dbm0_10;		/* our transmit level, tenths of dBm0 (-43.0 to -9.0 dBm0) */
	int far_level_dbm0_10;		/* the far end's nominal level (its L2), for phase 2's gains */
	struct smdsp_v34_info0 info0;	/* our capabilities, as phase 2's INFO0 */
	unsigned int max_rate;		/* the most we send or take, bit/s: 2400 x 1-14 (0: 33600) */
	bool trn16;			/* phase 4's TRN on 16 points from our transmitter */
	unsigned int trn_symbols;	/* phase 3's TRN, symbols (0: 2048; 512-8192) */
	smdsp_get_bit_fn get_bit;	/* the data we send, a bit a call (NULL: ones) */
	void *get_user;
	smdsp_put_bit_fn put_bit;	/* the data we receive, B1 left out */
	void *put_user;
	/*
	 * A 2-wire line: the duplex order of phases 3 and 4 and an echo
	 * canceller in our receiver. echo_latency: samples from a sample
	 * leaving smdsp_v34_process() in tx to the earliest rx sample its echo
	 * can be in (0: the same call's sample; at most 6848).
	 */
	bool two_wire;
	int echo_latency;
	/*
	 * Tests only: the canceller stays at echo_latency even where phase 2
	 * heard the near echo further back (v34.c, near_watch()).
	 */
	bool no_near_search;
	/* no rate renegotiation or retrain of our own when our receiver's error grows (the far end's answered) */
	bool no_auto;
	/*
	 * The MD our phase 3 sends before its S, in 35 ms units (0-127), as
	 * our INFO1 says: silence (v34_train_tx.c says why). Whatever the far
	 * INFO1 asks for, our receiver lets pass.
	 */
	unsigned int md_len;
	/*
	 * The trellis code (9.6) our receiver asks of the far transmitter in
	 * our MP and decodes: 16, 32 or 64 states (0: SMDSP_V34_TRELLIS_DEFAULT).
	 * Our transmitter codes with what the far MP asks.
	 */
	unsigned int trellis;
	/*
	 * The 200 bit/s auxiliary channel (9.2), offered in our MP; it runs
	 * both ways when the far MP offers it too: its bits through these
	 * (NULL: zeros sent, the bits received dropped), the main data's rate
	 * the same.
	 */
	bool aux;
	/*
	 * What our MP asks of the far transmitter: its nonlinear encoder (9.7,
	 * theta = 0.3125) and expanded shaping, each an enum smdsp_v34_ask
	 * (0, AUTO: <smdsp/v34_train.h>'s rule from our receiver's trained
	 * error). Our transmitter uses what the far MP asks.
	 */
	unsigned int nonlinear, shaping;
	smdsp_get_bit_fn aux_get_bit;
	void *aux_get_user;
	smdsp_put_bit_fn aux_put_bit;
	void *aux_put_user;
};

/* the code asked for unless configured: see doc/v34.md for each code's cost and gain */
#define SMDSP_V34_TRELLIS_DEFAULT 16

/* What phase 2 gave each direction of this end's train (set at the hand-over). */
struct smdsp_v34_dir {
	enum smdsp_v34_symrate symrate;
	bool high;
	unsigned int preemph;		/* the transmitter's pre-emphasis filter */
	unsigned int max_rate;		/* phase 2's projected rate, limited by max_rate, bit/s */
	unsigned int rate;		/* the data rate the MPs settled (0 before) */
	unsigned int states;		/* its trellis code: the receiving end's MP's (0 before) */
	bool nonlinear, expanded;	/* ... and its nonlinear encoder and shaping (false before) */
	/*
	 * The direction we receive: the error our receiver measured at the end
	 * of TRN (dB below the signal, tenths) and the rate it put in our MP
	 * from it, at most max_rate (0 before our receiver has trained);
	 * 2-wire, phase 4's TRN error (0: not measured), which may lower that
	 * rate (mp_rate as our last MP put it once the data has begun)
	 */
	int trn_mse_db10;
	unsigned int mp_rate;
	int trn4_mse_db10;
};

struct smdsp_v34_stats {
	uint32_t now;			/* samples since create or reset */
	uint32_t phase3_at;		/* the sample our phase 3 signal began (0: not yet) */
	uint32_t tx_data_at, rx_data_at;	/* our data mode's first sample out, the far one's in */
	uint32_t failed_at;
	int32_t rtd;			/* phase 2's round trip, samples */
	struct smdsp_v34_dir tx, rx;	/* our transmitter's direction and the far end's */
	uint32_t bits_sent, bits_received;	/* the user's data bits (after B1) */
	/*
	 * The data at the present rates: the sample both directions were in
	 * data mode again (after phase 4, a renegotiation or a retrain), and
	 * the bits each way counted then
	 */
	uint32_t run_at, run_bits_sent, run_bits_received;
	int32_t mse_db10;		/* our receiver's decision error, dB below the signal (tenths) */
	int32_t wmse_db10;		/* data: its decoder's error, against the data's nominal power (tenths) */
	int32_t erle_db10;		/* 2-wire: our canceller's ERLE at its training's end (tenths; 0 before) */
	/*
	 * 2-wire: where phase 2 heard our first signal's echo begin, samples
	 * from a sample sent to its echo (-1: not found, or not sought)
	 */
	int32_t near_latency;
	/* 2-wire: the far window's bulk delay, samples behind the near window (-1: none) */
	int32_t far_delay;
	/* the data mode's renegotiations (either end's, done), ours asked for (by us, automatically) */
	uint32_t renegs, reneg_asked, reneg_auto;
	uint32_t reneg_up;		/* ... of ours automatically, those asking for more (the line better) */
	uint32_t reneg_at;		/* the last one began (the sample) */
	uint32_t retrains, retrain_asked;	/* retrains begun (either end's), ours */
	uint32_t retrain_at;
	/* the answer modem's phase 3 left for phase 2 again: the call modem went back there (lost our INFO1a) */
	uint32_t p3_left;
	uint32_t cleared_at;		/* the cleardown done (0: not) */
	/* data: our decoder's superframe sync check (struct smdsp_v34_train_stats) */
	uint32_t sync_checks, sync_misses, bad_superframes;
	bool sync_lost;
	/* data: our receiver's input rescaled for a received level that fell or rose (the line's loss; v34_train_rx.c) */
	uint32_t level_steps;
	/* data: the auxiliary channel runs (both MPs offered it), its bits sent and received (after B1) */
	bool aux;
	uint32_t aux_sent, aux_received;
	/* phase 3's MD, 35 ms units: ours (our INFO1's), the far end's (its INFO1's, decoded) */
	unsigned int md_len, far_md_len;
};

struct smdsp_v34;

/*
 * cfg: see above. NULL if it is refused: an INFO0 field out of Table 12's
 * range, a rate not a multiple of 2400 or above 33600, a level or TRN
 * length out of range.
 */
struct smdsp_v34 *smdsp_v34_create(const struct smdsp_v34_config *cfg);
/*
 * A new configuration in place, for the next call (allocates nothing): the
 * same checks as create, and a 2-wire one only on an object created 2-wire
 * (which takes 4-wire ones too); -EINVAL, nothing changed, if refused.
 * Then a reset.
 */
int smdsp_v34_configure(struct smdsp_v34 *s, const struct smdsp_v34_config *cfg);
void smdsp_v34_free(struct smdsp_v34 *s);
/* From the start of phase 2 again, same configuration. */
void smdsp_v34_reset(struct smdsp_v34 *s);
int smdsp_v34_print(const struct smdsp_v34 *s, char *buf, size_t len);
/* rx: what the line brings, tx: what to send; 8000 samples/s, any n. */
void smdsp_v34_process(struct smdsp_v34 *s, const int16_t *rx, int16_t *tx, unsigned int n);
/*
 * n samples more to send with nothing received (the caller's output moved
 * further ahead of its input): phases 3, 4 and the data go on where the
 * last smdsp_v34_process() left them; silence before (phase 2).
 */
void smdsp_v34_fill(struct smdsp_v34 *s, int16_t *tx, unsigned int n);
enum smdsp_v34_state smdsp_v34_state(const struct smdsp_v34 *s);
enum smdsp_v34_fail smdsp_v34_fail(const struct smdsp_v34 *s);
void smdsp_v34_get_stats(const struct smdsp_v34 *s, struct smdsp_v34_stats *st);
/* Phase 2's result once it ended (false before); after a phase 2 failure, its reason. */
bool smdsp_v34_get_phase2(const struct smdsp_v34 *s, struct smdsp_v34_phase2_result *r);
/*
 * In the data mode: a rate renegotiation with max_rate (a multiple of 2400,
 * 0: phase 2's) the most both ways, each direction at the highest rate
 * Table 7 allows at its symbol rate within it and phase 2's; the far end
 * answers with its own limits, and the lower settle. 0, -EBUSY outside the
 * data mode, -EINVAL for a rate no direction can take.
 */
int smdsp_v34_renegotiate(struct smdsp_v34 *s, unsigned int max_rate);
/* In the data mode: a retrain (tone A or B, then phase 2). 0 or -EBUSY. */
int smdsp_v34_retrain(struct smdsp_v34 *s);
/* In the data mode: the cleardown (a renegotiation to no rate), both ends CLEARED. 0 or -EBUSY. */
int smdsp_v34_cleardown(struct smdsp_v34 *s);
const char *smdsp_v34_state_name(enum smdsp_v34_state st);
const char *smdsp_v34_fail_name(enum smdsp_v34_fail f);

#endif /* SMDSP_V34_H */
