/*
 * User-space tests of the driver's pure logic: parameter rules and the
 * position arithmetic, compiled from the very sources the module uses.
 * Prints one line per failed check and a final "N passed, N failed".
 */
#include <errno.h>
#include <stdio.h>
#include "smodem_params.h"
#include "smodem_ring.h"

static int passed, failed;

#define CHECK(cond) do { \
	if (cond) { passed++; } else { failed++; \
		printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

static struct smodem_params defaults(void)
{
	struct smodem_params p = {
		.context = SMODEM_CTX_THR, .hw = SMODEM_HW_AC97, .rate = 8000,
		.ring = 512, .period = 100, .load_us = 0, .prio = 50,
		.res_runtime_us = 2000, .res_period_us = 8000,
	};
	return p;
}

static int check(struct smodem_params p, const char **why)
{
	*why = NULL;
	return smodem_params_check(&p, why);
}

static void test_params(void)
{
	struct smodem_params p;
	const char *why;
	enum smodem_context c;
	enum smodem_hw h;

	CHECK(check(defaults(), &why) == 0 && why == NULL);
	CHECK(smodem_parse_context("int", &c) == 0 && c == SMODEM_CTX_INT);
	CHECK(smodem_parse_context("res", &c) == 0 && c == SMODEM_CTX_RES);
	CHECK(smodem_parse_context("irq", &c) == -EINVAL);
	CHECK(smodem_parse_context("", &c) == -EINVAL);
	CHECK(smodem_parse_context(NULL, &c) == -EINVAL);
	CHECK(smodem_parse_hw("vline", &h) == 0 && h == SMODEM_HW_VLINE);
	CHECK(smodem_parse_hw("AC97", &h) == -EINVAL);

	p = defaults(); p.prio = 0;
	CHECK(check(p, &why) == -EINVAL && why);
	p = defaults(); p.prio = 100;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.prio = 99;
	CHECK(check(p, &why) == 0);
	/* prio only matters to thr */
	p = defaults(); p.prio = 0; p.context = SMODEM_CTX_DPC;
	CHECK(check(p, &why) == 0);

	p = defaults(); p.rate = 44100;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.rate = 7200;
	CHECK(check(p, &why) == 0);
	p = defaults(); p.rate = 16000;
	CHECK(check(p, &why) == 0);

	p = defaults(); p.period = 300;		/* more than half the ring */
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.period = 256;
	CHECK(check(p, &why) == 0);
	p = defaults(); p.period = 7;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.period = 90;		/* the study's: no divisor */
	CHECK(check(p, &why) == 0);
	p = defaults(); p.ring = 32;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.ring = 16384;
	CHECK(check(p, &why) == -EINVAL);

	p = defaults(); p.load_us = 100001;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.context = SMODEM_CTX_INT; p.load_us = 12500;
	CHECK(check(p, &why) == -EINVAL);	/* == the period */
	p = defaults(); p.context = SMODEM_CTX_INT; p.load_us = 3300;
	CHECK(check(p, &why) == 0);
	p = defaults(); p.context = SMODEM_CTX_THR; p.load_us = 20000;
	CHECK(check(p, &why) == 0);

	p = defaults(); p.context = SMODEM_CTX_RES;
	CHECK(check(p, &why) == 0);
	p.res_runtime_us = 9000;			/* runtime > period */
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_deadline_us = 9000;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_deadline_us = 1000;
	CHECK(check(p, &why) == -EINVAL);	/* runtime > deadline */
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_deadline_us = 4000;
	CHECK(check(p, &why) == 0);
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_runtime_us = 1;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.context = SMODEM_CTX_RES;
	p.res_runtime_us = 1000; p.res_period_us = 5000000;
	CHECK(check(p, &why) == -EINVAL);
	/* res attributes are ignored by the other contexts */
	p = defaults(); p.res_runtime_us = 9000;
	CHECK(check(p, &why) == 0);

	CHECK(smodem_period_ns(100, 8000) == 12500000);
	CHECK(smodem_period_ns(90, 7200) == 12500000);
	CHECK(smodem_period_ns(20, 8000) == 2500000);
	CHECK(smodem_period_ns(1, 9600) == 104167);
}

static void test_split(void)
{
	struct smodem_piece pc[2];
	u64 pos;
	unsigned int k;

	k = smodem_split_period(0, 100, 512, pc);
	CHECK(k == 1 && pc[0].off == 0 && pc[0].len == 100);
	k = smodem_split_period(500, 100, 512, pc);
	CHECK(k == 2 && pc[0].off == 500 && pc[0].len == 12 &&
	      pc[1].off == 0 && pc[1].len == 88);
	k = smodem_split_period(412, 100, 512, pc);
	CHECK(k == 1 && pc[0].off == 412 && pc[0].len == 100);
	k = smodem_split_period(512 * 1000 + 3, 100, 512, pc);
	CHECK(k == 1 && pc[0].off == 3);

	/* Periods tile the ring with no gap and no overlap, over many laps. */
	{
		int cover[512] = { 0 };
		int ok = 1, i;

		for (pos = 0; pos < 512 * 100; pos += 100) {
			k = smodem_split_period(pos, 100, 512, pc);
			for (i = 0; i < (int)k; i++) {
				u32 f;

				for (f = 0; f < pc[i].len; f++)
					cover[pc[i].off + f]++;
			}
		}
		for (i = 0; i < 512; i++)
			ok &= cover[i] == 100;
		CHECK(ok);
	}
}

static void test_step(void)
{
	struct smodem_step s;

	s = smodem_next_step(0, 0, 100, 512);
	CHECK(!s.process && !s.overrun);
	s = smodem_next_step(99, 0, 100, 512);
	CHECK(!s.process && !s.overrun);
	s = smodem_next_step(100, 0, 100, 512);
	CHECK(s.process && !s.overrun && s.new_sw == 0);
	s = smodem_next_step(511, 0, 100, 512);
	CHECK(s.process && !s.overrun);
	/* A whole ring pending is an overrun, not "nothing pending". */
	s = smodem_next_step(512, 0, 100, 512);
	CHECK(s.overrun && s.dropped == 500 && s.new_sw == 500);
	s = smodem_next_step(512 * 7 + 30, 200, 100, 512);
	CHECK(s.overrun && (s.new_sw - 200) % 100 == 0 &&
	      512 * 7 + 30 - s.new_sw < 100);
	/* After the resync the next step processes nothing torn. */
	s = smodem_next_step(512 * 7 + 30, s.new_sw, 100, 512);
	CHECK(!s.overrun && !s.process);
	/* A position behind the software one is no work and no overrun. */
	s = smodem_next_step(50, 100, 100, 512);
	CHECK(!s.overrun && !s.process);

	CHECK(smodem_tx_late(1000, 100, 900) == 0);
	CHECK(smodem_tx_late(1000, 100, 1000) == 0);
	CHECK(smodem_tx_late(1000, 100, 1040) == 40);
	CHECK(smodem_tx_late(1000, 100, 5000) == 100);
}

int main(void)
{
	test_params();
	test_split();
	test_step();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
