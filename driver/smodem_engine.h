/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data pump's modem engine behind /dev/ttySM<n>: call control from the
 * AT interpreter, the byte streams, phase events and the hook signal.
 */
#ifndef SMODEM_ENGINE_H
#define SMODEM_ENGINE_H

#include <linux/types.h>
#include <linux/string.h>
#include <smdsp/modem.h>
#include "at.h"

struct smodem_dev;
struct smodem_engine;
struct seq_file;

/*
 * Process context, before the device starts processing.  NULL when the
 * pump has no modem engine (a rate other than 8000 Hz, loopback pump):
 * the tty then keeps whatever engine it has.  phase_periods: let the
 * interrupt period follow the phase (smdsp_modem_period()).
 */
struct smodem_engine *smodem_engine_create(struct smodem_dev *sd,
					   bool phase_periods);
/*
 * Process context, once the tty is registered.  smodem_tty_unregister()
 * detaches it (hanging up first).
 */
void smodem_engine_attach(struct smodem_dev *sd);
/* After the processing context has stopped. */
void smodem_engine_free(struct smodem_engine *e);

/*
 * The per-period hooks, from the processing context only, around
 * smdsp_pump_process(): pending commands and the DTE's bytes go in
 * before, the received bytes, the events, the hook signal (added to tx)
 * and the next period's length are handled after.
 */
void smodem_engine_pre(struct smodem_dev *sd);
void smodem_engine_post(struct smodem_dev *sd, s16 *tx, u32 n);

/*
 * Processing context, when the output lead grows: late frames of the
 * growth were played before they could be written, len are filled next,
 * in pieces, by smodem_engine_tx_fill() (the transmitter going on, hook
 * signal included; silence without an engine).
 */
void smodem_engine_tx_gap(struct smodem_dev *sd, u32 len, u32 late);
void smodem_engine_tx_fill(struct smodem_dev *sd, s16 *tx, u32 n);

/* Any context that may sleep: the engine's lines of the stats file. */
void smodem_engine_show(struct smodem_dev *sd, struct seq_file *sf);

/*
 * The pure part of the glue, unit-tested in user space
 * (tests/unit/test_driver_logic.c).
 */

/* Off hook without a dial tone this long, or S6 if longer: NO DIALTONE. */
#define SMODEM_DIALTONE_MS	5000

static inline u32 smodem_engine_modulations(const struct at_call *c)
{
	switch (c->mod) {
	case AT_MOD_V21:
		return SMDSP_MODEM_V21;
	case AT_MOD_V22:
		return SMDSP_MODEM_V22 | (c->automode ? SMDSP_MODEM_V21 : 0);
	default:
		return SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 |
		       (c->automode ? SMDSP_MODEM_V21 : 0);
	}
}

/* \N2 and \N4: a peer without LAPM is no connection. */
static inline bool smodem_engine_ec_required(enum at_ec ec)
{
	return ec == AT_EC_RELIABLE || ec == AT_EC_LAPM;
}

/*
 * The engine's configuration for one call.  S6 is both the blind dialling
 * delay and, when longer than SMODEM_DIALTONE_MS (its 2 s default is too
 * short to recognise a dial tone: 1 s North American, 2.6 s ETSI), the
 * wait for one.
 */
static inline void smodem_engine_config(const struct at_call *c, bool answer,
					struct smdsp_modem_config *cfg)
{
	u32 s6_ms = c->dialtone_wait_s * 1000;

	memset(cfg, 0, sizeof(*cfg));
	cfg->sample_rate = SMDSP_MODEM_RATE;
	cfg->modulations = smodem_engine_modulations(c);
	if (!answer && !c->detect_dialtone)
		cfg->flags |= SMDSP_MODEM_FLAG_BLIND;
	if (c->ec == AT_EC_AUTO || smodem_engine_ec_required(c->ec))
		cfg->flags |= SMDSP_MODEM_FLAG_V42;
	if (c->v8)
		cfg->flags |= SMDSP_MODEM_FLAG_V8;
	cfg->blind_wait_ms = s6_ms;
	cfg->dialtone_wait_ms = s6_ms > SMODEM_DIALTONE_MS ? s6_ms :
				SMODEM_DIALTONE_MS;
	cfg->comma_ms = c->comma_s * 1000;
	cfg->wait_answer_ms = c->carrier_wait_s * 1000;
	cfg->carrier_loss_ms = c->carrier_loss_ds * 100;
}

/*
 * What the engine dials: digits, ',' pauses and 'W' waits.  With S8 at 0
 * a pause is no pause, so its commas go.  A hook flash ('!') needs the
 * hook signal to drop for a while, which nothing here does yet: dropped.
 */
static inline void smodem_engine_digits(char *dst, size_t size,
					const char *src, bool commas)
{
	size_t n = 0;

	for (; *src && n + 1 < size; src++)
		if (strchr("0123456789*#ABCDW", *src) ||
		    (commas && *src == ','))
			dst[n++] = *src;
	dst[n] = '\0';
}

enum smodem_ec_verdict {
	SMODEM_EC_WAIT,		/* V.42 detection or establishment goes on */
	SMODEM_EC_CONNECT,
	SMODEM_EC_REFUSE,	/* no LAPM, and it was required */
};

/*
 * Connected with V.42 configured: the error control is settled once LAPM
 * is up or the link fell back to plain async (the detection found no
 * peer, or V.8 agreed on none).  link and v42_status as in
 * struct smdsp_modem_stats.
 */
static inline enum smodem_ec_verdict smodem_engine_ec(u32 link, s32 v42_status,
						      bool required)
{
	if (link == SMDSP_LINK_V42 && v42_status == SMDSP_V42_CONNECTED)
		return SMODEM_EC_CONNECT;
	if (link != SMDSP_LINK_ASYNC)
		return SMODEM_EC_WAIT;
	return required ? SMODEM_EC_REFUSE : SMODEM_EC_CONNECT;
}

#endif
