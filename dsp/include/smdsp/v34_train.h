/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's phases 3 and 4 and the data mode on the line (10.1.3, 11): the
 * transmitter (v34_train_tx.c) sends S, S-bar, PP, TRN, J, J', TRN, MP,
 * MP', E, B1 and data on v34_mod's timing unit, with phase 2's
 * pre-emphasis filter; the receiver (v34_train_rx.c) finds S and its
 * reversal, trains its equaliser on PP and TRN, tracks carrier and symbol
 * timing, reads J, MP and E, computes the precoding coefficients it sends,
 * and decodes the data mode through v34_data.
 *
 * Both are given what phase 2 chose (symbol rate, carrier, data rate per
 * direction, pre-emphasis). An end is a transmitter and a receiver; the
 * transmitter asks its own receiver (set with smdsp_v34_train_tx_attach())
 * when to end J (its receiver trained) and what to put in MP (its
 * coefficients), and leaves MP for MP', MP' for E as the far end's MP and
 * MP' arrive.
 *
 * On a 4-wire line (the default) both ends train at once. On a 2-wire line
 * (two_wire) each hears its own signal back, so phases 3 and 4 follow the
 * duplex sequence, each end training its echo canceller (dsp/echo.c, in
 * the receiver) on its own training while the far end is silent: the
 * answer modem sends S, S-bar, PP, TRN, J until it hears the call modem's
 * S, then is silent until its receiver has trained, then S, S-bar, TRN,
 * MP...; the call modem is silent until it has trained on the answer
 * modem's J, then sends S, S-bar, PP, TRN, J until it hears the answer
 * modem's second S, then J', TRN, MP... Each end's receiver reads what its
 * transmitter sent (smdsp_v34_train_rx_attach()) and is deaf while its
 * canceller trains.
 */
#ifndef SMDSP_V34_TRAIN_H
#define SMDSP_V34_TRAIN_H

#include <smdsp/compat.h>
#include <smdsp/bits.h>
#include <smdsp/fixmath.h>
#include <smdsp/v34_info.h>
#include <smdsp/v34_mp.h>

struct smdsp_v34_train_config {
	enum smdsp_v34_symrate symrate;	/* the direction's symbol rate */
	bool high;			/* its carrier */
	unsigned int data_rate;		/* the most this end allows that way, bit/s */
	unsigned int preemph;		/* transmitter: the pre-emphasis filter, 0-10 */
	bool caller;			/* this end is the call modem */
	/*
	 * phase 4's TRN on 16 points asked of the far transmitter: our J says
	 * so, and our receiver expects it (the far J sets what we send)
	 */
	bool trn16;
	unsigned int trn_symbols;	/* transmitter: phase 3's TRN, 0 for 2048 symbols */
	unsigned int trn4_symbols;	/* transmitter: phase 4's TRN, 0 for SMDSP_V34_TRN4_SYMS (512) */
	/*
	 * transmitter: MD (V.34's manufacturer-defined signal) before phase
	 * 3's S, symbols: ours is silence (v34_train_tx.c says why)
	 */
	unsigned int md_symbols;
	bool no_precoding;		/* receiver: ask the far end for none (MP's h all 0) */
	/*
	 * receiver: put data_rate in MP as it is, not the rate its trained
	 * error supports (smdsp_v34_rate_need_db10()); for BER sweeps
	 */
	bool fixed_rate;
	/*
	 * receiver: the trellis code (9.6) asked of the far transmitter in our
	 * MP and decoded in the data mode: 16, 32 or 64 states (0: 16). The
	 * transmitter codes with what the far end's MP asks.
	 */
	unsigned int trellis;
	/*
	 * receiver: whether our MP asks the far transmitter for its nonlinear
	 * encoder (9.7, theta = 0.3125) and for expanded shaping (more rings),
	 * each an enum smdsp_v34_ask (AUTO: SMDSP_V34_ASK_RULE's rule from
	 * TRN's error); the receiver decodes what it asked for. The
	 * transmitter uses what the far MP asks.
	 */
	unsigned int nonlinear, shaping;
	/*
	 * The 200 bit/s auxiliary channel offered in our MP: it runs both ways
	 * when both MPs offer it (9.2: W = 15 - J bits of each data frame),
	 * its bits through smdsp_v34_train_tx_set_aux() and
	 * smdsp_v34_train_rx_set_aux()'s callbacks.
	 */
	bool aux;
	/*
	 * A 2-wire line: the duplex sequence and the echo canceller. Both
	 * ends' transmitter and receiver must have the same two_wire, and be
	 * attached to each other both ways. echo_latency: samples from a
	 * sample leaving smdsp_v34_train_tx_process() to the earliest sample
	 * of smdsp_v34_train_rx_process() its echo can be in, each counted
	 * from its stream's start (0: the same sample; at most
	 * SMDSP_V34_MAX_LATENCY). round_trip: the line's round trip, samples,
	 * as phase 2 measured it (each end's own delays taken off: the far
	 * echo's delay, and the least time before the far end can answer).
	 * no_echo_cancel: the 2-wire sequence without the canceller (what it
	 * is worth: tests).
	 */
	bool two_wire;
	int echo_latency;
	int round_trip;
	bool no_echo_cancel;
};

