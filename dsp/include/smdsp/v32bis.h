/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.32bis (and V.32): the duplex modem's two halves, 2400 baud on an 1800 Hz
 * carrier, 14400, 12000, 9600, 7200 bit/s trellis-coded (V.17's mapping),
 * 9600 bit/s uncoded (V.32's 16 points) and 4800 bit/s; the start-up
 * signals (AA, AC, CA, CC, S, S-bar, TRN, the rate sequences R1/R2/R3 and
 * E, B1). The caller's transmitter scrambles with GPC (1 + x^-18 + x^-23),
 * the answerer's with GPA (1 + x^-5 + x^-23).
 */
#ifndef SMDSP_V32BIS_H
#define SMDSP_V32BIS_H

#include <smdsp/fixmath.h>
#include <smdsp/bits.h>

/* The signals a transmitter sends, one after the other (smdsp_v32bis_tx_queue()). */
enum smdsp_v32bis_sig {
	SMDSP_V32BIS_SILENCE,
	SMDSP_V32BIS_AA,	/* state A repeated: 1800 Hz */
	SMDSP_V32BIS_AC,	/* A, C, A, C: 600 and 3000 Hz */
	SMDSP_V32BIS_CA,	/* C, A, C, A: AC reversed */
	SMDSP_V32BIS_CC,	/* state C repeated: AA reversed */
	SMDSP_V32BIS_S,		/* A, B, A, B */
	SMDSP_V32BIS_SBAR,	/* C, D, C, D */
	SMDSP_V32BIS_TRN,	/* scrambled ones to A, B, C, D (the first 256 symbols A and C) */
	SMDSP_V32BIS_R,		/* a rate sequence (arg: the word) repeated, at 4800 bit/s */
	SMDSP_V32BIS_E,		/* one E word (arg), then what is queued */
	SMDSP_V32BIS_B1,	/* scrambled ones at the rate (arg, bit/s; | SMDSP_V32BIS_B1_UNCODED) */
	SMDSP_V32BIS_DATA,	/* the user's bits at the rate of B1 */
};

/* Rates, as a set: what a rate word offers or selects. */
#define SMDSP_V32BIS_4800	0x01u
#define SMDSP_V32BIS_7200	0x02u
#define SMDSP_V32BIS_9600	0x04u
#define SMDSP_V32BIS_12000	0x08u
#define SMDSP_V32BIS_14400	0x10u
#define SMDSP_V32BIS_ALL	0x1fu
/*
 * Not a rate: in a set, no trellis code (a word's B8 = 0, V.32's
 * alternative every 9600 bit/s modem must interwork with): of the rates
 * only 4800 and 9600, 9600 on V.32's 16 points. A word with B6 and not B8
 * reads as 9600 | SMDSP_V32BIS_UNCODED.
 */
#define SMDSP_V32BIS_UNCODED	0x20u
/* with B1's rate (9600): the 16 points of V.32's uncoded 9600 bit/s */
#define SMDSP_V32BIS_B1_UNCODED	0x8000u

/*
 * Rate words (V.32's rate signals, their bits as V.32bis gives them): bit k
 * holds Bk, B0 sent first.
 * B0-B3 are 0000 in R1/R2/R3 and 1111 in E; B7, B11 and B15 are always
 * 1; B8 says the trellis code is on offer; B5 4800, B6 9600, B9 7200, B10
 * 12000, B12 14400 bit/s. B4 is sent as 1, as a real V.32bis modem was
 * heard to (its R2: 0x9ff0); B4, B13 and B14 are not read.
 */
#define SMDSP_V32BIS_RW_SYNC	0x8880u	/* B7, B11, B15 */
#define SMDSP_V32BIS_RW_HEAD	0x000fu	/* B0-B3 */
#define SMDSP_V32BIS_RW_TCM	0x0100u	/* B8 */
#define SMDSP_V32BIS_RW_B4	0x0010u

/*
 * The R word offering rates (a set of SMDSP_V32BIS_*, B8 set with a
 * trellis rate unless SMDSP_V32BIS_UNCODED); E: the E word selecting them.
 */
uint16_t smdsp_v32bis_rword(unsigned int rates, bool e);
/*
 * The rates a word offers; -1 if it is not a rate word. *e: it is an E
 * word. B8 = 0: no trellis rate, 9600 with SMDSP_V32BIS_UNCODED.
 */
int smdsp_v32bis_rword_rates(uint16_t w, bool *e);
/*
 * The rates two sets (two ends' words) share: uncoded if either is (a
 * modem without the trellis code sets B8 = 0; the other falls back to it).
 */
unsigned int smdsp_v32bis_common(unsigned int a, unsigned int b);
/* The fastest rate of a set in bit/s (0 for none), and the set bit of a rate (0 if none). */
unsigned int smdsp_v32bis_best(unsigned int rates);
unsigned int smdsp_v32bis_rate_bit(unsigned int bps);
/*
 * The scramblers: the caller's GPC 1 + x^-18 + x^-23, the answerer's GPA
 * 1 + x^-5 + x^-23; reg holds the last 23 line bits, the newest in bit 0.
 */
int smdsp_v32bis_scramble(uint32_t *reg, int bit, bool gpc);
int smdsp_v32bis_descramble(uint32_t *reg, int bit, bool gpc);

struct smdsp_v32bis_tx;

/*
 * caller: the calling modem's transmitter (GPC), else the answerer's (GPA);
 * level in tenths of dBm0. It starts silent.
 */
struct smdsp_v32bis_tx *smdsp_v32bis_tx_create(bool caller, int level_dbm0_10,
					       smdsp_get_bit_fn get_bit,
					       smdsp_status_fn status_fn, void *user);
void smdsp_v32bis_tx_free(struct smdsp_v32bis_tx *s);
/* Silent again, the queue empty, same role, level and callbacks. */
void smdsp_v32bis_tx_reset(struct smdsp_v32bis_tx *s);
int smdsp_v32bis_tx_print(const struct smdsp_v32bis_tx *s, char *buf, size_t len);
/*
 * Queues a signal for syms symbols (0: until the next one is queued or
 * sent); arg: the R or E word, the rate of B1. When the queue runs dry the
 * last signal goes on (silence after E). 0, or -EINVAL for a bad rate or a
 * full queue.
 */
int smdsp_v32bis_tx_queue(struct smdsp_v32bis_tx *s, enum smdsp_v32bis_sig sig,
			  unsigned int syms, unsigned int arg);
/*
 * As smdsp_v32bis_tx_queue(), but from the next symbol (after a rate
 * sequence, from the end of its word): what was queued is dropped.
 */
int smdsp_v32bis_tx_send(struct smdsp_v32bis_tx *s, enum smdsp_v32bis_sig sig,
			 unsigned int syms, unsigned int arg);
/* The signal going out and the symbols sent since it began. */
enum smdsp_v32bis_sig smdsp_v32bis_tx_signal(const struct smdsp_v32bis_tx *s, uint32_t *syms);
/* Symbols sent since create or reset. */
uint32_t smdsp_v32bis_tx_symbols(const struct smdsp_v32bis_tx *s);
void smdsp_v32bis_tx_process(struct smdsp_v32bis_tx *s, int16_t *out, unsigned int n);

#define SMDSP_V32BIS_UNIT 512	/* the demodulator's constellation unit */

/* What the receiver saw (smdsp_v32bis_rx_state()). */
enum smdsp_v32bis_rx_state {
	SMDSP_V32BIS_RX_IDLE,	/* no carrier, or looking for S */
	SMDSP_V32BIS_RX_S,	/* following S */
	SMDSP_V32BIS_RX_SBAR,
	SMDSP_V32BIS_RX_TRN,	/* training on TRN */
	SMDSP_V32BIS_RX_R,	/* a rate word seen twice */
	SMDSP_V32BIS_RX_B1,	/* E seen: B1 at its rate */
	SMDSP_V32BIS_RX_DATA,
};

struct smdsp_v32bis_rx;

/*
 * caller: the calling modem's receiver (it hears the answerer: GPA),
 * else the answerer's (GPC).
 */
struct smdsp_v32bis_rx *smdsp_v32bis_rx_create(bool caller, smdsp_put_bit_fn put_bit,
					       smdsp_status_fn status_fn, void *user);
void smdsp_v32bis_rx_free(struct smdsp_v32bis_rx *s);
/* Back to looking for S. */
void smdsp_v32bis_rx_reset(struct smdsp_v32bis_rx *s);
int smdsp_v32bis_rx_print(const struct smdsp_v32bis_rx *s, char *buf, size_t len);
void smdsp_v32bis_rx_process(struct smdsp_v32bis_rx *s, const int16_t *x, unsigned int n);
enum smdsp_v32bis_rx_state smdsp_v32bis_rx_state(const struct smdsp_v32bis_rx *s);
/* The last rate word received twice in a row (R1/R2/R3), 0 if none yet. */
uint16_t smdsp_v32bis_rx_rword(const struct smdsp_v32bis_rx *s);
/* The data rate E selected (bit/s), 0 before E; and whether the data is trellis-coded. */
unsigned int smdsp_v32bis_rx_rate(const struct smdsp_v32bis_rx *s);
bool smdsp_v32bis_rx_trellis(const struct smdsp_v32bis_rx *s);
bool smdsp_v32bis_rx_trained(const struct smdsp_v32bis_rx *s);
/* The mean squared error of the decisions, in dB under the constellation's mean power (tenths). */
int smdsp_v32bis_rx_snr_10(const struct smdsp_v32bis_rx *s);

/*
 * The duplex modem: the start-up between a caller and an answerer (V.32's
 * sequence, the answer tone being its user's), then the data both ways at
 * the rate the two ends agreed on.
 */
enum smdsp_v32bis_phase {
	SMDSP_V32BIS_PH_TONES,		/* AA, AC, CA, CC: the round trip */
	SMDSP_V32BIS_PH_TRAIN,		/* S, S-bar, TRN and the rate words, both ways */
	SMDSP_V32BIS_PH_DATA,
	SMDSP_V32BIS_PH_FAILED,		/* no start-up within SMDSP_V32BIS_STARTUP_MS */
};

#define SMDSP_V32BIS_STARTUP_MS 15000

struct smdsp_v32bis_config {
	bool caller;
	/*
	 * the rates this end offers (SMDSP_V32BIS_*), 0: all; with
	 * SMDSP_V32BIS_UNCODED a V.32 modem without the trellis code (4800
	 * and uncoded 9600)
	 */
	unsigned int rates;
	int level_dbm0_10;	/* 0: -13 dBm0 */
	smdsp_get_bit_fn get_bit;
	smdsp_put_bit_fn put_bit;
	smdsp_status_fn status_fn;	/* TRAINING, TRAINED (data both ways), TRAINING_FAILED */
	void *user;
	/*
	 * The echo canceller (on unless four_wire): echo_latency is the samples
	 * from a sample leaving smdsp_v32bis_process() in tx to the earliest
	 * instant its echo can be in rx (the period of the I/O loop); 0: the
	 * length of the first smdsp_v32bis_process() call. A latency longer
	 * than SMDSP_V32BIS_MAX_LATENCY leaves the canceller off: one whose
	 * near window sat anywhere else would cancel nothing, and would learn
	 * the far end's signal where it expects silence.
	 */
	bool four_wire;
	int echo_latency;
};

/* the longest echo_latency the canceller can run at (its history less a block) */
#define SMDSP_V32BIS_MAX_LATENCY 8152

struct smdsp_v32bis;

struct smdsp_v32bis *smdsp_v32bis_create(const struct smdsp_v32bis_config *c);
void smdsp_v32bis_free(struct smdsp_v32bis *s);
/* The start-up from its beginning, same configuration. */
void smdsp_v32bis_reset(struct smdsp_v32bis *s);
int smdsp_v32bis_print(const struct smdsp_v32bis *s, char *buf, size_t len);
/* n samples heard in rx, n to send out in tx. */
void smdsp_v32bis_process(struct smdsp_v32bis *s, const int16_t *rx, int16_t *tx, unsigned int n);
/*
 * n more samples to send with nothing received (the I/O loop's output
 * moved further ahead of its input): the transmitter goes on, the
 * canceller's line takes them, the start-up's time does not move.
 */
void smdsp_v32bis_fill(struct smdsp_v32bis *s, int16_t *tx, unsigned int n);
/*
 * The canceller's latency in samples (0: not known yet), -1 without a
 * canceller (4-wire): echo_latency, or later where the start-up found its
 * near echo beyond it; and the near echo's delay the start-up timed (the
 * first block it came back in, samples after the tone it echoes; -1: none
 * found).
 */
int smdsp_v32bis_echo_latency(const struct smdsp_v32bis *s);
int smdsp_v32bis_near_delay(const struct smdsp_v32bis *s);
enum smdsp_v32bis_phase smdsp_v32bis_phase(const struct smdsp_v32bis *s);
/* The data rate both ways (bit/s), 0 before it is agreed; and whether its data is trellis-coded. */
unsigned int smdsp_v32bis_rate(const struct smdsp_v32bis *s);
bool smdsp_v32bis_trellis(const struct smdsp_v32bis *s);
/* The round trip measured with the phase reversals, in samples (-1 before). */
int smdsp_v32bis_rtd(const struct smdsp_v32bis *s);
/* The rates the far end offered (R1 or R2) and the SNR this end measured on TRN (tenths of dB). */
unsigned int smdsp_v32bis_far_rates(const struct smdsp_v32bis *s);
int smdsp_v32bis_trn_snr_10(const struct smdsp_v32bis *s);
/*
 * In the data: the start-up again from the tones (status RETRAIN, then
 * TRAINED at the rate the line allows now). Also started by the far end's
 * retrain, or by this end when its SNR stays under the rate's need for 1 s.
 */
void smdsp_v32bis_retrain(struct smdsp_v32bis *s);
/* On (the default) or off: the retrain by itself when the SNR stays under the rate's need. */
void smdsp_v32bis_set_auto_retrain(struct smdsp_v32bis *s, bool on);
unsigned int smdsp_v32bis_retrains(const struct smdsp_v32bis *s);
/*
 * The echo canceller: its ERLE (dB, Q8) at the end of the last window in
 * which it trained (0 before, or on a 4-wire line), and its state line.
 */
int smdsp_v32bis_echo_erle_db_q8(const struct smdsp_v32bis *s);
int smdsp_v32bis_echo_print(const struct smdsp_v32bis *s, char *buf, size_t len);
/*
 * V.32bis's rate renegotiation, in the data: S, S-bar and the rate
 * sequence R4 (rates, SMDSP_V32BIS_*, within this end's; 0: what this end's
 * data allows), the far end answering with S, S-bar and R5, then E, B1 and
 * the data at the fastest rate of both, without a training (status
 * TRAINED again, the new rate in smdsp_v32bis_rate()). No common rate:
 * the cleardown (rate words with no rate), then the phase FAILED. No answer
 * within SMDSP_V32BIS_RENEG_MS: a retrain. 0, or -EBUSY outside the data.
 */
#define SMDSP_V32BIS_RENEG_MS 3000
int smdsp_v32bis_renegotiate(struct smdsp_v32bis *s, unsigned int rates);
/*
 * On (the default): a data SNR (or raw error rate) too poor for the rate
 * renegotiates down, one good enough for a higher one up; off: too poor
 * retrains (if the auto retrain is on), never up.
 */
void smdsp_v32bis_set_auto_reneg(struct smdsp_v32bis *s, bool on);
/*
 * Renegotiations done (either end's), those this end asked for, and those
 * that fell back to a retrain.
 */
unsigned int smdsp_v32bis_renegs(const struct smdsp_v32bis *s);
unsigned int smdsp_v32bis_reneg_asked(const struct smdsp_v32bis *s);
unsigned int smdsp_v32bis_reneg_fails(const struct smdsp_v32bis *s);
/* A cleardown was sent or heard (the phase is then FAILED). */
bool smdsp_v32bis_cleared(const struct smdsp_v32bis *s);
/*
 * The rates an SNR (tenths of dB, the receiver's estimate on TRN) allows;
 * uncoded: in a call without the trellis code, whose 9600 needs more.
 */
unsigned int smdsp_v32bis_snr_rates(int snr_10, bool uncoded);

#endif /* SMDSP_V32BIS_H */
