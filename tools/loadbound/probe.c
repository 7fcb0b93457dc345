// SPDX-License-Identifier: GPL-2.0
/*
 * lbprobe: the load-bound study's interference probe.
 *
 * A SCHED_FIFO thread at priority -p, pinned to CPU -c, memory locked, reads
 * CLOCK_MONOTONIC as fast as it can for -d seconds.  Every gap between two
 * reads longer than the threshold is time something else took the CPU from
 * it: it is recorded as (start, length), start relative to the run's start,
 * length with the loop's own cost (one clock read) subtracted.  The buffer
 * is allocated and touched before the run: nothing is allocated, no system
 * call is made while measuring (the clock is the vDSO's where it has one).
 *
 *   lbprobe -p 40 -c 0 -d 5 -o gaps.txt          text trace
 *   lbprobe -p 40 -c 0 -d 5 -f bin -o gaps.lbp   binary trace
 *   lbprobe --chrt PID PRIO                     set SCHED_FIFO PRIO on PID
 *                                               (osnoise.sh's osnoise/N thread)
 *
 * Text trace: "# key value" header lines (format, loop_ns, threshold_ns,
 * duration_ns, cpu, prio, policy, kernel, ...), then one "start_ns length_ns"
 * line per gap.  Binary trace: the 8 bytes "LBPROBE1", a little-endian
 * uint32 header length, the same header text, then per gap two
 * little-endian int64 (start_ns, length_ns).  tools/loadbound/loadbound.py
 * reads both.
 *
 * It refuses to run (exit 2, one line saying why) if it cannot lock its
 * memory, pin itself or get its priority; --other runs at SCHED_OTHER
 * instead, for testing on machines without real-time rights.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

struct gap {
	int64_t start;
	int64_t len;
};

static const char *prog = "lbprobe";

static void die(int rc, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(rc);
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The measuring loop.  Calibration runs this same code with an
 * unreachable threshold, so the cost it measures is the loop's own.
 * Returns the number of gaps seen (may exceed max: then the run stopped
 * early at *end_out).
 */
static size_t __attribute__((noinline))
measure(struct gap *g, size_t max, int64_t thr, int64_t loop, int64_t dur,
	int64_t *t0_out, int64_t *end_out)
{
	int64_t t0 = now_ns();
	int64_t prev = t0, t, d, end = t0 + dur;
	size_t n = 0;

	for (;;) {
		t = now_ns();
		d = t - prev;
		if (__builtin_expect(d > thr, 0)) {
			if (n == max) {
				/* full: the run ends where the record does */
				end = prev;
				t = prev;
				break;
			}
			g[n].start = prev - t0;
			g[n].len = d - loop;
			n++;
		}
		prev = t;
		if (t >= end)
			break;
	}
	*t0_out = t0;
	*end_out = t;
	return n;
}

/* The loop's cost in ns: the best of many short batches (a batch an
 * interrupt hit is slower, never faster). */
static double calibrate(void)
{
	double best = 1e18;
	int64_t t0, t1;
	int i, k;

	for (i = 0; i < 200; i++) {
		int64_t a = now_ns();

		for (k = 0; k < 1000; k++)
			measure(NULL, 0, INT64_MAX, 0, 0, &t0, &t1);
		int64_t b = now_ns();
		/* each call: two reads of its own (start, one iteration) */
		double per = (double)(b - a) / (2.0 * 1000);

		if (per < best)
			best = per;
	}
	/* the loop proper: one read per iteration */
	for (i = 0; i < 50; i++) {
		int64_t a = now_ns(), t = a, p = a;

		for (k = 0; k < 10000; k++) {
			t = now_ns();
			if (t - p > 1000000)
				break;
			p = t;
		}
		if (k == 10000) {
			double per = (double)(t - a) / 10000;

			if (per < best)
				best = per;
		}
	}
	return best;
}

