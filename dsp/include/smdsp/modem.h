/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modem engine: one call per audio period, a byte stream in and out,
 * and an event for every change of phase.
 */
#ifndef SMDSP_MODEM_H
#define SMDSP_MODEM_H

#include <smdsp/compat.h>
#include <smdsp/callprog.h>
#include <smdsp/async.h>
#include <smdsp/v42.h>
#include <smdsp/v8.h>
#include <smdsp/v34.h>

#define SMDSP_MODEM_RATE	8000

/* Modulations (config.modulations) */
#define SMDSP_MODEM_V21		(1u << 0)
#define SMDSP_MODEM_V22		(1u << 1)	/* 1200 bit/s */
#define SMDSP_MODEM_V22BIS	(1u << 2)	/* 2400 bit/s (with V.22 fallback) */
#define SMDSP_MODEM_V32		(1u << 3)	/* V.32: 4800 and 9600 bit/s */
#define SMDSP_MODEM_V32BIS	(1u << 4)	/* V.32bis: 4800 to 14400 bit/s */
#define SMDSP_MODEM_V34		(1u << 5)	/* V.34 after V.8: 2400 to 28800 bit/s here */
/* what config.modulations 0 means: the modulations that came before V.32 */
#define SMDSP_MODEM_DEFAULT	(SMDSP_MODEM_V21 | SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS)

enum smdsp_modem_phase {
	SMDSP_PHASE_ONHOOK = 0,		/* idle: ring detection */
	SMDSP_PHASE_OFFHOOK,		/* off hook, waiting for dial tone */
	SMDSP_PHASE_DIALING,
	SMDSP_PHASE_WAITING,		/* dialled: waiting for the answer */
	SMDSP_PHASE_ANSWER_TONE,	/* sending (answering) or hearing (calling) it */
	SMDSP_PHASE_V8,
	SMDSP_PHASE_TRAINING,
	SMDSP_PHASE_CONNECTED,		/* arg: bit rate */
	SMDSP_PHASE_RETRAIN,
	SMDSP_PHASE_CARRIER_LOST,
	SMDSP_PHASE_HUNGUP,		/* arg: enum smdsp_modem_cause */
	/*
	 * V.34's phase 2 after V.8 (INFO0, tones A and B, the round trip,
	 * line probing and its analysis, INFO1): TRAINING follows with phase
	 * 3's S. Last, so that the trace's numbers above stay; a retrain's
	 * phase 2 is part of RETRAIN.
	 */
	SMDSP_PHASE_PROBING,
};

enum smdsp_modem_event_type {
	SMDSP_EV_PHASE = 1,		/* phase changed: phase, arg */
	SMDSP_EV_RING,			/* arg: rings so far */
	SMDSP_EV_CALL_PROGRESS,		/* arg: enum smdsp_callprog_event */
	SMDSP_EV_ANSWER_TONE,		/* arg: enum smdsp_anstone_kind heard */
	SMDSP_EV_V42,			/* arg: 1 LAPM up, 0 no LAPM (plain async) */
	SMDSP_EV_V8,			/* V.8 over, arg: enum smdsp_v8_status */
};

enum smdsp_modem_cause {
	SMDSP_CAUSE_LOCAL = 0,		/* smdsp_modem_hangup() */
	SMDSP_CAUSE_NO_DIALTONE,
	SMDSP_CAUSE_BUSY,
	SMDSP_CAUSE_NO_ANSWER,
	SMDSP_CAUSE_TRAINING_FAILED,
	SMDSP_CAUSE_CARRIER_LOST,
	SMDSP_CAUSE_V42_RELEASED,
};

struct smdsp_modem_event {
	uint16_t type;
	uint16_t phase;
	uint32_t arg;
	uint32_t time_ms;		/* since the modem was created */
};

/*
 * V.8 (CI, ANSam, CM/JM/CJ) before the modulation: it picks the modulation
 * from config.modulations and whether LAPM runs; a peer without V.8 gets
 * the V.25 start-up (answer tone, then the modulation).
 */
#define SMDSP_MODEM_FLAG_V8	(1u << 0)
/*
 * V.42 LAPM error correction over the modulation, after the ODP/ADP
 * detection phase (skipped when V.8 agreed on LAPM); a peer that does not
 * answer gets plain async 8N1. Without it: async 8N1 (V.14) only.
 */
#define SMDSP_MODEM_FLAG_V42	(1u << 1)
#define SMDSP_MODEM_FLAG_BLIND	(1u << 2)	/* dial without waiting for dial tone */
#define SMDSP_MODEM_FLAG_NO_ANS	(1u << 3)	/* answering: skip the answer tone */

