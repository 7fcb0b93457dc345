/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34 phase 2: the round-trip delay, measured with tones A and B and their
 * phase reversals (11.2.1), from either end.
 *
 * The answer modem sends tone A and reverses it (A-bar) when its procedure
 * says so (INFO0c received, A sent for at least 50 ms: smdsp_v34_rtd_start());
 * the call modem, sending tone B, answers the reversal it hears with one of
 * B 40 ms later, then goes silent after 10 ms of B-bar. The answer modem's
 * round trip is the time from its reversal leaving to B's reversal arriving,
 * less those 40 ms; it then reverses A again 40 ms after B's reversal
 * arrived, and the call modem's round trip is the time from its reversal
 * leaving to that second one arriving, less 40 ms. The answer modem stops
 * tone A 10 ms after its second reversal (where L1 would follow).
 *
 * The 40 ms are kept between the reversals on the line: each end counts
 * back its own receiver's delay from a reversal it hears (the matched
 * filter's 39 samples) and its transmitter's (the pulse's 40) when it
 * answers, and the answer goes out on the 600 baud symbol nearest the
 * instant, within 0.9 ms (V.34 allows 1 ms).
 */
#ifndef SMDSP_V34_RTD_H
#define SMDSP_V34_RTD_H

#include <smdsp/compat.h>

enum smdsp_v34_rtd_state {
	SMDSP_V34_RTD_TONE = 0,	/* sending the tone, no reversal yet */
	SMDSP_V34_RTD_WAIT,	/* reversed, waiting for the far end's */
	SMDSP_V34_RTD_DONE,	/* measured; the answer modem's second reversal sent */
	SMDSP_V34_RTD_FAILED,	/* no reversal came within 3 s */
};

#define SMDSP_V34_RTD_TURN 320		/* the far end answers 40 ms after a reversal */
#define SMDSP_V34_RTD_TIMEOUT 24000	/* samples without the far end's reversal: failed */

struct smdsp_v34_rtd;

/* calling: the call modem (tone B, hears A); level: the tone's, tenths of dBm0. */
struct smdsp_v34_rtd *smdsp_v34_rtd_create(bool calling, int level_dbm0_10);
void smdsp_v34_rtd_free(struct smdsp_v34_rtd *s);
void smdsp_v34_rtd_reset(struct smdsp_v34_rtd *s);
int smdsp_v34_rtd_print(const struct smdsp_v34_rtd *s, char *buf, size_t len);
/* The answer modem reverses tone A now; -EINVAL for the call modem or after it was done. */
int smdsp_v34_rtd_start(struct smdsp_v34_rtd *s);
/* rx: what the line brings (n samples); tx: what to send. */
void smdsp_v34_rtd_process(struct smdsp_v34_rtd *s, const int16_t *rx, int16_t *tx, unsigned int n);
enum smdsp_v34_rtd_state smdsp_v34_rtd_state(const struct smdsp_v34_rtd *s);
/* The round trip in samples (8000 a second), -1 until measured. */
int32_t smdsp_v34_rtd_samples(const struct smdsp_v34_rtd *s);
/* The far end's tone is heard. */
bool smdsp_v34_rtd_far_tone(const struct smdsp_v34_rtd *s);

#endif /* SMDSP_V34_RTD_H */
