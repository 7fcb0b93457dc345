// SPDX-License-Identifier: GPL-2.0
/*
 * spin: the study's competitor, a normal-priority thread that never blocks.
 * Usage: spin [SECONDS]   (no argument: spin until killed)
 * Checking the clock only every 1024 iterations keeps the loop a pure CPU
 * burner.  Given SECONDS it prints how many iterations it made: on the
 * instruction-counted clock that is the CPU time it got, to a few
 * microseconds (what another activity cost it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile unsigned long counter = 0;
	double limit = -1.0, end = 0.0;

	if (argc > 2) {
		fprintf(stderr, "usage: spin [SECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		char *tail;

		limit = strtod(argv[1], &tail);
		if (*tail || limit < 0) {
			fprintf(stderr, "spin: bad duration '%s'\n", argv[1]);
			return 2;
		}
		end = now_s() + limit;
	}
	for (;;) {
		unsigned long i;

		for (i = 0; i < (1UL << 10); i++)
			counter++;
		if (limit >= 0 && now_s() >= end)
			break;
	}
	if (limit >= 0)
		printf("spin: %lu iterations in %g s\n", (unsigned long)counter, limit);
	return 0;
}
