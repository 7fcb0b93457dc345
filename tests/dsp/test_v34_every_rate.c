// SPDX-License-Identifier: GPL-2.0
/*
 * Every data rate V.34 allows at every symbol rate (Table 7: 65 of them),
 * two of our ends (dsp/v34_train_*.c) 4-wire over a clean flat line (10 dB
 * loss, 45 dB SNR, +50 ppm), the rate held (fixed_rate): each direction
 * reaches the data and carries 1.5 s of it without a bit error, its
 * decoder's error well above the rate's need, and the data mode's level
 * watch moves nothing (a steady line). Found by the full matrix
 * (bench_v34_matrix): at the five rates whose shell mapping sends its
 * points 2-4 dB under their nominal power (M = 2 with few shell bits:
 * 4800 bit/s at 2400-3000 baud, 7200 at 3429) the watch took that for a
 * fall, rescaled the input and every bit after it was a coin toss.
 */
#include <stdio.h>
#include <smdsp/v34_frame.h>
#include "v34link.h"
#include "check.h"

static const int baud[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };

int main(void)
{
	unsigned int sr, rate, n = 0;

	printf("  baud | bit/s  | bits each way   | errors | decoder's error | level moves\n");
	for (sr = 0; sr < 6; sr++) {
		for (rate = 2400; rate <= 33600; rate += 2400) {
			struct link_cfg lc = { .symrate = (enum smdsp_v34_symrate)sr, .rate_ca = rate, .rate_ac = rate,
					       .fixed_rate = true, .seconds = 6.5 };
			struct link_res r;
			int k;

			if (!smdsp_v34_frame_rate_ok(sr, rate))
				continue;
			n++;
			lc.line.loss_db = 10;
			lc.line.echo_db = -200;
			lc.line.delay = 160;
			lc.line.ppm = 50;
			/* -24.5 dBm0 at the receiver (test_v34_train_ber's): 45 dB of SNR */
			lc.line.noise_dbm0 = -69.5;
			lc.line.seed = 300 + n;
			run_link(&lc, &r);
			printf("  %4d | %6u | %7lu %7lu | %lu %lu | %4.1f %4.1f dB | %u %u\n", baud[sr], rate, r.bits[0],
			       r.bits[1], r.errors[0], r.errors[1], r.wmse_mean[0], r.wmse_mean[1],
			       r.stats[0].level_steps, r.stats[1].level_steps);
			for (k = 0; k < 2; k++) {
				CHECK(r.st[k] == SMDSP_V34_T_DATA && r.rate[k] == rate, "%d baud %u: end %d state %d rate %u",
				      baud[sr], rate, k, r.st[k], r.rate[k]);
				CHECK(r.bits[k] > rate && !r.errors[k], "%d baud %u: end %d %lu errors in %lu bits", baud[sr],
				      rate, k, r.errors[k], r.bits[k]);
				/* 45 dB of line: the data's error near it, whatever the rate */
				CHECK(r.wmse_mean[k] > 38, "%d baud %u: end %d decoder's error %.1f dB", baud[sr], rate, k,
				      r.wmse_mean[k]);
				CHECK(!r.stats[k].level_steps, "%d baud %u: end %d %u level moves on a steady line",
				      baud[sr], rate, k, r.stats[k].level_steps);
			}
		}
	}
	CHECK(n == 65, "%u rates", n);
	return t_report("test_v34_every_rate");
}
