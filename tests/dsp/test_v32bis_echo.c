/*
 * V.32bis full duplex over a 2-wire line: our caller and our answerer
 * (dsp/v32bis.c with its echo canceller, dsp/echo.c) over the test line
 * with each end's own signal coming back into its receiver: the near echo
 * through a G.168 hybrid (m1..m8) at a realistic echo return loss, and a
 * far echo behind the round trip, shifted in frequency; noise and clock
 * offset on top. A 2^23-1 PRBS both ways.
 *
 * The suite's matrix (about 20 s):
 * - every G.168 hybrid at ERL 6 to 15 dB, with a far echo 6 to 20 dB down
 *   at 0 to 600 ms of round trip and 0 to 7 Hz of offset, +-100 ppm: both
 *   ends trained at 14400 with no retrain, the data intact both ways;
 * - the same modems with the canceller off (four_wire) on the worst of
 *   those lines: no data at 14400 (the echo is what the canceller removes);
 * - a 4-wire line (no echo) with the canceller on: 14400, intact (it costs
 *   nothing there);
 * - a retrain asked for in the data over a 2-wire line: back at 14400,
 *   intact, the canceller kept through it;
 * - noise on a 2-wire line: the rate each end settles on falls with the SNR
 *   (one retrain allowed) and the data stay intact.
 * Options: --full the whole matrix as a table (every hybrid x ERL x far echo
 * x offset x ppm, 240 lines; about 10 minutes); --ber the BER against SNR
 * at 14400 on a 2-wire line beside a 4-wire one (both directions' PRBS, the
 * echo's cost in dB at 1e-4; about 3 minutes); --block=N: N samples a call;
 * --full=H,F: only hybrid H's lines with the matrix's far echo F (0-4: none,
 * 6 dB at 4 ms, 6 dB at 304 ms +7 Hz, 20 dB at 604 ms -7 Hz, 10 dB at 604 ms
 * +3.5 Hz), the same seeds; --quick: two lines of the matrix (the UBSan builds); --only=M: the
 * matrix's line with hybrid M; --line=M,ERL,FAR_DB,ONE_WAY_MS,HZ,PPM[,NOISE]:
 * one call over that line; -v the modems' state lines, -vv their
 * changes as they come (--trace=N: and every N blocks).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v32bis.h>
#include "check.h"
#include "line.h"
#include "tutil.h"
#include "v32ep.h"

static int verbose;
static int trace_every = 50;	/* -vv: blocks between the state lines */
static int blk = 160;		/* samples per smdsp_v32bis_process() call (--block=N) */

struct end {
	struct v32_prbs src, chk;
};

static int src_cb(void *u)
{
	return v32_prbs_src(&((struct end *)u)->src);
}

static void chk_cb(void *u, int b)
{
	v32_prbs_chk(&((struct end *)u)->chk, b);
}

struct callcfg {
	struct line_cfg lc;
	double seconds;
	bool four_wire;		/* both ends without a canceller */
	double retrain_at;	/* s: the caller asks for a retrain (0: none) */
	double count_from;	/* s: count the PRBS from then on (0: from the data) */
	double noise_at;	/* s: from then, white noise at noise_dbm0 at both receivers (0: none) */
	double noise_dbm0;
	bool no_auto;		/* no retrain on a low SNR (the BER runs) */
	unsigned int rates;	/* offered by both (0: all) */
};

struct callres {
	int data[2];
	double data_s[2];
	unsigned int rate[2];
	unsigned int retrains[2];
	int rtd[2];
	int snr[2];
	int erle[2];		/* dB at the end of the last training window */
	long bits[2], errors[2];
};

