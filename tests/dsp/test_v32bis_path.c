// SPDX-License-Identifier: GPL-2.0
/*
 * V.32bis over a 2-wire line behind an audio path nobody told the modem of
 * (a virtual machine's: QEMU's audio path adds 1500-2600 samples beyond
 * the driver's output lead): our caller and answerer (dsp/v32bis.c, each
 * with its echo canceller) over the test line, the caller behind its lead
 * (echo_latency, 2048 samples) and an extra path split between its two
 * directions, the answerer one block behind (as smline's far modem) or
 * behind the same lead and path (--both: a peer like us). The path delays
 * both of that end's echoes: its near echo (the G.168 hybrid at its side
 * of the line) and its far echo (from the far side, the line's round trip
 * later, shifted in frequency). About 4 s.
 *
 * - near: every G.168 hybrid (m1..m8) at ERL 6 dB, both ends behind paths
 *   of 13-2704 samples beyond the lead, one-way delays of 5-50 ms, no far
 *   echo. The start-up times the echo on its first tone within a block and
 *   a hybrid's group delay at the tone; the near window must still hold
 *   the whole response (m4's: long, its front weak). Before: m4 behind
 *   752, 1552 and 2652 samples and m7/m8 under a window past the lead
 *   lost their tail or front (ERLE 2-26 dB, no data on four lines).
 *   Each end: 14400 without an error, ERLE at least NEAR_ERLE dB.
 * - far: a far echo 10-15 dB down at 25-200 ms one way, -7..+7 Hz, on top
 *   of G.168 hybrids at ERL 10 dB behind paths of 0-2500 samples, with the
 *   answerer one block behind (five lines) or behind the same path (three).
 *   The round trip V.32's tones measure holds both ends' loops; the far
 *   window must fall on the far echo however they differ. Before: six of
 *   the eight never reached data (ERLE 0-14 dB). Each end: 14400 without
 *   an error, ERLE at least FAR_ERLE dB.
 *
 * Options: --quick a line in four of each sweep (the UBSan builds);
 * --line=M,ERL,EXTRA,UP,FAR_DB,ONE_WAY_MS,HZ[,SEED] one call, printed
 * (no check; --both: the far end behind the same lead and path); -v the
 * ends' state at the end, -vv their changes as they come.
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

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BLK		160
#define LEAD		2048
#define MAX_Q		8192
#define SECONDS		13
#define NEAR_ERLE	27
#define FAR_ERLE	20

static int verbose;
static bool both;		/* --both */
static bool quick;		/* --quick: a line of each sweep in four (the UBSan builds) */

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

/* a fixed delay of d samples, block in, block out */
struct fifo {
	int16_t q[MAX_Q];
	int d, pos;
};

static void fifo_run(struct fifo *f, int16_t *x, int n)
{
	int i;

	for (i = 0; i < n && f->d; i++) {
		int16_t v = f->q[f->pos];

		f->q[f->pos] = x[i];
		x[i] = v;
		f->pos = (f->pos + 1) % f->d;
	}
}

struct pathcfg {
	int hybrid;
	double erl;
	int extra, up;			/* the path beyond the lead, and the part of it on the way out */
	double far_db;			/* 0: no far echo */
	int one_way_ms;
	double hz;
	bool both;			/* B behind the same lead and path as A */
	uint64_t seed;
};

struct pathres {
	int data[2];
	unsigned int rate[2], retrains[2];
	int erle[2];
	int lat[2];
	long bits[2], errors[2];
};

