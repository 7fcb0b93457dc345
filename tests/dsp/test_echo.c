/*
 * The echo canceller (dsp/echo.c) on the in-memory line's echo paths
 * (tests/dsp/common/line.c, tools/line/echopath.c):
 *
 * - near echo through G.168's eight echo-path models at ERL 6, 12 and 20 dB,
 *   our V.17 transmitter's 14400 bit/s signal (V.32bis's 2400 baud on
 *   1800 Hz) at -10 dBm0, line noise at -65 dBm0, the far end silent: ours
 *   (128 taps) beside SpanDSP 0.0.6's echo_can (128 taps, adaption only: no
 *   NLP, which would zero the output and fake an ERLE) and modem_echo_can
 *   (128 taps) on the very same samples: ERLE after 1.5 s (echo power over
 *   residual echo power, the residual being the output minus what the line
 *   delivers without the echo) and the time to 20 dB (50 ms windows). Ours
 *   must converge deeper and not slower than both on every path;
 * - far echo 6-20 dB down behind 0-600 ms of round trip, shifted 0-7 Hz,
 *   on top of a near echo: trained 3 s with the far end silent, then 4 s of
 *   data with the far modem's signal at -16 dBm0 (TRACK): ours keeps the
 *   whole echo cancelled and finds the frequency offset; SpanDSP's
 *   cancellers (128 taps and a 4992-tap echo_can spanning the round trip)
 *   beside it;
 * - double talk: the far modem 12 dB louder than our own signal for 1.5 s
 *   of TRACK: the ERLE after it within 3 dB of the ERLE before;
 * - NLMS theory, white Gaussian tx, a 128-tap near canceller: the measured
 *   decay of the excess MSE (dB per sample, 8 seeds averaged) against
 *   10 log10(1 - mu (2 - mu) / N), and the misadjustment (excess MSE over the
 *   noise) within 1 dB of mu / (2 - mu), for the TRAIN step and two others
 *   (the decay within 20 %: the theory assumes independent regressors, a
 *   delay line's are not, and the measured rate is 0, 7 and 17 % faster at
 *   mu = 0.1, 0.25, 0.5);
 *   TRACK's misadjustment against the same formula with the clipped error
 *   (Huber) factors, the far signal as the noise;
 * - hostile and limit cases: full-scale input in every mode, silence, tx
 *   all zero, the far delay at its maximum and beyond, bad configurations,
 *   reset mid-way (the output afterwards identical to a fresh canceller's).
 *
 * --quick (UBSan) runs a subset: two near paths, one far case, the hostile
 * cases. -v prints the ERLE curves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <spandsp.h>
#include <smdsp/echo.h>
#include <smdsp/v17.h>
#include "check.h"
#include "echopath.h"
#include "line.h"
#include "tutil.h"

static int quick, verbose;

#define FS 8000
#define WIN 400		/* 50 ms ERLE windows */
#define CWIN 80		/* 10 ms for the convergence time */
#define NEAR_TAPS 128
#define FAR_TAPS 128
#define DELAY_MAX 4800

/* ---- signals ---- */

static int rand_bit(void *user)
{
	return (int)(t_rand64(user) >> 33) & 1;
}

/* our V.17 transmitter at 14400 bit/s: V.32bis's symbol rate and carrier */
static void qam_signal(int16_t *x, int n, int level10, uint64_t seed)
{
	uint64_t s = seed * 7919 + 1;
	struct smdsp_v17_tx *tx = smdsp_v17_tx_create(14400, level10, false, false, rand_bit, NULL, &s);
	int i;

	for (i = 0; i < n; i += 160)
		smdsp_v17_tx_process(tx, x + i, n - i < 160 ? n - i : 160);
	smdsp_v17_tx_free(tx);
}

static double dbm0_rms(double dbm0)
{
	return 32767.0 * pow(10, (dbm0 - 3.14) / 20) / sqrt(2);
}

static void white(int16_t *x, int n, double dbm0, uint64_t seed)
{
	uint64_t s = seed * 104729 + 3;
	double a = dbm0_rms(dbm0);
	int i;

	for (i = 0; i < n; i++)
		x[i] = t_sat16(a * t_gauss(&s));
}