struct smdsp_modem_config {
	uint32_t sample_rate;		/* 8000 */
	/*
	 * SMDSP_MODEM_*; 0: SMDSP_MODEM_DEFAULT. With V.32 or V.32bis and
	 * V.22bis, a peer without V.8 gets V.32bis's automode: the
	 * answerer sends AC for SMDSP_MODEM_AUTO_AC_MS, then V.22bis.
	 * V.34 runs only when V.8 picks it (both ends name it).
	 */
	uint32_t modulations;
	uint32_t flags;			/* SMDSP_MODEM_FLAG_* */
	enum smdsp_callprog_plan tone_plan;
	unsigned int auto_answer_rings;	/* 0: do not answer */
	int tx_level_dbm0_10;		/* 0: -13 dBm0 */
	unsigned int wait_answer_ms;	/* 0: 45000 */
	/* connected: hang up after this long without carrier (0: 1400, as S10) */
	unsigned int carrier_loss_ms;
	/* FLAG_BLIND: off hook this long before the first digit (0: 2000, as S6) */
	unsigned int blind_wait_ms;
	/* no dial tone after this long, off hook or at a 'W': NO_DIALTONE (0: 5000) */
	unsigned int dialtone_wait_ms;
	/* a ',' in the dial string pauses this long (0: 2000, as S8) */
	unsigned int comma_ms;
	/*
	 * V.42bis offered in V.42's XID (AT%C, AT+DS): the directions
	 * (SMDSP_V42BIS_DIR_*, from this end; 0: no V.42bis), P1 (codewords,
	 * 0: 2048, at most SMDSP_MODEM_V42BIS_MAX_P1) and P2 (longest string,
	 * 0: 32). What the peer agreed to: stats.v42.v42bis_*.
	 */
	unsigned int v42bis_dirs;
	unsigned int v42bis_p1;
	unsigned int v42bis_p2;
	/*
	 * The rates offered (+MS's <min_rate>, <max_rate>), in bit/s, 0: no
	 * limit, at most 33600. V.32/V.32bis: a call that can agree on none of
	 * them fails (SMDSP_CAUSE_TRAINING_FAILED). V.34 (offered in V.8 only
	 * when a rate of 2400 x 1-12 lies between them): max_rate rounded down
	 * to 2400's multiple caps both directions, and 28800 does (what our
	 * receiver carries: dsp/README.md); a call whose rate either way
	 * settles under min_rate fails alike.
	 */
	unsigned int min_rate;
	unsigned int max_rate;
	/*
	 * V.32bis's and V.34's echo canceller: the I/O loop's latency, in samples from a
	 * sample leaving smdsp_modem_process() in tx to the earliest its echo
	 * can be in rx (a driver's output lead); 0: the length of the
	 * smdsp_modem_process() call that starts V.32bis or V.34 (a loop that
	 * sends a period's output as the next period comes in). four_wire: no
	 * canceller (a 4-wire line, which has no echo; V.34 then runs its
	 * 4-wire order of phases 3 and 4).
	 */
	unsigned int echo_latency;
	bool four_wire;
};

#define SMDSP_MODEM_AUTO_AC_MS	3000

/* the dictionaries the engine allocates at create: 2 x 4096 entries of 8 bytes */
#define SMDSP_MODEM_V42BIS_MAX_P1	4096

enum smdsp_modem_link {
	SMDSP_LINK_NONE = 0,		/* not connected yet */
	SMDSP_LINK_ASYNC,		/* start-stop 8N1 characters (V.14) */
	SMDSP_LINK_V42,			/* V.42: detection phase or LAPM */
};