/* the longest echo_latency (the transmitter's history less a long block) */
#define SMDSP_V34_MAX_LATENCY 7168

enum smdsp_v34_train_state {
	SMDSP_V34_T_IDLE = 0,
	SMDSP_V34_T_S,		/* tx: sending S; rx: S found */
	SMDSP_V34_T_SBAR,
	SMDSP_V34_T_PP,
	SMDSP_V34_T_TRN,
	SMDSP_V34_T_J,
	SMDSP_V34_T_JP,		/* J' */
	SMDSP_V34_T_TRN4,	/* phase 4's TRN */
	SMDSP_V34_T_MP,
	SMDSP_V34_T_MPP,	/* MP' */
	SMDSP_V34_T_E,
	SMDSP_V34_T_B1,
	SMDSP_V34_T_DATA,
	SMDSP_V34_T_CLEARED,	/* a renegotiation to no rate (the cleardown) done: silent */
	SMDSP_V34_T_FAILED,	/* rx: lost (no S reversal, no PP, no J in time) */
};

/*
 * The rule (doc/v34.md, "The nonlinear encoder and expanded shaping"):
 * the nonlinear encoder where TRN's error is SMDSP_V34_NL_SNR_DB10 or
 * more under the signal, within 5 dB of a G.711 codec's own 38 dB, and
 * at least SMDSP_V34_NL_COMP_PCT percent of it grows with the line's
 * power (trn_comp_pct): there the codec's companding noise is most of
 * what is left (9.7's case; under it, or on a line as clean whose noise
 * is white or an echo's, the encoder's 0.5 dB more power on the line
 * buys 0.2 dB of error or less; the threshold between the highest share
 * measured without a codec's noise, 29, and a codec's 2-wire line whose
 * echoes' residue and white noise are a third of its error, 33; lines
 * whose error is a codec's read 41 and more, on flat, telephone and
 * bass-cut channels, test_v34_shaping); expanded shaping wherever the rate has shell bits (v34_data sends it at minimum
 * shaping's power: 0.2-0.6 dB more distance for 1 dB more peak, which a
 * signal 12 dB and more under the codec's overload can spare).
 */
#define SMDSP_V34_NL_SNR_DB10 330
#define SMDSP_V34_NL_COMP_PCT 31

struct smdsp_v34_train_tx;
struct smdsp_v34_train_rx;

/* ---- the transmitter ---- */

struct smdsp_v34_train_tx *smdsp_v34_train_tx_create(const struct smdsp_v34_train_config *cfg,
						     smdsp_get_bit_fn get_bit, void *user);
void smdsp_v34_train_tx_free(struct smdsp_v34_train_tx *s);
/* back to the start of S */
void smdsp_v34_train_tx_reset(struct smdsp_v34_train_tx *s);
/*
 * Made over in place for another configuration (what phase 2 chose), without
 * allocating; then reset. A 2-wire configuration needs a transmitter created
 * 2-wire. 0, or -EINVAL (the configuration refused, the transmitter as it was
 * or changed in part: reset it or configure it again).
 */
