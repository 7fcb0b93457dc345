// SPDX-License-Identifier: GPL-2.0
/*
 * smline's V.34 far modem: dsp/v34.c (phase 2's INFO0 exchange, tones and
 * line probing, phases 3 and 4, the data both ways) under modem.c's V.8 and
 * SpanDSP's V.42, as v32far.c runs V.32bis.
 *
 * modem.c starts it when V.8 has settled on V.34: SpanDSP's V.8 reports so
 * when the caller's CJ has gone out and when the answerer has taken CJ, and
 * both ends then owe V.34's 75 ms of silence before phase 2's INFO0, which
 * is sent here before the V.34 end is made. A peer without V.34 never gets
 * here: V.8 chose V.32bis or V.22bis and modem.c runs those.
 *
 * The line is a 2-wire one (the guest's AC'97 hears its own signal through
 * the hybrid), so the end runs the duplex order with its echo canceller,
 * whose latency is smline's block as v32far's. V.34 reports no carrier:
 * the data's start is SpanDSP's TRAINING_SUCCEEDED (and the carrier up);
 * the end failing in the data (its decisions no better than noise) is
 * CARRIER_DOWN, so modem.c's carrier-loss timer ends the call; failing
 * before the data is TRAINING_FAILED, with the reason for modem.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spandsp.h>
#include <smdsp/v34.h>
#include <smdsp/v34_mod.h>
#include <smdsp/v34_phase2.h>

#include "v34far.h"

#define RATE		8000
#define V8_GAP_MS	75	/* V.34: silence from the end of phase 1 (CJ) to INFO0 */
/* dsp/v34.c's limit on echo_latency */
#define MAX_LATENCY	6848

struct sml_v34far {
	struct sml_v34far_cfg cfg;
	struct smdsp_v34 *v34;
	int gap_left;		/* samples of silence still owed before phase 2 */
	enum smdsp_v34_state state;
	bool in_data;
	/* as the end last had it before any failure: a far end gone leaves its figures */
	struct sml_v34far_info info;
	char why[96];
};

static void take_info(struct sml_v34far *f);

static void put_status(struct sml_v34far *f, int status)
{
	f->cfg.put_bit(f->cfg.user, status);
}

static int v34_get_bit(void *user)
{
	struct sml_v34far *f = user;

	return f->cfg.get_bit(f->cfg.user);
}

static void v34_put_bit(void *user, int bit)
{
	struct sml_v34far *f = user;

	f->cfg.put_bit(f->cfg.user, bit);
}

struct sml_v34far *sml_v34far_new(const struct sml_v34far_cfg *cfg)
{
	struct sml_v34far *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cfg = *cfg;
	f->gap_left = V8_GAP_MS * RATE / 1000;
	f->state = SMDSP_V34_PHASE2;
	f->info.rtd_samples = -1;
	return f;
}

void sml_v34far_free(struct sml_v34far *f)
{
	if (!f)
		return;
	smdsp_v34_free(f->v34);
	free(f);
}

/* Made at the end of the gap: the latency may be the first block's length. */
static bool start(struct sml_v34far *f, int n)
{
	struct smdsp_v34_phase2_config p2;
	struct smdsp_v34_config c;
	double lvl = f->cfg.tx_dbm0 * 10;
	int lat = f->cfg.echo_latency > 0 ? f->cfg.echo_latency : n;

	/* every symbol rate and carrier this end has: phase 2's own default INFO0 */
	smdsp_v34_phase2_default_config(&p2);
	memset(&c, 0, sizeof(c));
	c.calling = f->cfg.caller;
	c.level_dbm0_10 = (int)(lvl + (lvl < 0 ? -0.5 : 0.5));
	/* the far end's nominal level is unknown: a modem's usual, as ours */
	c.far_level_dbm0_10 = c.level_dbm0_10;
	c.info0 = p2.info0;
	c.max_rate = f->cfg.max_rate;
	c.get_bit = v34_get_bit;
	c.get_user = f;
	c.put_bit = v34_put_bit;
	c.put_user = f;
	c.two_wire = true;
	c.echo_latency = lat > MAX_LATENCY ? MAX_LATENCY : lat;
	f->v34 = smdsp_v34_create(&c);
	if (!f->v34) {
		snprintf(f->why, sizeof(f->why), "V.34: configuration refused");
		f->state = SMDSP_V34_FAILED;
		put_status(f, SIG_STATUS_TRAINING_FAILED);
		return false;
	}
	return true;
}

