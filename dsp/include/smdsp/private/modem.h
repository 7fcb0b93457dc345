/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the modem engine's three files: the state behind
 * <smdsp/modem.h> and what each file calls in another.  modem.c holds the
 * object (create, configure, the FIFOs, the events) and the byte stream over
 * the modulation (async framing, V.42 and its detection); modem_phase.c the
 * call-phase machine (on hook to connected, each chunk of audio) and the
 * pumps it starts; modem_v8.c V.8, between the answer tone and the pump.
 * No other block includes it.
 */
#ifndef SMDSP_PRIVATE_MODEM_H
#define SMDSP_PRIVATE_MODEM_H

#include <smdsp/modem.h>
#include <smdsp/private/tone.h>
#include <smdsp/private/dtmf.h>
#include <smdsp/private/anstone.h>
#include <smdsp/private/ring.h>
#include <smdsp/private/callprog.h>
#include <smdsp/private/fsk.h>
#include <smdsp/private/v22bis.h>
#include <smdsp/private/v32bis.h>
#include <smdsp/private/v34.h>
#include <smdsp/v34_mod.h>
#include <smdsp/async.h>
#include <smdsp/v42.h>
#include <smdsp/v8.h>

#define FIFO_SIZE	4096	/* power of two */
#define EVQ_SIZE	32
#define MS(ms)		((uint32_t)(ms) * (SMDSP_RATE / 1000))

/*
 * A break in the loop shorter than this is a hook flash to the exchange, not
 * a clear-down: a dial right after a hang-up stays on hook until the line
 * has seen this much of it (smline clears after 300 ms of open loop).
 */
#define HOOK_GUARD	MS(1000)

/* async characters that arrive while V.42 detection runs: 3.5 s at 2400 bit/s */
#define DET_BUF		1024

/*
 * V.34's highest rate, either way: each receiver chooses from its trained
 * error up to it (v34_train_rx.c; test_modem_v34 reaches it on clean lines,
 * 4-wire and 2-wire, without a V.42 retransmission).
 */
#define V34_CEILING	33600

enum data_pump {
	PUMP_NONE = 0,
	PUMP_V21,
	PUMP_V22,
	PUMP_V32,	/* V.32 or V.32bis, start-up included */
	PUMP_V34,	/* V.34 from phase 2 on (after V.8) */
};

enum v8_run {
	V8_IDLE = 0,		/* not used in this call, or over */
	V8_RUNNING,
};

/* Where the dial string is, in the dialling phase. */
enum dial_step {
	DIAL_TONES = 0,		/* DTMF up to the next ',' or 'W' */
	DIAL_PAUSE,		/* ',' */
	DIAL_WAIT_TONE,		/* 'W': listening for a dial tone */
};

struct fifo {
	uint8_t buf[FIFO_SIZE];
	unsigned int head;	/* written by the producer */
	unsigned int tail;
};

struct smdsp_modem {
	struct smdsp_modem_config cfg;
	enum smdsp_modem_phase phase;
	uint32_t now;		/* samples since create (wraps after 6 days) */
	uint32_t t;		/* samples in this phase */
	uint32_t onhook_t;	/* samples on hook, up to HOOK_GUARD */
	uint32_t hook_wait;	/* a dial's remaining wait on hook */
	uint32_t async_idle;	/* mark bits still to send before async data */
	bool calling;
	bool tone_done;		/* answerer: ANS sent / caller: ANS heard and gone */
	bool tone_started;	/* answerer: the billing delay is over */
	uint32_t tone_end;	/* caller: phase time when the answer tone stopped */
	enum data_pump pump;
	unsigned int rate;
	/* this call's last rates each way (the stats'; V.34's differ) */
	uint32_t tx_rate;
	uint32_t rx_rate;
	char digits[64];
	unsigned int dial_pos;	/* next character of digits[] */
	enum dial_step dial_step;
	uint32_t dial_t;	/* samples into the pause or the wait */