/* ---- one scenario ---- */

struct scen {
	int hybrid;		/* near echo model (1..8) */
	double erl;
	double far_db;		/* 0: no far echo */
	int far_delay;
	double far_hz;
	double noise_dbm0;
	double train_s, track_s;
	double far_sig_dbm0;	/* the far modem during TRACK */
	double far_sig_s;	/* ... for this long (0: all of TRACK) */
	uint64_t seed;
};

enum { OURS, SPAN_EC, SPAN_MODEM, SPAN_LONG, NCANC };
static const char *const canc_name[NCANC] = { "ours", "SpanDSP echo_can", "SpanDSP modem_echo_can",
					      "SpanDSP echo_can 4992" };

struct result {
	double erle_train, erle_track;	/* dB, last 0.5 s of TRAIN, last 1 s of TRACK */
	double conv_ms;			/* first 50 ms window at 20 dB, -1: never */
	double far_mhz;			/* ours: the frequency offset found */
	int ran;
};

/* the line's samples: tx, far, rx with the echoes and rxc, the same line without them */
struct samples {
	int n, ntrain;
	int16_t *tx, *far, *rx, *rxc;
};

static void make_samples(const struct scen *sc, struct samples *sm)
{
	struct line_cfg lc = { .loss_db = 0, .noise_dbm0 = sc->noise_dbm0, .echo_db = -200, .delay = 0,
			       .seed = sc->seed + 11, .hybrid = sc->hybrid, .hybrid_erl_db = sc->erl,
			       .far_echo_db = sc->far_db, .far_echo_delay = sc->far_delay,
			       .far_echo_hz = sc->far_hz, .far_hybrid = sc->hybrid % 8 + 1 };
	struct line_cfg lc0 = lc;
	struct line *l, *l0;
	int16_t *brx;
	int i;

	sm->ntrain = (int)(sc->train_s * FS);
	sm->n = sm->ntrain + (int)(sc->track_s * FS);
	sm->tx = calloc(sm->n, sizeof(int16_t));
	sm->far = calloc(sm->n, sizeof(int16_t));
	sm->rx = calloc(sm->n, sizeof(int16_t));
	sm->rxc = calloc(sm->n, sizeof(int16_t));
	brx = calloc(sm->n, sizeof(int16_t));
	qam_signal(sm->tx, sm->n, -100, sc->seed);
	if (sm->n > sm->ntrain) {
		int nf = sc->far_sig_s > 0 ? (int)(sc->far_sig_s * FS) : sm->n - sm->ntrain;

		qam_signal(sm->far + sm->ntrain, nf, (int)lrint(sc->far_sig_dbm0 * 10), sc->seed + 1000);
	}
	lc0.hybrid = 0;
	lc0.far_echo_db = 0;
	l = line_create(&lc);
	l0 = line_create(&lc0);
	for (i = 0; i < sm->n; i += 160) {
		int k = sm->n - i < 160 ? sm->n - i : 160;

		line_process(l, sm->tx + i, sm->rx + i, sm->far + i, brx + i, k);
		line_process(l0, sm->tx + i, sm->rxc + i, sm->far + i, brx + i, k);
	}
	line_free(l);
	line_free(l0);
	free(brx);
}

static void free_samples(struct samples *sm)
{
	free(sm->tx);
	free(sm->far);
	free(sm->rx);
	free(sm->rxc);
}

static double erle_db(const struct samples *sm, const int16_t *out, int from, int to)
{
	double pe = 0, pr = 0;
	int i;

	for (i = from; i < to; i++) {
		double echo = (double)sm->rx[i] - sm->rxc[i];
		double res = (double)out[i] - sm->rxc[i];

		pe += echo * echo;
		pr += res * res;
	}
	return 10 * log10((pe + 1e-9) / (pr + 1e-9));
}

/* SpanDSP 0.0.6's echo_can prints its adaption on stdout: kept off our tables */
static int quiet_begin(void)
{
	int fd = open("/dev/null", O_WRONLY), save;

	fflush(stdout);
	save = dup(1);
	if (fd >= 0) {
		dup2(fd, 1);
		close(fd);
	}
	return save;
}

