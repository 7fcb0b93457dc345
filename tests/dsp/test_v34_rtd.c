// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's round-trip delay from tones A/B and their reversals
 * (dsp/v34_rtd.c): our call modem and our answer modem over the line model
 * with one-way delays from 0 to 600 ms (round trips to 1.2 s), with loss,
 * noise, each end's own signal echoed back and clock offsets; both ends'
 * measurements against the line's true round trip (twice its delay plus the
 * 16 samples it always holds and the 160-sample block each end's input
 * waits in here), within 1 ms (V.34 allows the far end 1 ms
 * on its 40 ms). Also: a far end that never answers (failed after 3 s), and
 * the calls a caller or a finished exchange must refuse.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_rtd.h>
#include "line.h"
#include "tutil.h"

struct res {
	int32_t call, answer;
	enum smdsp_v34_rtd_state cs, as;
	long ms;		/* line time until both were done */
};

static struct res exchange(const struct line_cfg *cfg, long start_ms, bool answer_far_end)
{
	struct line *l = line_create(cfg);
	struct smdsp_v34_rtd *c = smdsp_v34_rtd_create(true, -120);
	struct smdsp_v34_rtd *a = smdsp_v34_rtd_create(false, -130);
	int16_t c_tx[160], a_tx[160], c_rx[160] = { 0 }, a_rx[160] = { 0 };
	struct res r = { -1, -1, 0, 0, -1 };
	long t;
	bool started = false;

	for (t = 0; t < 8000L * 8; t += 160) {
		smdsp_v34_rtd_process(c, c_rx, c_tx, 160);
		smdsp_v34_rtd_process(a, a_rx, a_tx, 160);
		if (!answer_far_end)
			memset(c_tx, 0, sizeof(c_tx));
		line_process(l, c_tx, c_rx, a_tx, a_rx, 160);
		/* the answer modem reverses once it hears B (it would wait for INFO0c) */
		if (!started && t >= start_ms * 8 && (smdsp_v34_rtd_far_tone(a) || !answer_far_end)) {
			CHECK(smdsp_v34_rtd_start(a) == 0);
			started = true;
		}
		if (smdsp_v34_rtd_state(c) >= SMDSP_V34_RTD_DONE && smdsp_v34_rtd_state(a) >= SMDSP_V34_RTD_DONE) {
			r.ms = t / 8;
			break;
		}
	}
	r.call = smdsp_v34_rtd_samples(c);
	r.answer = smdsp_v34_rtd_samples(a);
	r.cs = smdsp_v34_rtd_state(c);
	r.as = smdsp_v34_rtd_state(a);
	smdsp_v34_rtd_free(c);
	smdsp_v34_rtd_free(a);
	line_free(l);
	return r;
}

static void test_delays(void)
{
	static const int delay_ms[] = { 0, 1, 5, 20, 50, 150, 300, 450, 600 };
	double worst = 0;
	unsigned int i;

	for (i = 0; i < sizeof(delay_ms) / sizeof(delay_ms[0]); i++) {
		int k;

		for (k = 0; k < 3; k++) {
			/* clean; loss, noise and echo; and a clock offset on top */
			struct line_cfg cfg = { .loss_db = k ? 12 : 0, .noise_dbm0 = k ? -50 : -999,
						.echo_db = k ? -8 : -999, .echo_delay = 40,
						.delay = delay_ms[i] * 8 + 3 * k, .ppm = k == 2 ? (i & 1 ? 100 : -100) : 0,
						.seed = 11 + i };
			struct res r = exchange(&cfg, 100, true);
			/* the line's delay and margin, and the block each end hears a block late in */
			int32_t want = 2 * (cfg.delay + 16 + 160);
			double ec = r.call - want, ea = r.answer - want;

			/* the clock offset stretches what B measures by its ppm */
			if (k == 2) {
				ea -= want * cfg.ppm * 1e-6;
				ec = r.call - want;
			}
			CHECK(r.cs == SMDSP_V34_RTD_DONE && r.as == SMDSP_V34_RTD_DONE, "delay %d ms case %d: states %d %d",
			      delay_ms[i], k, r.cs, r.as);
			CHECK(fabs(ec) <= 8 && fabs(ea) <= 8, "delay %d ms case %d: round trip %d (call) %d (answer), %d expected",
			      delay_ms[i], k, r.call, r.answer, want);
			worst = fmax(worst, fmax(fabs(ec), fabs(ea)));
			if (!k || k == 2)
				printf("one way %3d ms%s: round trip %5d samples, call modem %+3.0f, answer modem %+3.0f (done at %ld ms)\n",
				       delay_ms[i], k == 2 ? " +impairments" : "", want, ec, ea, r.ms);
		}
	}
	printf("worst error %.0f samples (%.2f ms)\n", worst, worst / 8);
}

static void test_misuse(void)
{
	struct line_cfg cfg = { .noise_dbm0 = -999, .echo_db = -999, .delay = 80 };
	struct smdsp_v34_rtd *c = smdsp_v34_rtd_create(true, -120);
	struct smdsp_v34_rtd *a = smdsp_v34_rtd_create(false, -120);
	struct res r;
	char buf[80];

	/* a far end that never reverses (its tone comes, its answer never does) */
	r = exchange(&cfg, 100, false);
	CHECK(r.as == SMDSP_V34_RTD_FAILED && r.answer == -1, "state %d", r.as);
	CHECK(smdsp_v34_rtd_start(c) == -EINVAL, "the call modem does not start");
	CHECK(smdsp_v34_rtd_start(a) == 0 && smdsp_v34_rtd_start(a) == -EINVAL, "once");
	CHECK(smdsp_v34_rtd_samples(a) == -1 && smdsp_v34_rtd_state(a) == SMDSP_V34_RTD_TONE);
	CHECK(smdsp_v34_rtd_print(c, buf, sizeof(buf)) > 0 && !strncmp(buf, "v34_rtd call tone", 17), "%s", buf);
	smdsp_v34_rtd_reset(a);
	CHECK(smdsp_v34_rtd_start(a) == 0);
	smdsp_v34_rtd_free(c);
	smdsp_v34_rtd_free(a);
	smdsp_v34_rtd_free(NULL);
}

int main(void)
{
	test_delays();
	test_misuse();
	return t_report("test_v34_rtd");
}