/* [0] the caller, [1] the answerer */
static void call(const struct callcfg *c, struct callres *r)
{
	static struct end e[2];
	struct smdsp_v32bis_config cc = { .caller = true, .get_bit = src_cb, .put_bit = chk_cb, .user = &e[0],
					  .four_wire = c->four_wire, .rates = c->rates };
	struct smdsp_v32bis_config ca = { .caller = false, .get_bit = src_cb, .put_bit = chk_cb, .user = &e[1],
					  .four_wire = c->four_wire, .rates = c->rates };
	double rms = 32767.0 * pow(10, (c->noise_dbm0 - 3.14) / 20) / sqrt(2);
	uint64_t nseed = c->lc.seed * 7 + 1;
	struct smdsp_v32bis *m[2];
	struct line *l = line_create(&c->lc);
	static int16_t atx[1000], arx[1000], btx[1000], brx[1000];
	long k, n = (long)(c->seconds * 8000 / blk);
	int i;

	memset(e, 0, sizeof(e));
	memset(r, 0, sizeof(*r));
	e[0].src.reg = 0x1234;
	e[1].src.reg = 0x4321;
	m[0] = smdsp_v32bis_create(&cc);
	m[1] = smdsp_v32bis_create(&ca);
	for (i = 0; i < 2; i++)
		smdsp_v32bis_set_auto_retrain(m[i], !c->no_auto);
	memset(arx, 0, sizeof(arx));
	memset(brx, 0, sizeof(brx));
	for (k = 0; k < n; k++) {
		double t = k * (double)blk / 8000;

		if (c->retrain_at > 0 && k == (long)(c->retrain_at * 8000 / blk))
			smdsp_v32bis_retrain(m[0]);
		smdsp_v32bis_process(m[0], arx, atx, blk);
		smdsp_v32bis_process(m[1], brx, btx, blk);
		line_process(l, atx, arx, btx, brx, blk);
		if (c->noise_at > 0 && t >= c->noise_at) {
			int j;

			for (j = 0; j < blk; j++) {
				arx[j] = t_sat16(arx[j] + rms * t_gauss(&nseed));
				brx[j] = t_sat16(brx[j] + rms * t_gauss(&nseed));
			}
		}
		for (i = 0; i < 2; i++) {
			int now = smdsp_v32bis_phase(m[i]) == SMDSP_V32BIS_PH_DATA;

			/* what a receiver made of a retrain's tones is not data: counted afresh after it */
			if ((now && !r->data[i]) || (c->count_from > 0 && k == (long)(c->count_from * 8000 / blk)))
				memset(&e[i].chk, 0, sizeof(e[i].chk));
			if (now && !r->data[i])
				r->data_s[i] = (k + 1) * (double)blk / 8000;
			r->data[i] = now;
		}
		if (verbose > 1) {
			static unsigned int last[2];
			char buf[200];

			for (i = 0; i < 2; i++) {
				unsigned int st = 0;
				const char *p;

				smdsp_v32bis_print(m[i], buf, sizeof(buf));
				p = strstr(buf, "state=");
				if (p)
					sscanf(p, "state=%u", &st);
				if (k && k % trace_every && st == last[i])
					continue;
				last[i] = st;
				smdsp_v32bis_print(m[i], buf, sizeof(buf));
				printf("  %.2f %s\n", t, buf);
				smdsp_v32bis_echo_print(m[i], buf, sizeof(buf));
				printf("  %.2f %s %s\n", t, i ? "ans" : "cal", buf);
			}
		}
	}
	for (i = 0; i < 2; i++) {
		char buf[200];

		r->rate[i] = smdsp_v32bis_rate(m[i]);
		r->retrains[i] = smdsp_v32bis_retrains(m[i]);
		r->rtd[i] = smdsp_v32bis_rtd(m[i]);
		r->snr[i] = smdsp_v32bis_trn_snr_10(m[i]);
		r->erle[i] = smdsp_v32bis_echo_erle_db_q8(m[i]) / 256;
		r->bits[i] = e[i].chk.bits;
		r->errors[i] = e[i].chk.errors;
		if (verbose) {
			smdsp_v32bis_print(m[i], buf, sizeof(buf));
			printf("  %s\n", buf);
			smdsp_v32bis_echo_print(m[i], buf, sizeof(buf));
			printf("  %s\n", buf);
		}
		smdsp_v32bis_free(m[i]);
	}
	CHECK(line_starved(l) == 0, "the test line ran short of samples (%ld): its delay is too short for its clock offset",
	      line_starved(l));
	line_free(l);
}