static void quiet_end(int save)
{
	fflush(stdout);
	if (save >= 0) {
		dup2(save, 1);
		close(save);
	}
}

/* run one canceller over the samples; out gets its output */
static void run_canceller(int which, const struct scen *sc, const struct samples *sm, int16_t *out,
			  struct result *r)
{
	int i, w;

	memset(r, 0, sizeof(*r));
	r->conv_ms = 0;
	if (which == OURS) {
		struct smdsp_echo_config cfg = { NEAR_TAPS, sc->far_db > 0 ? FAR_TAPS : 0, DELAY_MAX };
		struct smdsp_echo *ec = smdsp_echo_create(&cfg);

		/* the start-up's round-trip measurement, a few samples short */
		if (sc->far_db > 0)
			CHECK(smdsp_echo_set_far_delay(ec, sc->far_delay > 8 ? sc->far_delay - 8 : 0) == 0);
		smdsp_echo_set_adapt(ec, SMDSP_ECHO_TRAIN);
		smdsp_echo_process_block(ec, sm->tx, sm->rx, out, sm->ntrain);
		smdsp_echo_set_adapt(ec, SMDSP_ECHO_TRACK);
		smdsp_echo_process_block(ec, sm->tx + sm->ntrain, sm->rx + sm->ntrain, out + sm->ntrain,
					 sm->n - sm->ntrain);
		r->far_mhz = smdsp_echo_far_freq_mhz(ec);
		if (verbose) {
			char line[200];

			smdsp_echo_print(ec, line, sizeof(line));
			printf("    %s\n", line);
		}
		smdsp_echo_free(ec);
	} else if (which == SPAN_EC || which == SPAN_LONG) {
		int save = quiet_begin();
		echo_can_state_t *ec = echo_can_init(which == SPAN_LONG ? 4992 : NEAR_TAPS, ECHO_CAN_USE_ADAPTION);

		for (i = 0; i < sm->n; i++)
			out[i] = echo_can_update(ec, sm->tx[i], sm->rx[i]);
		echo_can_free(ec);
		quiet_end(save);
	} else {
		int save = quiet_begin();
		modem_echo_can_state_t *ec = modem_echo_can_init(NEAR_TAPS);

		modem_echo_can_adaption_mode(ec, 1);
		for (i = 0; i < sm->n; i++)
			out[i] = modem_echo_can_update(ec, sm->tx[i], sm->rx[i]);
		modem_echo_can_free(ec);
		quiet_end(save);
	}
	/*
	 * The time to 20 dB: the end of the last 10 ms window under 20 dB
	 * during TRAIN (V.17's first 107 ms are a two-tone alternation that
	 * any canceller fits at once, and loses when the data start).
	 */
	for (w = 0; w + CWIN <= sm->ntrain; w += CWIN)
		if (erle_db(sm, out, w, w + CWIN) < 20)
			r->conv_ms = (w + CWIN) * 1000.0 / FS;
	if (r->conv_ms >= (sm->ntrain - CWIN) * 1000.0 / FS)
		r->conv_ms = -1;
	r->erle_train = erle_db(sm, out, sm->ntrain - FS / 2, sm->ntrain);
	if (sm->n > sm->ntrain)
		r->erle_track = erle_db(sm, out, sm->n - FS, sm->n);
	r->ran = 1;
	if (verbose > 1) {
		printf("    %s:", canc_name[which]);
		for (w = 0; w + WIN <= sm->n; w += 2 * WIN)
			printf(" %.0f", erle_db(sm, out, w, w + WIN));
		printf("\n");
	}
}

static void fmt_conv(char *b, size_t n, double ms)
{
	if (ms < 0)
		snprintf(b, n, "never");
	else
		snprintf(b, n, "%.0f ms", ms);
}

/* ---- near echo: ours against SpanDSP on the G.168 paths ---- */

