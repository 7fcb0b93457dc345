// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's full matrix (a benchmark, not a test): for every symbol rate and
 * every data rate V.34 allows at it, the line SNR at which two of our ends
 * (dsp/v34_train_*.c over the line model, tests/dsp/common/v34link.c) carry
 * the data at a bit error rate of 1e-5, beside what the theory says that
 * SNR is.
 *
 * The theory: smdsp_v34_rate_need_db10() less its 1 dB margin is the
 * decoder's error (the points' nominal power over the noise) at which the
 * 16-state code with the rate's constellation makes 1e-5 (test_v34_rate
 * proves it against v34_data alone); the shell mapper sends the points
 * with a mean under their nominal power (its shaping gain), and on a flat
 * line with white noise over 4 kHz a symbol rate of B baud sees
 * 10 log10(4000 / B) dB more in its band than over 4 kHz. So the theory's
 * line SNR is the need less both. Measured: the line SNR is swept up from 2 dB under it in
 * steps of 0.5 dB (the rate held: fixed_rate) until two points in a row are
 * at or under 1e-5; the crossing is where log10(BER) between the last point
 * above and the first at or under crosses -5, and the gap is it less the
 * theory's. Each point carries about 1e6 bits both ways (6 to 60 s of
 * data). Lines: "flat" (4-wire, 10 dB loss, 40 ms, +50 ppm) and "2wire"
 * (the same with a G.168 hybrid at ERL 10 dB, a far echo 28 dB down at
 * +3 Hz, each end's canceller).
 *
 * Resumes: each point is a JSON line appended to --results (default
 * out/bench-v34-matrix/points.jsonl) and not run again; --jobs N runs N
 * processes; progress on stderr; the table on stdout and a summary in
 * --json (default out/bench-v34-matrix.json).
 * Usage: bench_v34_matrix [--quick] [--line=flat|2wire|all] [--jobs N] [--results F] [--json F]
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <smdsp/v34_data.h>
#include <smdsp/v34_frame.h>
#include <smdsp/v34_train.h>
#include "v34link.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAXPTS 24
#define STEP 0.5
#define TARGET 1e-5

static const int baud[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };
static const char *const kinds[2] = { "flat", "2wire" };

struct point {
	double snr;
	unsigned long bits, errors;
	double wmse;		/* the decoders' error, mean of both, dB */
	bool data;
};

struct combo {
	int kind, sr;
	unsigned int rate;
	double theory;		/* the theory's line SNR for 1e-5 */
	struct point p[MAXPTS];
	int n;
};

static bool quick;
static const char *results = "out/bench-v34-matrix/points.jsonl";
static const char *json_out = "out/bench-v34-matrix.json";
static struct smdsp_v34_train_rx *theory_rx;

/*
 * The need is against the points' nominal power (their mean as if equally
 * likely), while the line's SNR is the data's actual power, which the shell
 * mapper keeps lower (its shaping gain, 0-4 dB): that ratio comes off too.
 */
static double theory_snr(int sr, unsigned int rate)
{
	int need = smdsp_v34_rate_need_db10(theory_rx, (enum smdsp_v34_symrate)sr, rate);
	struct smdsp_v34_data_config dc = { .symbol_rate = (unsigned int)sr, .data_rate = rate, .states = 16,
					    .caller = true };
	struct smdsp_v34_data_tx *tx = smdsp_v34_data_tx_create(&dc);
	double shaping = 0;

	if (tx) {
		shaping = 10 * log10((double)smdsp_v34_data_shaped_power(tx) / smdsp_v34_data_tx_power(tx));
		smdsp_v34_data_tx_free(tx);
	}
	return (need - SMDSP_V34_RATE_MARGIN_DB10) / 10.0 - 10 * log10(4000.0 / baud[sr]) + shaping;
}

static void line_of(int kind, struct link_cfg *lc)
{
	lc->line.loss_db = 10;
	lc->line.echo_db = -200;
	lc->line.delay = 320;
	lc->line.ppm = 50;
	if (kind == 1) {
		lc->two_wire = true;
		lc->line.hybrid = 3;
		lc->line.hybrid_erl_db = 10;
		lc->line.far_echo_db = 28;
		lc->line.far_hybrid = 4;
		lc->line.far_echo_hz = 3;
		lc->line.far_echo_delay = 2 * (lc->line.delay + 16);
	}
}

/* the data's power at the receiver over 32767^2 / 2 (a full-scale sine), from a short clean call */
static double rx_level(int kind, int sr, unsigned int rate)
{
	struct link_cfg lc = { .symrate = (enum smdsp_v34_symrate)sr, .rate_ca = rate, .rate_ac = rate,
			       .seconds = 8, .fixed_rate = true };
	struct link_res r;

	line_of(kind, &lc);
	lc.line.noise_dbm0 = -200;
	lc.line.seed = 7;
	run_link(&lc, &r);
	if (!r.tx_power[0] || !r.tx_power[1])
		return 0;
	return (r.tx_power[0] + r.tx_power[1]) / 2 * pow(10, -lc.line.loss_db / 10) / (32767.0 * 32767.0 / 2);
}

static void run_point(const struct combo *c, double level, double snr, struct point *p)
{
	double data_s = 1e6 / (2.0 * c->rate);
	struct link_cfg lc = { .symrate = (enum smdsp_v34_symrate)c->sr, .rate_ca = c->rate, .rate_ac = c->rate,
			       .fixed_rate = true };
	struct link_res r;

	if (quick)
		data_s = data_s < 3 ? 3 : data_s > 10 ? 10 : data_s;
	else
		data_s = data_s < 6 ? 6 : data_s > 60 ? 60 : data_s;
	/* the start-up takes 3-5 s at these rates */
	lc.seconds = data_s + 5;
	line_of(c->kind, &lc);
	/* line.c: noise rms 32767 10^((N - 3.14) / 20) / sqrt(2) */
	lc.line.noise_dbm0 = 3.14 + 10 * log10(level) - snr;
	lc.line.seed = 1000 + (uint64_t)(snr * 10) + 31 * c->sr;
	run_link(&lc, &r);
	memset(p, 0, sizeof(*p));
	p->snr = snr;
	p->data = r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA;
	p->bits = r.bits[0] + r.bits[1];
	p->errors = r.errors[0] + r.errors[1];
	p->wmse = (r.wmse_mean[0] + r.wmse_mean[1]) / 2;
}

static double ber(const struct point *p)
{
	if (!p->data || !p->bits)
		return 0.5;
	return (double)p->errors / p->bits;
}

static bool good(const struct point *p)
{
	return p->data && p->bits >= 10000 && ber(p) <= TARGET;
}

/* ---- the results file: one point a line, read back to resume ---- */

static void save_point(const struct combo *c, const struct point *p)
{
	char line[256];
	int n = snprintf(line, sizeof(line),
			 "{\"line\": \"%s\", \"baud\": %d, \"rate\": %u, \"snr\": %.2f, \"data\": %d, \"bits\": %lu, "
			 "\"errors\": %lu, \"wmse\": %.2f}\n", kinds[c->kind], baud[c->sr], c->rate, p->snr, p->data,
			 p->bits, p->errors, p->wmse);
	int fd = open(results, O_WRONLY | O_APPEND | O_CREAT, 0644);

	/* one write of a short line: whole, whichever process appends */
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		fprintf(stderr, "bench_v34_matrix: %s: %s\n", results, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static const struct point *find_point(const struct combo *c, double snr)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (fabs(c->p[i].snr - snr) < 0.01)
			return &c->p[i];
	return NULL;
}

static void load_points(struct combo *all, int nc)
{
	FILE *f = fopen(results, "r");
	char buf[512], kind[16];

	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		struct point p = { 0 };
		int b, d, i;
		unsigned int rate;

		if (sscanf(buf, "{\"line\": \"%15[^\"]\", \"baud\": %d, \"rate\": %u, \"snr\": %lf, \"data\": %d, "
			   "\"bits\": %lu, \"errors\": %lu, \"wmse\": %lf}", kind, &b, &rate, &p.snr, &d, &p.bits,
			   &p.errors, &p.wmse) != 8)
			continue;
		p.data = d;
		for (i = 0; i < nc; i++) {
			struct combo *c = &all[i];

			if (!strcmp(kinds[c->kind], kind) && baud[c->sr] == b && c->rate == rate &&
			    !find_point(c, p.snr) && c->n < MAXPTS)
				c->p[c->n++] = p;
		}
	}
	fclose(f);
}

/* the sweep: from 2 dB under the theory up, until two points in a row are at or under 1e-5 */
static bool done(const struct combo *c, double *cross)
{
	double s;
	int k = 0;

	for (s = c->theory - 2; s <= c->theory + 8 + 1e-9; s += STEP) {
		const struct point *p = find_point(c, s);

		if (!p)
			return false;
		if (good(p)) {
			if (++k == 2) {
				const struct point *lo = find_point(c, s - 2 * STEP);
				const struct point *hi = find_point(c, s - STEP);
				/* no error at all counts as a tenth of the target */
				double bl = lo ? ber(lo) : 1, bh = ber(hi) > 0 ? ber(hi) : TARGET / 10;

				/* log-linear between the last point above and the first at or under */
				if (!lo || bl <= TARGET)
					*cross = hi->snr;
				else
					*cross = lo->snr + STEP * (log10(bl) - log10(TARGET)) / (log10(bl) - log10(bh));
				return true;
			}
		} else {
			k = 0;
		}
	}
	*cross = NAN;
	return true;
}

static double next_snr(const struct combo *c)
{
	double s;

	for (s = c->theory - 2; s <= c->theory + 8 + 1e-9; s += STEP)
		if (!find_point(c, s))
			return s;
	return NAN;
}

static void run_combo(struct combo *c, int idx, int total)
{
	double level = 0, cross;

	while (!done(c, &cross)) {
		double s = next_snr(c);

		if (isnan(s) || c->n >= MAXPTS)
			break;
		if (!level)
			level = rx_level(c->kind, c->sr, c->rate);
		if (!level) {
			fprintf(stderr, "bench_v34_matrix: %s %d baud %u: no data on a clean line\n", kinds[c->kind],
				baud[c->sr], c->rate);
			return;
		}
		run_point(c, level, s, &c->p[c->n]);
		save_point(c, &c->p[c->n]);
		fprintf(stderr, "[%d/%d] %s %d baud %u bit/s, %.1f dB: %lu errors in %lu bits\n", idx + 1, total,
			kinds[c->kind], baud[c->sr], c->rate, s, c->p[c->n].errors, c->p[c->n].bits);
		c->n++;
	}
}

int main(int argc, char **argv)
{
	struct smdsp_v34_train_config tc = { .symrate = SMDSP_V34_S3429, .data_rate = 33600 };
	static struct combo all[2 * 6 * 14];
	int nc = 0, kind_mask = 3, jobs = 1, i, j, sr;
	unsigned int rate, worst_rate = 0;
	double worst = -99, gaps = 0;
	int ngaps = 0, worst_sr = 0;
	FILE *js;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--line=flat"))
			kind_mask = 1;
		else if (!strcmp(argv[i], "--line=2wire"))
			kind_mask = 2;
		else if (!strcmp(argv[i], "--line=all"))
			kind_mask = 3;
		else if (!strncmp(argv[i], "--jobs=", 7))
			jobs = atoi(argv[i] + 7);
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			jobs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--results") && i + 1 < argc)
			results = argv[++i];
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json_out = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--quick] [--line=flat|2wire|all] [--jobs N] [--results FILE] "
				"[--json FILE]\n  V.34's line SNR at a BER of 1e-5 for every symbol rate and data rate, "
				"beside the theory;\n  resumes from FILE (default %s)\n", argv[0], results);
			return !strcmp(argv[i], "--help") ? 0 : 2;
		}
	}
	if (jobs < 1 || jobs > 64) {
		fprintf(stderr, "bench_v34_matrix: --jobs must be 1-64\n");
		return 2;
	}
	theory_rx = smdsp_v34_train_rx_create(&tc, NULL, NULL);
	if (!theory_rx)
		return 1;
	/* the results file's directory */
	{
		char dir[512], *sl;

		snprintf(dir, sizeof(dir), "%s", results);
		sl = strrchr(dir, '/');
		if (sl) {
			*sl = 0;
			mkdir(dir, 0755);
		}
	}
	for (i = 0; i < 2; i++) {
		if (!(kind_mask & (1 << i)))
			continue;
		for (sr = 0; sr < 6; sr++)
			for (rate = 2400; rate <= 33600; rate += 2400) {
				if (!smdsp_v34_frame_rate_ok((unsigned int)sr, rate))
					continue;
				/* quick: each symbol rate's top rate only */
				if (quick && smdsp_v34_frame_rate_ok((unsigned int)sr, rate + 2400))
					continue;
				all[nc].kind = i;
				all[nc].sr = sr;
				all[nc].rate = rate;
				all[nc].theory = theory_snr(sr, rate);
				nc++;
			}
	}
	load_points(all, nc);
	/* each job takes every jobs-th combination; the parent reads their points back */
	for (j = 0; j < jobs; j++) {
		pid_t pid = jobs > 1 ? fork() : 0;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			for (i = j; i < nc; i += jobs)
				run_combo(&all[i], i, nc);
			if (jobs > 1)
				_exit(0);
		}
	}
	while (jobs > 1 && wait(NULL) > 0)
		;
	for (i = 0; i < nc; i++)
		all[i].n = 0;
	load_points(all, nc);

	printf("V.34, two of our ends, the rate held; the line SNR (signal over white noise in 4 kHz) at a BER of 1e-5\n");
	printf("  line  | baud | bit/s  | theory  | measured | gap     | decoder's error there | points\n");
	js = fopen(json_out, "w");
	if (js)
		fprintf(js, "{\"command\": \"bench_v34_matrix%s\", \"target_ber\": 1e-5, \"rows\": [\n",
			quick ? " --quick" : "");
	for (i = 0; i < nc; i++) {
		struct combo *c = &all[i];
		const struct point *at;
		double cross;
		bool ok = done(c, &cross) && !isnan(cross);

		/* the first point at or above the crossing: the decoder's error there */
		at = NULL;
		for (j = 0; ok && j < c->n; j++)
			if (c->p[j].snr >= cross - 1e-9 && (!at || c->p[j].snr < at->snr))
				at = &c->p[j];
		if (ok) {
			printf("  %-5s | %4d | %6u | %5.1f dB | %6.1f dB | %+5.1f dB | %5.1f dB | %d\n", kinds[c->kind],
			       baud[c->sr], c->rate, c->theory, cross, cross - c->theory, at ? at->wmse : NAN, c->n);
			gaps += cross - c->theory;
			ngaps++;
			if (cross - c->theory > worst) {
				worst = cross - c->theory;
				worst_sr = c->sr;
				worst_rate = c->rate;
			}
		} else {
			printf("  %-5s | %4d | %6u | %5.1f dB | %8s | %7s | %8s | %d\n", kinds[c->kind], baud[c->sr],
			       c->rate, c->theory, "none", "", "", c->n);
		}
		if (js) {
			char v[32] = "null";

			if (ok)
				snprintf(v, sizeof(v), "%.2f", cross);
			fprintf(js, "  {\"line\": \"%s\", \"baud\": %d, \"rate\": %u, \"theory_snr_db\": %.2f, "
				"\"snr_at_1e-5_db\": %s, \"points\": %d}%s\n", kinds[c->kind], baud[c->sr], c->rate,
				c->theory, v, c->n, i + 1 < nc ? "," : "");
		}
	}
	if (ngaps)
		printf("%d of %d reached 1e-5; the gap to the theory: mean %+.2f dB, worst %+.2f dB (%d baud, %u bit/s)\n",
		       ngaps, nc, gaps / ngaps, worst, baud[worst_sr], worst_rate);
	if (js) {
		fprintf(js, "], \"reached\": %d, \"combinations\": %d, \"mean_gap_db\": %.2f, \"worst_gap_db\": %.2f}\n",
			ngaps, nc, ngaps ? gaps / ngaps : 0.0, ngaps ? worst : 0.0);
		fclose(js);
	}
	smdsp_v34_train_rx_free(theory_rx);
	return 0;
}
