// SPDX-License-Identifier: GPL-2.0
/*
 * Our phase 2 controller (dsp/v34_phase2.c) listening to one direction of
 * real modems' V.34 calls: raw 8 kHz s16le files (see make
 * check-recordings-v34). A *_L_caller.raw file is heard by an answer modem, a
 * *_R_answerer.raw file by a call modem, each in listen-only mode; it prints
 * each step of the far end's phase 2 as the controller follows it (INFO0,
 * the tone, its two reversals, L1/L2 measured, the tone again, INFO1), the
 * answer modem's round trip from its reversals' spacing, and the INFO1
 * heard. With --require, fails if a file's phase 2 was not followed to its
 * INFO1 through every step before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_phase2.h>

static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };
static const char *const step_names[] = { "INFO0", "tone", "first reversal", "second reversal",
					  "L1/L2 measured", "tone after L2", "INFO1" };

#define NSTEPS 7
#define ALL_BUT_TONE2 (0x7f & ~SMDSP_V34P2_HEARD_TONE2)

static int listen_file(const char *path)
{
	bool answerer = strstr(path, "_R_answerer") != NULL;
	struct smdsp_v34_phase2_config cfg = { .calling = answerer, .level_dbm0_10 = -120,
					       .far_level_dbm0_10 = -120, .listen_only = true };
	struct smdsp_v34_phase2 *s = smdsp_v34_phase2_create(&cfg);
	struct smdsp_v34_phase2_result r;
	FILE *f = fopen(path, "rb");
	int16_t x[80], y[80];
	unsigned int seen = 0, k;
	long n = 0;
	size_t got;

	if (!f || !s) {
		fprintf(stderr, "%s: cannot open\n", path);
		if (f)
			fclose(f);
		smdsp_v34_phase2_free(s);
		return 0;
	}
	printf("== %s: heard by %s modem, listening only\n", path, answerer ? "a call" : "an answer");
	while ((got = fread(x, sizeof(x[0]), 80, f)) > 0) {
		unsigned int steps;

		smdsp_v34_phase2_process(s, x, y, (unsigned int)got);
		n += (long)got;
		steps = smdsp_v34_phase2_steps(s);
		for (k = 0; k < NSTEPS; k++)
			if ((steps & ~seen) & (1u << k))
				printf("  %7.3f s  %s\n", n / 8000.0, step_names[k]);
		seen = steps;
		if (smdsp_v34_phase2_state(s) == SMDSP_V34P2_DONE)
			break;
	}
	fclose(f);
	smdsp_v34_phase2_result(s, &r);
	if (smdsp_v34_phase2_far_rtd(s) >= 0)
		printf("  the answer modem's round trip from its reversals: %d samples (%.1f ms)\n",
		       smdsp_v34_phase2_far_rtd(s), smdsp_v34_phase2_far_rtd(s) / 8.0);
	if (seen & SMDSP_V34P2_HEARD_INFO1) {
		if (answerer)
			printf("  INFO1a: %d baud a->c, %d baud c->a at %d bit/s, pre-emphasis %u, power reduction %u\n",
			       sym_rate[r.info1a.rate_a_to_c % 6], sym_rate[r.info1a.rate_c_to_a % 6],
			       2400 * r.info1a.max_rate, r.info1a.preemph, r.info1a.min_power_red);
		else
			printf("  INFO1c: per symbol rate 2400..3429: %u %u %u %u %u %u (x 2400 bit/s)\n",
			       r.info1c.rate[0].max_rate, r.info1c.rate[1].max_rate, r.info1c.rate[2].max_rate,
			       r.info1c.rate[3].max_rate, r.info1c.rate[4].max_rate, r.info1c.rate[5].max_rate);
	}
	printf("  followed: %s (steps %#x)\n", (seen & ALL_BUT_TONE2) == ALL_BUT_TONE2 ? "every step" : "NOT all",
	       seen);
	smdsp_v34_phase2_free(s);
	return (seen & ALL_BUT_TONE2) == ALL_BUT_TONE2;
}

int main(int argc, char **argv)
{
	bool require = false;
	int i, files = 0, followed = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--require")) {
			require = true;
			continue;
		}
		if (!strcmp(argv[i], "--help")) {
			printf("usage: %s [--require] file_L_caller.raw|file_R_answerer.raw ...\n", argv[0]);
			return 0;
		}
		files++;
		followed += listen_file(argv[i]);
	}
	printf("v34_phase2_recordings: %d files, %d followed to INFO1\n", files, followed);
	return require && followed < files ? 1 : 0;
}
