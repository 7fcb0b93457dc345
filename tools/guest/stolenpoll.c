// SPDX-License-Identifier: GPL-2.0
/*
 * stolenpoll: the augmented-reservation study's user-space detector of
 * stolen time.  A thread reads the clock in a tight loop; a gap between two
 * reads longer than a threshold is time something else took (an interrupt,
 * a softirq, another thread), less the loop's own shortest step.
 *
 * Usage: stolenpoll SECONDS [THRESHOLD_NS [FIFO_PRIO]]
 *   THRESHOLD_NS  gaps counted as stolen from this long (default 1000)
 *   FIFO_PRIO     poll as SCHED_FIFO at this priority (default: as started)
 * With smodem loaded stolen=1, the module accounts the same thread too
 * (debugfs smodem/stolen_watch) and both go in the one line of JSON this
 * prints: {"poll": {...}, "module": {...} or null}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define WATCH "/sys/kernel/debug/smodem/stolen_watch"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int watch(long tid)
{
	FILE *f = fopen(WATCH, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", tid) > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* the module's line for tid, or "null" */
static void module_json(long tid, char *out, size_t n)
{
	unsigned long long wall, irq, sirq, net, other;
	char line[256];
	FILE *f = fopen(WATCH, "r");
	long t;

	snprintf(out, n, "null");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "tid %ld wall_ns %llu irq_ns %llu softirq_ns %llu net_rx_ns %llu other_ns %llu",
			   &t, &wall, &irq, &sirq, &net, &other) == 6 && t == tid)
			snprintf(out, n, "{\"wall_ns\": %llu, \"irq_ns\": %llu, \"softirq_ns\": %llu, "
				 "\"net_rx_ns\": %llu, \"other_ns\": %llu, \"stolen_ns\": %llu}",
				 wall, irq, sirq, net, other, irq + sirq + other);
	fclose(f);
}

static int arg(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || end == s || *v < lo || *v > hi ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long start, end, prev, t, d, step = ~0ULL, gaps = 0, stolen = 0;
	unsigned long long loops = 0, max_gap = 0;
	long secs, thr = 1000, prio = 0, tid = syscall(SYS_gettid);
	char mod[512];
	int watched;

	if (argc < 2 || argc > 4 || arg(argv[1], 1, 3600, &secs) ||
	    (argc > 2 && arg(argv[2], 1, 1000000000, &thr)) ||
	    (argc > 3 && arg(argv[3], 1, 99, &prio))) {
		fprintf(stderr, "usage: stolenpoll SECONDS(1..3600) [THRESHOLD_NS [FIFO_PRIO(1..99)]]\n");
		return 2;
	}
	if (prio) {
		struct sched_param sp = { .sched_priority = (int)prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("stolenpoll: SCHED_FIFO");
			return 1;
		}
	}
	watched = watch(tid) == 0;
	start = prev = now_ns();
	end = start + secs * 1000000000ULL;
	do {
		t = now_ns();
		d = t - prev;
		prev = t;
		loops++;
		if (d < step)
			step = d;
		if (d >= (unsigned long long)thr) {
			gaps++;
			stolen += d;
			if (d > max_gap)
				max_gap = d;
		}
	} while (t < end);
	mod[0] = 0;
	if (watched) {
		module_json(tid, mod, sizeof(mod));
		watch(-tid);
	} else {
		snprintf(mod, sizeof(mod), "null");
	}
	/* each counted gap also held one step of the loop's own */
	stolen -= gaps * step;
	printf("{\"poll\": {\"wall_ns\": %llu, \"threshold_ns\": %ld, \"loops\": %llu, "
	       "\"step_ns\": %llu, \"gaps\": %llu, \"stolen_ns\": %llu, \"max_gap_ns\": %llu}, "
	       "\"module\": %s}\n", t - start, thr, loops, step, gaps, stolen, max_gap, mod);
	return 0;
}