int smdsp_v34_train_tx_configure(struct smdsp_v34_train_tx *s, const struct smdsp_v34_train_config *cfg);
int smdsp_v34_train_tx_print(const struct smdsp_v34_train_tx *s, char *buf, size_t len);
/* The receiver of the same end: its training ends J, its MP ends MP and MP'. */
void smdsp_v34_train_tx_attach(struct smdsp_v34_train_tx *s, const struct smdsp_v34_train_rx *rx);
void smdsp_v34_train_tx_process(struct smdsp_v34_train_tx *s, int16_t *out, unsigned int n);
enum smdsp_v34_train_state smdsp_v34_train_tx_state(const struct smdsp_v34_train_tx *s);
/* Symbols sent since reset, and the symbol at which each state began (0 if not yet). */
uint32_t smdsp_v34_train_tx_symbols(const struct smdsp_v34_train_tx *s);
uint32_t smdsp_v34_train_tx_began(const struct smdsp_v34_train_tx *s, enum smdsp_v34_train_state st);
/* the data rate it settled on (0 before E) */
unsigned int smdsp_v34_train_tx_rate(const struct smdsp_v34_train_tx *s);
/*
 * In the data mode, a rate renegotiation (V.34 11.6 as we read it): at the
 * next mapping frame's boundary S, S-bar, phase 4's TRN, MP with data_rate
 * as the most this end sends (its receiver's most is
 * smdsp_v34_train_rx_set_rate()'s), MP', E, B1 and data at the rates the
 * two MPs settle, without a retrain. data_rate 0 is the cleardown: both of
 * MP's rates 0, and both ends CLEARED after E. The far end's S heard by the
 * attached receiver in the data mode starts the same answer on its own.
 * 0, or -EBUSY outside the data mode.
 */
int smdsp_v34_train_tx_renegotiate(struct smdsp_v34_train_tx *s, unsigned int data_rate);
/*
 * In the data mode: when the far receiver's MP in a renegotiation asks for
 * more than our limit (data_rate, as the last renegotiation or the training
 * set it), offer and send up to this much (0: never more than the limit)
 */
void smdsp_v34_train_tx_set_lift(struct smdsp_v34_train_tx *s, unsigned int data_rate);
/* the trellis code's states it settled on, as the far MP asked (0 before E) */
unsigned int smdsp_v34_train_tx_states(const struct smdsp_v34_train_tx *s);
/*
 * The auxiliary channel's bits sent, once both MPs agreed on it (NULL: zeros;
 * B1's are ones); kept across configure and reset. Whether it runs.
 */
void smdsp_v34_train_tx_set_aux(struct smdsp_v34_train_tx *s, smdsp_get_bit_fn get_bit, void *user);
bool smdsp_v34_train_tx_aux(const struct smdsp_v34_train_tx *s);

/*
 * The training symbols by their definitions, for the tests as for the
 * transmitter: PP's k-th symbol (k modulo 48) and the 4- and 16-point
 * constellations of TRN, J, MP and E, in units of amp (the 4-point
 * constellation is (+-amp, +-amp)); the 16-point one has the same power.
 */
void smdsp_v34_train_pp(unsigned int k, int32_t amp, struct smdsp_cplx *p);
void smdsp_v34_train_point4(unsigned int dibit, int32_t amp, struct smdsp_cplx *p);
void smdsp_v34_train_point16(unsigned int quad, int32_t amp, struct smdsp_cplx *p);
/* J's 16 bits (sent bit 0 first): 4 or 16 point TRN, and J' */
#define SMDSP_V34_J4 0x8990
#define SMDSP_V34_J16 0x89b0
#define SMDSP_V34_JP 0x899f
/* the symbols of S, S-bar and PP; PP's period */
#define SMDSP_V34_S_SYMS 128
#define SMDSP_V34_SBAR_SYMS 16
#define SMDSP_V34_PP_PERIOD 48
#define SMDSP_V34_PP_SYMS 288
#define SMDSP_V34_TRN4_SYMS 512
/*
 * The receiver: phase 4's TRN (any length from its 512 symbols on: real
 * modems sent 5900-7400) followed for at most this many symbols with no MP
 * taken, then the training fails (stats trn4_long)
 */
#define SMDSP_V34_TRN4_MAX 16384
/* the transmitter's 4-point amplitude (PCM units, each axis) */
#define SMDSP_V34_TRAIN_AMP 3000

/* ---- the receiver ---- */

