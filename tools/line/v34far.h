/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The far modem's V.34 pump: the project's own V.34 end (dsp/v34.c) from
 * the silence after V.8 to the data, 2-wire with its echo canceller. It
 * looks like SpanDSP's pumps to modem.c, as v32far.c does: bits through
 * get_bit/put_bit, statuses as negative put_bit values (SIG_STATUS_*), so
 * SpanDSP's V.42 runs over it.
 */
#ifndef SML_V34FAR_H
#define SML_V34FAR_H

#include <stdbool.h>
#include <stdint.h>

struct sml_v34far_cfg {
	bool caller;
	double tx_dbm0;
	/* the most this end sends or takes, bit/s (2400 steps; 0: 33600) */
	unsigned int max_rate;
	/*
	 * As v32far's: the far modem's I/O loop, samples from what it sends
	 * to the soonest its echo can be back in what it hears (0: the length
	 * of the first block).
	 */
	int echo_latency;
	int (*get_bit)(void *user);
	void (*put_bit)(void *user, int bit);	/* bit < 0: a SIG_STATUS_* */
	void *user;
};

/* What the call settled, for the call record (0 where not yet known). */
struct sml_v34far_info {
	unsigned int rate_tx, rate_rx;	/* bit/s: ours to the modem, the modem's to us */
	unsigned int baud_tx, baud_rx;	/* symbol rates, rounded to the baud (3429 for 3428.57) */
	bool high_tx, high_rx;		/* the high carrier of Table 1 */
	int rtd_samples;		/* phase 2's round trip (-1: none) */
	int erle_db10;			/* the echo canceller's ERLE, tenths of dB */
	int mse_db10;			/* our receiver's decision error below the signal as the data began, tenths of dB */
	/* the rates as the data first began (0: not yet), beside the last above */
	unsigned int rate_tx_start, rate_rx_start;
	/* the data mode's rate renegotiations and retrains, either end's */
	unsigned int renegs, retrains;
	/* the nonlinear encoder (9.7) and expanded shaping each way, as the last MPs settled */
	bool nonlinear_tx, nonlinear_rx, expanded_tx, expanded_rx;
};

struct sml_v34far;

struct sml_v34far *sml_v34far_new(const struct sml_v34far_cfg *cfg);
void sml_v34far_free(struct sml_v34far *f);
/* rx: n samples heard; tx: n samples to send (always filled) */
void sml_v34far_process(struct sml_v34far *f, const int16_t *rx, int16_t *tx, int n);
/* The rate we send at (bit/s), 0 before the data. */
int sml_v34far_rate(const struct sml_v34far *f);
void sml_v34far_info(const struct sml_v34far *f, struct sml_v34far_info *info);
/* NULL while the start-up runs or went well, else why it failed (before the data). */
const char *sml_v34far_failed(const struct sml_v34far *f);

#endif /* SML_V34FAR_H */
