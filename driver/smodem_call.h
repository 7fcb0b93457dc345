/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call control's pure part: what the modem (smodem_modem.c) makes of the AT
 * settings of one call.  No kernel services, so it is unit-tested in user
 * space as it is (tests/unit/test_driver_logic.c).
 */
#ifndef SMODEM_CALL_H
#define SMODEM_CALL_H

#include <linux/types.h>
#include <linux/string.h>
#include <smdsp/modem.h>
#include "at.h"

/* Off hook without a dial tone this long, or S6 if longer: NO DIALTONE. */
#define SMODEM_DIALTONE_MS	5000

static inline u32 smodem_call_modulations(const struct at_call *c)
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
static inline bool smodem_call_ec_required(enum at_ec ec)
{
	return ec == AT_EC_RELIABLE || ec == AT_EC_LAPM;
}

/*
 * The pump's configuration for one call.  S6 is both the blind dialling
 * delay and, when longer than SMODEM_DIALTONE_MS (its 2 s default is too
 * short to recognise a dial tone: 1 s North American, 2.6 s ETSI), the
 * wait for one.
 */
static inline void smodem_call_config(const struct at_call *c, bool answer,
					struct smdsp_modem_config *cfg)
{
	u32 s6_ms = c->dialtone_wait_s * 1000;

	memset(cfg, 0, sizeof(*cfg));
	cfg->sample_rate = SMDSP_MODEM_RATE;
	cfg->modulations = smodem_call_modulations(c);
	if (!answer && !c->detect_dialtone)
		cfg->flags |= SMDSP_MODEM_FLAG_BLIND;
	if (c->ec == AT_EC_AUTO || smodem_call_ec_required(c->ec))
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
 * What the modem dials: digits, ',' pauses and 'W' waits.  With S8 at 0
 * a pause is no pause, so its commas go.  A hook flash ('!') needs the
 * hook signal to drop for a while, which nothing here does yet: dropped.
 */
static inline void smodem_call_digits(char *dst, size_t size,
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
static inline enum smodem_ec_verdict smodem_call_ec(u32 link, s32 v42_status,
						      bool required)
{
	if (link == SMDSP_LINK_V42 && v42_status == SMDSP_V42_CONNECTED)
		return SMODEM_EC_CONNECT;
	if (link != SMDSP_LINK_ASYNC)
		return SMODEM_EC_WAIT;
	return required ? SMODEM_EC_REFUSE : SMODEM_EC_CONNECT;
}

#endif