static void show(const char *what, const struct callres *r)
{
	printf("%-44s caller: %s %5u bit/s at %.2f s, RTD %5.1f ms, SNR %4.1f dB, ERLE %3d dB, %6ld bits %ld err | "
	       "answerer: %s %5u at %.2f s, SNR %4.1f, ERLE %3d, %6ld bits %ld err; retrains %u/%u\n", what,
	       r->data[0] ? "data" : "NONE", r->rate[0], r->data_s[0], r->rtd[0] / 8.0, r->snr[0] / 10.0, r->erle[0],
	       r->bits[0], r->errors[0], r->data[1] ? "data" : "NONE", r->rate[1], r->data_s[1], r->snr[1] / 10.0,
	       r->erle[1], r->bits[1], r->errors[1], r->retrains[0], r->retrains[1]);
	fflush(stdout);
}

/* both ends in data at rate, no retrain, at least min_bits each way, none wrong */
static int intact(const struct callres *r, unsigned int rate, long min_bits)
{
	int i, ok = 1;

	for (i = 0; i < 2; i++)
		ok &= r->data[i] && r->rate[i] == rate && r->errors[i] == 0 && r->bits[i] >= min_bits &&
		      !r->retrains[i];
	return ok;
}

/* A 2-wire line: one-way delay d_ms, the far echo (far_db down, 0: none) at the line's round trip. */
static struct line_cfg two_wire(int hybrid, double erl, double far_db, int d_ms, double hz, double ppm,
				uint64_t seed)
{
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300, .seed = seed,
			       .hybrid = hybrid, .hybrid_erl_db = erl, .far_echo_db = far_db,
			       .far_hybrid = 1 + (hybrid % 8), .far_echo_hz = hz, .ppm = ppm };

	lc.delay = d_ms * 8;
	/* the line's clock converter needs a little delay to draw on over a long call */
	if (ppm != 0 && lc.delay < 40)
		lc.delay = 40;
	/* the far hybrid sits at the far modem: the round trip of the line */
	lc.far_echo_delay = 2 * (lc.delay + 16);
	return lc;
}

static const char *line_name(const struct line_cfg *lc, char *buf, size_t len)
{
	snprintf(buf, len, "m%d ERL %2.0f, far %2.0f dB %3d ms %+.1f Hz, %+4.0f ppm", lc->hybrid, lc->hybrid_erl_db,
		 lc->far_echo_db, lc->far_echo_db > 0 ? lc->far_echo_delay / 8 : 0, lc->far_echo_hz, lc->ppm);

	return buf;
}

