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
	struct qamrun_res r;
	long want = (long)(c->rate * (c->seconds - 1.6) * 0.9);
	int rx;

	qam_run(29, c, &r);
	printf("%-4d %-8s %-26s rx level %6.1f dBm0  ours: %s %6ld bits %ld err  SpanDSP: %s %6ld bits %ld err\n",
	       c->rate, c->ours_tx ? "ours tx" : "sp tx", what, r.rx_level_dbm0,
	       r.trained[0] ? "trained" : "NOT trained", r.bits[0], r.errors[0],
	       r.trained[1] ? "trained" : "NOT trained", r.bits[1], r.errors[1]);
	for (rx = 0; rx < 2; rx++) {
		CHECK(r.trained[rx], "%d %s %s: %s receiver did not train", c->rate,
		      c->ours_tx ? "ours" : "SpanDSP", what, rx ? "SpanDSP's" : "our");
		CHECK(r.bits[rx] >= want && r.errors[rx] == 0, "%d %s tx %s: %s receiver %ld bits (want %ld), %ld errors",
		      c->rate, c->ours_tx ? "ours" : "SpanDSP", what, rx ? "SpanDSP's" : "our", r.bits[rx],
		      want, r.errors[rx]);
	}
}

/*
 * Fax sends a training before every message (TCF, each page): three
 * transmissions of 3 s, 200 ms apart. Each must bring CARRIER_DOWN and a new
 * training at our receiver, and every one's PRBS must arrive intact at both.
 */
static void bursts(struct qamrun_cfg *c)
{
	struct qamrun_res r;
	int rx;

	c->bursts = 3;
	c->seconds = 9;
	qam_run(29, c, &r);
	printf("%-4d %-8s %-26s ours: %d trainings, %d carrier losses, %6ld bits %ld err  SpanDSP: %d trainings, %6ld bits %ld err\n",
	       c->rate, c->ours_tx ? "ours tx" : "sp tx", "3 transmissions", r.trained[0], r.carrier_downs,
	       r.bits[0], r.errors[0], r.trained[1], r.bits[1], r.errors[1]);
	CHECK(r.trained[0] == 3 && r.carrier_downs == 2, "%d bursts: ours trained %d times, %d carrier losses",
	      c->rate, r.trained[0], r.carrier_downs);
	for (rx = 0; rx < 2; rx++)
		CHECK(r.trained[rx] == 3 && r.bits[rx] >= (long)(c->rate * 4.0) && r.errors[rx] == 0,
		      "%d %s tx, 3 transmissions: %s receiver %d trainings, %ld bits, %ld errors", c->rate,
		      c->ours_tx ? "ours" : "SpanDSP", rx ? "SpanDSP's" : "our", r.trained[rx], r.bits[rx],
		      r.errors[rx]);
	c->bursts = 0;
	c->seconds = 6;
}

int main(void)
{
	static const int rates[] = { 9600, 7200, 4800 };
	int i, t;

	for (i = 0; i < 3; i++) {
		for (t = 1; t >= 0; t--) {
			struct qamrun_cfg c = { .rate = rates[i], .ours_tx = t, .seconds = 6, .seed = 11 };

			one("clean", &c);
			c.tep = 1;
			one("clean, echo protection", &c);
			c.tep = 0;
			c.ppm = 100;
			one("+100 ppm", &c);
			c.ppm = -100;
			one("-100 ppm", &c);
			c.ppm = 0;
			c.loss_db = 10;
			one("10 dB loss (-24 dBm0)", &c);
			c.loss_db = 26;
			one("26 dB loss (-40 dBm0)", &c);
			c.loss_db = 0;
			c.level_dbm0 = -6;
			one("sent at -6 dBm0", &c);
			c.level_dbm0 = 0;
			c.echo_db = -20;
			c.echo_delay = 12;
			one("echo -20 dB, 1.5 ms", &c);
			c.echo_db = 0;
			bursts(&c);
		}
	}
	return t_report("test_v29");
}