static void near_paths(void)
{
	static const double erls[] = { 6, 12, 20 };
	int m, e;
	double worst_margin = 1e9;

	printf("near echo, G.168 models, V.17 14400 signal at -10 dBm0, noise -65 dBm0, 1.5 s TRAIN, 128 taps\n");
	printf("| path | ERL | ours ERLE | to 20 dB | SpanDSP echo_can ERLE | to 20 dB | SpanDSP modem_echo_can ERLE | to 20 dB |\n");
	printf("|------|-----|-----------|----------|-----------------------|----------|-----------------------------|----------|\n");
	for (m = 1; m <= SML_HYBRID_MODELS; m++) {
		for (e = 0; e < 3; e++) {
			struct scen sc = { .hybrid = m, .erl = erls[e], .noise_dbm0 = -65, .train_s = 1.5,
					   .seed = (uint64_t)(m * 10 + e) };
			struct samples sm;
			struct result r[3];
			int16_t *out;
			char c[3][32];
			int k;

			if (quick && !((m == 1 && e == 0) || (m == 5 && e == 2)))
				continue;
			make_samples(&sc, &sm);
			out = calloc(sm.n, sizeof(int16_t));
			for (k = 0; k < 3; k++) {
				run_canceller(k, &sc, &sm, out, &r[k]);
				fmt_conv(c[k], sizeof(c[k]), r[k].conv_ms);
			}
			printf("| m%d | %.0f dB | %.1f dB | %s | %.1f dB | %s | %.1f dB | %s |\n", m, erls[e],
			       r[0].erle_train, c[0], r[1].erle_train, c[1], r[2].erle_train, c[2]);
			for (k = 1; k < 3; k++) {
				CHECK(r[0].erle_train > r[k].erle_train, "m%d ERL %.0f: ours %.1f dB, %s %.1f dB", m,
				      erls[e], r[0].erle_train, canc_name[k], r[k].erle_train);
				CHECK(r[0].conv_ms > 0 && (r[k].conv_ms < 0 || r[0].conv_ms <= r[k].conv_ms),
				      "m%d ERL %.0f: ours to 20 dB %s, %s %s", m, erls[e], c[0], canc_name[k], c[k]);
				if (r[0].erle_train - r[k].erle_train < worst_margin)
					worst_margin = r[0].erle_train - r[k].erle_train;
			}
			/* the noise floor bounds it: echo at -16..-30 dBm0 over noise at -65 */
			CHECK(r[0].erle_train >= 30, "m%d ERL %.0f: ours %.1f dB", m, erls[e], r[0].erle_train);
			free(out);
			free_samples(&sm);
		}
	}
	printf("near echo: ours deeper than both SpanDSP cancellers by at least %.1f dB\n", worst_margin);
}

/* ---- far echo: delay, level, frequency offset ---- */

static void far_echo(void)
{
	static const struct { int delay; double db, hz; int hybrid; } cases[] = {
		{ 0, 6, 0, 1 },
		{ 800, 12, 0, 3 },
		{ 1600, 6, 2, 2 },
		{ 2400, 10, -3.5, 4 },
		{ 4000, 20, 5, 6 },
		{ 4800, 6, 7, 1 },
		{ 4800, 20, -7, 8 },
	};
	int i, k;

	printf("\nfar echo (with a near echo at ERL 10 dB), 3 s TRAIN, then 4 s TRACK with the far modem at -16 dBm0; "
	       "ours near 128 + far 128 taps\n");
	printf("| round trip | far echo | offset | ours TRAIN | ours TRACK | offset found | SpanDSP echo_can 128 | "
	       "SpanDSP echo_can 4992 | SpanDSP modem_echo_can |\n");
	printf("|------------|----------|--------|------------|------------|--------------|----------------------|"
	       "-----------------------|------------------------|\n");
	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		struct scen sc = { .hybrid = cases[i].hybrid, .erl = 10, .far_db = cases[i].db,
				   .far_delay = cases[i].delay, .far_hz = cases[i].hz, .noise_dbm0 = -65,
				   .train_s = 3, .track_s = 4, .far_sig_dbm0 = -16, .seed = (uint64_t)(100 + i) };
		struct samples sm;
		struct result r[NCANC];
		int16_t *out;

		if (quick && i != 5)
			continue;
		make_samples(&sc, &sm);
		out = calloc(sm.n, sizeof(int16_t));
		for (k = 0; k < NCANC; k++) {
			if (quick && k == SPAN_LONG) {
				r[k].ran = 0;
				continue;
			}
			run_canceller(k, &sc, &sm, out, &r[k]);
		}
		printf("| %.0f ms | %.0f dB | %+.1f Hz | %.1f dB | %.1f dB | %+.2f Hz | %.1f / %.1f dB | %.1f / %.1f dB | "
		       "%.1f / %.1f dB |\n", cases[i].delay * 1000.0 / FS, cases[i].db, cases[i].hz, r[0].erle_train,
		       r[0].erle_track, r[0].far_mhz / 1000, r[1].erle_train, r[1].erle_track,
		       r[3].ran ? r[3].erle_train : nan(""), r[3].ran ? r[3].erle_track : nan(""), r[2].erle_train,
		       r[2].erle_track);
		CHECK(r[0].erle_train >= 30, "far case %d: ours TRAIN %.1f dB", i, r[0].erle_train);
		CHECK(r[0].erle_track >= 25, "far case %d: ours TRACK %.1f dB", i, r[0].erle_track);
		CHECK(fabs(r[0].far_mhz / 1000 - cases[i].hz) < 0.25, "far case %d: offset %.2f Hz, line %.2f Hz",
		      i, r[0].far_mhz / 1000, cases[i].hz);
		for (k = 1; k < NCANC; k++) {
			/* a 128-tap canceller reaches an echo that close: nothing to show */
			if (!r[k].ran || cases[i].delay < NEAR_TAPS)
				continue;
			CHECK(r[0].erle_track > r[k].erle_track + 10, "far case %d: ours %.1f dB, %s %.1f dB", i,
			      r[0].erle_track, canc_name[k], r[k].erle_track);
		}
		free(out);
		free_samples(&sm);
	}
}