/* A ([0], the caller) behind the lead and the path; B one block behind */
static void call(const struct pathcfg *p, struct pathres *r)
{
	static struct end e[2];
	static struct fifo atx_q, arx_q, btx_q, brx_q;
	struct smdsp_v32bis_config cc = { .caller = true, .get_bit = src_cb, .put_bit = chk_cb, .user = &e[0],
					  .echo_latency = LEAD };
	struct smdsp_v32bis_config ca = { .caller = false, .get_bit = src_cb, .put_bit = chk_cb, .user = &e[1],
					  .echo_latency = BLK };
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300, .seed = p->seed,
			       .hybrid = p->hybrid, .hybrid_erl_db = p->erl, .far_echo_db = p->far_db,
			       .far_hybrid = 1 + (p->hybrid % 8), .far_echo_hz = p->hz };
	struct smdsp_v32bis *m[2];
	struct line *l;
	static int16_t atx[BLK], arx[BLK], btx[BLK], brx[BLK];
	long k, n = (long)SECONDS * 8000 / BLK;
	int i;

	lc.delay = p->one_way_ms * 8;
	lc.far_echo_delay = 2 * (lc.delay + 16);
	l = line_create(&lc);
	memset(e, 0, sizeof(e));
	memset(r, 0, sizeof(*r));
	memset(&atx_q, 0, sizeof(atx_q));
	memset(&arx_q, 0, sizeof(arx_q));
	memset(&btx_q, 0, sizeof(btx_q));
	memset(&brx_q, 0, sizeof(brx_q));
	/* the loop itself is a block: the rest of the lead, and the path out, as a delay */
	atx_q.d = LEAD - BLK + p->up;
	arx_q.d = p->extra - p->up;
	if (p->both) {
		ca.echo_latency = LEAD;
		btx_q.d = atx_q.d;
		brx_q.d = arx_q.d;
	}
	e[0].src.reg = 0x1234;
	e[1].src.reg = 0x4321;
	m[0] = smdsp_v32bis_create(&cc);
	m[1] = smdsp_v32bis_create(&ca);
	memset(arx, 0, sizeof(arx));
	memset(brx, 0, sizeof(brx));
	for (k = 0; k < n; k++) {
		smdsp_v32bis_process(m[0], arx, atx, BLK);
		smdsp_v32bis_process(m[1], brx, btx, BLK);
		fifo_run(&atx_q, atx, BLK);
		fifo_run(&btx_q, btx, BLK);
		line_process(l, atx, arx, btx, brx, BLK);
		fifo_run(&arx_q, arx, BLK);
		fifo_run(&brx_q, brx, BLK);
		for (i = 0; i < 2; i++) {
			int now = smdsp_v32bis_phase(m[i]) == SMDSP_V32BIS_PH_DATA;

			if (verbose > 1) {
				static char last[2][200];
				char buf[200], eb[200];
				const char *st;

				smdsp_v32bis_print(m[i], buf, sizeof(buf));
				st = strstr(buf, "state=");
				if (st && strncmp(st, last[i], 9)) {
					snprintf(last[i], sizeof(last[i]), "%s", st);
					smdsp_v32bis_echo_print(m[i], eb, sizeof(eb));
					printf("  %.3f %s\n         %s\n", k * (double)BLK / 8000, buf, eb);
				}
			}

			if (now && !r->data[i])
				memset(&e[i].chk, 0, sizeof(e[i].chk));
			r->data[i] = now;
		}
	}
	for (i = 0; i < 2; i++) {
		char buf[200];

		r->rate[i] = smdsp_v32bis_rate(m[i]);
		r->retrains[i] = smdsp_v32bis_retrains(m[i]);
		r->erle[i] = smdsp_v32bis_echo_erle_db_q8(m[i]) / 256;
		r->lat[i] = smdsp_v32bis_echo_latency(m[i]);
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
	CHECK(line_starved(l) == 0, "the test line ran short of samples (%ld)", line_starved(l));
	line_free(l);
}

static void show(const struct pathcfg *p, const struct pathres *r)
{
	printf("m%d ERL %2.0f, path +%4d (%4d out)%s, line %3d ms, far %2.0f dB %+.1f Hz | caller: %s %5u, latency %4d, "
	       "ERLE %2d dB, %6ld bits %ld err | answerer: %s %5u, ERLE %2d dB, %6ld bits %ld err; retrains %u/%u\n",
	       p->hybrid, p->erl, p->extra, p->up, p->both ? " both" : "", p->one_way_ms, p->far_db, p->hz,
	       r->data[0] ? "data" : "NONE", r->rate[0], r->lat[0], r->erle[0], r->bits[0], r->errors[0],
	       r->data[1] ? "data" : "NONE", r->rate[1], r->erle[1], r->bits[1], r->errors[1], r->retrains[0],
	       r->retrains[1]);
	fflush(stdout);
}