static long parse_long(const char *s, const char *what, long lo, long hi)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 0);
	if (errno || e == s || *e || v < lo || v > hi) {
		char range[64];

		snprintf(range, sizeof(range), "%ld..%ld", lo, hi);
		fprintf(stderr, "%s: bad %s '%s' (%s)\n", prog, what, s, range);
		exit(1);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: lbprobe [options] -o FILE\n"
"       lbprobe --chrt PID PRIO\n"
"Reads CLOCK_MONOTONIC as fast as it can as a SCHED_FIFO thread on one CPU\n"
"and records every gap longer than the threshold (the CPU taken by anything\n"
"else) as start and length, the loop's own cost subtracted.\n"
"  -p, --prio N        SCHED_FIFO priority, 1..99 (default 40)\n"
"  -c, --cpu N         the CPU to pin to (default 0)\n"
"  -d, --duration S    seconds to measure (default 5)\n"
"  -t, --threshold NS  gaps longer than this are interference (default:\n"
"                      4 x the measured loop cost, rounded up)\n"
"  -n, --max-gaps N    gaps the pre-allocated buffer holds (default 4194304);\n"
"                      a full buffer ends the run early (header: truncated 1)\n"
"  -f, --format F      text (default) or bin\n"
"  -o, --output FILE   the trace file ('-': stdout)\n"
"  -O, --other         run at SCHED_OTHER (testing without real-time rights;\n"
"                      the trace says policy other)\n"
"  -q, --quiet         no summary on stderr\n"
"      --chrt PID PRIO set SCHED_FIFO PRIO on thread PID and exit\n"
"Exit: 0 ok, 1 usage, 2 refused (priority, memory lock, CPU), 3 I/O error.\n");
}