/*
 * Double talk: trained on a near echo (m3, ERL 10 dB), then TRACK while the
 * far modem talks 12 dB louder than our own signal for 1.5 s, then falls
 * silent: the echo must still be cancelled (taps not thrown off), where a
 * canceller without protection is.
 */
static void double_talk(void)
{
	struct scen sc = { .hybrid = 3, .erl = 10, .noise_dbm0 = -65, .train_s = 1.5, .track_s = 3,
			   .far_sig_dbm0 = 2, .far_sig_s = 1.5, .seed = 77 };
	struct samples sm;
	struct result r[3];
	int16_t *out;
	int k;

	make_samples(&sc, &sm);
	out = calloc(sm.n, sizeof(int16_t));
	for (k = 0; k < 3; k++)
		run_canceller(k, &sc, &sm, out, &r[k]);
	printf("\ndouble talk: m3 at ERL 10 dB, 1.5 s TRAIN, then the far modem at +2 dBm0 (12 dB over our -10) "
	       "for 1.5 s in TRACK, then silent: ERLE over the last second\n");
	for (k = 0; k < 3; k++)
		printf("  %-24s %5.1f dB before, %5.1f dB after\n", canc_name[k], r[k].erle_train, r[k].erle_track);
	CHECK(r[0].erle_track >= r[0].erle_train - 3, "double talk: ours %.1f dB after, %.1f dB before",
	      r[0].erle_track, r[0].erle_train);
	free(out);
	free_samples(&sm);
}

/* ---- LMS theory ---- */

/*
 * Excess MSE e_a^2 = (echo - estimate)^2 averaged over seeds, per 64-sample
 * block, white Gaussian tx at -10 dBm0, a near echo (G.168 m1, 128 taps at
 * most) at ERL 6 dB, white noise of rms sv.
 */
#define TBLK 64

