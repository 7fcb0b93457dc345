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
#include <smdsp/faxdte.h>
#include "at.h"

/* Off hook without a dial tone this long, or S6 if longer: NO DIALTONE. */
#define SMODEM_DIALTONE_MS	5000

/* A rate within +MS's <min_rate> and <max_rate> (0: no limit). */
static inline bool smodem_call_rate_in(const struct at_call *c, u32 rate)
{
	return rate >= c->min_rate && (!c->max_rate || rate <= c->max_rate);
}

/* Some rate from lo to hi within +MS's <min_rate> and <max_rate>. */
static inline bool smodem_call_rates_in(const struct at_call *c, u32 lo, u32 hi)
{
	return hi >= c->min_rate && (!c->max_rate || lo <= c->max_rate);
}

/*
 * +MS: the modulation, and with <automode> those it falls back to; the
 * fallbacks <min_rate> and <max_rate> leave out go (the modulation itself
 * stays: +MS accepts no limit outside it).
 */
static inline u32 smodem_call_modulations(const struct at_call *c)
{
	u32 mods, own;

	switch (c->mod) {
	case AT_MOD_V21:
		return SMDSP_MODEM_V21;
	case AT_MOD_V22:
		own = SMDSP_MODEM_V22;
		mods = SMDSP_MODEM_V21;
		break;
	case AT_MOD_V32:
		own = SMDSP_MODEM_V32;
		mods = SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21;
		break;
	case AT_MOD_V32B:
		own = SMDSP_MODEM_V32BIS;
		mods = SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21;
		break;
	case AT_MOD_V34:
		own = SMDSP_MODEM_V34;
		mods = SMDSP_MODEM_V32BIS | SMDSP_MODEM_V32 | SMDSP_MODEM_V22BIS |
		       SMDSP_MODEM_V22 | SMDSP_MODEM_V21;
		break;
	default:
		/* V.22bis's own fallback to V.22 is part of its handshake */
		own = SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22;
		mods = SMDSP_MODEM_V21;
		break;
	}
	if (!c->automode)
		return own;
	if (!smodem_call_rates_in(c, 4800, 14400))
		mods &= ~SMDSP_MODEM_V32BIS;
	if (!smodem_call_rates_in(c, 4800, 9600))
		mods &= ~SMDSP_MODEM_V32;
	if (!smodem_call_rate_in(c, 2400))
		mods &= ~SMDSP_MODEM_V22BIS;
	if (!smodem_call_rate_in(c, 1200))
		mods &= ~SMDSP_MODEM_V22;
	if (!smodem_call_rate_in(c, 300))
		mods &= ~SMDSP_MODEM_V21;
	return own | mods;
}

/*
 * A call is V.34 when the engine ran V.34 in it (its rates up to 14400
 * are V.32bis's too, and cannot tell); a V.8 that named V.34 before the
 * far end turned out to answer V.22bis is not.
 */
static inline bool smodem_call_is_v34(const struct smdsp_modem_stats *st)
{
	return st->v34_used;
}

/* \N2, \N4 and \N5: a peer without LAPM is no connection. */
static inline bool smodem_call_ec_required(enum at_ec ec)
{
	return ec == AT_EC_RELIABLE || ec == AT_EC_LAPM || ec == AT_EC_MNP;
}

/*
 * The pump's configuration for one call.  S6 is both the blind dialling
 * delay and, when longer than SMODEM_DIALTONE_MS (its 2 s default is too
 * short to recognise a dial tone: 1 s North American, 2.6 s ETSI), the
 * wait for one.  lead: the core's output lead (frames, 0: not known),
 * the soonest the call's own echo can be back: V.32bis's canceller runs
 * there, over a 2-wire line.
 */