static int read_int_file(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prio", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "threshold", required_argument, NULL, 't' },
		{ "max-gaps", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "other", no_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "chrt", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long prio = 40, cpu = 0, thr_arg = 0, maxg = 4194304;
	double dur_s = 5;
	const char *fmt = "text", *outp = NULL;
	int other = 0, quiet = 0, chrt = 0, truncated, c;
	struct sched_param sp;
	cpu_set_t set;
	struct utsname un;
	struct gap *g;
	double loop;
	int64_t loop_ns, thr, t0, tend, total = 0, maxlen = 0;
	size_t n, i, kept;
	long rt_runtime = 0;
	char hdr[2048], errbuf[64];
	int hl;
	FILE *out;

	while ((c = getopt_long(argc, argv, "p:c:d:t:n:f:o:Oqh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': prio = parse_long(optarg, "priority", 1, 99); break;
		case 'c': cpu = parse_long(optarg, "cpu", 0, CPU_SETSIZE - 1); break;
		case 'd': {
			char *e;

			dur_s = strtod(optarg, &e);
			if (e == optarg || *e || !(dur_s > 0) || dur_s > 86400)
				die(1, "bad duration '%s' (seconds, 0 < d <= 86400)%s", optarg, "");
			break;
		}
		case 't': thr_arg = parse_long(optarg, "threshold", 1, 1000000000); break;
		case 'n': maxg = parse_long(optarg, "max-gaps", 1, 1L << 30); break;
		case 'f': fmt = optarg; break;
		case 'o': outp = optarg; break;
		case 'O': other = 1; break;
		case 'q': quiet = 1; break;
		case 'C': chrt = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (chrt) {
		long pid, p;

		if (argc - optind != 2)
			die(1, "--chrt needs PID PRIO%s%s", "", "");
		pid = parse_long(argv[optind], "pid", 1, INT_MAX);
		p = parse_long(argv[optind + 1], "priority", 1, 99);
		sp.sched_priority = (int)p;
		if (sched_setscheduler((pid_t)pid, SCHED_FIFO, &sp))
			die(2, "cannot set SCHED_FIFO on pid %s: %s", argv[optind], strerror(errno));
		return 0;
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	if (!outp)
		die(1, "no output file (-o FILE)%s%s", "", "");
	if (strcmp(fmt, "text") && strcmp(fmt, "bin"))
		die(1, "bad format '%s' (text or bin)%s", fmt, "");

	/* Refuse, and say why, before measuring anything. */
	g = malloc((size_t)maxg * sizeof(*g));
	if (!g)
		die(2, "refusing to run: cannot allocate the gap buffer (lower -n)%s%s", "", "");
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die(2, "refusing to run: cannot lock memory (mlockall: %s); run as root or raise RLIMIT_MEMLOCK%s",
		    strerror(errno), "");
	memset(g, 0, (size_t)maxg * sizeof(*g));	/* fault it in now */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		snprintf(errbuf, sizeof(errbuf), "%ld", cpu);
		die(2, "refusing to run: cannot pin to CPU %s: %s", errbuf, strerror(errno));
	}
	if (!other) {
		sp.sched_priority = (int)prio;
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			snprintf(errbuf, sizeof(errbuf), "%ld", prio);
			die(2, "refusing to run: cannot get SCHED_FIFO priority %s: %s "
			    "(needs root, CAP_SYS_NICE or RLIMIT_RTPRIO; --other measures at SCHED_OTHER for testing)",
			    errbuf, strerror(errno));
		}
	}
	if (!read_int_file("/proc/sys/kernel/sched_rt_runtime_us", &rt_runtime))
		rt_runtime = 0;
	if (!other && rt_runtime >= 0 && !quiet)
		fprintf(stderr, "%s: warning: real-time throttling is on (sched_rt_runtime_us %ld): "
			"its pauses will show as interference\n", prog, rt_runtime);

	loop = calibrate();
	loop_ns = (int64_t)(loop + 0.5);
	thr = thr_arg ? thr_arg : (int64_t)(4 * loop) + 1;
	if (thr <= loop_ns)
		thr = loop_ns + 1;

	n = measure(g, (size_t)maxg, thr, loop_ns, (int64_t)(dur_s * 1e9), &t0, &tend);

	/* Measuring is over: back to SCHED_OTHER before any I/O. */
	if (!other) {
		sp.sched_priority = 0;
		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	kept = n;
	truncated = n == (size_t)maxg && tend - t0 < (int64_t)(dur_s * 1e9);
	for (i = 0; i < kept; i++) {
		total += g[i].len;
		if (g[i].len > maxlen)
			maxlen = g[i].len;
	}
	if (uname(&un))
		strcpy(un.release, "unknown");
	hl = snprintf(hdr, sizeof(hdr),
		      "# lbprobe 1\n"
		      "# loop_ns %.3f\n"
		      "# threshold_ns %" PRId64 "\n"
		      "# duration_ns %" PRId64 "\n"
		      "# requested_ns %" PRId64 "\n"
		      "# t0_ns %" PRId64 "\n"
		      "# cpu %ld\n"
		      "# prio %ld\n"
		      "# policy %s\n"
		      "# kernel %s\n"
		      "# machine %s\n"
		      "# rt_runtime_us %ld\n"
		      "# gaps %zu\n"
		      "# truncated %d\n"
		      "# interference_ns %" PRId64 "\n",
		      loop, thr, tend - t0, (int64_t)(dur_s * 1e9), t0, cpu,
		      other ? 0 : prio, other ? "other" : "fifo", un.release, un.machine,
		      rt_runtime, kept, truncated,
		      total);
	if (hl < 0 || hl >= (int)sizeof(hdr))
		die(3, "header too long%s%s", "", "");

	out = strcmp(outp, "-") ? fopen(outp, strcmp(fmt, "bin") ? "w" : "wb") : stdout;
	if (!out)
		die(3, "cannot write %s: %s", outp, strerror(errno));
	if (!strcmp(fmt, "text")) {
		fputs(hdr, out);
		for (i = 0; i < kept; i++)
			fprintf(out, "%" PRId64 " %" PRId64 "\n", g[i].start, g[i].len);
	} else {
		uint32_t l = (uint32_t)hl;
		unsigned char lb[4] = { l & 255, (l >> 8) & 255, (l >> 16) & 255, l >> 24 };

		fwrite("LBPROBE1", 1, 8, out);
		fwrite(lb, 1, 4, out);
		fwrite(hdr, 1, (size_t)hl, out);
		for (i = 0; i < kept; i++) {
			unsigned char b[16];
			uint64_t v[2] = { (uint64_t)g[i].start, (uint64_t)g[i].len };
			int j, k;

			for (j = 0; j < 2; j++)
				for (k = 0; k < 8; k++)
					b[j * 8 + k] = (v[j] >> (8 * k)) & 255;
			fwrite(b, 1, 16, out);
		}
	}
	if (fflush(out) || (out != stdout && fclose(out)))
		die(3, "cannot write %s: %s", outp, strerror(errno));
	if (!quiet)
		fprintf(stderr, "%s: %s %ld cpu %ld: %.3f s, loop %.1f ns, threshold %" PRId64
			" ns, %zu gaps, interference %.3f ms (%.3f %%), longest %.1f us%s\n",
			prog, other ? "other" : "fifo", other ? 0 : prio, cpu,
			(tend - t0) / 1e9, loop, thr, kept, total / 1e6,
			tend > t0 ? 100.0 * total / (tend - t0) : 0.0, maxlen / 1e3,
			truncated ? " (buffer full: run truncated)" : "");
	return 0;
}
