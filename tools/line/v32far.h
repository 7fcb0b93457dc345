/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The far modem's V.32bis pump: the project's own V.32bis (dsp/v32bis.c;
 * there is no other working one to take), with V.32bis's automode to
 * SpanDSP's V.22bis for a modem without V.32bis. It looks like SpanDSP's
 * pumps to modem.c: bits through get_bit/put_bit, statuses as negative
 * put_bit values (SIG_STATUS_*), so SpanDSP's V.42 runs over it as over
 * its own V.22bis.
 */
#ifndef SML_V32FAR_H
#define SML_V32FAR_H

#include <stdbool.h>
#include <stdint.h>

struct sml_v32far_cfg {
	bool caller;
	bool v32;		/* V.32's rates only (4800, 9600), else 4800-14400 */
	/*
	 * Automode: the answerer sends AC and, hearing no AA within 3 s,
	 * answers as V.22bis; the caller listens for AC and for V.22bis's
	 * unscrambled ones alike.
	 */
	bool v22_fallback;
	double tx_dbm0;
	double cutoff_dbm0;	/* SpanDSP V.22bis's carrier cutoff */
	/*
	 * The far modem's own I/O loop: samples from what it sends to the
	 * soonest its echo could be back in what it hears (smline's block:
	 * a block's output goes out as the next comes in); its echo
	 * canceller sits there. 0: the length of the first block.
	 */
	int echo_latency;
	int (*get_bit)(void *user);
	void (*put_bit)(void *user, int bit);	/* bit < 0: a SIG_STATUS_* */
	void *user;
};

struct sml_v32far;

struct sml_v32far *sml_v32far_new(const struct sml_v32far_cfg *cfg);
void sml_v32far_free(struct sml_v32far *f);
/* rx: n samples heard; tx: n samples to send (always filled) */
void sml_v32far_process(struct sml_v32far *f, const int16_t *rx, int16_t *tx, int n);
/* The data rate (bit/s), 0 before the data. */
int sml_v32far_rate(const struct sml_v32far *f);
/* The automode went to V.22bis. */
bool sml_v32far_is_v22(const struct sml_v32far *f);
/* V.32bis retrains in the data (either end's). */
unsigned int sml_v32far_retrains(const struct sml_v32far *f);

#endif /* SML_V32FAR_H */