static void fail_reason(struct sml_v34far *f)
{
	struct smdsp_v34_phase2_result r;
	enum smdsp_v34_fail why = smdsp_v34_fail(f->v34);

	if (why == SMDSP_V34_FAIL_PHASE2 && smdsp_v34_get_phase2(f->v34, &r))
		snprintf(f->why, sizeof(f->why), "V.34 phase 2: %s",
			 smdsp_v34_phase2_fail_name(r.fail));
	else
		snprintf(f->why, sizeof(f->why), "V.34: %s", smdsp_v34_fail_name(why));
}

static void follow(struct sml_v34far *f)
{
	enum smdsp_v34_state st = smdsp_v34_state(f->v34);

	if (st == f->state)
		return;
	f->state = st;
	if (st == SMDSP_V34_DATA) {
		/* the rates the call began with, beside the latest (a line that worsened) */
		if (!f->in_data) {
			f->info.rate_tx_start = f->info.rate_tx;
			f->info.rate_rx_start = f->info.rate_rx;
		}
		f->in_data = true;
		put_status(f, SIG_STATUS_TRAINING_SUCCEEDED);
		put_status(f, SIG_STATUS_CARRIER_UP);
	} else if (st == SMDSP_V34_FAILED) {
		if (f->in_data) {
			put_status(f, SIG_STATUS_CARRIER_DOWN);
		} else {
			fail_reason(f);
			put_status(f, SIG_STATUS_TRAINING_FAILED);
		}
	}
}

void sml_v34far_process(struct sml_v34far *f, const int16_t *rx, int16_t *tx, int n)
{
	int k = 0;

	if (f->gap_left > 0) {
		k = n < f->gap_left ? n : f->gap_left;
		memset(tx, 0, sizeof(*tx) * (size_t)k);
		f->gap_left -= k;
		if (k == n)
			return;
	}
	if (!f->v34 && (f->state == SMDSP_V34_FAILED || !start(f, n))) {
		memset(tx + k, 0, sizeof(*tx) * (size_t)(n - k));
		return;
	}
	smdsp_v34_process(f->v34, rx + k, tx + k, (unsigned int)(n - k));
	if (smdsp_v34_state(f->v34) != SMDSP_V34_FAILED)
		take_info(f);
	follow(f);
}

int sml_v34far_rate(const struct sml_v34far *f)
{
	struct smdsp_v34_stats st;

	if (!f->v34 || !f->in_data)
		return 0;
	smdsp_v34_get_stats(f->v34, &st);
	return (int)st.tx.rate;
}

static unsigned int baud(enum smdsp_v34_symrate r)
{
	return (smdsp_v34_symrate_mbaud(r) + 500) / 1000;
}

void sml_v34far_info(const struct sml_v34far *f, struct sml_v34far_info *info)
{
	*info = f->info;
}

static void take_info(struct sml_v34far *f)
{
	struct smdsp_v34_stats st;
	struct smdsp_v34_phase2_result r;
	struct sml_v34far_info *info = &f->info;

	if (!smdsp_v34_get_phase2(f->v34, &r) || r.fail != SMDSP_V34P2_OK)
		return;
	smdsp_v34_get_stats(f->v34, &st);
	info->rate_tx = st.tx.rate;
	info->rate_rx = st.rx.rate;
	info->baud_tx = baud(st.tx.symrate);
	info->baud_rx = baud(st.rx.symrate);
	info->high_tx = st.tx.high;
	info->high_rx = st.rx.high;
	info->rtd_samples = st.rtd;
	info->erle_db10 = st.erle_db10;
	info->renegs = st.renegs;
	info->retrains = st.retrains;
	info->nonlinear_tx = st.tx.nonlinear;
	info->nonlinear_rx = st.rx.nonlinear;
	info->expanded_tx = st.tx.expanded;
	info->expanded_rx = st.rx.expanded;
	/* a far end gone drags the error down to nothing before the end notices */
	if (!f->in_data)
		info->mse_db10 = st.mse_db10;
}

const char *sml_v34far_failed(const struct sml_v34far *f)
{
	return f->state == SMDSP_V34_FAILED && !f->in_data ? f->why : NULL;
}
