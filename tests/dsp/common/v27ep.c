/* V.27ter runs for the tests (see v27ep.h). */
#include <math.h>
#include <stdlib.h>
#include "v27ep.h"
#include "line.h"
#include "tutil.h"

/* 2^23-1 PRBS, x^23 + x^18 + 1, and its self-synchronising checker */
struct prbs {
	uint32_t reg;
	long seen, bits, errors;
	long sent;		/* source: PRBS bits sent in this transmission */
	long limit;		/* checker: check no more than this many bits since the training (0: all) */
	int trained, downs, stop;
};

static int prbs_get(void *user)
{
	struct prbs *p = user;
	int b = ((p->reg >> 22) ^ (p->reg >> 17)) & 1;

	p->reg = (p->reg << 1) | b;
	p->sent++;
	return b;
}

static void prbs_put(struct prbs *p, int bit)
{
	int want = ((p->reg >> 22) ^ (p->reg >> 17)) & 1;

	p->reg = (p->reg << 1) | (bit & 1);
	/* after the PRBS come the shutdown's scrambled ones: not checked */
	if (++p->seen <= 64 || (p->limit && p->seen > p->limit))
		return;
	p->bits++;
	p->errors += want != (bit & 1);
}

static void ours_put(void *user, int bit)
{
	prbs_put(user, bit);
}

static void ours_status(void *user, enum smdsp_status st)
{
	struct prbs *p = user;

	if (st == SMDSP_STATUS_TRAINED) {
		p->trained++;
		p->seen = 0;	/* the checker starts again on the new transmission */
		p->limit = 0;
	}
	if (st == SMDSP_STATUS_CARRIER_DOWN)
		p->downs++;
}

static void sp_put(void *user, int bit)
{
	struct prbs *p = user;

	if (bit < 0) {
		if (bit == SIG_STATUS_TRAINING_SUCCEEDED) {
			p->trained++;
			p->seen = 0;
			p->limit = 0;
		}
		return;
	}
	prbs_put(p, bit);
}

static int sp_get(void *user)
{
	struct prbs *p = user;

	return p->stop ? SIG_STATUS_END_OF_DATA : prbs_get(user);
}

static void tx_start(const struct v27run_cfg *c, struct prbs *src, struct smdsp_v27_tx **ot,
		     v27ter_tx_state_t **st, double level)
{
	src->stop = 0;
	src->sent = 0;
	if (c->ours_tx) {
		if (*ot)
			smdsp_v27_tx_free(*ot);
		*ot = smdsp_v27_tx_create(c->rate, (int)lround(level * 10), c->tep, prbs_get, NULL, src);
	} else {
		*st = v27ter_tx_init(*st, c->rate, c->tep, sp_get, src);
		v27ter_tx_power(*st, (float)level);
	}
}

double v27_ber(const struct v27run_res *r, int rx)
{
	return r->bits[rx] ? r->errors[rx] / 3.0 / r->bits[rx] : 1.0;
}

void v27_run(const struct v27run_cfg *c, struct v27run_res *r)
{
	struct line_cfg lc = { .loss_db = c->loss_db, .noise_dbm0 = -300, .echo_db = -300, .delay = 8,
			       .ppm = c->ppm, .seed = c->seed };
	struct line *l = line_create(&lc);
	double level = c->level_dbm0 ? c->level_dbm0 : -14;
	double sigma = c->noise_dbm0 < 0 && c->noise_dbm0 > -200 ? 32767.0 * pow(10, (c->noise_dbm0 - 3.14) / 20) / sqrt(2) : 0;
	struct prbs src = { .reg = 0x4a3b2c }, ours = { 0 }, sp = { 0 };
	struct smdsp_v27_tx *ot = NULL;
	v27ter_tx_state_t *st = NULL;
	struct smdsp_v27_rx *orx = smdsp_v27_rx_create(c->rate, ours_put, ours_status, &ours);
	v27ter_rx_state_t *srx = v27ter_rx_init(NULL, c->rate, sp_put, &sp);
	int16_t tx[160], rx[160], btx[160] = { 0 }, arx[160];
	uint64_t seed = c->seed ? c->seed : 99;
	long blocks = (long)(c->seconds * 50), i;
	double sig = 0;
	long sig_n = 0;
	int k, on = !c->gate, bursts = c->bursts > 1 ? c->bursts : 1, gap = 0;

	tx_start(c, &src, &ot, &st, level);
	for (i = 0; i < blocks; i++) {
		int done = 0;

		memset(tx, 0, sizeof(tx));
		if (bursts > 1 && i && i % (blocks / bursts) == 0) {
			/* end of this transmission: shut down, 200 ms of silence, next one */
			src.stop = 1;
			ours.limit = sp.limit = src.sent;
			if (ot)
				smdsp_v27_tx_stop(ot);
			gap = 10;
		}
		if (ot)
			done = !smdsp_v27_tx_process(ot, tx, 160);
		else
			done = v27ter_tx(st, tx, 160) < 160;
		if (done && gap && --gap == 0)
			tx_start(c, &src, &ot, &st, level);
		line_process(l, tx, arx, btx, rx, 160);
		if (i > 100) {
			for (k = 0; k < 160; k++)
				sig += (double)rx[k] * rx[k];
			sig_n += 160;
		}
		for (k = 0; k < 160 && sigma > 0; k++) {
			on |= rx[k] != 0;
			if (on)
				rx[k] = t_sat16(rx[k] + sigma * t_gauss(&seed));
		}
		smdsp_v27_rx_process(orx, rx, 160);
		v27ter_rx(srx, rx, 160);
	}
	r->bits[0] = ours.bits;
	r->errors[0] = ours.errors;
	r->trained[0] = ours.trained;
	r->bits[1] = sp.bits;
	r->errors[1] = sp.errors;
	r->trained[1] = sp.trained;
	r->carrier_downs = ours.downs;
	/* mean square against a full-scale sine's (3.14 dBm0) */
	r->rx_level_dbm0 = sig_n ? 10 * log10(sig / sig_n / (32767.0 * 32767 / 2)) + 3.14 : -99;
	line_free(l);
	smdsp_v27_rx_free(orx);
	v27ter_rx_free(srx);
	if (ot)
		smdsp_v27_tx_free(ot);
	if (st)
		v27ter_tx_free(st);
}
