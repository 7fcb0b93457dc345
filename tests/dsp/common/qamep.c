/* V.27ter, V.29 and V.17 runs for the tests (see qamep.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "qamep.h"
#include "line.h"
#include "tutil.h"

/* 2^23-1 PRBS, x^23 + x^18 + 1, sent and checked by a self-synchronising checker */
struct pn {
	uint32_t reg;
	long seen, bits, errors;
	long sent;		/* source: bits sent in this transmission */
	long limit;		/* checker: no more than this many bits after the training (0: all) */
	int trained, downs, ups, fails, stop;
	long clock;		/* samples since the transmitter started (set by qam_run) */
	long trained_at;	/* clock at the first training */
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

	if (st == SMDSP_STATUS_TRAINED) {
		if (!p->trained)
			p->trained_at = p->clock;
		pn_trained(p);
	} else if (st == SMDSP_STATUS_CARRIER_DOWN) {
		p->downs++;
	} else if (st == SMDSP_STATUS_CARRIER_UP) {
		p->ups++;
	} else if (st == SMDSP_STATUS_TRAINING_FAILED) {
		p->fails++;
	}
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

/* One modem's transmitter (ours or SpanDSP's) and both receivers. */
struct ends {
	int modem;
	int rate;
	void *otx, *stx;	/* ours, SpanDSP's: one of them */
	void *orx, *srx;
};

static void tx_free(struct ends *e)
{
	switch (e->modem) {
	case 27:
		smdsp_v27ter_tx_free(e->otx);
		if (e->stx)
			v27ter_tx_free(e->stx);
		break;
	case 29:
		smdsp_v29_tx_free(e->otx);
		if (e->stx)
			v29_tx_free(e->stx);
		break;
	default:
		smdsp_v17_tx_free(e->otx);
		if (e->stx)
			v17_tx_free(e->stx);
	}
}

/* A transmission from its start: a new transmitter of ours, SpanDSP's started again. */
static void start(const struct qamrun_cfg *c, struct pn *src, struct ends *e, double level, int shrt)
{
	int lv = (int)lround(level * 10);

	src->stop = 0;
	src->sent = 0;
	if (c->ours_tx) {
		tx_free(e);
		if (e->modem == 27)
			e->otx = smdsp_v27ter_tx_create(c->rate, lv, c->tep, pn_get, NULL, src);
		else if (e->modem == 29)
			e->otx = smdsp_v29_tx_create(c->rate, lv, c->tep, pn_get, NULL, src);
		else
			e->otx = smdsp_v17_tx_create(c->rate, lv, c->tep, shrt, pn_get, NULL, src);
	} else if (e->modem == 27) {
		e->stx = v27ter_tx_init(e->stx, c->rate, c->tep, sp_get, src);
		v27ter_tx_power(e->stx, (float)level);
	} else if (e->modem == 29) {
		e->stx = v29_tx_init(e->stx, c->rate, c->tep, sp_get, src);
		v29_tx_power(e->stx, (float)level);
	} else {
		e->stx = v17_tx_init(e->stx, c->rate, c->tep, sp_get, src);
		if (shrt)
			v17_tx_restart(e->stx, c->rate, c->tep, 1);
		v17_tx_power(e->stx, (float)level);
	}
}

static void tx_stop(struct ends *e)
{
	if (!e->otx)
		return;
	if (e->modem == 27)
		smdsp_v27ter_tx_stop(e->otx);
	else if (e->modem == 29)
		smdsp_v29_tx_stop(e->otx);
	else
		smdsp_v17_tx_stop(e->otx);
}

/* 160 samples of the transmitter: 1 when it has finished. */
static int tx_block(struct ends *e, int16_t *tx)
{
	switch (e->modem) {
	case 27:
		return e->otx ? !smdsp_v27ter_tx_process(e->otx, tx, 160) : v27ter_tx(e->stx, tx, 160) < 160;
	case 29:
		return e->otx ? !smdsp_v29_tx_process(e->otx, tx, 160) : v29_tx(e->stx, tx, 160) < 160;
	default:
		return e->otx ? !smdsp_v17_tx_process(e->otx, tx, 160) : v17_tx(e->stx, tx, 160) < 160;
	}
}

static void rx_create(struct ends *e, struct pn *ours, struct pn *sp)
{
	switch (e->modem) {
	case 27:
		e->orx = smdsp_v27ter_rx_create(e->rate, our_bit, our_status, ours);
		e->srx = v27ter_rx_init(NULL, e->rate, sp_bit, sp);
		break;
	case 29:
		e->orx = smdsp_v29_rx_create(e->rate, our_bit, our_status, ours);
		e->srx = v29_rx_init(NULL, e->rate, sp_bit, sp);
		/* its default cutoff misses a -40 dBm0 signal (ours is -43) */
		v29_rx_signal_cutoff(e->srx, -45.5f);
		break;
	default:
		e->orx = smdsp_v17_rx_create(e->rate, our_bit, our_status, ours);
		e->srx = v17_rx_init(NULL, e->rate, sp_bit, sp);
		v17_rx_signal_cutoff(e->srx, -45.5f);
	}
}

/* V.17: both receivers told which training comes next. */
static void rx_restart(struct ends *e, int shrt)
{
	if (e->modem != 17)
		return;
	smdsp_v17_rx_restart(e->orx, e->rate, shrt);
	v17_rx_restart(e->srx, e->rate, shrt);
}

static void rx_free(struct ends *e)
{
	switch (e->modem) {
	case 27:
		smdsp_v27ter_rx_free(e->orx);
		v27ter_rx_free(e->srx);
		break;
	case 29:
		smdsp_v29_rx_free(e->orx);
		v29_rx_free(e->srx);
		break;
	default:
		smdsp_v17_rx_free(e->orx);
		v17_rx_free(e->srx);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Both receivers on the same 160 samples, their CPU time counted. */
static void rx_block(struct ends *e, const int16_t *rx, struct qamrun_res *r)
{
	double t0 = now();

	if (e->modem == 27)
		smdsp_v27ter_rx_process(e->orx, rx, 160);
	else if (e->modem == 29)
		smdsp_v29_rx_process(e->orx, rx, 160);
	else
		smdsp_v17_rx_process(e->orx, rx, 160);
	r->rx_cpu[0] += now() - t0;
	t0 = now();
	if (e->modem == 27)
		v27ter_rx(e->srx, rx, 160);
	else if (e->modem == 29)
		v29_rx(e->srx, rx, 160);
	else
		v17_rx(e->srx, rx, 160);
	r->rx_cpu[1] += now() - t0;
}

double qam_ber(const struct qamrun_res *r, int rx)
{
	return r->bits[rx] ? r->errors[rx] / 3.0 / r->bits[rx] : 1.0;
}

void qam_run(int modem, const struct qamrun_cfg *c, struct qamrun_res *r)
{
	struct line_cfg lc = { .loss_db = c->loss_db, .noise_dbm0 = -300, .echo_db = -300, .delay = 8,
			       .ppm = c->ppm, .seed = c->seed };
	struct line *l = line_create(&lc);
	double level = c->level_dbm0 ? c->level_dbm0 : -14;
	double sigma = c->noise_dbm0 < 0 && c->noise_dbm0 > -200 ?
		       32767.0 * pow(10, (c->noise_dbm0 - 3.14) / 20) / sqrt(2) : 0;
	double eg = c->echo_db ? pow(10, c->echo_db / 20) : 0;
	struct pn src = { .reg = 0x4a3b2c }, ours = { 0 }, sp = { 0 };
	struct ends e = { .modem = modem, .rate = c->rate };
	int16_t tx[160], rx[160], btx[160] = { 0 }, arx[160];
	static int16_t hist[1024];
	unsigned int hpos = 0;
	uint64_t seed = c->seed ? c->seed : 99;
	long lead = lround(c->lead_s * 50), blocks = (long)(c->seconds * 50) + lead, i;
	long stop_at = c->tail_s > 0 ? blocks - lround(c->tail_s * 50) : -1;
	double sig = 0;
	long sig_n = 0;
	int k, on = !c->gate, bursts = c->bursts > 1 ? c->bursts : 1, gap = 0;

	rx_create(&e, &ours, &sp);
	memset(hist, 0, sizeof(hist));
	memset(r, 0, sizeof(*r));
	start(c, &src, &e, level, 0);
	for (i = 0; i < blocks; i++) {
		int done;

		memset(tx, 0, sizeof(tx));
		ours.clock = (i - lead) * 160;
		if (i == lead) {
			r->ups_lead = ours.ups;
			r->downs_lead = ours.downs;
		}
		if (i == stop_at) {
			/* the end of the signal: the shutdown's ones, then silence (and noise) */
			src.stop = 1;
			ours.limit = sp.limit = src.sent;
			tx_stop(&e);
			r->downs_sig = ours.downs - r->downs_lead;
			r->flips_tail = -(ours.ups + ours.downs);
		}
		if (i < lead) {
			line_process(l, tx, arx, btx, rx, 160);
			for (k = 0; k < 160 && sigma > 0 && !c->gate; k++)
				rx[k] = t_sat16(rx[k] + sigma * t_gauss(&seed));
			rx_block(&e, rx, r);
			continue;
		}
		if (bursts > 1 && i && i % (blocks / bursts) == 0) {
			/* end of this transmission: shut down, 200 ms of silence, the next one */
			src.stop = 1;
			ours.limit = sp.limit = src.sent;
			tx_stop(&e);
			gap = 10;
		}
		done = tx_block(&e, tx);
		if (done && gap && --gap == 0) {
			start(c, &src, &e, level, c->short_train);
			rx_restart(&e, c->short_train);
		}
		line_process(l, tx, arx, btx, rx, 160);
		for (k = 0; k < 160 && eg > 0; k++) {
			hist[hpos] = rx[k];
			rx[k] = t_sat16(rx[k] + eg * hist[(hpos - c->echo_delay) & 1023]);
			hpos = (hpos + 1) & 1023;
		}
		if (i - lead > 100) {
			for (k = 0; k < 160; k++)
				sig += (double)rx[k] * rx[k];
			sig_n += 160;
		}
		for (k = 0; k < 160 && sigma > 0; k++) {
			on |= rx[k] != 0;
			if (on)
				rx[k] = t_sat16(rx[k] + sigma * t_gauss(&seed));
		}
		rx_block(&e, rx, r);
	}
	r->bits[0] = ours.bits;
	r->errors[0] = ours.errors;
	r->trained[0] = ours.trained;
	r->bits[1] = sp.bits;
	r->errors[1] = sp.errors;
	r->trained[1] = sp.trained;
	r->carrier_downs = ours.downs;
	r->carrier_ups = ours.ups;
	r->fails = ours.fails;
	r->trained_s = ours.trained ? ours.trained_at / 8000.0 : -99;
	if (stop_at >= 0)
		r->flips_tail += ours.ups + ours.downs;
	else
		r->downs_sig = ours.downs - r->downs_lead;
	/* mean square against a full-scale sine's (3.14 dBm0) */
	r->rx_level_dbm0 = sig_n ? 10 * log10(sig / sig_n / (32767.0 * 32767 / 2)) + 3.14 : -99;
	line_free(l);
	rx_free(&e);
	tx_free(&e);
}

#define TARGET 1e-3

/* SNR (dB) where the BER first reaches TARGET going down in SNR; -99: never in range */
static double snr_at(const double *snr, const double *ber)
{
	int i;

	if (ber[0] >= TARGET)
		return 99;
	for (i = 1; i < QAM_BER_LEVELS; i++) {
		if (ber[i] >= TARGET) {
			double a = log10(ber[i - 1] > 1e-7 ? ber[i - 1] : 1e-7), b = log10(ber[i]);

			return snr[i - 1] + (snr[i] - snr[i - 1]) * (log10(TARGET) - a) / (b - a);
		}
	}
	return -99;
}

void qam_ber_sweep(int modem, const char *name, const char *key, const int *rates,
		   const double *top, int nrates, double unusable, const char *json)
{
	FILE *f = json ? fopen(json, "w") : NULL;
	double cpu[2] = { 0, 0 }, secs = 0;
	int ri, li, t, first = 1;

	if (f)
		fprintf(f, "{\n \"test\": \"%s\", \"rows\": [\n", key);
	printf("%s, signal at -14 dBm0, white noise over 0-4 kHz, 30 s per run\n", name);
	printf("%-5s %-11s %-8s %-8s %-22s %-22s\n", "rate", "noise", "SNR", "tx", "ours BER (bits)",
	       "SpanDSP BER (bits)");
	for (ri = 0; ri < nrates; ri++) {
		for (t = 1; t >= 0; t--) {
			double snr[QAM_BER_LEVELS], ber[2][QAM_BER_LEVELS], berc[QAM_BER_LEVELS], so, ss, sc;

			for (li = 0; li < QAM_BER_LEVELS; li++) {
				struct qamrun_cfg c = { .rate = rates[ri], .ours_tx = t, .seconds = 30,
							.noise_dbm0 = top[ri] + li, .seed = 4242 + li, .gate = 1 };
				struct qamrun_res r;

				qam_run(modem, &c, &r);
				cpu[0] += r.rx_cpu[0];
				cpu[1] += r.rx_cpu[1];
				secs += c.seconds;
				snr[li] = -14 - c.noise_dbm0;
				ber[0][li] = qam_ber(&r, 0);
				ber[1][li] = qam_ber(&r, 1);
				printf("%-5d %-6.0f dBm0 %-5.1f dB %-8s %-9.2e (%6ld)%s %-9.2e (%6ld)%s\n", c.rate,
				       c.noise_dbm0, snr[li], t ? "ours" : "SpanDSP", ber[0][li], r.bits[0],
				       r.trained[0] ? "" : " untrained", ber[1][li], r.bits[1],
				       r.trained[1] ? "" : " untrained");
				CHECK(r.trained[0] || !r.trained[1] || (unusable > 0 && ber[1][li] > unusable),
				      "%d noise %.0f: SpanDSP trained (BER %.1e), ours not", c.rate, c.noise_dbm0,
				      ber[1][li]);
				{
					/*
					 * The noise on from QAM_BER_LEAD before the signal (as on a
					 * real line; SpanDSP's receiver trains on it): ours against
					 * SpanDSP's in the gated noise, by the same rule.
					 */
					struct qamrun_cfg cc = c;
					struct qamrun_res rc;
					int sp_ok = r.trained[1] && !(unusable > 0 && ber[1][li] > unusable);

					cc.gate = 0;
					cc.lead_s = QAM_BER_LEAD;
					cc.seconds = QAM_BER_CONT_S;
					qam_run(modem, &cc, &rc);
					berc[li] = qam_ber(&rc, 0);
					printf("%-5d %-6.0f dBm0 %-5.1f dB %-8s %-9.2e (%6ld)%s  noise first, %.0f s\n",
					       c.rate, c.noise_dbm0, snr[li], t ? "ours" : "SpanDSP", berc[li],
					       rc.bits[0], rc.trained[0] ? "" : " untrained", cc.seconds);
					CHECK(rc.trained[0] || !sp_ok, "%d noise %.0f first: SpanDSP trained in gated "
					      "noise (BER %.1e), ours not in continuous noise", c.rate, c.noise_dbm0,
					      ber[1][li]);
				}
				if (f) {
					fprintf(f, "%s  {\"rate\": %d, \"noise_dbm0\": %.0f, \"tx\": \"%s\", "
						"\"ours_ber\": %.3e, \"spandsp_ber\": %.3e, \"bits\": [%ld, %ld]}",
						first ? "" : ",\n", c.rate, c.noise_dbm0, t ? "ours" : "spandsp",
						ber[0][li], ber[1][li], r.bits[0], r.bits[1]);
					first = 0;
				}
			}
			so = snr_at(snr, ber[0]);
			ss = snr_at(snr, ber[1]);
			sc = snr_at(snr, berc);
			printf("%-5d tx %-8s noise first: ours needs %.1f dB for BER %.0e (SpanDSP %.1f dB gated)\n",
			       rates[ri], t ? "ours" : "SpanDSP", sc, TARGET, ss);
			CHECK(sc > -99 && sc < 99 && sc <= ss + 1.0, "%d tx %s, noise first: ours needs %.1f dB, "
			      "SpanDSP %.1f dB", rates[ri], t ? "ours" : "SpanDSP", sc, ss);
			printf("%-5d tx %-8s SNR for BER %.0e: ours %.1f dB, SpanDSP %.1f dB, margin %+.1f dB\n",
			       rates[ri], t ? "ours" : "SpanDSP", TARGET, so, ss, ss - so);
			CHECK(so > -99 && ss > -99 && so < 99 && ss < 99, "%d: BER %.0e not crossed in range",
			      rates[ri], TARGET);
			CHECK(so <= ss + 1.0, "%d tx %s: ours needs %.1f dB, SpanDSP %.1f dB", rates[ri],
			      t ? "ours" : "SpanDSP", so, ss);
		}
	}
	printf("receive CPU per second of signal: ours %.1f us, SpanDSP %.1f us\n", cpu[0] / secs * 1e6,
	       cpu[1] / secs * 1e6);
	if (f) {
		fprintf(f, "\n ],\n \"rx_us_per_s\": {\"ours\": %.2f, \"spandsp\": %.2f}\n}\n",
			cpu[0] / secs * 1e6, cpu[1] / secs * 1e6);
		fclose(f);
	}
}

/* the rate's column: V.17's 14400 and 12000 need five */
static int rate_width(int modem)
{
	return modem == 17 ? 5 : 4;
}

void qam_check(int modem, const char *what, const struct qamrun_cfg *c, double tep_s, int sp_ppm_loses)
{
	struct qamrun_res r;
	long want = (long)(c->rate * (c->seconds - 1.6 - (c->tep ? tep_s : 0)) * 0.9);
	int rx;

	qam_run(modem, c, &r);
	printf("%-*d %-8s %-26s rx level %6.1f dBm0  ours: %s %6ld bits %ld err  SpanDSP: %s %6ld bits %ld err\n",
	       rate_width(modem), c->rate, c->ours_tx ? "ours tx" : "sp tx", what, r.rx_level_dbm0,
	       r.trained[0] ? "trained" : "NOT trained", r.bits[0], r.errors[0],
	       r.trained[1] ? "trained" : "NOT trained", r.bits[1], r.errors[1]);
	for (rx = 0; rx < 2; rx++) {
		CHECK(r.trained[rx], "%d %s %s: %s receiver did not train", c->rate,
		      c->ours_tx ? "ours" : "SpanDSP", what, rx ? "SpanDSP's" : "our");
		if (sp_ppm_loses && rx == 1 && c->ppm != 0)
			continue;
		CHECK(r.bits[rx] >= want && r.errors[rx] == 0, "%d %s tx %s: %s receiver %ld bits (want %ld), %ld errors",
		      c->rate, c->ours_tx ? "ours" : "SpanDSP", what, rx ? "SpanDSP's" : "our", r.bits[rx],
		      want, r.errors[rx]);
	}
}

void qam_check_bursts(int modem, const char *what, struct qamrun_cfg *c, double seconds, int sp_ppm_errs)
{
	struct qamrun_res r;
	int rx;

	c->bursts = 3;
	c->seconds = seconds;
	qam_run(modem, c, &r);
	printf("%-*d %-8s %-26s ours: %d trainings, %d carrier losses, %6ld bits %ld err  SpanDSP: %d trainings, %6ld bits %ld err\n",
	       rate_width(modem), c->rate, c->ours_tx ? "ours tx" : "sp tx", what, r.trained[0],
	       r.carrier_downs, r.bits[0], r.errors[0], r.trained[1], r.bits[1], r.errors[1]);
	CHECK(r.trained[0] == 3 && r.carrier_downs == 2, "%d bursts: ours trained %d times, %d carrier losses",
	      c->rate, r.trained[0], r.carrier_downs);
	for (rx = 0; rx < 2; rx++)
		CHECK(r.trained[rx] == 3 && r.bits[rx] >= (long)(c->rate * 4.0) &&
		      (r.errors[rx] == 0 || (sp_ppm_errs && rx == 1 && c->ppm && r.errors[rx] < r.bits[rx] / 100)),
		      "%d %s tx, %s: %s receiver %d trainings, %ld bits, %ld errors", c->rate,
		      c->ours_tx ? "ours" : "SpanDSP", what, rx ? "SpanDSP's" : "our", r.trained[rx], r.bits[rx],
		      r.errors[rx]);
	c->bursts = 0;
	c->short_train = 0;
	c->seconds = 6;
}

void qam_check_line(int modem, struct qamrun_cfg *c, double tep_s, int sp_ppm_loses, int echo)
{
	c->tep = 1;
	qam_check(modem, "clean, echo protection", c, tep_s, sp_ppm_loses);
	c->tep = 0;
	c->ppm = 100;
	qam_check(modem, "+100 ppm", c, tep_s, sp_ppm_loses);
	c->ppm = -100;
	qam_check(modem, "-100 ppm", c, tep_s, sp_ppm_loses);
	c->ppm = 0;
	c->loss_db = 10;
	qam_check(modem, "10 dB loss (-24 dBm0)", c, tep_s, sp_ppm_loses);
	c->loss_db = 26;
	qam_check(modem, "26 dB loss (-40 dBm0)", c, tep_s, sp_ppm_loses);
	c->loss_db = 0;
	c->level_dbm0 = -6;
	qam_check(modem, "sent at -6 dBm0", c, tep_s, sp_ppm_loses);
	c->level_dbm0 = 0;
	if (echo) {
		c->echo_db = -20;
		c->echo_delay = 12;
		qam_check(modem, "echo -20 dB, 1.5 ms", c, tep_s, sp_ppm_loses);
		c->echo_db = 0;
	}
}
