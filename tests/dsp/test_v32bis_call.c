/*
 * The V.32bis start-up between our caller and our answerer (dsp/v32bis.c)
 * over the test line, the two directions apart (a 4-wire line: no echo, the
 * modems' echo cancellers off; test_v32bis_echo has the 2-wire line):
 * AA/AC/CA/CC and the round trip each end measures, both trainings,
 * R1/R2/R3 and E, then a 2^23-1 PRBS both ways.
 * - one-way delays 0 to 40 ms: both ends at 14400 bit/s, their round trips
 *   (TD_LAT calibrated on this line at 0 ms) within 2 ms of the line's
 *   (twice the delay and the line's own 16 samples) at 0 ms and within
 *   8 ms of it, less the offset at 0 ms, at every delay;
 * - an answerer offering 4800 and 9600 only: 9600 (R1 ANDed);
 * - a V.32 modem without the trellis code (SMDSP_V32BIS_UNCODED: B8 = 0)
 *   at either end, or both: 9600 uncoded, both ends told so; on a line
 *   (SNR 20 dB) good enough for the coded 9600 but not the uncoded, 4800
 *   with the V.32 peer where two V.32bis ends take 9600;
 * - noise: the rate falls with the SNR each receiver measured on TRN, and
 *   the data still arrive intact;
 * - +-100 ppm of clock and 20 dB of loss: 14400, intact;
 * - a retrain asked for by the caller, then by the answerer, in the data:
 *   both back at 14400, the data after it intact; noise from 4 s on (SNR
 *   21 dB) on a call at 14400: a retrain by itself, a lower rate, intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v32bis.h>
#include <math.h>
#include "check.h"
#include "line.h"
#include "tutil.h"
#include "v32ep.h"

struct end {
	struct v32_prbs src, chk;	/* src: what it sends; chk: what it receives */
};

static int src_cb(void *u)
{
	return v32_prbs_src(&((struct end *)u)->src);
}

static void chk_cb(void *u, int b)
{
	v32_prbs_chk(&((struct end *)u)->chk, b);
}

/* a retrain or a worse line during the call */
struct event {
	double retrain_at;	/* s: smdsp_v32bis_retrain() at this end (0: none) */
	int who;		/* 0 the caller, 1 the answerer */
	double noise_at;	/* s: from then, white noise at noise_dbm0 on both receivers (0: none) */
	double noise_dbm0;
	bool no_reneg;		/* a low SNR retrains (smdsp_v32bis_set_auto_reneg() off) */
};

struct callres {
	int data[2];		/* both in data mode */
	unsigned int retrains[2];
	unsigned int renegs[2];
	double data_s[2];
	unsigned int rate[2];
	bool trellis[2];
	int rtd[2];
	int snr[2];
	long bits[2], errors[2];
};