/* Figures for the current (or last) call; cleared when a call starts. */
struct smdsp_modem_stats {
	uint32_t link;			/* enum smdsp_modem_link */
	int32_t v42_status;		/* enum smdsp_v42_status; -1 if V.42 did not run */
	uint32_t v8_used;		/* V.8 ran in this call: see v8 */
	uint32_t carrier_losses;	/* carrier gone while connected (held or not) */
	uint32_t rx_overruns;		/* received bytes dropped: the read FIFO was full */
	uint32_t det_dropped;		/* async bytes dropped while V.42 detection held them */
	uint32_t odp_echoed;		/* our own ODP come back from an echoing peer: no data */
	struct smdsp_v8_result v8;
	struct smdsp_async_tx_stats async_tx;
	struct smdsp_async_rx_stats async_rx;	/* framing errors: loss without V.42 */
	struct smdsp_v42_stats v42;	/* retransmissions, REJ/SREJ, CRC errors, ... */
	/*
	 * V.32bis's echo canceller: the latency it ran at (samples; -1: none,
	 * a 4-wire line or a latency it cannot run at; 0: no V.32bis yet) and
	 * its ERLE at the end of its last training (dB, Q8); the round trip
	 * V.32bis measured (samples, -1: none), the loop the far echo is in.
	 */
	int32_t echo_latency;
	int32_t echo_erle_db_q8;
	int32_t v32_rtd;
	/*
	 * Each direction's data rate, bit/s (0: not connected in this call):
	 * what we send and what we receive (smdsp_modem_rate()'s). The same
	 * both ways but in V.34.
	 */
	uint32_t tx_rate;
	uint32_t rx_rate;
	/*
	 * V.34, when it ran in this call (v34_used): its state and why it
	 * failed (enum smdsp_v34_state, enum smdsp_v34_fail), each direction's
	 * symbol rate (baud, rounded: 2400 ... 3429; 0 before phase 2 ended),
	 * phase 2's round trip (samples, -1: none), our receiver's decision
	 * error (dB below the signal, tenths; 0 before phase 3); 2-wire, its
	 * canceller in echo_latency and echo_erle_db_q8 above. v34: all of
	 * its figures (carriers, pre-emphasis, phase 2's rates, bits).
	 */
	uint32_t v34_used;
	uint32_t v34_state;
	uint32_t v34_fail;
	uint32_t tx_baud;
	uint32_t rx_baud;
	int32_t v34_rtd;
	int32_t v34_mse_db10;
	struct smdsp_v34_stats v34;
};

struct smdsp_modem;

/* Allocates everything the modem will need; NULL on failure. */
struct smdsp_modem *smdsp_modem_create(const struct smdsp_modem_config *cfg);
void smdsp_modem_free(struct smdsp_modem *m);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_modem_print(const struct smdsp_modem *m, char *buf, size_t len);
/*
 * A new configuration for the next call (allocates nothing): only on hook,
 * else -EBUSY; -EINVAL for a bad one. sample_rate must stay 8000 (or 0).
 */
int smdsp_modem_configure(struct smdsp_modem *m, const struct smdsp_modem_config *cfg);
/*
 * One period: n received samples in, n samples to send out. Never sleeps
 * and never allocates. Returns 0 or -EINVAL.
 */
int smdsp_modem_process(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n);
/*
 * n more samples to send with nothing received: the signal goes on where
 * the last smdsp_modem_process() left it (the caller's output has moved
 * further ahead of its input, and a gap would be a carrier drop or a hook
 * flash on the line).  Receivers and timers do not move.  Same rules as
 * smdsp_modem_process(): never sleeps, never allocates, not concurrently
 * with it.
 */
void smdsp_modem_tx_fill(struct smdsp_modem *m, int16_t *tx, unsigned int n);
/* Samples per period the current phase wants: 2.5 ms on hook, 12.5 ms otherwise. */
unsigned int smdsp_modem_period(const struct smdsp_modem *m);
enum smdsp_modem_phase smdsp_modem_phase(const struct smdsp_modem *m);
bool smdsp_modem_offhook(const struct smdsp_modem *m);
/* Negotiated data rate in bit/s, 0 when not connected. */
unsigned int smdsp_modem_rate(const struct smdsp_modem *m);

/*
 * Commands. They neither sleep nor allocate, so they may be called from any
 * context, but not concurrently with smdsp_modem_process() on the same modem.
 */
/*
 * digits: 0-9 * # A-D (DTMF), ',' (a pause of cfg.comma_ms), 'W' (wait for
 * a dial tone again, at most cfg.dialtone_wait_ms; busy: SMDSP_CAUSE_BUSY);
 * anything else is skipped.  -EBUSY if not on hook.
 */
int smdsp_modem_dial(struct smdsp_modem *m, const char *digits);
int smdsp_modem_answer(struct smdsp_modem *m);
void smdsp_modem_hangup(struct smdsp_modem *m);

/* Byte stream. Returns the number of bytes taken / given. */
unsigned int smdsp_modem_write(struct smdsp_modem *m, const uint8_t *buf, unsigned int len);
unsigned int smdsp_modem_read(struct smdsp_modem *m, uint8_t *buf, unsigned int len);
unsigned int smdsp_modem_write_space(const struct smdsp_modem *m);
unsigned int smdsp_modem_read_avail(const struct smdsp_modem *m);
/* Next event; returns false when there is none. */
bool smdsp_modem_get_event(struct smdsp_modem *m, struct smdsp_modem_event *ev);
void smdsp_modem_get_stats(const struct smdsp_modem *m, struct smdsp_modem_stats *st);

#endif /* SMDSP_MODEM_H */
