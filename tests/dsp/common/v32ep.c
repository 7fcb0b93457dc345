/*
 * V.32bis test runs: our transmitter sends silence, S, S-bar, TRN, R
 * (8 words), E, B1 and a 2^23-1 PRBS; our receiver of the other role hears
 * it through the test line (the other direction silent) and a
 * self-synchronising checker counts the PRBS's errors.
 */
#include <stdio.h>
#include <string.h>
#include "v32ep.h"
#include "line.h"
#include <smdsp/v32bis.h>
#include <smdsp/bits.h>

int v32_prbs_src(void *u)
{
	struct v32_prbs *p = u;
	int b = (int)(((p->reg >> 22) ^ (p->reg >> 17)) & 1);

	p->reg = (p->reg << 1) | (uint32_t)b;
	return b;
}

void v32_prbs_chk(void *u, int b)
{
	struct v32_prbs *p = u;
	int want = (int)(((p->hist >> 22) ^ (p->hist >> 17)) & 1);

	/*
	 * the rest of B1 (ones) comes first: from the first zero on, 64 bits
	 * to fill the history, then every bit predicted from it
	 */
	if (!b && !p->n)
		p->n = 1;
	if (p->n && ++p->n > 64) {
		p->bits++;
		p->errors += want != b;
	}
	p->hist = (p->hist << 1) | (uint32_t)(b & 1);
}

static int fails;

static void status(void *u, enum smdsp_status st)
{
	(void)u;
	fails += st == SMDSP_STATUS_TRAINING_FAILED;
}

void v32_run(const struct v32run_cfg *c, struct v32run_res *r)
{
	struct line_cfg lc = { .loss_db = c->loss_db, .noise_dbm0 = c->noise_dbm0, .echo_db = -300,
			       .delay = c->delay, .ppm = c->ppm, .seed = c->seed ? c->seed : 1 };
	struct v32_prbs src = { .reg = 0x5a5a5a }, chk = { 0 };
	struct smdsp_v32bis_tx *tx = smdsp_v32bis_tx_create(c->caller_tx, c->level_dbm0_10 ? c->level_dbm0_10 : -130,
							    v32_prbs_src, NULL, &src);
	struct smdsp_v32bis_rx *rx = smdsp_v32bis_rx_create(!c->caller_tx, v32_prbs_chk, status, &chk);
	struct line *l = line_create(&lc);
	unsigned int offer = c->offer ? c->offer : SMDSP_V32BIS_ALL;
	int16_t a_tx[160], a_rx[160], b_tx[160] = { 0 }, b_rx[160];
	long k, n = (long)(c->seconds * 50);

	memset(r, 0, sizeof(*r));
	fails = 0;
	r->trained_s = -1;
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_SILENCE, 240, 0);
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_S, 256, 0);
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_SBAR, 16, 0);
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_TRN, c->trn ? c->trn : 1280, 0);
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_R, 64, smdsp_v32bis_rword(offer, false));
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_E, 8,
			      smdsp_v32bis_rword(smdsp_v32bis_rate_bit(c->rate) | (c->uncoded ? SMDSP_V32BIS_UNCODED : 0),
						 true));
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_B1, 128, c->rate | (c->uncoded ? SMDSP_V32BIS_B1_UNCODED : 0));
	smdsp_v32bis_tx_queue(tx, SMDSP_V32BIS_DATA, 0, 0);
	for (k = 0; k < n; k++) {
		smdsp_v32bis_tx_process(tx, a_tx, 160);
		line_process(l, a_tx, a_rx, b_tx, b_rx, 160);
		smdsp_v32bis_rx_process(rx, b_rx, 160);
		if (r->trained_s < 0 && smdsp_v32bis_rx_trained(rx))
			r->trained_s = (k + 1) * 0.02;
	}
	r->trained = smdsp_v32bis_rx_trained(rx);
	r->rate = smdsp_v32bis_rx_rate(rx);
	r->trellis = smdsp_v32bis_rx_trellis(rx);
	r->rword = smdsp_v32bis_rx_rword(rx);
	r->bits = chk.bits;
	r->errors = chk.errors;
	r->fails = fails;
	r->snr_10 = smdsp_v32bis_rx_snr_10(rx);
	smdsp_v32bis_tx_free(tx);
	smdsp_v32bis_rx_free(rx);
	line_free(l);
}