static inline void smodem_call_config(const struct at_call *c, bool answer,
				      u32 lead,
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
	/* V.34 starts only through V.8: +MS=V34 runs it whatever +A8E says */
	if (c->v8 || c->mod == AT_MOD_V34)
		cfg->flags |= SMDSP_MODEM_FLAG_V8;
	/* +DS and %C: V.42bis offered in V.42's XID; nothing without V.42 */
	if (cfg->flags & SMDSP_MODEM_FLAG_V42) {
		cfg->v42bis_dirs = c->v42bis_dirs;
		cfg->v42bis_p1 = c->v42bis_p1;
		cfg->v42bis_p2 = c->v42bis_p2;
	}
	cfg->blind_wait_ms = s6_ms;
	cfg->dialtone_wait_ms = s6_ms > SMODEM_DIALTONE_MS ? s6_ms :
				SMODEM_DIALTONE_MS;
	cfg->comma_ms = c->comma_s * 1000;
	/*
	 * V.32bis's and V.34's rates within +MS's limits (a V.32bis that
	 * they leave no rate went from the modulations above)
	 */
	cfg->min_rate = c->min_rate;
	cfg->max_rate = c->max_rate;
	cfg->wait_answer_ms = c->carrier_wait_s * 1000;
	cfg->carrier_loss_ms = c->carrier_loss_ds * 100;
	cfg->echo_latency = lead;
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

/*
 * Class 1 (T.31): the fax pump's phases as smodem_phase trace values,
 * after the data engine's (enum smdsp_modem_phase); the trace's arg is the
 * modulation (T.31's code, 3 for V.21).  Literal numbers, so that the
 * trace's format carries them.
 */
#define SMODEM_PHASE_FAX_ON_HOOK	32
#define SMODEM_PHASE_FAX_IDLE		33
#define SMODEM_PHASE_FAX_DIALING	34
#define SMODEM_PHASE_FAX_CNG		35
#define SMODEM_PHASE_FAX_CED		36
#define SMODEM_PHASE_FAX_TX_HDLC	37
#define SMODEM_PHASE_FAX_RX_HDLC	38
#define SMODEM_PHASE_FAX_TX_TRAIN	39
#define SMODEM_PHASE_FAX_TX_DATA	40
#define SMODEM_PHASE_FAX_RX_TRAIN	41
#define SMODEM_PHASE_FAX_RX_DATA	42
#define SMODEM_PHASE_FAX_TX_SILENCE	43
#define SMODEM_PHASE_FAX_RX_SILENCE	44

_Static_assert(SMODEM_PHASE_FAX_ON_HOOK + SMDSP_FAX_RX_SILENCE ==
	       SMODEM_PHASE_FAX_RX_SILENCE, "the fax phases' trace values");
_Static_assert(SMODEM_PHASE_FAX_ON_HOOK + SMDSP_FAX_TX_HDLC ==
	       SMODEM_PHASE_FAX_TX_HDLC, "the fax phases' trace values");

static inline u32 smodem_fax_phase(enum smdsp_faxmodem_phase p)
{
	return SMODEM_PHASE_FAX_ON_HOOK + p;
}

/*
 * What holds the line off hook, as the modem's phase reports (the
 * smodem_phase trace's values) tell it: the data engine, Class 1's fax
 * pump, or both while one hands over to the other.  0: on hook, where the
 * output lead may move (smodem_tx_decide()).  A call's command is taken
 * in a period whose lead was decided on hook, and the phase it starts
 * with is reported in that same period: the lead a call is configured
 * with is the last one decided on hook.
 */
#define SMODEM_HOOK_DATA	0x1
#define SMODEM_HOOK_FAX		0x2

static inline u32 smodem_hook_after(u32 hook, u32 phase)
{
	if (phase >= SMODEM_PHASE_FAX_ON_HOOK &&
	    phase <= SMODEM_PHASE_FAX_RX_SILENCE)
		return phase == SMODEM_PHASE_FAX_ON_HOOK ?
		       hook & ~SMODEM_HOOK_FAX : hook | SMODEM_HOOK_FAX;
	if (phase == SMDSP_PHASE_ONHOOK || phase == SMDSP_PHASE_HUNGUP)
		return hook & ~SMODEM_HOOK_DATA;
	return hook | SMODEM_HOOK_DATA;
}

/* The interpreter's fax operation as the DCE's DTE side takes it. */
static inline enum smdsp_faxdte_op smodem_fax_op(u8 op)
{
	switch (op) {
	case AT_FAX_TH:
		return SMDSP_FAXDTE_FTH;
	case AT_FAX_RH:
		return SMDSP_FAXDTE_FRH;
	case AT_FAX_TM:
		return SMDSP_FAXDTE_FTM;
	case AT_FAX_RM:
		return SMDSP_FAXDTE_FRM;
	case AT_FAX_TS:
		return SMDSP_FAXDTE_FTS;
	case AT_FAX_RS:
		return SMDSP_FAXDTE_FRS;
	default:
		return SMDSP_FAXDTE_ABORT;
	}
}

/* And its result, as the link carries it (AT_RC_FAX_*). */
static inline enum at_result smodem_fax_rc(enum smdsp_faxdte_rc rc)
{
	enum at_fax_rc r;

	switch (rc) {
	case SMDSP_FAXDTE_RC_CONNECT:
		r = AT_FAXRC_CONNECT;
		break;
	case SMDSP_FAXDTE_RC_OK:
		r = AT_FAXRC_OK;
		break;
	case SMDSP_FAXDTE_RC_NO_CARRIER:
		r = AT_FAXRC_NO_CARRIER;
		break;
	case SMDSP_FAXDTE_RC_FCERROR:
		r = AT_FAXRC_FCERROR;
		break;
	default:
		r = AT_FAXRC_ERROR;
		break;
	}
	return (enum at_result)(AT_RC_FAX_CONNECT + (u32)r);
}

#endif