static void theory_run(int mu_q16, int track, double sv, int nsamp, int nseeds, double *mse)
{
	int nb = nsamp / TBLK, s, i;
	struct sml_echo_path p;
	int16_t *tx = calloc(nsamp, sizeof(int16_t));

	memset(mse, 0, nb * sizeof(double));
	for (s = 0; s < nseeds; s++) {
		struct smdsp_echo_config cfg = { NEAR_TAPS, 0, 0 };
		struct smdsp_echo *ec = smdsp_echo_create(&cfg);
		uint64_t ns = 977 + s;

		white(tx, nsamp, -10, 500 + s);
		sml_echo_path_init(&p, 1 + s % 8, 6, 0, 0);
		if (track) {
			/* converge first with the TRAIN step on a quiet line */
			for (i = 0; i < 40000; i++)
				smdsp_echo_process(ec, tx[i % nsamp], t_sat16(sml_echo_path_step(&p, tx[i % nsamp])));
			smdsp_echo_set_adapt(ec, SMDSP_ECHO_TRACK);
		}
		smdsp_echo_set_step(ec, mu_q16);
		for (i = 0; i < nsamp; i++) {
			double echo = sml_echo_path_step(&p, tx[i]), v = sv * t_gauss(&ns);
			double rx = echo + v;
			int16_t rx16 = t_sat16(rx), out;
			double ea;

			out = smdsp_echo_process(ec, tx[i], rx16);
			/* the residual echo: the output minus the noise (and the rounding of rx) */
			ea = out - (rx16 - echo);
			mse[i / TBLK] += ea * ea / (TBLK * nseeds);
		}
		sml_echo_path_free(&p);
		smdsp_echo_free(ec);
	}
	free(tx);
}