	struct smdsp_ring ring;
	struct smdsp_callprog cpt;
	struct smdsp_dtmf_tx dtmf;
	struct smdsp_anstone_rx ans_rx;
	struct smdsp_tone ans_tx;
	struct smdsp_fsk_tx fsk_tx;
	struct smdsp_fsk_rx fsk_rx;
	uint32_t fsk_carrier_t;
	struct smdsp_v22bis v22;
	struct smdsp_v32bis v32;
	/* caller without V.8: V.32bis's start-up listens for AC beside V.22bis */
	bool v32_listen;
	bool v32_heard;		/* its start-up began: AC heard (caller), AA heard (answerer) */
	/* answerer without V.8: AC, then V.22bis if no AA came */
	bool v32_auto;
	bool v32_used;		/* this call: V.32bis's start-up ran (its canceller's figures) */
	/* V.34: made at create (2-wire, so either line), configured per call */
	struct smdsp_v34 *v34;
	bool v34_used;		/* this call: V.34 ran (its figures in the stats) */
	/* caller after V.8: V.22bis's receiver beside phase 2, for a JM that named V.34 falsely */
	bool v34_listen;
	unsigned int last_n;	/* the last smdsp_modem_process() call's length */
	struct smdsp_async_tx *atx;
	struct smdsp_async_rx *arx;

	/* V.8 */
	struct smdsp_v8 *v8;
	enum v8_run v8_run;
	bool v8_used;
	bool v8_lapm;		/* V.8 agreed on LAPM: V.42 without detection */
	bool v8_no_lapm;	/* V.8 ran and LAPM is not on */
	int v8_sig;		/* what was sent in the previous chunk */

	/* the byte stream over the modulation */
	enum smdsp_modem_link link;
	bool link_up;		/* started in this call (kept through retrains) */
	struct smdsp_v42 *v42;
	int v42_status;		/* last seen; -1: no V.42 in this call */
	uint8_t det_buf[DET_BUF];
	unsigned int det_len;
	uint32_t det_dropped;
	uint32_t odp_echoed;
	bool odp_echo;		/* our ODP may still come back, until odp_echo_end */
	uint32_t odp_echo_end;
	uint32_t carrier_losses;
	uint32_t rx_overruns;

	struct fifo txq;
	struct fifo rxq;
	struct smdsp_modem_event evq[EVQ_SIZE];
	unsigned int ev_head;
	unsigned int ev_tail;
};

/* modem.c: the object and the byte stream */
void smdsp_modem_put_event(struct smdsp_modem *m, enum smdsp_modem_event_type type, uint32_t arg);
void smdsp_modem_set_phase(struct smdsp_modem *m, enum smdsp_modem_phase p, uint32_t arg);
int smdsp_modem_data_get_bit(void *user);
void smdsp_modem_data_put_bit(void *user, int bit);
void smdsp_modem_link_start(struct smdsp_modem *m);
void smdsp_modem_link_service(struct smdsp_modem *m);

/* modem_phase.c: the pumps and the end of a call */
void smdsp_modem_start_v22(struct smdsp_modem *m);
void smdsp_modem_start_v21(struct smdsp_modem *m);
unsigned int smdsp_modem_v32_rates(const struct smdsp_modem *m);
bool smdsp_modem_has_v22(const struct smdsp_modem *m);
void smdsp_modem_init_v32(struct smdsp_modem *m);
void smdsp_modem_start_v32(struct smdsp_modem *m);
unsigned int smdsp_modem_v34_max(const struct smdsp_modem *m);
bool smdsp_modem_start_v34(struct smdsp_modem *m, bool listen_v22);
unsigned int smdsp_modem_v34_rx_rate(const struct smdsp_modem *m);
void smdsp_modem_end_call(struct smdsp_modem *m, enum smdsp_modem_cause cause);
void smdsp_modem_legacy_answer(struct smdsp_modem *m);

/* modem_v8.c */
bool smdsp_modem_v8_start(struct smdsp_modem *m);
void smdsp_modem_v8_chunk(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n);
void smdsp_modem_v8_end(struct smdsp_modem *m);
void smdsp_modem_v8_answerer(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n);
void smdsp_modem_do_v8(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n);

#endif /* SMDSP_PRIVATE_MODEM_H */