struct smdsp_v34_train_stats {
	uint32_t symbols;		/* symbols out of the equaliser */
	uint32_t trn_bits, trn_bad;	/* TRN's descrambled bits, and those not a one */
	uint32_t j_seen;		/* J patterns matched */
	uint32_t mp_good, mp_bad;	/* MP frames taken, refused (sync found, CRC or range bad) */
	uint32_t data_bits;		/* data bits delivered */
	uint32_t bad_points, bad_shell;	/* v34_data's counts */
	int32_t mse_db10;		/* the last 256 symbols' decision error, dB below the signal (tenths) */
	/* data: the error of what the Viterbi decoder gets (whitened), against the data's nominal power */
	int32_t wmse_db10;
	int32_t pred_gain_db10;		/* the noise predictor's gain, the precoder's worth */
	int32_t timing_ticks;		/* the timing loop's total move */
	int32_t pp_lag;			/* PP's position against the S-bar reversal, half symbols */
	/* 2-wire: the canceller's ERLE at its training's end (dB, tenths; 0 before), its latency (-1: none) */
	int32_t erle_db10;
	int32_t echo_latency;
	int32_t far_freq_mhz;		/* the far echo's frequency offset it follows */
	/*
	 * TRN's decision error at the training's end, less the noise
	 * predictor's gain when precoding is asked for: the error the decoder
	 * will see (dB below the signal, tenths; 0 before trained), and the
	 * rate this receiver puts in its MP from it (bit/s)
	 */
	int32_t trn_mse_db10;
	uint32_t mp_rate;
	/*
	 * TRN: the share of its noise that grows with the line's power (a
	 * codec's companding, not white noise), percent (0 before trained;
	 * v34_train_rx.c's comp_pct())
	 */
	int32_t trn_comp_pct;
	/* 2-wire: the far window's bulk delay, samples behind the near one's start (-1: none) */
	int32_t far_delay;
	/* data: mse_db10 of decisions on a signal that is not the far end's (uniform in the lattice's cells) */
	int32_t mse_floor_db10;
	/*
	 * data: v34_data's superframe sync check (struct smdsp_v34_data_stats):
	 * positions checked, missed, bad superframes, and whether the decoder
	 * is out of step with the far end's frames (its bits garbage)
	 */
	uint32_t sync_checks, sync_misses, bad_superframes;
	bool sync_lost;
	bool aux;			/* data: the auxiliary channel runs (both MPs offered it) */
	/* data: the input rescaled for a level that fell or rose (the line's loss changed), confirmed; the loops held meanwhile */
	uint32_t level_steps;
	bool level_hold;
	bool nonlinear, expanded;	/* data: what our MP asked for and the decoder undoes */
	uint32_t aux_bits;		/* ... its bits delivered (B1's left out) */
	/*
	 * phase 4's TRN: its symbols to the first MP taken (to that frame's
	 * start), whether its last (to 4 of 16 bits not ones) were decided on
	 * 16 points, its bits descrambled (4 or 16 points as decided) and those
	 * not a one; too long with no MP (the training failed)
	 */
	uint32_t trn4_syms;
	bool trn4_16;
	uint32_t trn4_bits, trn4_bad;
	bool trn4_long;
	/*
	 * 2-wire: phase 4's TRN error, whitened as trn_mse_db10 is, heard
	 * with our own transmitter's echo and the canceller as the data mode
	 * has them (dB below the signal, tenths; 0: not measured); the rate
	 * in our MP is the one the worse of the two errors carries
	 */
	int32_t trn4_mse_db10;
};

struct smdsp_v34_train_rx *smdsp_v34_train_rx_create(const struct smdsp_v34_train_config *cfg,
						     smdsp_put_bit_fn put_bit, void *user);
void smdsp_v34_train_rx_free(struct smdsp_v34_train_rx *s);
void smdsp_v34_train_rx_reset(struct smdsp_v34_train_rx *s);
/* The receiver's counterpart: a 2-wire configuration needs a receiver created with its canceller. */
int smdsp_v34_train_rx_configure(struct smdsp_v34_train_rx *s, const struct smdsp_v34_train_config *cfg);
int smdsp_v34_train_rx_print(const struct smdsp_v34_train_rx *s, char *buf, size_t len);
void smdsp_v34_train_rx_process(struct smdsp_v34_train_rx *s, const int16_t *x, unsigned int n);
enum smdsp_v34_train_state smdsp_v34_train_rx_state(const struct smdsp_v34_train_rx *s);
void smdsp_v34_train_rx_get_stats(const struct smdsp_v34_train_rx *s, struct smdsp_v34_train_stats *st);
/*
 * No S looked for in the next samples of input (while IDLE): the far MD,
 * which may hold anything, an S included (11.3: its length is in the far
 * INFO1). Input still reaches the canceller and the level.
 */