/* The suite's lines: each hybrid once, the ERL, far echo and offsets spread over them. */
static void suite_matrix(int only)
{
	static const struct {
		int m;
		double erl, far_db;
		int d_ms;
		double hz, ppm;
	} lines[] = {
		{ 1, 6, 6, 0, 0, 0 },
		{ 2, 10, 12, 50, 2, 100 },
		{ 3, 15, 20, 100, -3.5, -100 },
		{ 4, 6, 10, 150, 5, 0 },
		{ 5, 12, 6, 200, -7, 100 },
		{ 6, 8, 20, 250, 7, -100 },
		{ 7, 6, 15, 300, 0, 0 },
		{ 8, 10, 6, 300, 3, -100 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct callcfg c = { .seconds = 12 };
		struct callres r;
		char what[80];

		/* --quick (the UBSan builds): the first line and the last, 0 and 600 ms */
		if ((only > 0 && only != lines[i].m) ||
		    (only < 0 && i && i + 1 != sizeof(lines) / sizeof(lines[0])))
			continue;
		c.lc = two_wire(lines[i].m, lines[i].erl, lines[i].far_db, lines[i].d_ms, lines[i].hz, lines[i].ppm,
				21 + i);
		call(&c, &r);
		show(line_name(&c.lc, what, sizeof(what)), &r);
		CHECK(intact(&r, 14400, 14400L * 2), "%s: not 14400 intact both ways", what);
		CHECK(r.erle[0] >= 20 && r.erle[1] >= 20, "%s: ERLE %d/%d dB after training", what, r.erle[0],
		      r.erle[1]);
	}
}

/* The worst line of the matrix (ERL 6, far echo 6 dB at 600 ms, 7 Hz): what the canceller is for. */
static void suite_controls(void)
{
	struct callcfg c = { .seconds = 12 };
	struct callres r, off;
	char what[80];

	c.lc = two_wire(5, 6, 6, 300, 7, 100, 41);
	call(&c, &r);
	show(line_name(&c.lc, what, sizeof(what)), &r);
	CHECK(intact(&r, 14400, 14400L * 2), "%s: not 14400 intact both ways", what);
	c.four_wire = true;
	call(&c, &off);
	show("the same, no canceller", &off);
	CHECK(!off.data[0] || !off.data[1] || off.rate[0] < 14400 || off.errors[0] || off.errors[1] ||
	      off.retrains[0] || off.retrains[1], "no canceller on a 2-wire line and still 14400 intact");
	/* a 4-wire line: the canceller trains on nothing and costs nothing */
	c = (struct callcfg){ .seconds = 9 };
	c.lc = (struct line_cfg){ .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300, .delay = 200, .seed = 43 };
	call(&c, &r);
	show("4-wire line, canceller on", &r);
	CHECK(intact(&r, 14400, 14400L * 2), "4-wire line with the canceller: not 14400 intact");
}

/* A retrain asked for in the data: the tones over the frozen canceller, a window again, back to 14400. */
static void suite_retrain(void)
{
	struct callcfg c = { .seconds = 15, .retrain_at = 7, .count_from = 12 };
	struct callres r;

	c.lc = two_wire(3, 8, 10, 150, 2.5, -100, 45);
	call(&c, &r);
	show("retrain by the caller at 7 s (m3, 300 ms)", &r);
	CHECK(r.data[0] && r.data[1] && r.rate[0] == 14400 && r.rate[1] == 14400 && r.retrains[0] == 1 &&
	      r.retrains[1] == 1 && !r.errors[0] && !r.errors[1] && r.bits[0] > 14400L * 2 &&
	      r.bits[1] > 14400L * 2, "retrain over a 2-wire line: rate %u/%u, retrains %u/%u, errors %ld/%ld",
	      r.rate[0], r.rate[1], r.retrains[0], r.retrains[1], r.errors[0], r.errors[1]);
}

/*
 * Noise on a 2-wire line: the rate each end settles on falls with it, the
 * data intact. The rates are chosen on the SNR each receiver measured on
 * TRN while its own end was silent; the residual echo the data then adds
 * may cost a rate near a threshold, and the SNR watch retrains once to the
 * next lower one (by then both cancellers trained): allowed once.
 */
static void suite_noise(void)
{
	/* the signal at -19 dBm0 after the loss: SNR 29, 24, 21 dB */
	static const double noise[3] = { -48, -43, -40 };
	unsigned int last = 14401, k;

	for (k = 0; k < 3; k++) {
		struct callcfg c = { .seconds = 16 };
		struct callres r;
		char what[80];

		c.lc = two_wire(2 + 3 * k, 10, 12, 100, 1.5, 0, 51 + k);
		c.lc.noise_dbm0 = noise[k];
		call(&c, &r);
		snprintf(what, sizeof(what), "m%u, noise %.0f dBm0 (SNR %.0f dB)", 2 + 3 * k, noise[k],
			 -19 - noise[k]);
		show(what, &r);
		CHECK(r.data[0] && r.data[1] && r.rate[0] == r.rate[1] && r.rate[0] <= last && !r.errors[0] &&
		      !r.errors[1] && r.bits[0] > 0 && r.bits[1] > 0 && r.retrains[0] <= 1 && r.retrains[1] <= 1,
		      "%s: rate %u/%u, errors %ld/%ld, retrains %u/%u", what, r.rate[0], r.rate[1], r.errors[0],
		      r.errors[1], r.retrains[0], r.retrains[1]);
		last = r.rate[0];
	}
	CHECK(last < 14400, "the noisiest 2-wire line still at 14400");
}

/*
 * --full: every hybrid at ERL 6 and 15 dB, with no far echo and four far
 * echoes (6 dB at 0 ms, 6 dB at 300 ms +7 Hz, 20 dB at 600 ms -7 Hz,
 * 10 dB at 600 ms +3.5 Hz), at 0 and +-100 ppm, noise -50 dBm0: the rate
 * each end settles on, when, the ERLE, the errors. A table, one row a line.
 */
static void full_matrix(int only_h, int only_f)
{
	static const struct {
		double far_db;
		int d_ms;
		double hz;
	} fars[] = { { 0, 20, 0 }, { 6, 0, 0 }, { 6, 150, 7 }, { 20, 300, -7 }, { 10, 300, 3.5 } };
	static const double erls[] = { 6, 15 }, ppms[] = { 0, 100, -100 };
	unsigned int h, e, f, p, n = 0, ran = 0, ok = 0, at14400 = 0;

	printf("| hybrid | ERL | far echo | round trip | offset | ppm | rate caller/answerer | data at | "
	       "ERLE caller/answerer | errors | retrains |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (h = 1; h <= 8; h++)
		for (e = 0; e < 2; e++)
			for (f = 0; f < sizeof(fars) / sizeof(fars[0]); f++)
				for (p = 0; p < 3; p++) {
					struct callcfg c = { .seconds = 14 };
					struct callres r;
					int good;

					/* --full=H,F: hybrid H's lines with the far echo F (0-4) only, the same seeds */
					if ((only_h && (int)h != only_h) || (only_f >= 0 && (int)f != only_f)) {
						n++;
						continue;
					}

					c.lc = two_wire(h, erls[e], fars[f].far_db, fars[f].d_ms, fars[f].hz, ppms[p],
							100 + n);
					c.lc.noise_dbm0 = -50;
					call(&c, &r);
					good = r.data[0] && r.data[1] && r.rate[0] == r.rate[1] && !r.errors[0] &&
					       !r.errors[1] && r.bits[0] > 0 && r.bits[1] > 0;
					n++;
					ran++;
					ok += good;
					at14400 += good && r.rate[0] == 14400;
					printf("| m%u | %.0f dB | %s%.0f dB | %d ms | %+.1f Hz | %+.0f | %u/%u | %.1f s | "
					       "%d/%d dB | %ld/%ld | %u/%u |\n", h, erls[e], fars[f].far_db > 0 ? "" : "none ",
					       fars[f].far_db, fars[f].far_db > 0 ? c.lc.far_echo_delay / 8 : 0, fars[f].hz, ppms[p],
					       r.rate[0], r.rate[1], r.data_s[0] > r.data_s[1] ? r.data_s[0] : r.data_s[1],
					       r.erle[0], r.erle[1], r.errors[0], r.errors[1], r.retrains[0], r.retrains[1]);
					fflush(stdout);
				}
	printf("\n%u lines: %u in data both ways with no error, %u of them at 14400\n", ran, ok, at14400);
	CHECK(ok == ran, "%u of %u lines not in data intact", ran - ok, ran);
}

/* BER of the duplex call at 14400, noise from 0.5 s into the data, both directions pooled */
static void ber_point(bool echo, double noise_dbm0, long *bits, long *errors)
{
	struct callcfg c = { .seconds = 0, .no_auto = true, .rates = SMDSP_V32BIS_14400 | SMDSP_V32BIS_4800 };
	struct callres r;

	*bits = 0;
	*errors = 0;
	if (echo) {
		c.lc = two_wire(3, 10, 12, 100, 2, 0, 77);
	} else {
		c.lc = (struct line_cfg){ .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300, .delay = 800,
					  .seed = 77 };
		c.four_wire = true;
	}
	/* data at about 5 s on either line (the 2-wire start-up's longer TRN); then 20 s of noise */
	c.noise_at = 5.5;
	c.count_from = 6.0;
	c.noise_dbm0 = noise_dbm0;
	c.seconds = 26;
	call(&c, &r);
	if (r.rate[0] != 14400 || r.rate[1] != 14400 || r.data_s[0] > 5.5 || r.data_s[1] > 5.5)
		printf("  (%s, noise %.1f: rate %u/%u, data at %.2f/%.2f s)\n", echo ? "2-wire" : "4-wire", noise_dbm0,
		       r.rate[0], r.rate[1], r.data_s[0], r.data_s[1]);
	*bits = r.bits[0] + r.bits[1];
	*errors = r.errors[0] + r.errors[1];
}

/*
 * --ber: BER at 14400 against the SNR (signal -19 dBm0 at the receivers
 * over the noise added), a 4-wire line and a 2-wire one (m3 at ERL 10 dB,
 * far echo 12 dB at 200 ms, +2 Hz) trained on a quiet line, the noise
 * coming once in data; and the SNR each needs for 1e-4.
 */
static void ber_table(void)
{
	double snr, at[2] = { 0, 0 }, prev[2] = { 0, 0 };
	long top[2] = { -1, -1 };
	int k;

	printf("| SNR | BER 4-wire | BER 2-wire (echo cancelled) |\n|---|---|---|\n");
	for (snr = 26; snr >= 17.9; snr -= 1) {
		double ber[2];

		for (k = 0; k < 2; k++) {
			long b, e;

			ber_point(k, -19 - snr, &b, &e);
			/* the checker counts a wrong bit 3 times (the descrambler's taps) */
			ber[k] = b > 1000 ? e / 3.0 / b : 0.5;
			if (top[k] < 0)
				top[k] = e + (b <= 1000);
			/* 1e-4 crossed between this SNR and the one above: interpolated in log BER */
			if (!at[k] && ber[k] > 1e-4 && snr < 26) {
				double lo = log10(prev[k] > 1e-7 ? prev[k] : 1e-7), hi = log10(ber[k]);

				at[k] = snr + (hi + 4) / (hi - lo);
			}
			prev[k] = ber[k];
		}
		printf("| %.0f dB | %.2e | %.2e |\n", snr, ber[0], ber[1]);
		fflush(stdout);
	}
	printf("\nBER 1e-4 at: 4-wire %.1f dB, 2-wire %.1f dB SNR: the echo costs %.1f dB\n", at[0], at[1],
	       at[1] - at[0]);
	CHECK(!top[0] && !top[1], "errors at 26 dB: %ld (4-wire), %ld (2-wire)", top[0], top[1]);
	CHECK(at[0] > 0 && at[1] > 0 && at[1] - at[0] < 3, "1e-4 at %.1f and %.1f dB", at[0], at[1]);
}

int main(int argc, char **argv)
{
	int i, full = 0, ber = 0, only = 0, full_h = 0, full_f = -1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "-vv"))
			verbose += 2;
		else if (!strcmp(argv[i], "--full"))
			full = 1;
		else if (!strncmp(argv[i], "--full=", 7) && sscanf(argv[i] + 7, "%d,%d", &full_h, &full_f) == 2)
			full = 1;
		else if (!strcmp(argv[i], "--ber"))
			ber = 1;
		else if (!strcmp(argv[i], "--quick"))
			only = -1;
		else if (!strncmp(argv[i], "--trace=", 8))
			trace_every = atoi(argv[i] + 8) > 0 ? atoi(argv[i] + 8) : 50;
		else if (!strncmp(argv[i], "--block=", 8) && atoi(argv[i] + 8) > 0 && atoi(argv[i] + 8) <= 1000)
			blk = atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "--line=", 7)) {
			struct callcfg c = { .seconds = 14 };
			struct callres r;
			double erl, far, hz, ppm, noise = -70;
			int m, d;
			char what[80];

			if (sscanf(argv[i] + 7, "%d,%lf,%lf,%d,%lf,%lf,%lf", &m, &erl, &far, &d, &hz, &ppm, &noise) < 6)
				return 2;
			c.lc = two_wire(m, erl, far, d, hz, ppm, 5);
			c.lc.noise_dbm0 = noise;
			call(&c, &r);
			show(line_name(&c.lc, what, sizeof(what)), &r);
			return 0;
		} else if (!strncmp(argv[i], "--only=", 7))
			only = atoi(argv[i] + 7);
		else {
			fprintf(stderr, "usage: %s [-v|-vv] [--trace=BLOCKS] [--block=N] [--quick|--only=M|--line=...|--full[=H,F]|--ber]\n",
				argv[0]);
			return 2;
		}
	}
	if (full) {
		full_matrix(full_h, full_f);
		return t_report("test_v32bis_echo --full");
	}
	if (ber) {
		ber_table();
		return t_report("test_v32bis_echo --ber");
	}
	suite_matrix(only);
	if (!only) {
		suite_controls();
		suite_retrain();
		suite_noise();
	}
	return t_report("test_v32bis_echo");
}
