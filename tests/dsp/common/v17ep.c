/* V.17 runs for the tests (see v17ep.h). */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "v17ep.h"
#include "line.h"
#include "tutil.h"

/* 2^23-1 PRBS, x^23 + x^18 + 1, sent and checked by a self-synchronising checker */
struct pn {
	uint32_t reg;
	long seen, bits, errors;
	long sent;		/* source: bits sent in this transmission */
	long limit;		/* checker: no more than this many bits after the training (0: all) */
	int trained, downs, stop;
};

static int pn_next(struct pn *p)
{
	return ((p->reg >> 22) ^ (p->reg >> 17)) & 1;
}

static int pn_get(void *user)
{
	struct pn *p = user;
	int b = pn_next(p);

	p->reg = (p->reg << 1) | b;
	p->sent++;
	return b;
}

static void pn_check(struct pn *p, int bit)
{
	int want = pn_next(p);

	p->reg = (p->reg << 1) | (bit & 1);
	/* the shutdown's scrambled ones come after the PRBS: not checked */
	if (++p->seen > 64 && (!p->limit || p->seen <= p->limit)) {
		p->bits++;
		p->errors += want != (bit & 1);
	}
}

static void pn_trained(struct pn *p)
{
	p->trained++;
	p->seen = 0;	/* a new transmission: the checker starts again */
	p->limit = 0;
}

static void our_bit(void *user, int bit)
{
	pn_check(user, bit);
}

static void our_status(void *user, enum smdsp_status st)
{
	struct pn *p = user;

	if (st == SMDSP_STATUS_TRAINED)
		pn_trained(p);
	else if (st == SMDSP_STATUS_CARRIER_DOWN)
		p->downs++;
}

static void sp_bit(void *user, int bit)
{
	if (bit >= 0)
		pn_check(user, bit);
	else if (bit == SIG_STATUS_TRAINING_SUCCEEDED)
		pn_trained(user);
}

static int sp_get(void *user)
{
	struct pn *p = user;

	return p->stop ? SIG_STATUS_END_OF_DATA : pn_get(user);
}

struct txs {
	struct smdsp_v17_tx *ours;
	v17_tx_state_t *sp;
};

static void start(const struct v17run_cfg *c, struct pn *src, struct txs *t, double level, int shrt)
{
	src->stop = 0;
	src->sent = 0;
	if (c->ours_tx) {
		smdsp_v17_tx_free(t->ours);
		t->ours = smdsp_v17_tx_create(c->rate, (int)lround(level * 10), c->tep, shrt, pn_get, NULL, src);
	} else {
		t->sp = v17_tx_init(t->sp, c->rate, c->tep, sp_get, src);
		if (shrt)
			v17_tx_restart(t->sp, c->rate, c->tep, 1);
		v17_tx_power(t->sp, (float)level);
	}
}

double v17_ber(const struct v17run_res *r, int rx)
{
	return r->bits[rx] ? r->errors[rx] / 3.0 / r->bits[rx] : 1.0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void v17_run(const struct v17run_cfg *c, struct v17run_res *r)
{
	struct line_cfg lc = { .loss_db = c->loss_db, .noise_dbm0 = -300, .echo_db = -300, .delay = 8,
			       .ppm = c->ppm, .seed = c->seed };
	struct line *l = line_create(&lc);
	double level = c->level_dbm0 ? c->level_dbm0 : -14;
	double sigma = c->noise_dbm0 < 0 && c->noise_dbm0 > -200 ?
		       32767.0 * pow(10, (c->noise_dbm0 - 3.14) / 20) / sqrt(2) : 0;
	double eg = c->echo_db ? pow(10, c->echo_db / 20) : 0;
	struct pn src = { .reg = 0x4a3b2c }, ours = { 0 }, sp = { 0 };
	struct txs t = { 0 };
	struct smdsp_v17_rx *orx = smdsp_v17_rx_create(c->rate, our_bit, our_status, &ours);
	v17_rx_state_t *srx = v17_rx_init(NULL, c->rate, sp_bit, &sp);
	int16_t tx[160], rx[160], btx[160] = { 0 }, arx[160];
	static int16_t hist[1024];
	unsigned int hpos = 0;
	uint64_t seed = c->seed ? c->seed : 99;
	long blocks = (long)(c->seconds * 50), i;
	double sig = 0, t0;
	long sig_n = 0;
	int k, on = !c->gate, bursts = c->bursts > 1 ? c->bursts : 1, gap = 0;

	/* its default cutoff misses a -40 dBm0 signal (ours is -43) */
	v17_rx_signal_cutoff(srx, -45.5f);
	memset(hist, 0, sizeof(hist));
	memset(r, 0, sizeof(*r));
	start(c, &src, &t, level, 0);
	for (i = 0; i < blocks; i++) {
		int done;

		memset(tx, 0, sizeof(tx));
		if (bursts > 1 && i && i % (blocks / bursts) == 0) {
			/* end of this transmission: shut down, 200 ms of silence, the next one */
			src.stop = 1;
			ours.limit = sp.limit = src.sent;
			if (t.ours)
				smdsp_v17_tx_stop(t.ours);
			gap = 10;
		}
		if (t.ours)
			done = !smdsp_v17_tx_process(t.ours, tx, 160);
		else
			done = v17_tx(t.sp, tx, 160) < 160;
		if (done && gap && --gap == 0) {
			int shrt = c->short_train;

			/* the next transmission: both receivers told which training comes */
			start(c, &src, &t, level, shrt);
			smdsp_v17_rx_restart(orx, c->rate, shrt);
			v17_rx_restart(srx, c->rate, shrt);
		}
		line_process(l, tx, arx, btx, rx, 160);
		for (k = 0; k < 160 && eg > 0; k++) {
			hist[hpos] = rx[k];
			rx[k] = t_sat16(rx[k] + eg * hist[(hpos - c->echo_delay) & 1023]);
			hpos = (hpos + 1) & 1023;
		}
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
		t0 = now();
		smdsp_v17_rx_process(orx, rx, 160);
		r->rx_cpu[0] += now() - t0;
		t0 = now();
		v17_rx(srx, rx, 160);
		r->rx_cpu[1] += now() - t0;
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
	smdsp_v17_rx_free(orx);
	v17_rx_free(srx);
	smdsp_v17_tx_free(t.ours);
	if (t.sp)
		v17_tx_free(t.sp);
}
