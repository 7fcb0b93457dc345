// SPDX-License-Identifier: GPL-2.0
/* Two of our V.34 ends over the line model (test code): see v34link.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "v34link.h"

#define BLK 80

struct src {
	uint64_t s;
};

static int prng_bit(struct src *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (int)(r->s >> 63);
}

static int get_bit(void *user)
{
	return prng_bit(user);
}

struct sink {
	struct src ref;
	unsigned long bits, errors;
};

static void put_bit(void *user, int bit)
{
	struct sink *k = user;

	k->errors += (unsigned long)(prng_bit(&k->ref) != bit);
	k->bits++;
}

int v34link_verbose;

/* an I/O loop's input latency: each block received comes out lat samples later */
struct delay {
	int16_t buf[V34LINK_MAX_LATENCY];
	int pos;
};

static void late(struct delay *d, int16_t *x, int lat)
{
	int i;

	for (i = 0; i < BLK; i++) {
		int16_t v = d->buf[d->pos];

		d->buf[d->pos] = x[i];
		x[i] = v;
		d->pos = (d->pos + 1) % lat;
	}
}

struct end {
	struct smdsp_v34_train_tx *tx;
	struct smdsp_v34_train_rx *rx;
	struct src src;
	struct sink sink;
};

static bool end_init(struct end *e, const struct link_cfg *lc, bool caller, uint64_t seed)
{
	struct smdsp_v34_train_config tc = { 0 }, rc = { 0 };

	memset(e, 0, sizeof(*e));

	tc.symrate = lc->symrate;
	tc.high = lc->high;
	tc.data_rate = caller ? lc->rate_ca : lc->rate_ac;
	tc.preemph = lc->preemph;
	tc.caller = caller;
	tc.trn16 = lc->trn16 && (caller || !lc->trn16_call_only);
	tc.trn4_symbols = lc->trn4_symbols;
	tc.no_precoding = lc->no_precoding;
	tc.fixed_rate = lc->fixed_rate;
	tc.two_wire = lc->two_wire;
	tc.no_echo_cancel = lc->no_ec;
	tc.echo_latency = lc->latency;
	tc.round_trip = 2 * (lc->line.delay + 16);
	rc = tc;
	rc.data_rate = caller ? lc->rate_ac : lc->b_rx_limit ? lc->b_rx_limit : lc->rate_ca;
	rc.nonlinear = lc->nonlinear[!caller];
	rc.shaping = lc->shaping[!caller];
	e->src.s = seed;
	e->sink.ref.s = seed ^ 0x5555;	/* the far end's source seed, set by the caller of end_init */
	e->tx = smdsp_v34_train_tx_create(&tc, get_bit, &e->src);
	e->rx = smdsp_v34_train_rx_create(&rc, put_bit, &e->sink);
	if (!e->tx || !e->rx)
		return false;
	smdsp_v34_train_tx_attach(e->tx, e->rx);
	smdsp_v34_train_rx_attach(e->rx, e->tx);
	return true;
}

