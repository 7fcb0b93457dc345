/*
 * V.27ter at 4800 and 2400 bit/s against SpanDSP, both directions: our
 * transmitter into SpanDSP's receiver and ours, SpanDSP's transmitter
 * (training included) into both, on the very same samples; with and without
 * the echo protection tone; +-100 ppm of clock; levels from -14 to -40 dBm0.
 * Every run carries a 2^23-1 PRBS; the receivers must train and deliver it
 * intact (SpanDSP's under a clock offset only train, see below).
 */
#include <stdio.h>
#include <string.h>
#include "qamep.h"
#include "tutil.h"

/*
 * SpanDSP's receiver trains under +-100 ppm but then loses bits (about 1 in
 * 10 at 4800, 1 in 40 at 2400) whichever transmitter sends: only ours is
 * held to an intact stream there.
 */
static void one(const char *what, struct qamrun_cfg *c)
{
	qam_check(27, what, c, 0, 1);
}

/*
 * Fax sends a training before every message (TCF, each page): three
 * transmissions of 3 s, 200 ms apart. Each must bring CARRIER_DOWN and a new
 * training at our receiver, and every one's PRBS must arrive intact at both.
 */
static void bursts(struct qamrun_cfg *c)
{
	qam_check_bursts(27, "3 transmissions", c, 9, 0);
}

int main(void)
{
	static const int rates[] = { 4800, 2400 };
	int i, t;

	for (i = 0; i < 2; i++) {
		for (t = 1; t >= 0; t--) {
			struct qamrun_cfg c = { .rate = rates[i], .ours_tx = t, .seconds = 6, .seed = 11 };

			one("clean", &c);
			qam_check_line(27, &c, 0, 1, 0);
			bursts(&c);
		}
	}
	return t_report("test_v27ter");
}
