// SPDX-License-Identifier: GPL-2.0
/*
 * fifohog PRIO SECONDS: busy loop under SCHED_FIFO at PRIO for SECONDS of
 * CLOCK_MONOTONIC, then exit.  Used to starve everything below PRIO.
 * The kernel's RT throttling (sched_rt_runtime_us) still applies unless the
 * caller disables it.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sched_param sp;
	volatile unsigned long counter = 0;
	double seconds, end;
	char *tail;
	long prio;

	if (argc != 3) {
		fprintf(stderr, "usage: fifohog PRIO SECONDS\n");
		return 2;
	}
	prio = strtol(argv[1], &tail, 10);
	if (*tail || prio < sched_get_priority_min(SCHED_FIFO) ||
	    prio > sched_get_priority_max(SCHED_FIFO)) {
		fprintf(stderr, "fifohog: bad priority '%s'\n", argv[1]);
		return 2;
	}
	seconds = strtod(argv[2], &tail);
	if (*tail || seconds < 0) {
		fprintf(stderr, "fifohog: bad duration '%s'\n", argv[2]);
		return 2;
	}
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = (int)prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "fifohog: sched_setscheduler: %s\n",
			strerror(errno));
		return 1;
	}
	end = now_s() + seconds;
	while (now_s() < end) {
		unsigned long i;

		for (i = 0; i < (1UL << 16); i++)
			counter++;
	}
	return 0;
}