/* slope (dB per sample) of 10 log10(mse) over the blocks where it lies between hi and lo dB */
static double decay_slope(const double *mse, int nb, double hi, double lo)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int i, n = 0;

	for (i = 0; i < nb; i++) {
		double y = 10 * log10(mse[i] + 1e-12), x = (i + 0.5) * TBLK;

		if (y > hi || y < lo)
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	if (n < 3)
		return 0;
	return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static void lms_theory(void)
{
	static const int mus[] = { SMDSP_ECHO_TRAIN_MU_Q16, 16384, 6554 };
	double sx = dbm0_rms(-10), sv = dbm0_rms(-60);
	int nsamp = 48000, nb = nsamp / TBLK, i, j;
	double *mse = calloc(nb, sizeof(double));

	printf("\nNLMS against theory: white Gaussian tx at -10 dBm0, noise -60 dBm0, N = %d, 8 seeds\n", NEAR_TAPS);
	printf("| mu | decay measured | theory 10 log10(1 - mu (2 - mu) / N) | misadjustment measured | "
	       "theory mu / (2 - mu) |\n|----|----|----|----|----|\n");
	for (i = 0; i < (int)(sizeof(mus) / sizeof(mus[0])); i++) {
		double mu = mus[i] / 65536.0, th = 10 * log10(1 - mu * (2 - mu) / NEAR_TAPS);
		double e0 = 10 * log10(sx * sx * 0.25), floor_db = 10 * log10(sv * sv);
		double slope, mis = 0, mth = 10 * log10(mu / (2 - mu));

		if (quick && i)
			break;
		theory_run(mus[i], 0, sv, nsamp, 8, mse);
		/* between 5 dB below the start and 10 dB above the noise floor */
		slope = decay_slope(mse, nb, e0 - 5, floor_db + 10);
		for (j = nb / 2; j < nb; j++)
			mis += mse[j] / (nb - nb / 2);
		mis = 10 * log10(mis / (sv * sv));
		printf("| %.3f | %.4f dB/sample | %.4f dB/sample | %.1f dB | %.1f dB |\n", mu, slope, th, mis, mth);
		CHECK(fabs(slope - th) <= 0.20 * fabs(th), "mu %.3f: decay %.4f, theory %.4f", mu, slope, th);
		CHECK(fabs(mis - mth) <= 1.0, "mu %.3f: misadjustment %.1f dB, theory %.1f dB", mu, mis, mth);
	}
	free(mse);

	/*
	 * TRACK: the far signal (white, -26 dBm0, under the echo: the step is not
	 * scaled down) is the noise, the error clipped
	 * at k = 2 E|e| = 2 sqrt(2 / pi) sigma: NLMS with a Huber error has
	 * M = mu E[psi^2] / (sigma^2 E[psi'] (2 - mu E[psi^2] / (sigma^2 E[psi']))).
	 */
	if (!quick) {
		double k = 2 * sqrt(2 / M_PI), p1 = erf(k / sqrt(2)), p2, mu = SMDSP_ECHO_TRACK_MU_Q16 / 65536.0;
		double a, mth, mis = 0, svt = dbm0_rms(-26);
		int nt = 320000, nbt = nt / TBLK;
		double *m2 = calloc(nbt, sizeof(double));

		/* E[min(z^2, k^2)] for z ~ N(0, 1) */
		p2 = p1 - 2 * k * exp(-k * k / 2) / sqrt(2 * M_PI) + k * k * (1 - p1);
		a = mu * p2 / p1;
		mth = 10 * log10(a / (2 - a));
		theory_run(SMDSP_ECHO_TRACK_MU_Q16, 1, svt, nt, 2, m2);
		for (j = nbt * 5 / 8; j < nbt; j++)
			mis += m2[j] / (nbt - nbt * 5 / 8);
		mis = 10 * log10(mis / (svt * svt));
		printf("| %.5f (TRACK, clipped) | | | %.1f dB | %.1f dB |\n", mu, mis, mth);
		CHECK(fabs(mis - mth) <= 1.5, "TRACK misadjustment %.1f dB, theory %.1f dB", mis, mth);
		free(m2);
	}
}

/* ---- hostile and limit cases ---- */

static void hostile(void)
{
	struct smdsp_echo_config cfg = { NEAR_TAPS, FAR_TAPS, DELAY_MAX };
	struct smdsp_echo_config bad[] = {
		{ 0, 0, 0 }, { -1, 10, 10 }, { 10, -1, 10 }, { 10, 10, -1 }, { SMDSP_ECHO_MAX_TAPS + 1, 0, 0 },
		{ 10, SMDSP_ECHO_MAX_TAPS + 1, 10 }, { 10, 10, SMDSP_ECHO_MAX_DELAY + 1 },
	};
	struct smdsp_echo *ec, *fresh;
	int n = 4 * FS, i, m, ok;
	int16_t *tx = calloc(n, sizeof(int16_t)), *rx = calloc(n, sizeof(int16_t));
	int16_t *out = calloc(n, sizeof(int16_t)), *out2 = calloc(n, sizeof(int16_t));
	uint64_t s = 4242;
	char line[256];

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++)
		CHECK(!smdsp_echo_create(&bad[i]), "bad config %d accepted", i);
	CHECK(!smdsp_echo_create(NULL));

	ec = smdsp_echo_create(&cfg);
	CHECK(ec != NULL);
	CHECK(smdsp_echo_set_far_delay(ec, DELAY_MAX) == 0);
	CHECK(smdsp_echo_set_far_delay(ec, DELAY_MAX + 1) == -EINVAL);
	CHECK(smdsp_echo_set_far_delay(ec, -1) == -EINVAL);

	/* silence: nothing comes out, nothing moves */
	for (i = 0, ok = 1; i < n; i++)
		ok &= smdsp_echo_process(ec, 0, 0) == 0;
	CHECK(ok, "silence in, something out");
	CHECK(smdsp_echo_erle_db_q8(ec) == 0);

	/* tx all zero: the taps stay at zero, rx passes unchanged */
	white(rx, n, 0, 1);
	for (i = 0, ok = 1; i < n; i++)
		ok &= smdsp_echo_process(ec, 0, rx[i]) == rx[i];
	CHECK(ok, "tx silent: rx not passed through");

	/* full scale, uncorrelated and correlated, every mode, delay at its maximum */
	for (m = 0; m < 3; m++) {
		static const enum smdsp_echo_adapt modes[] = { SMDSP_ECHO_TRAIN, SMDSP_ECHO_TRACK, SMDSP_ECHO_FREEZE };
		int lo = 0, hi = 0;

		smdsp_echo_set_adapt(ec, modes[m]);
		for (i = 0; i < n; i++) {
			int16_t t = (t_rand64(&s) & 1) ? 32767 : -32768;
			int16_t r = (i / 2000) & 1 ? (int16_t)(-t - 1) : ((t_rand64(&s) & 1) ? 32767 : -32768);
			int16_t o = smdsp_echo_process(ec, t, r);

			lo += o == -32768;
			hi += o == 32767;
		}
		smdsp_echo_print(ec, line, sizeof(line));
		printf("full scale, mode %d: %d/%d samples at the rails; %s\n", modes[m], lo + hi, n, line);
		CHECK(lo + hi < n, "mode %d: the output stuck at the rails", modes[m]);
	}
	/* DC and a square wave at full scale into a fresh canceller */
	smdsp_echo_reset(ec);
	for (i = 0; i < n; i++)
		out[i] = smdsp_echo_process(ec, 32767, (i / 20) & 1 ? 32767 : -32768);
	CHECK(1, "survived DC against a square wave");

	/*
	 * Reset mid-way: converged on one path, reset, then fed the samples a
	 * fresh canceller gets: the outputs must be identical.
	 */
	{
		struct scen sc = { .hybrid = 3, .erl = 8, .far_db = 10, .far_delay = 2000, .far_hz = 4,
				   .noise_dbm0 = -65, .train_s = 1.5, .seed = 7 };
		struct samples sm;

		make_samples(&sc, &sm);
		smdsp_echo_set_adapt(ec, SMDSP_ECHO_TRAIN);
		smdsp_echo_set_far_delay(ec, 1000);
		smdsp_echo_process_block(ec, sm.tx, sm.rx, out, sm.n);
		smdsp_echo_reset(ec);
		fresh = smdsp_echo_create(&cfg);
		CHECK(smdsp_echo_set_far_delay(ec, 1992) == 0 && smdsp_echo_set_far_delay(fresh, 1992) == 0);
		smdsp_echo_process_block(ec, sm.tx, sm.rx, out, sm.n);
		smdsp_echo_process_block(fresh, sm.tx, sm.rx, out2, sm.n);
		CHECK(!memcmp(out, out2, sm.n * sizeof(int16_t)), "reset mid-way differs from a fresh canceller");
		CHECK(erle_db(&sm, out, sm.n - FS / 2, sm.n) >= 30, "after reset: %.1f dB",
		      erle_db(&sm, out, sm.n - FS / 2, sm.n));
		CHECK(smdsp_echo_erle_db_q8(ec) > 30 * 256, "measured ERLE %d/256 dB", smdsp_echo_erle_db_q8(ec));
		smdsp_echo_print(ec, line, sizeof(line));
		printf("after reset and 1.5 s: %s\n", line);
		CHECK(!strncmp(line, "echo ", 5));
		free_samples(&sm);
		smdsp_echo_free(fresh);
	}
	smdsp_echo_free(ec);
	smdsp_echo_free(NULL);
	free(tx);
	free(rx);
	free(out);
	free(out2);
}

