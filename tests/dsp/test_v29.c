/*
 * V.29 at 9600, 7200 and 4800 bit/s against SpanDSP, both directions: our
 * transmitter into SpanDSP's receiver and ours, SpanDSP's transmitter
 * (training included) into both, on the very same samples; with and without
 * the echo protection tone; +-100 ppm of clock; levels from -6 to -40 dBm0;
 * an echo on the line (a copy 20 dB down, 1.5 ms late). Every run carries
 * a 2^23-1 PRBS; the receivers must train and deliver it intact.
 */
#include <stdio.h>
#include <string.h>
#include "qamep.h"
#include "tutil.h"

static void one(const char *what, struct qamrun_cfg *c)
{
	qam_check(29, what, c, 0, 0);
}

/*
 * Fax sends a training before every message (TCF, each page): three
 * transmissions of 3 s, 200 ms apart. Each must bring CARRIER_DOWN and a new
 * training at our receiver, and every one's PRBS must arrive intact at both.
 * (The training's timing integrator, carried into the data scaled up, set
 * the timing off for a thousand symbols: line errors at 9600 in the third
 * transmission, and a lost training at 4800 with 10 ppm of clock offset.)
 */
static void bursts(struct qamrun_cfg *c)
{
	qam_check_bursts(29, "3 transmissions", c, 9, 0);
}

int main(void)
{
	static const int rates[] = { 9600, 7200, 4800 };
	int i, t;

	for (i = 0; i < 3; i++) {
		for (t = 1; t >= 0; t--) {
			struct qamrun_cfg c = { .rate = rates[i], .ours_tx = t, .seconds = 6, .seed = 11 };

			one("clean", &c);
			qam_check_line(29, &c, 0, 0, 1);
			bursts(&c);
			if (!t) {
				/* a re-training's timing pull-in with a clock offset (see bursts()) */
				c.ppm = -10;
				qam_check_bursts(29, "3 transmissions, -10 ppm", &c, 9, 1);
				c.ppm = 10;
				qam_check_bursts(29, "3 transmissions, +10 ppm", &c, 9, 1);
				c.ppm = 0;
			}
		}
	}
	return t_report("test_v29");
}