/* [0] caller, [1] answerer */
static void call_ev(const struct line_cfg *lc, unsigned int rates_c, unsigned int rates_a, double seconds,
		    const struct event *ev, struct callres *r)
{
	static struct end e[2];
	/* a 4-wire line: no echo, no canceller (test_v32bis_echo has the 2-wire line) */
	struct smdsp_v32bis_config cc = { .caller = true, .rates = rates_c, .get_bit = src_cb, .put_bit = chk_cb,
					  .user = &e[0], .four_wire = true };
	struct smdsp_v32bis_config ca = { .caller = false, .rates = rates_a, .get_bit = src_cb, .put_bit = chk_cb,
					  .user = &e[1], .four_wire = true };
	struct smdsp_v32bis *m[2];
	struct line *l = line_create(lc);
	int16_t atx[160], arx[160], btx[160], brx[160];
	long k, n = (long)(seconds * 50);
	uint64_t nseed = 77;
	int i;

	memset(e, 0, sizeof(e));
	memset(r, 0, sizeof(*r));
	e[0].src.reg = 0x1234;
	e[1].src.reg = 0x4321;
	m[0] = smdsp_v32bis_create(&cc);
	m[1] = smdsp_v32bis_create(&ca);
	for (i = 0; ev && ev->no_reneg && i < 2; i++)
		smdsp_v32bis_set_auto_reneg(m[i], false);
	memset(arx, 0, sizeof(arx));
	memset(brx, 0, sizeof(brx));
	for (k = 0; k < n; k++) {
		double t = k / 50.0;

		if (ev && ev->retrain_at > 0 && t == ev->retrain_at)
			smdsp_v32bis_retrain(m[ev->who]);
		smdsp_v32bis_process(m[0], arx, atx, 160);
		smdsp_v32bis_process(m[1], brx, btx, 160);
		line_process(l, atx, arx, btx, brx, 160);
		if (ev && ev->noise_at > 0 && t >= ev->noise_at) {
			/* dBm0 to the samples' rms as the line's own noise (line.c) */
			double rms = 32767.0 * pow(10, (ev->noise_dbm0 - 3.14) / 20) / sqrt(2);
			int j;

			for (j = 0; j < 160; j++) {
				arx[j] = t_sat16(arx[j] + rms * t_gauss(&nseed));
				brx[j] = t_sat16(brx[j] + rms * t_gauss(&nseed));
			}
		}
		for (i = 0; i < 2; i++) {
			if (smdsp_v32bis_phase(m[i]) != SMDSP_V32BIS_PH_DATA)
				r->data[i] = 0;
			/*
			 * after a retrain the data that follows is counted: what the
			 * receiver made of the retrain's tones before it heard them is not
			 */
			if (!r->data[i] && smdsp_v32bis_phase(m[i]) == SMDSP_V32BIS_PH_DATA && k)
				memset(&e[i].chk, 0, sizeof(e[i].chk));
			if (!r->data[i] && smdsp_v32bis_phase(m[i]) == SMDSP_V32BIS_PH_DATA) {
				r->data[i] = 1;
				r->data_s[i] = (k + 1) / 50.0;
			}
		}
	}
	for (i = 0; i < 2; i++) {
		char buf[160];

		r->rate[i] = smdsp_v32bis_rate(m[i]);
		r->trellis[i] = smdsp_v32bis_trellis(m[i]);
		r->retrains[i] = smdsp_v32bis_retrains(m[i]);
		r->renegs[i] = smdsp_v32bis_renegs(m[i]);
		r->rtd[i] = smdsp_v32bis_rtd(m[i]);
		r->snr[i] = smdsp_v32bis_trn_snr_10(m[i]);
		r->bits[i] = e[i].chk.bits;
		r->errors[i] = e[i].chk.errors;
		smdsp_v32bis_print(m[i], buf, sizeof(buf));
		if (!r->data[i] || getenv("V32_VERBOSE"))
			printf("  %s\n", buf);
		smdsp_v32bis_free(m[i]);
	}
	line_free(l);
}

static void call(const struct line_cfg *lc, unsigned int rates_c, unsigned int rates_a, double seconds,
		 struct callres *r)
{
	call_ev(lc, rates_c, rates_a, seconds, NULL, r);
}

static void show(const char *what, const struct callres *r)
{
	printf("%-30s caller: %s at %.2f s, %5u bit/s, RTD %5.1f ms, TRN SNR %4.1f dB, %6ld bits %ld err | "
	       "answerer: %s at %.2f s, %5u bit/s, RTD %5.1f ms, TRN SNR %4.1f dB, %6ld bits %ld err; "
	       "retrains %u/%u, renegotiations %u/%u\n", what,
	       r->data[0] ? "data" : "NO DATA", r->data_s[0], r->rate[0], r->rtd[0] / 8.0, r->snr[0] / 10.0,
	       r->bits[0], r->errors[0], r->data[1] ? "data" : "NO DATA", r->data_s[1], r->rate[1],
	       r->rtd[1] / 8.0, r->snr[1] / 10.0, r->bits[1], r->errors[1], r->retrains[0], r->retrains[1],
	       r->renegs[0], r->renegs[1]);
}

static int intact(const struct callres *r, unsigned int rate, double data_s)
{
	int i, ok = 1;

	for (i = 0; i < 2; i++)
		ok &= r->data[i] && r->rate[i] == rate && r->errors[i] == 0 &&
		      r->bits[i] > (long)(rate * data_s * 0.9);
	return ok;
}

