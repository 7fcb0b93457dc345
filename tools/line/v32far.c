// SPDX-License-Identifier: GPL-2.0
/*
 * smline's V.32bis far modem: dsp/v32bis.c (the start-up AA/AC/CA/CC,
 * the trainings and rate words, the data at the best rate both ends and
 * the line allow, the retrains) under modem.c's answer tone, V.8 and
 * SpanDSP's V.42, as SpanDSP's own V.22bis is.
 *
 * Automode (a modem without V.32bis on the other end): the answerer sends
 * AC (V.32bis sends it from its start) and, without AA within AUTO_AC_MS,
 * becomes SpanDSP's V.22bis answerer, whose unscrambled ones a V.22bis
 * caller waits for. The caller runs V.32bis's start-up (silent until it
 * hears AC) and SpanDSP's V.22bis caller (silent until it hears the
 * unscrambled ones) side by side, and keeps the first that speaks.
 *
 * The V.32bis data carry no carrier status of their own: the receiver's
 * carrier detector is reported as SpanDSP's CARRIER_UP/DOWN, so that
 * modem.c's carrier-loss timer works as for V.22bis.
 */
#include <stdlib.h>
#include <string.h>

#include <spandsp.h>
#include <smdsp/private/v32bis.h>

#include "v32far.h"

#define AUTO_AC_MS	3000
#define RATE		8000

enum far_mode {
	FAR_LISTEN,	/* caller: V.32bis and V.22bis both waiting */
	FAR_V32,
	FAR_V22,
};

struct sml_v32far {
	struct sml_v32far_cfg cfg;
	enum far_mode mode;
	struct smdsp_v32bis v32;
	bool heard;		/* V.32bis's start-up began (AC or AA heard) */
	bool trained;
	bool carrier;		/* V.32bis's receiver, once trained */
	unsigned int retrains;
	v22bis_state_t *v22;
	int64_t now;		/* samples since the pump started */
};

static void put_status(struct sml_v32far *f, int status)
{
	f->cfg.put_bit(f->cfg.user, status);
}

static int v32_get_bit(void *user)
{
	struct sml_v32far *f = user;

	return f->cfg.get_bit(f->cfg.user);
}

static void v32_put_bit(void *user, int bit)
{
	struct sml_v32far *f = user;

	f->cfg.put_bit(f->cfg.user, bit);
}

static void v32_status(void *user, enum smdsp_status st)
{
	struct sml_v32far *f = user;

	switch (st) {
	case SMDSP_STATUS_TRAINING:
		f->heard = true;
		break;
	case SMDSP_STATUS_TRAINED:
		f->trained = true;
		f->carrier = true;
		put_status(f, SIG_STATUS_TRAINING_SUCCEEDED);
		break;
	case SMDSP_STATUS_RETRAIN:
		f->retrains++;
		break;
	case SMDSP_STATUS_TRAINING_FAILED:
		put_status(f, SIG_STATUS_TRAINING_FAILED);
		break;
	default:
		break;
	}
}

/* SpanDSP's V.22bis: nothing reaches modem.c before the automode chose it. */
static int v22_get_bit(void *user)
{
	struct sml_v32far *f = user;

	return f->mode == FAR_V22 ? f->cfg.get_bit(f->cfg.user) : 1;
}

static void v22_put_bit(void *user, int bit)
{
	struct sml_v32far *f = user;

	if (f->mode == FAR_V22)
		f->cfg.put_bit(f->cfg.user, bit);
}

static void v22_status(void *user, int status)
{
	v22_put_bit(user, status);
}

static void start_v22(struct sml_v32far *f)
{
	f->v22 = v22bis_init(NULL, 2400, 0, f->cfg.caller, v22_get_bit, f, v22_put_bit, f);
	if (!f->v22)
		return;
	v22bis_tx_power(f->v22, (float)f->cfg.tx_dbm0);
	v22bis_rx_signal_cutoff(f->v22, (float)f->cfg.cutoff_dbm0);
	v22bis_set_modem_status_handler(f->v22, v22_status, f);
}

