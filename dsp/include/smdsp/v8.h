/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.8 start-up at the bit level: CI, CM, JM and CJ over V.21 bit streams,
 * selecting the modulation. The V.21 modulator/demodulator and the answer
 * tone generator/detector belong to the caller of this block:
 *
 *   - smdsp_v8_tx_signal() says what to send now (silence, ANSam, or V.21
 *     on channel smdsp_v8_tx_channel() with bits from smdsp_v8_get_bit());
 *   - V.21 bits demodulated from the other channel go to smdsp_v8_put_bit();
 *   - a calling modem reports the answer tone it hears with
 *     smdsp_v8_answer_tone() (ANSam: V.8 follows; plain ANS: no V.8; a
 *     2100 Hz tone not yet told apart: CI pauses until it is, or until
 *     the tone is gone);
 *   - smdsp_v8_advance() passes time, in samples.
 */
#ifndef SMDSP_V8_H
#define SMDSP_V8_H

#include <smdsp/compat.h>

/* modulation modes (V.8 modulation category) */
#define SMDSP_V8_MOD_V17	(1u << 0)
#define SMDSP_V8_MOD_V21	(1u << 1)
#define SMDSP_V8_MOD_V22	(1u << 2)	/* V.22 and V.22bis */
#define SMDSP_V8_MOD_V23HDX	(1u << 3)
#define SMDSP_V8_MOD_V23	(1u << 4)
#define SMDSP_V8_MOD_V26BIS	(1u << 5)
#define SMDSP_V8_MOD_V26TER	(1u << 6)
#define SMDSP_V8_MOD_V27TER	(1u << 7)
#define SMDSP_V8_MOD_V29	(1u << 8)
#define SMDSP_V8_MOD_V32	(1u << 9)	/* V.32 and V.32bis */
#define SMDSP_V8_MOD_V34HDX	(1u << 10)
#define SMDSP_V8_MOD_V34	(1u << 11)
#define SMDSP_V8_MOD_V90	(1u << 12)	/* PCM */

#define SMDSP_V8_CALL_V_SERIES	6		/* call function: V-series data */

enum smdsp_v8_tx_signal {
	SMDSP_V8_TX_SILENCE = 0,
	SMDSP_V8_TX_ANSAM,
	SMDSP_V8_TX_V21,
};

enum smdsp_v8_tone {
	SMDSP_V8_TONE_NONE = 0,		/* no answer tone (any more) */
	SMDSP_V8_TONE_ANS,		/* 2100 Hz, with or without phase reversals */
	SMDSP_V8_TONE_ANSAM,		/* 2100 Hz, 15 Hz AM, with or without reversals */
	SMDSP_V8_TONE_HEARD,		/* 2100 Hz, not yet known to be either */
};

enum smdsp_v8_status {
	SMDSP_V8_IN_PROGRESS = 0,
	SMDSP_V8_DONE,			/* negotiated: start result.selected */
	SMDSP_V8_NON_V8,		/* the peer does not do V.8: fall back (V.25) */
	SMDSP_V8_FAILED,		/* V.8 started but did not complete */
};

struct smdsp_v8_config {
	int calling;
	unsigned int modulations;	/* SMDSP_V8_MOD_* we can run */
	int call_function;		/* 0: V-series data */
	int lapm;			/* offer V.42 LAPM */
	int send_ci;			/* calling: send CI until the answer tone */
	uint32_t sample_rate;		/* 0: 8000 */
};

struct smdsp_v8_result {
	int status;
	unsigned int peer_modulations;	/* in CM (answering) or JM (calling) */
	unsigned int common;		/* what both ends can run */
	unsigned int selected;		/* one SMDSP_V8_MOD_* bit, 0 if none */
	int call_function;
	int peer_lapm;
	int lapm;			/* both ends offered LAPM */
	uint32_t cm_seen;		/* CM/JM messages received */
	uint32_t ci_seen;
};

struct smdsp_v8;

struct smdsp_v8 *smdsp_v8_create(const struct smdsp_v8_config *cfg);
void smdsp_v8_free(struct smdsp_v8 *s);
/*
 * A new negotiation on the same instance (allocates nothing), as if just
 * created with cfg. Returns 0, or -EINVAL (nothing changed) for a bad cfg.
 */
int smdsp_v8_reset(struct smdsp_v8 *s, const struct smdsp_v8_config *cfg);
int smdsp_v8_tx_signal(const struct smdsp_v8 *s);
/* 1: V.21 channel 1 (calling modem), 2: channel 2 (answering modem) */
int smdsp_v8_tx_channel(const struct smdsp_v8 *s);
int smdsp_v8_get_bit(struct smdsp_v8 *s);
void smdsp_v8_put_bit(struct smdsp_v8 *s, int bit);
void smdsp_v8_advance(struct smdsp_v8 *s, unsigned int samples);
void smdsp_v8_answer_tone(struct smdsp_v8 *s, int tone);
int smdsp_v8_status(const struct smdsp_v8 *s);
void smdsp_v8_get_result(const struct smdsp_v8 *s, struct smdsp_v8_result *r);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v8_print(const struct smdsp_v8 *s, char *buf, size_t len);
/* the preferred mode among mods, 0 if none we know */
unsigned int smdsp_v8_select(unsigned int mods);

#endif /* SMDSP_V8_H */