int main(void)
{
	static const int delays_ms[] = { 0, 5, 13, 20, 31, 40 };
	struct line_cfg lc = { .noise_dbm0 = -300, .echo_db = -300, .seed = 3 };
	struct callres r;
	int base[2] = { 0, 0 };
	unsigned int i;
	char what[64];

	for (i = 0; i < sizeof(delays_ms) / sizeof(delays_ms[0]); i++) {
		int rtd_line = 2 * (delays_ms[i] * 8 + 16);

		lc.delay = delays_ms[i] * 8;
		lc.loss_db = 6;
		call(&lc, 0, 0, 6, &r);
		snprintf(what, sizeof(what), "%d ms one way", delays_ms[i]);
		show(what, &r);
		if (!i) {
			base[0] = r.rtd[0] - rtd_line;
			base[1] = r.rtd[1] - rtd_line;
			CHECK(base[0] > -16 && base[0] < 16 && base[1] > -16 && base[1] < 16,
			      "at 0 ms: round trips %d, %d samples, the line's %d", r.rtd[0], r.rtd[1], rtd_line);
		}
		CHECK(intact(&r, 14400, 6 - 3.5) && !r.retrains[0] && !r.retrains[1],
		      "%s: not 14400 intact both ways without a retrain", what);
		CHECK(r.rtd[0] - base[0] - rtd_line > -64 && r.rtd[0] - base[0] - rtd_line < 64 &&
		      r.rtd[1] - base[1] - rtd_line > -64 && r.rtd[1] - base[1] - rtd_line < 64,
		      "%s: round trips %d and %d samples, the line's %d (+%d, +%d)", what, r.rtd[0], r.rtd[1],
		      rtd_line, base[0], base[1]);
	}
	printf("the measured round trips less the line's at 0 ms: caller %.1f ms, "
	       "answerer %.1f ms\n", base[0] / 8.0, base[1] / 8.0);
	lc.delay = 80;
	call(&lc, 0, SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600, 6, &r);
	show("answerer offers 4800, 9600", &r);
	CHECK(intact(&r, 9600, 2.5) && r.trellis[0] && r.trellis[1], "4800/9600 answerer: not 9600 intact");
	{
		/* a V.32 modem without the trellis code: the caller, the answerer, both */
		const unsigned int v32 = SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600 | SMDSP_V32BIS_UNCODED;
		static const char *const who[3] = { "V.32 caller (B8 = 0)", "V.32 answerer (B8 = 0)",
						     "both V.32 (B8 = 0)" };

		for (i = 0; i < 3; i++) {
			call(&lc, i != 1 ? v32 : 0, i != 0 ? v32 : 0, 6, &r);
			show(who[i], &r);
			CHECK(intact(&r, 9600, 2.5) && !r.trellis[0] && !r.trellis[1], "%s: not 9600 uncoded intact",
			      who[i]);
		}
		/* a line the coded 9600 takes and the uncoded does not (signal at -19 dBm0: SNR 20 dB) */
		lc.noise_dbm0 = -39;
		lc.seed = 21;
		call(&lc, 0, 0, 8, &r);
		show("V.32bis both, SNR 20 dB", &r);
		CHECK(intact(&r, r.rate[0], 2.5) && r.rate[0] >= 9600 && r.trellis[0] && r.trellis[1],
		      "SNR 20 dB: %u bit/s, not 9600 or more trellis-coded", r.rate[0]);
		call(&lc, 0, v32, 8, &r);
		show("V.32 answerer, SNR 20 dB", &r);
		CHECK(intact(&r, 4800, 2.5), "SNR 20 dB, uncoded peer: %u bit/s, not 4800", r.rate[0]);
		lc.noise_dbm0 = -300;
		lc.seed = 3;
	}
	lc.ppm = 100;
	lc.loss_db = 20;
	call(&lc, 0, 0, 6, &r);
	show("20 dB loss, +100 ppm", &r);
	CHECK(intact(&r, 14400, 2.5), "+100 ppm: not 14400 intact");
	lc.ppm = -100;
	call(&lc, 0, 0, 6, &r);
	show("20 dB loss, -100 ppm", &r);
	CHECK(intact(&r, 14400, 2.5), "-100 ppm: not 14400 intact");
	lc.ppm = 0;
	lc.loss_db = 6;
	{
		/* signal at -19 dBm0 after the loss: SNR 29, 24, 21, 18 dB */
		static const double noise[4] = { -48, -43, -40, -37 };
		unsigned int last = 14401, k;

		for (k = 0; k < 4; k++) {
			lc.noise_dbm0 = noise[k];
			lc.seed = 11 + k;
			call(&lc, 0, 0, 8, &r);
			snprintf(what, sizeof(what), "noise %.0f dBm0 (SNR %.0f dB)", noise[k], -19 - noise[k]);
			show(what, &r);
			CHECK(r.data[0] && r.data[1] && r.rate[0] == r.rate[1] && r.rate[0] <= last &&
			      r.errors[0] == 0 && r.errors[1] == 0 && r.bits[0] > 0 && r.bits[1] > 0 &&
			      !r.retrains[0] && !r.retrains[1],
			      "%s: rate %u/%u, errors %ld/%ld", what, r.rate[0], r.rate[1], r.errors[0], r.errors[1]);
			last = r.rate[0];
		}
		CHECK(last < 14400, "the noisiest line still at 14400");
	}
	/* retrains: asked for by either end on a clean line, and by themselves on a worse one */
	{
		struct line_cfg cl = { .noise_dbm0 = -300, .echo_db = -300, .seed = 5, .loss_db = 6, .delay = 80 };
		struct event ev = { .retrain_at = 4.0, .who = 0 };

		call_ev(&cl, 0, 0, 9, &ev, &r);
		show("retrain by the caller at 4 s", &r);
		CHECK(intact(&r, 14400, 2.5) && r.retrains[0] == 1 && r.retrains[1] == 1,
		      "caller's retrain: retrains %u/%u", r.retrains[0], r.retrains[1]);
		ev.who = 1;
		call_ev(&cl, 0, 0, 9, &ev, &r);
		show("retrain by the answerer at 4 s", &r);
		CHECK(intact(&r, 14400, 2.5) && r.retrains[0] == 1 && r.retrains[1] == 1,
		      "answerer's retrain: retrains %u/%u", r.retrains[0], r.retrains[1]);
		/* signal at -19 dBm0: noise at -40 from 4 s, an SNR of 21 dB */
		ev.retrain_at = 0;
		ev.noise_at = 4.0;
		ev.noise_dbm0 = -40;
		call_ev(&cl, 0, 0, 10, &ev, &r);
		show("noise from 4 s, SNR 21 dB", &r);
		CHECK(r.data[0] && r.data[1] && r.rate[0] == r.rate[1] && r.rate[0] < 14400 &&
		      !r.retrains[0] && !r.retrains[1] && r.renegs[0] >= 1 && r.renegs[0] == r.renegs[1] &&
		      r.errors[0] == 0 && r.errors[1] == 0 && r.bits[0] > 0 && r.bits[1] > 0,
		      "worse line: rate %u/%u, retrains %u/%u, renegotiations %u/%u, errors %ld/%ld",
		      r.rate[0], r.rate[1], r.retrains[0], r.retrains[1], r.renegs[0], r.renegs[1], r.errors[0],
		      r.errors[1]);
		/* without the renegotiation: V.32's retrain */
		ev.no_reneg = true;
		call_ev(&cl, 0, 0, 10, &ev, &r);
		show("the same, renegotiation off", &r);
		CHECK(r.data[0] && r.data[1] && r.rate[0] == r.rate[1] && r.rate[0] < 14400 &&
		      r.retrains[0] + r.retrains[1] >= 1 && !r.renegs[0] && !r.renegs[1] && r.errors[0] == 0 &&
		      r.errors[1] == 0 && r.bits[0] > 0 && r.bits[1] > 0,
		      "worse line: rate %u/%u, retrains %u/%u, errors %ld/%ld",
		      r.rate[0], r.rate[1], r.retrains[0], r.retrains[1], r.errors[0], r.errors[1]);
	}
	return t_report("test_v32bis_call");
}
