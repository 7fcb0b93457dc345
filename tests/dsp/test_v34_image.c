// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's far echo canceller on short lines, the far echo shifted up to
 * +-7 Hz (dsp/echo.c's phase loop inside v34_train's cancellers,
 * dsp/v34_train_rx.c two_wire): our two ends over tests/dsp/common/line.c as
 * test_v34_duplex runs them (2400 baud, 14,400 bit/s, 10 dB loss, -60 dBm0
 * noise, a G.168 hybrid at ERL 6-10 dB, the far echo 26-28 dB down through
 * another a round trip later), one-way delays of 12-50 ms, the far echo's
 * offset swept over -7..+7 Hz and the hybrids over m1-m8. Each line: both
 * ends in data at the rate without a bit error, each canceller's ERLE at
 * its training's end at least ERLE_MIN and the offset it found within
 * 0.5 Hz of the line's.
 *
 * The phase loop ran off to the image (-7 Hz found for +7, ERLE 18 dB, half
 * the bits wrong) where the far hybrid's band edges lag (G.168's m2, m3:
 * 26-41 samples of group delay at 600 and 3000 Hz against 7-8 at 1800):
 * the far FIR, adapting on whitened lines in TRAIN, learnt the band's edges
 * as fast as its middle and chased the echo's rotation there, against the
 * loop. V.34's cancellers now adapt their far FIR on the raw lines
 * (smdsp_echo_set_far_raw()). A second sweep runs those far hybrids behind
 * the near ones m1, m3, m5 at 12, 14 and 27 ms and +5..+7 Hz (54 lines): 16
 * of them still ran off, the loop's frequency pulled 2-4 Hz negative in
 * TRAIN's first quarter second, while the near echo was not yet cancelled,
 * and from there onto the image; dsp/echo.c now holds the loop's frequency
 * for those samples.
 * Options: --quick (a line in five: the UBSan builds);
 * --line=DELAY,HZ[,HYBRID[,SEED[,FAR_HYBRID]]] one line (checked).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_train.h>
#include "line.h"
#include "chan.h"
#include "v34link.h"
#include "check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ERLE_MIN 25

static bool quick;	/* --quick: a line in five (the UBSan builds) */

struct icase {
	int delay;		/* one way, samples */
	double hz;
	int hybrid;
	uint64_t seed;
	int far;		/* the far hybrid (0: the next model) */
};

static void line_of(const struct icase *c, struct link_cfg *lc)
{
	memset(lc, 0, sizeof(*lc));
	lc->symrate = SMDSP_V34_S2400;
	lc->high = false;
	lc->rate_ca = 14400;
	lc->rate_ac = 14400;
	lc->seconds = 6.0;
	lc->two_wire = true;
	lc->line.loss_db = 10;
	lc->line.noise_dbm0 = -60;
	lc->line.echo_db = -300;
	lc->line.delay = c->delay;
	lc->line.channel = CHAN_TELEPHONE;
	lc->line.seed = c->seed;
	lc->line.hybrid = c->hybrid;
	lc->line.hybrid_erl_db = 6 + 2 * (c->hybrid % 3);
	lc->line.far_echo_db = 26 + c->hybrid % 3;
	lc->line.far_hybrid = c->far ? c->far : 1 + c->hybrid % 8;
	lc->line.far_echo_hz = c->hz;
	lc->line.far_echo_delay = 2 * (c->delay + 16);
}

static int run_line(const struct icase *c)
{
	struct link_cfg lc;
	struct link_res r;
	int i, ok = 1;

	line_of(c, &lc);
	run_link(&lc, &r);
	printf("one way %3d ms, m%d/m%d, far %+.1f Hz: data %d/%d, ERLE %.1f / %.1f dB, found %+.2f / %+.2f Hz, "
	       "bits %lu / %lu, errors %lu / %lu\n", (c->delay + 16) / 8, c->hybrid, lc.line.far_hybrid, c->hz,
	       r.st[0] == SMDSP_V34_T_DATA, r.st[1] == SMDSP_V34_T_DATA, r.stats[0].erle_db10 / 10.0,
	       r.stats[1].erle_db10 / 10.0, r.stats[0].far_freq_mhz / 1000.0, r.stats[1].far_freq_mhz / 1000.0,
	       r.bits[0], r.bits[1], r.errors[0], r.errors[1]);
	fflush(stdout);
	CHECK(r.st[0] == SMDSP_V34_T_DATA && r.st[1] == SMDSP_V34_T_DATA, "%d, %+.1f Hz: states %d %d", c->delay,
	      c->hz, r.st[0], r.st[1]);
	CHECK(r.bits[0] > 2 * 14400 && r.bits[1] > 2 * 14400 && !r.errors[0] && !r.errors[1],
	      "%d, %+.1f Hz: bits %lu/%lu, errors %lu/%lu", c->delay, c->hz, r.bits[0], r.bits[1], r.errors[0],
	      r.errors[1]);
	for (i = 0; i < 2; i++) {
		ok &= r.stats[i].erle_db10 >= 10 * ERLE_MIN &&
		      abs(r.stats[i].far_freq_mhz - (int)(c->hz * 1000)) < 500;
		CHECK(r.stats[i].erle_db10 >= 10 * ERLE_MIN, "%d, %+.1f Hz: %c's ERLE %.1f dB", c->delay, c->hz,
		      "AB"[i], r.stats[i].erle_db10 / 10.0);
		CHECK(abs(r.stats[i].far_freq_mhz - (int)(c->hz * 1000)) < 500, "%d, %+.1f Hz: %c's far echo at %d mHz",
		      c->delay, c->hz, "AB"[i], r.stats[i].far_freq_mhz);
	}
	return ok;
}

int main(int argc, char **argv)
{
	static const int delays[] = { 80, 100, 200, 384 };
	static const double hz[] = { -7, -3, 0, 3, 5, 6, 7 };
	static const int family_delays[] = { 80, 100, 200 };
	unsigned int i, j;

	for (i = 1; i < (unsigned int)argc; i++) {
		struct icase c = { .hybrid = 1, .seed = 21, .far = 0 };

		if (!strcmp(argv[i], "--quick")) {
			quick = true;
			continue;
		}
		if (!strncmp(argv[i], "--line=", 7) &&
		    sscanf(argv[i] + 7, "%d,%lf,%d,%lu,%d", &c.delay, &c.hz, &c.hybrid, &c.seed, &c.far) >= 2 &&
		    c.delay >= 0 && c.hybrid >= 1 && c.hybrid <= 8 && c.far >= 0 && c.far <= 8) {
			run_line(&c);
			return t_report("test_v34_image --line");
		}
		fprintf(stderr, "usage: %s [--quick | --line=DELAY,HZ[,HYBRID[,SEED[,FAR_HYBRID]]]]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(delays); i++)
		for (j = 0; j < ARRAY_SIZE(hz); j++) {
			struct icase c = { delays[i], hz[j], 1 + (int)((i + j) % 8), 21 + i * 7 + j, 0 };

			if (quick && (i * 7 + j) % 5)
				continue;
			run_line(&c);
		}
	/* the far hybrids whose band edges lag */
	for (i = 0; i < ARRAY_SIZE(family_delays); i++)
		for (j = 0; j < 3; j++) {
			unsigned int k, f;

			for (k = 0; k < 3; k++)
				for (f = 2; f <= 3; f++) {
					struct icase c = { family_delays[i], 5 + (int)j, 1 + 2 * (int)k, 21, (int)f };

					if (quick && (i + j + k + f) % 6)
						continue;
					run_line(&c);
				}
		}
	return t_report("test_v34_image");
}