void smdsp_v34_train_rx_hold_s(struct smdsp_v34_train_rx *s, uint32_t samples);
/* trained: the coefficients for our MP are ready */
bool smdsp_v34_train_rx_trained(const struct smdsp_v34_train_rx *s);
/*
 * The decoder's error (dB below the data's power, tenths) the 16-state code
 * needs for a bit error rate of 1e-5 at this symbol rate and data rate, with
 * SMDSP_V34_RATE_MARGIN_DB10 on top; 1000 (100 dB) for a rate V.34 does not
 * allow there. The points on the odd-integer grid, the data scaled to power
 * P: at an error of sigma^2 per dimension the code's d_free^2 = 16 gives bit
 * errors about N Q(2 / sigma), 1e-5 at 2 / sigma = 5.5 (N, the
 * descrambler's threefold errors and the shell mapper's in it: v34_data
 * alone over Gaussian noise, 33,600 at 3429 baud the hardest), so the error
 * per symbol 2 sigma^2 may be 8 / 30 of a unit: P 30 / 8 over it.
 */
#define SMDSP_V34_RATE_MARGIN_DB10 10
int smdsp_v34_rate_need_db10(const struct smdsp_v34_train_rx *s, enum smdsp_v34_symrate symrate,
			     unsigned int data_rate);
/*
 * The MP this end sends (h from its equaliser; the rate its trained error
 * supports within its config's data_rate), false before trained
 */
bool smdsp_v34_train_rx_our_mp(const struct smdsp_v34_train_rx *s, struct smdsp_v34_mp *mp);
/* the far end's MP (and whether it was an MP'), false before one arrived */
bool smdsp_v34_train_rx_far_mp(const struct smdsp_v34_train_rx *s, struct smdsp_v34_mp *mp, bool *ack);
/* The auxiliary channel's bits received, B1's left out (NULL: dropped); kept across configure and reset. */
void smdsp_v34_train_rx_set_aux(struct smdsp_v34_train_rx *s, smdsp_put_bit_fn put_bit, void *user);
/* the far end's J: it asks for a 16-point TRN in phase 4 (from us) */
bool smdsp_v34_train_rx_far_trn16(const struct smdsp_v34_train_rx *s);
/* the most this receiver takes, in its next MP (a renegotiation); 0: none (the cleardown) */
void smdsp_v34_train_rx_set_rate(struct smdsp_v34_train_rx *s, unsigned int data_rate);
/* ... and above the rate TRN's error chose (the line measured better since, in the data) */
void smdsp_v34_train_rx_lift_rate(struct smdsp_v34_train_rx *s, unsigned int data_rate);
/* the data rate it decodes (0 before its data mode) */
unsigned int smdsp_v34_train_rx_rate(const struct smdsp_v34_train_rx *s);
/* the far end's renegotiations heard (its S in our data mode) */
uint32_t smdsp_v34_train_rx_renegs(const struct smdsp_v34_train_rx *s);
/*
 * A tone of hz (0: none) watched for in what the receiver hears, after the
 * echo canceller (a retrain's tone A or B), whatever its state: how long it
 * has been heard without a break, ms (5 ms steps). A tone of own_hz (ours,
 * which the canceller does not know: 0 for none) is left out of the energy
 * it is held against.
 */
void smdsp_v34_train_rx_watch_tone(struct smdsp_v34_train_rx *s, unsigned int hz, unsigned int own_hz);
unsigned int smdsp_v34_train_rx_tone_ms(const struct smdsp_v34_train_rx *s);
/*
 * 2-wire: the transmitter of the same end, whose samples the echo canceller
 * takes and whose signals time its training window.
 */
void smdsp_v34_train_rx_attach(struct smdsp_v34_train_rx *s, const struct smdsp_v34_train_tx *tx);
/* the echo canceller's ERLE (dB, Q8) at its training window's end, 0 before or without one */
int smdsp_v34_train_rx_echo_erle_db_q8(const struct smdsp_v34_train_rx *s);
int smdsp_v34_train_rx_echo_print(const struct smdsp_v34_train_rx *s, char *buf, size_t len);

#endif /* SMDSP_V34_TRAIN_H */
