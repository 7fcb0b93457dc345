// SPDX-License-Identifier: GPL-2.0
/*
 * spin: the study's competitor, a normal-priority thread that never blocks.
 * Usage: spin [SECONDS]   (no argument: spin until killed)
 * Given SECONDS it prints how many iterations (passes of its loop) it made:
 * on the instruction-counted clock that is the CPU time it got, to a few
 * microseconds (what another activity cost it); the clock is read every
 * 64 passes, a few microseconds apart.
 *
 * A pass is register arithmetic only, about 70 instructions in one
 * straight line.  On the instruction-counted clock every guest instruction
 * costs the same guest time, but QEMU's translated code runs a memory
 * access (a software TLB lookup) and the entry of each translated block
 * many times slower than an arithmetic instruction: this loop burns the
 * same guest time in half the host's of a one-counter loop, and what the
 * guest's other tasks see is the same to the nanosecond.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* one of four chains the compiler may neither fold nor drop */
#define STEP(v) do { (v) += (v) << 3; (v) ^= (v) >> 7; __asm__ volatile("" : "+r"(v)); } while (0)
#define PASS(a, b, c, d) do { STEP(a); STEP(b); STEP(c); STEP(d); } while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long counter = 0, a = 1, b = 2, c = 3, d = 4;
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

		for (i = 0; i < 64; i++) {
			PASS(a, b, c, d);
			PASS(a, b, c, d);
			PASS(a, b, c, d);
			PASS(a, b, c, d);
		}
		counter += 64;
		if (limit >= 0 && now_s() >= end)
			break;
	}
	if (limit >= 0)
		printf("spin: %lu iterations in %g s\n", counter, limit);
	return 0;
}