struct sml_v32far *sml_v32far_new(const struct sml_v32far_cfg *cfg)
{
	struct smdsp_v32bis_config c;
	struct sml_v32far *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cfg = *cfg;
	memset(&c, 0, sizeof(c));
	c.caller = cfg->caller;
	c.rates = cfg->v32 ? SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600 : SMDSP_V32BIS_ALL;
	c.level_dbm0_10 = (int)(cfg->tx_dbm0 * 10 + (cfg->tx_dbm0 < 0 ? -0.5 : 0.5));
	c.get_bit = v32_get_bit;
	c.put_bit = v32_put_bit;
	c.status_fn = v32_status;
	c.user = f;
	c.echo_latency = cfg->echo_latency;
	smdsp_v32bis_init(&f->v32, &c);
	f->mode = FAR_V32;
	if (cfg->caller && cfg->v22_fallback) {
		start_v22(f);
		f->mode = FAR_LISTEN;
	}
	return f;
}

void sml_v32far_free(struct sml_v32far *f)
{
	if (!f)
		return;
	if (f->v22)
		v22bis_free(f->v22);
	free(f);
}

static void v22_process(struct sml_v32far *f, const int16_t *rx, int16_t *tx, int n)
{
	int got;

	v22bis_rx(f->v22, rx, n);
	got = v22bis_tx(f->v22, tx, n);
	if (got < n)
		memset(tx + got, 0, sizeof(*tx) * (size_t)(n - got));
}

static void v32_carrier(struct sml_v32far *f)
{
	bool c = f->v32.rx.q.det.carrier;

	if (!f->trained || smdsp_v32bis_phase(&f->v32) != SMDSP_V32BIS_PH_DATA || c == f->carrier)
		return;
	f->carrier = c;
	put_status(f, c ? SIG_STATUS_CARRIER_UP : SIG_STATUS_CARRIER_DOWN);
}

#define STEP 160

static void step(struct sml_v32far *f, const int16_t *rx, int16_t *tx, int n)
{
	int16_t t22[STEP];
	int i;

	switch (f->mode) {
	case FAR_LISTEN:
		smdsp_v32bis_process(&f->v32, rx, tx, (unsigned int)n);
		if (f->heard) {
			/* AC heard: V.32bis's AA goes out already */
			f->mode = FAR_V32;
			v22bis_free(f->v22);
			f->v22 = NULL;
			break;
		}
		if (!f->v22)
			break;
		v22_process(f, rx, t22, n);
		for (i = 0; i < n && !t22[i]; i++)
			;
		if (i < n) {
			/* the V.22bis caller answers the unscrambled ones it heard */
			f->mode = FAR_V22;
			memcpy(tx, t22, sizeof(*tx) * (size_t)n);
		}
		break;
	case FAR_V32:
		smdsp_v32bis_process(&f->v32, rx, tx, (unsigned int)n);
		v32_carrier(f);
		if (!f->cfg.caller && f->cfg.v22_fallback && !f->heard &&
		    f->now >= (int64_t)AUTO_AC_MS * RATE / 1000) {
			/* no AA: a caller without V.32bis */
			start_v22(f);
			if (f->v22)
				f->mode = FAR_V22;
		}
		break;
	case FAR_V22:
		v22_process(f, rx, tx, n);
		break;
	}
	f->now += n;
}

void sml_v32far_process(struct sml_v32far *f, const int16_t *rx, int16_t *tx, int n)
{
	int k, m;

	for (k = 0; k < n; k += m) {
		m = n - k < STEP ? n - k : STEP;
		step(f, rx + k, tx + k, m);
	}
}

int sml_v32far_rate(const struct sml_v32far *f)
{
	if (f->mode == FAR_V22)
		return v22bis_get_current_bit_rate(f->v22);
	return f->trained ? (int)smdsp_v32bis_rate(&f->v32) : 0;
}

bool sml_v32far_is_v22(const struct sml_v32far *f)
{
	return f->mode == FAR_V22;
}

unsigned int sml_v32far_retrains(const struct sml_v32far *f)
{
	return f->retrains;
}