void run_link(const struct link_cfg *lc, struct link_res *res)
{
	struct end e[2];
	struct line *l = line_create(&lc->line);
	int16_t tx[2][BLK], rx[2][BLK];
	long n, total = (long)(lc->seconds * 8000);
	clock_t cpu = 0;
	enum smdsp_v34_train_state prev[2];
	static struct delay dl[2];
	double wsum[2] = { 0, 0 }, psum[2] = { 0, 0 };
	long pn[2] = { 0, 0 };
	int wn[2] = { 0, 0 };
	bool ok;
	int i, j;

	ok = end_init(&e[0], lc, true, 0x1234567ULL + lc->line.seed);
	ok &= end_init(&e[1], lc, false, 0x7654321ULL + lc->line.seed);
	memset(res, 0, sizeof(*res));
	if (!ok) {
		/* a configuration V.34 does not allow: refused at create */
		for (i = 0; i < 2; i++) {
			res->st[i] = SMDSP_V34_T_FAILED;
			smdsp_v34_train_tx_free(e[i].tx);
			smdsp_v34_train_rx_free(e[i].rx);
		}
		line_free(l);
		return;
	}
	for (i = 0; i < 2; i++) {
		for (j = 0; j <= SMDSP_V34_T_FAILED; j++)
			res->tx_at[i][j] = -1;
		res->tx_s2_at[i] = -1;
		prev[i] = smdsp_v34_train_tx_state(e[i].tx);
		res->tx_at[i][prev[i]] = 0;
	}
	e[0].sink.ref.s = e[1].src.s;
	e[1].sink.ref.s = e[0].src.s;
	memset(dl, 0, sizeof(dl));
	for (n = 0; n < total; n += BLK) {
		clock_t t0;

		smdsp_v34_train_tx_process(e[0].tx, tx[0], BLK);
		smdsp_v34_train_tx_process(e[1].tx, tx[1], BLK);
		line_process(l, tx[0], rx[0], tx[1], rx[1], BLK);
		for (i = 0; lc->latency > 0 && lc->latency <= V34LINK_MAX_LATENCY && i < 2; i++)
			late(&dl[i], rx[i], lc->latency);
		t0 = clock();
		smdsp_v34_train_rx_process(e[0].rx, rx[0], BLK);
		smdsp_v34_train_rx_process(e[1].rx, rx[1], BLK);
		cpu += clock() - t0;
		for (i = 0; i < 2; i++) {
			enum smdsp_v34_train_state ts = smdsp_v34_train_tx_state(e[i].tx);

			if (ts == SMDSP_V34_T_DATA && res->tx_at[i][ts] >= 0 && (n + BLK) / 8000.0 > res->tx_at[i][ts] + 0.5)
				for (j = 0; j < BLK; j++, pn[i]++)
					psum[i] += (double)tx[i][j] * tx[i][j];

			if (!res->data_at[i] && smdsp_v34_train_rx_state(e[i].rx) == SMDSP_V34_T_DATA)
				res->data_at[i] = (n + BLK) / 8000.0;
			if (res->data_at[i] && (n + BLK) / 8000.0 > res->data_at[i] + 0.5 && (n + BLK) % 800 == 0) {
				struct smdsp_v34_train_stats ws;

				smdsp_v34_train_rx_get_stats(e[i].rx, &ws);
				wsum[i] += pow(10, -ws.wmse_db10 / 100.0);
				wn[i]++;
			}
			if (ts != prev[i]) {
				if (res->tx_at[i][ts] < 0)
					res->tx_at[i][ts] = (n + BLK) / 8000.0;
				else if (ts == SMDSP_V34_T_S && res->tx_s2_at[i] < 0)
					res->tx_s2_at[i] = (n + BLK) / 8000.0;
				prev[i] = ts;
			}
		}
		if (v34link_verbose > 1 && n % (v34link_verbose > 2 ? 800 : 3200) == 0) {
			char buf[400];

			smdsp_v34_train_rx_print(e[0].rx, buf, sizeof(buf));
			printf("  %.1f A %s\n", n / 8000.0, buf);
			smdsp_v34_train_rx_print(e[1].rx, buf, sizeof(buf));
			printf("  %.1f B %s\n", n / 8000.0, buf);
			for (i = 0; i < 2 && lc->two_wire; i++) {
				smdsp_v34_train_rx_echo_print(e[i].rx, buf, sizeof(buf));
				printf("  %.1f %c tx %d %s\n", n / 8000.0, "AB"[i], smdsp_v34_train_tx_state(e[i].tx), buf);
			}
		}
	}
	for (i = 0; i < 2; i++) {
		char buf[400];

		res->st[i] = smdsp_v34_train_rx_state(e[i].rx);
		res->bits[i] = e[i].sink.bits;
		res->errors[i] = e[i].sink.errors;
		smdsp_v34_train_rx_get_stats(e[i].rx, &res->stats[i]);
		res->mse[i] = res->stats[i].mse_db10;
		res->wmse_mean[i] = wn[i] ? -10 * log10(wsum[i] / wn[i]) : 0;
		res->tx_power[i] = pn[i] ? psum[i] / pn[i] : 0;
		res->rate[i] = smdsp_v34_train_tx_rate(e[i].tx);
		if (v34link_verbose) {
			smdsp_v34_train_tx_print(e[i].tx, buf, sizeof(buf));
			printf("  %s\n", buf);
			smdsp_v34_train_rx_print(e[i].rx, buf, sizeof(buf));
			printf("  %s errors=%lu\n", buf, e[i].sink.errors);
			if (lc->two_wire) {
				smdsp_v34_train_rx_echo_print(e[i].rx, buf, sizeof(buf));
				printf("  %s\n", buf);
			}
		}
		smdsp_v34_train_tx_free(e[i].tx);
		smdsp_v34_train_rx_free(e[i].rx);
	}
	res->cpu_rx = (double)cpu / CLOCKS_PER_SEC;
	res->seconds = lc->seconds;
	line_free(l);
}

