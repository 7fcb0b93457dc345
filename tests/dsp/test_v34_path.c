// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 on a 2-wire line behind an audio path nobody on the modem's side
 * knows the length of (dsp/v34.c, near_watch()): a virtual machine's audio
 * (QEMU's D-Bus audio in the lab) holds what the modem sends and what it
 * hears 1500-2600 samples more than the I/O loop's latency the modem is
 * told (echo_latency). The path is modelled here around the line model
 * (tests/dsp/common/line.c): a delay on what the end sends before the line
 * and one on what it hears after it, so that its near echo (the hybrid, in
 * the line), the far end's signal and its far echo all come through both.
 *
 * - Lines with the call modem, the answer modem or both behind such a path
 *   of 1500-2600 samples (G.168 m3 at ERL 12 dB, one at 6 dB, one m5 at 10
 *   dB; far echoes 27-30 dB down, shifted up to 7 Hz; 12-250 ms one way,
 *   2400-3429 baud): both ends reach the data mode, a PRBS each way arrives
 *   without a bit error over the data's seconds, each canceller's ERLE at
 *   its training's end is at least ERLE_MIN, and each end's near_latency
 *   (where phase 2 heard its echo begin) is within NEAR_TOL samples of the
 *   truth (echo_latency plus its path; the m3 hybrid's first tap is at 0).
 * - The same lines with the search off (no_near_search, the canceller at
 *   echo_latency as before): the call fails (not in data, bit errors or an
 *   ERLE under ERLE_MIN), which is what the search is for.
 * - One more with an output lead of 1024 samples at both ends (the driver's
 *   ring, told: echo_latency) and the path beyond it.
 * - A line without a path: near_latency is echo_latency within NEAR_TOL
 *   (the canceller stays there: test_v34_call's calls are unchanged).
 * The far window: at phase 2's round trip less the near latency, which is
 * right for an end whose far end has no path of its own; where it has one
 * (the far echo comes back from the far hybrid, on the line's side of that
 * path, sooner than the round trip says), the training finds it in its
 * residual (v34_train_rx.c, far_seek_start()); each line's print shows the
 * far window's delay each end ended with.
 * Options: -v (each end's line at each change), --only=N (one line), --quick
 * (two lines, the search on only: the UBSan run), --seeds=N (each line with
 * N other seeds and paths, judged as a whole; not in the default run).
 *
 * Eight lines and seven calls without the search, about 2.5 s of CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34.h>
#include "line.h"
#include "chan.h"
#include "check.h"
#include "v34rule.h"
#include "tutil.h"

#define LEVEL (-120)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BLK 80
#define MAXPATH 8192
#define ERLE_MIN 25
#define NEAR_TOL 24
#define DATA_SECONDS 2.0

static int verbose;
static unsigned int sweep;	/* --seeds: the sweep's round (0: the lines as written) */

/* a fixed delay of d samples (0..MAXPATH) */
struct delay {
	int16_t buf[MAXPATH];
	int d, pos;
};

static void delay_run(struct delay *y, int16_t *x, int n)
{
	int i;

	if (!y->d)
		return;
	for (i = 0; i < n; i++) {
		int16_t v = y->buf[y->pos];

		y->buf[y->pos] = x[i];
		y->pos = (y->pos + 1) % y->d;
		x[i] = v;
	}
}

struct path_case {
	const char *name;
	int channel;
	double loss, noise, ppm;
	int delay_ms;
	int hybrid;
	double erl, far_db, hz;
	int c_out, c_in, a_out, a_in;	/* each end's path: what it sends, what it hears */
	unsigned int max_rate;
	int max_baud;
	int lead;			/* both ends' output lead, told (echo_latency BLK + lead) */
};

struct end {
	struct smdsp_v34 *m;
	struct smdsp_v34_stats st;
	struct t_prbs src, sink;
	struct delay out, in;
	int16_t tx[BLK], rx[BLK];
};

struct result {
	enum smdsp_v34_state cs, as;
	enum smdsp_v34_fail cf, af;
	struct smdsp_v34_stats c, a;
	unsigned long c_checked, a_checked, c_errors, a_errors;
	long data_ms;
};

static int end_init(struct end *e, const struct path_case *pc, bool calling, bool search, uint32_t seed)
{
	struct smdsp_v34_config cfg = { .calling = calling, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
					.max_rate = pc->max_rate, .two_wire = true, .echo_latency = BLK + pc->lead,
					.no_near_search = !search };

	memset(e, 0, sizeof(*e));
	v34_info0_upto(pc->max_baud, &cfg.info0);
	e->src.s = seed;
	cfg.get_bit = t_prbs_src_bit;
	cfg.get_user = &e->src;
	cfg.put_bit = t_prbs_sink_bit;
	cfg.put_user = &e->sink;
	e->out.d = pc->lead + (calling ? pc->c_out : pc->a_out);
	e->in.d = calling ? pc->c_in : pc->a_in;
	e->m = smdsp_v34_create(&cfg);
	return e->m ? 0 : -1;
}

static void run(const struct path_case *pc, unsigned int idx, bool search, struct result *r)
{
	struct line_cfg lc = { .loss_db = pc->loss, .noise_dbm0 = pc->noise, .echo_db = -999,
			       .delay = pc->delay_ms * 8, .ppm = pc->ppm, .seed = 61 + idx + 1000 * sweep,
			       .channel = pc->channel, .hybrid = pc->hybrid, .hybrid_erl_db = pc->erl,
			       .far_echo_db = pc->far_db, .far_hybrid = 1 + pc->hybrid % 8,
			       .far_echo_hz = pc->hz };
	static struct end c, a;
	enum smdsp_v34_state pcs = SMDSP_V34_STATES, pas = SMDSP_V34_STATES;
	struct line *l;
	long t, stop = -1;

	memset(r, 0, sizeof(*r));
	r->data_ms = -1;
	/* the far hybrid at the far end of the line, outside any path */
	lc.far_echo_delay = 2 * (lc.delay + 16);
	l = line_create(&lc);
	if (end_init(&c, pc, true, search, 0x1abcdeu + idx) || end_init(&a, pc, false, search, 0x2fedcbu + idx) ||
	    !l) {
		CHECK(0, "%s: create", pc->name);
		return;
	}
	for (t = 0; t < 8000L * 30; t += BLK) {
		smdsp_v34_process(c.m, c.rx, c.tx, BLK);
		smdsp_v34_process(a.m, a.rx, a.tx, BLK);
		delay_run(&c.out, c.tx, BLK);
		delay_run(&a.out, a.tx, BLK);
		line_process(l, c.tx, c.rx, a.tx, a.rx, BLK);
		delay_run(&c.in, c.rx, BLK);
		delay_run(&a.in, a.rx, BLK);
		if (verbose && (smdsp_v34_state(c.m) != pcs || smdsp_v34_state(a.m) != pas)) {
			char b1[300], b2[300];

			pcs = smdsp_v34_state(c.m);
			pas = smdsp_v34_state(a.m);
			smdsp_v34_print(c.m, b1, sizeof(b1));
			smdsp_v34_print(a.m, b2, sizeof(b2));
			printf("  %6ld ms: %s\n  %6s    %s\n", t / 8, b1, "", b2);
		}
		if (stop < 0 && smdsp_v34_state(c.m) == SMDSP_V34_DATA && smdsp_v34_state(a.m) == SMDSP_V34_DATA) {
			r->data_ms = t / 8;
			stop = t + (long)(DATA_SECONDS * 8000);
		}
		if ((stop >= 0 && t >= stop) ||
		    (smdsp_v34_state(c.m) == SMDSP_V34_FAILED && smdsp_v34_state(a.m) == SMDSP_V34_FAILED))
			break;
	}
	r->cs = smdsp_v34_state(c.m);
	r->as = smdsp_v34_state(a.m);
	r->cf = smdsp_v34_fail(c.m);
	r->af = smdsp_v34_fail(a.m);
	smdsp_v34_get_stats(c.m, &r->c);
	smdsp_v34_get_stats(a.m, &r->a);
	r->c_checked = c.sink.checked;
	r->a_checked = a.sink.checked;
	r->c_errors = c.sink.errors;
	r->a_errors = a.sink.errors;
	CHECK(line_starved(l) == 0);
	smdsp_v34_free(c.m);
	smdsp_v34_free(a.m);
	line_free(l);
}

/* in the data both ways, no bit wrong, and both cancellers at ERLE_MIN or better */
static bool good(const struct result *r)
{
	return r->cs == SMDSP_V34_DATA && r->as == SMDSP_V34_DATA && r->c_checked > 1000 && r->a_checked > 1000 &&
	       !r->c_errors && !r->a_errors && r->c.erle_db10 >= 10 * ERLE_MIN && r->a.erle_db10 >= 10 * ERLE_MIN;
}

static void print(const char *what, const struct path_case *pc, const struct result *r)
{
	printf("%-44s %-9s: call %s/%s near %5d (true %5d) far %5d erle %4.1f dB %6lu bits %lu errors; answer %s/%s near %5d (true %5d) far %5d erle %4.1f dB %6lu bits %lu errors; rtd %d, %u/%u bit/s, data at %ld ms\n",
	       pc->name, what, smdsp_v34_state_name(r->cs), smdsp_v34_fail_name(r->cf), r->c.near_latency,
	       BLK + pc->lead + pc->c_out + pc->c_in, r->c.far_delay, r->c.erle_db10 / 10.0, r->c_checked, r->c_errors,
	       smdsp_v34_state_name(r->as), smdsp_v34_fail_name(r->af), r->a.near_latency,
	       BLK + pc->lead + pc->a_out + pc->a_in, r->a.far_delay, r->a.erle_db10 / 10.0, r->a_checked, r->a_errors, r->c.rtd,
	       r->c.tx.rate, r->a.tx.rate, r->data_ms);
}

static const struct path_case cases[] = {
	{ "no path, m3 ERL 12", CHAN_TELEPHONE, 10, -55, 100, 12, 3, 12, 28, 3.0, 0, 0, 0, 0, 19200, 3000, 0 },
	{ "call modem +1500, m3 ERL 12", CHAN_TELEPHONE, 10, -55, 100, 12, 3, 12, 28, 3.0, 700, 800, 0, 0,
	  19200, 3000, 0 },
	{ "answer modem +2600, m3 ERL 12", CHAN_TELEPHONE, 10, -55, -100, 40, 3, 12, 27, -7.0, 0, 0, 1240, 1360,
	  19200, 3000, 0 },
	{ "both +2100/+1800, m3 ERL 6", CHAN_FLAT, 8, -55, 50, 100, 3, 6, 30, 7.0, 1000, 1100, 600, 1200,
	  14400, 2400, 0 },
	{ "call modem +2600, 250 ms, m3 ERL 12", CHAN_FLAT, 8, -55, -50, 250, 3, 12, 30, 7.0, 1300, 1300, 0, 0,
	  19200, 3200, 0 },
	{ "answer modem +1500, m3 ERL 12, 3429 baud", CHAN_TELEPHONE, 10, -55, 100, 25, 3, 12, 27, -3.0, 0, 0, 900,
	  600, 21600, 3429, 0 },
	{ "both +1600/+2500, m5 ERL 10", CHAN_TELEPHONE, 10, -55, -100, 60, 5, 10, 28, 0.0, 800, 800, 1250, 1250,
	  19200, 3000, 0 },
	{ "call modem +2600 beyond a 1024 lead, 250 ms", CHAN_FLAT, 8, -55, -50, 250, 3, 12, 30, 7.0, 1300, 1300, 0,
	  0, 19200, 3200, 1024 },
};

/*
 * --seeds=N: each line again with N other noise seeds, each path moved
 * within 1500-2600 samples (split evenly between the two directions)
 */
static void sweep_lines(const struct path_case *orig, unsigned int idx, unsigned int n)
{
	unsigned int clean = 0, k;
	int worst = 0;

	for (k = 1; k <= n; k++) {
		struct path_case pc = *orig;
		int *d[2][2] = { { &pc.c_out, &pc.c_in }, { &pc.a_out, &pc.a_in } };
		struct result r;
		int e, tc, ta;

		for (e = 0; e < 2; e++) {
			int x = *d[e][0] + *d[e][1];

			if (!x)
				continue;
			x = 1500 + (int)((x - 1500 + 173 * k) % 1101);
			*d[e][0] = x / 2;
			*d[e][1] = x - x / 2;
		}
		tc = BLK + pc.lead + pc.c_out + pc.c_in;
		ta = BLK + pc.lead + pc.a_out + pc.a_in;
		sweep = k;
		run(&pc, idx, true, &r);
		sweep = 0;
		clean += good(&r);
		if (abs(r.c.near_latency - tc) > worst)
			worst = abs(r.c.near_latency - tc);
		if (abs(r.a.near_latency - ta) > worst)
			worst = abs(r.a.near_latency - ta);
		if (verbose || !good(&r))
			print("sweep", &pc, &r);
	}
	printf("%-44s: %u of %u calls clean over other seeds and paths, near latency at most %d samples off\n",
	       orig->name, clean, n, worst);
	CHECK(clean == n && worst <= NEAR_TOL, "%s: the sweep", orig->name);
}

int main(int argc, char **argv)
{
	unsigned int seeds = 0;
	bool quick = false;
	int only = -1;
	unsigned int i;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strncmp(argv[i], "--only=", 7))
			only = atoi(argv[i] + 7);
		else if (!strncmp(argv[i], "--seeds=", 8))
			seeds = (unsigned int)atoi(argv[i] + 8);
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct path_case *pc = &cases[i];
		int tc = BLK + pc->lead + pc->c_out + pc->c_in, ta = BLK + pc->lead + pc->a_out + pc->a_in;
		struct result r;

		if ((only >= 0 && (unsigned int)only != i) || (quick && i != 1 && i != 3))
			continue;
		if (seeds) {
			sweep_lines(pc, i, seeds);
			continue;
		}
		run(pc, i, true, &r);
		print("search", pc, &r);
		CHECK(good(&r), "%s: not a clean call", pc->name);
		CHECK(abs(r.c.near_latency - tc) <= NEAR_TOL && abs(r.a.near_latency - ta) <= NEAR_TOL,
		      "%s: near latency %d/%d, true %d/%d", pc->name, r.c.near_latency, r.a.near_latency, tc, ta);
		if ((tc == BLK + pc->lead && ta == BLK + pc->lead) || quick)
			continue;
		run(pc, i, false, &r);
		print("no search", pc, &r);
		CHECK(r.c.near_latency == -1 && r.a.near_latency == -1, "%s: sought though told not to", pc->name);
		CHECK(!good(&r), "%s: a clean call without the search", pc->name);
	}
	return t_report("test_v34_path");
}