/* ---- cost ---- */

static void cost(void)
{
	static const enum smdsp_echo_adapt modes[] = { SMDSP_ECHO_TRAIN, SMDSP_ECHO_TRACK, SMDSP_ECHO_FREEZE };
	static const char *const names[] = { "TRAIN", "TRACK", "FREEZE" };
	struct smdsp_echo_config cfg = { NEAR_TAPS, FAR_TAPS, DELAY_MAX };
	struct smdsp_echo *ec = smdsp_echo_create(&cfg);
	int n = 2 * FS, i, m, macs[3];
	int16_t *tx = calloc(n, sizeof(int16_t)), *rx = calloc(n, sizeof(int16_t));
	int16_t *out = calloc(n, sizeof(int16_t));

	white(tx, n, -10, 3);
	white(rx, n, -20, 4);
	smdsp_echo_set_far_delay(ec, 2000);
	printf("\ncost: near %d + far %d taps;", NEAR_TAPS, FAR_TAPS);
	for (m = 0; m < 3; m++) {
		struct timespec t0, t1;

		smdsp_echo_set_adapt(ec, modes[m]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < 3; i++)
			smdsp_echo_process_block(ec, tx, rx, out, n);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		macs[m] = smdsp_echo_macs_per_sample(ec);
		printf(" %s %d MACs %.0f ns", names[m], macs[m],
		       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (3.0 * n));
	}
	printf(" per sample here (make bench-dsp for the comparison)\n");
	CHECK(macs[2] < macs[1] && macs[1] < macs[0], "MACs per sample: FREEZE %d, TRACK %d, TRAIN %d", macs[2],
	      macs[1], macs[0]);
	smdsp_echo_free(ec);
	free(tx);
	free(rx);
	free(out);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "-vv"))
			verbose += 2;
	}
	hostile();
	near_paths();
	far_echo();
	double_talk();
	lms_theory();
	cost();
	return t_report("test_echo");
}