static bool intact(const struct pathres *r)
{
	int i;
	bool ok = true;

	for (i = 0; i < 2; i++)
		ok &= r->data[i] && r->rate[i] == 14400 && !r->errors[i] && r->bits[i] >= 14400L &&
		      !r->retrains[i];
	return ok;
}

static void sweep_near(void)
{
	static const int extra[] = { 0, 700, 1500, 2600 };
	static const int one_way[] = { 10, 25, 5, 50 };
	int m, j;

	for (m = 1; m <= 8; m++) {
		for (j = 0; j < 4; j++) {
			struct pathcfg p = { .hybrid = m, .erl = 6, .extra = extra[(j + m) % 4] + 13 * m,
					     .one_way_ms = one_way[(j + m / 2) % 4], .both = true,
					     .seed = 100 + m };
			struct pathres r;

			if (quick && (m + j) % 4)
				continue;
			p.up = j % 2 ? p.extra / 3 : p.extra;
			call(&p, &r);
			show(&p, &r);
			CHECK(intact(&r), "m%d, path +%d: not 14400 intact", m, p.extra);
			CHECK(r.erle[0] >= NEAR_ERLE && r.erle[1] >= NEAR_ERLE, "m%d, path +%d: ERLE %d/%d dB", m,
			      p.extra, r.erle[0], r.erle[1]);
		}
	}
}

static void sweep_far(void)
{
	static const struct {
		int m, extra, up;
		double far_db;
		int one_way_ms;
		double hz;
		bool both;
	} lines[] = {
		{ 3, 0, 0, 12, 100, 3, false },
		{ 2, 1500, 500, 10, 50, -5, false },
		{ 5, 2500, 1700, 15, 150, 7, false },
		{ 8, 2000, 1000, 12, 25, -2, false },
		{ 6, 1800, 600, 10, 200, 5.5, false },
		{ 1, 1500, 1500, 12, 75, -7, true },
		{ 7, 2200, 700, 15, 120, 1, true },
		{ 4, 1000, 300, 12, 60, -3.5, true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		struct pathcfg p = { .hybrid = lines[i].m, .erl = 10, .extra = lines[i].extra, .up = lines[i].up,
				     .far_db = lines[i].far_db, .one_way_ms = lines[i].one_way_ms,
				     .hz = lines[i].hz, .both = lines[i].both, .seed = 200 + i };
		struct pathres r;

		if (quick && i % 4)
			continue;
		call(&p, &r);
		show(&p, &r);
		CHECK(intact(&r), "far line %u: not 14400 intact", i);
		CHECK(r.erle[0] >= FAR_ERLE && r.erle[1] >= FAR_ERLE, "far line %u: ERLE %d/%d dB", i, r.erle[0],
		      r.erle[1]);
	}
}

static int one_line(const char *arg)
{
	struct pathcfg p = { .seed = 7, .both = both };
	struct pathres r;

	unsigned int seed = 7;

	if (sscanf(arg, "%d,%lf,%d,%d,%lf,%d,%lf,%u", &p.hybrid, &p.erl, &p.extra, &p.up, &p.far_db, &p.one_way_ms,
		   &p.hz, &seed) < 7 || p.hybrid < 1 || p.hybrid > 8 || p.extra < 0 || p.up < 0 || p.up > p.extra ||
	    p.extra + LEAD >= MAX_Q || p.one_way_ms < 0) {
		fprintf(stderr, "--line=M,ERL,EXTRA,UP,FAR_DB,ONE_WAY_MS,HZ[,SEED]\n");
		return 2;
	}
	p.seed = seed;
	call(&p, &r);
	show(&p, &r);
	return 0;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-v|-vv] [--quick] [--both] [--line=M,ERL,EXTRA,UP,FAR_DB,ONE_WAY_MS,HZ[,SEED]]\n", prog);
	return 2;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-vv"))
			verbose = 2;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--both"))
			both = true;
		else if (!strncmp(argv[i], "--line=", 7))
			return one_line(argv[i] + 7);
		else
			return usage(argv[0]);
	}
	sweep_near();
	sweep_far();
	return t_report("test_v32bis_path");
}
