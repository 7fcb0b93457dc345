/*
 * User-space tests of the driver's pure logic: parameter rules, the
 * position arithmetic, the output lead and its gap fill, and what the
 * call control makes of the AT settings, compiled from the very sources the
 * module uses.
 * Prints one line per failed check and a final "N passed, N failed".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "smodem_params.h"
#include "smodem_ring.h"
#include "smodem_call.h"
#include "smodem_usr.h"
#include "smodem_modem.h"

static struct smodem_params defaults(void)
{
	struct smodem_params p = {
		.context = SMODEM_CTX_THR, .hw = SMODEM_HW_AC97, .rate = 8000,
		.ring = 512, .period = 100, .load_us = 0, .prio = 50,
		.res_runtime_us = 2000, .res_period_us = 8000, .devices = 1,
		.res_gain_pm = 500,
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
	/* nice: the fair class's whole range, and only for oth */
	CHECK(smodem_parse_context("oth", &c) == 0 && c == SMODEM_CTX_OTH);
	p = defaults(); p.context = SMODEM_CTX_OTH; p.nice = 19;
	CHECK(check(p, &why) == 0);
	p.nice = -20;
	CHECK(check(p, &why) == 0);
	p.nice = 20;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "nice"));
	p.nice = -21;
	CHECK(check(p, &why) == -EINVAL);
	p = defaults(); p.nice = 40;
	CHECK(check(p, &why) == 0);
	/* irqt threads an interrupt line: the AC'97's, not the hrtimer's */
	CHECK(smodem_parse_context("irqt", &c) == 0 && c == SMODEM_CTX_IRQT);
	p = defaults(); p.context = SMODEM_CTX_IRQT;
	CHECK(check(p, &why) == 0);
	p.hw = SMODEM_HW_VLINE;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "hw=ac97"));
	/* bhw: only where the headers have system_bh_wq (Kbuild's probe) */
	CHECK(smodem_parse_context("bhw", &c) == 0 && c == SMODEM_CTX_BHW);
	p = defaults(); p.context = SMODEM_CTX_BHW; p.hw = SMODEM_HW_VLINE;
#ifdef SMODEM_HAVE_BH_WQ
	CHECK(check(p, &why) == 0);
#else
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "6.9"));
#endif

	/* devices=N: vline only, 1..8; vline_pairs=1 wants an even count */
	p = defaults(); p.hw = SMODEM_HW_VLINE; p.devices = 8;
	CHECK(check(p, &why) == 0);
	p.devices = 0;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "1..8"));
	p.devices = 9;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "1..8"));
	p = defaults(); p.devices = 2;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "hw=vline"));
	p = defaults(); p.hw = SMODEM_HW_VLINE; p.devices = 2; p.vline_pairs = 1;
	CHECK(check(p, &why) == 0);
	p.devices = 3;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "even"));
	p.devices = 2; p.vline_pairs = 2;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "0 or 1"));
	p = defaults(); p.vline_pairs = 1;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "hw=vline"));

	/* cpus=: one entry per device at most, -1 or a CPU; never res */
	p = defaults(); p.hw = SMODEM_HW_VLINE; p.devices = 2;
	p.ncpus = 2; p.cpus[0] = 0; p.cpus[1] = 1;
	CHECK(check(p, &why) == 0);
	p.cpus[1] = -1;
	CHECK(check(p, &why) == 0);
	p.cpus[1] = -2;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "-1 for any"));
	p.cpus[1] = 1; p.ncpus = 3; p.cpus[2] = 0;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "more CPUs"));
	p.ncpus = 2; p.context = SMODEM_CTX_RES;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "context=res"));
	p.cpus[0] = -1; p.cpus[1] = -1;
	CHECK(check(p, &why) == 0);
	/* hw=ac97 binds every controller: up to 8 entries, by controller */
	p = defaults(); p.ncpus = 3; p.cpus[2] = 1;
	CHECK(check(p, &why) == 0);
	p.ncpus = 9;
	CHECK(check(p, &why) == -EINVAL && why && strstr(why, "more CPUs"));

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
	/* augmented reservations: mode, gain in (0, 1], ceiling within runtime..deadline */
	{
		enum smodem_res_mode m;

		CHECK(smodem_parse_res_mode("feedback", &m) == 0 && m == SMODEM_RES_FEEDBACK);
		CHECK(smodem_parse_res_mode("reclaim", &m) == 0 && m == SMODEM_RES_RECLAIM);
		CHECK(smodem_parse_res_mode("plain", &m) == 0 && m == SMODEM_RES_PLAIN);
		CHECK(smodem_parse_res_mode("catchup", &m) == 0 && m == SMODEM_RES_CATCHUP);
		CHECK(smodem_parse_res_mode("catchup2", &m) == -EINVAL);
	}
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_mode = SMODEM_RES_FEEDBACK;
	CHECK(check(p, &why) == 0);
	CHECK(smodem_res_ceiling_us(&p) == 4000);	/* twice the runtime */
	p.res_runtime_us = 5000;
	CHECK(smodem_res_ceiling_us(&p) == 8000);	/* within the deadline */
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_gain_pm = 0;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "res_gain_pm"));
	p.res_gain_pm = 1001;
	CHECK(check(p, &why) == -EINVAL);
	p.res_gain_pm = 1000;
	CHECK(check(p, &why) == 0);
	p = defaults(); p.context = SMODEM_CTX_RES; p.res_ceiling_us = 1999;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "below res_runtime_us"));
	p.res_ceiling_us = 8001;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "res_ceiling_us"));
	p.res_ceiling_us = 6000;
	CHECK(check(p, &why) == 0 && smodem_res_ceiling_us(&p) == 6000);
	p = defaults(); p.res_mode = SMODEM_RES_RECLAIM;	/* thr */
	CHECK(check(p, &why) == -EINVAL && strstr(why, "needs context=res"));
	p = defaults(); p.stolen = true;
	CHECK(check(p, &why) == 0);
	p.context = SMODEM_CTX_DPC;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "stolen=1"));

	/* engine and phase_periods: switches, call control at 8000 Hz only */
	p = defaults(); p.engine = 1; p.phase_periods = 1;
	CHECK(check(p, &why) == 0);
	p.engine = 2;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "engine"));
	p = defaults(); p.phase_periods = 2;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "phase_periods"));
	p = defaults(); p.engine = 1; p.rate = 9600;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "rate=8000"));
	p.engine = 0;
	CHECK(check(p, &why) == 0);
	p = defaults(); p.phase_periods = 1;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "needs engine=1"));
	/* two 12.5 ms periods: 200 frames; 128 holds only 2.5 ms ones */
	p = defaults(); p.engine = 1; p.phase_periods = 1; p.ring = 200;
	CHECK(check(p, &why) == 0);
	p.ring = 199; p.period = 50;
	CHECK(check(p, &why) == -EINVAL && strstr(why, "ring_samples >= 200"));

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

static void test_lead(void)
{
	struct smodem_tx_gap g;

	/* Enough already: it stays. */
	CHECK(smodem_tx_lead(150, 0, 0, 100, 512) == 150);
	CHECK(smodem_tx_lead(200, 50, 0, 100, 512) == 200);
	/* A skew and a period and a half. */
	CHECK(smodem_tx_lead(150, 51, 0, 100, 512) == 201);
	CHECK(smodem_tx_lead(150, 90, 0, 90, 512) == 225);
	/* Never shrinks, never past ring - n. */
	CHECK(smodem_tx_lead(300, 10, 0, 100, 512) == 300);
	CHECK(smodem_tx_lead(150, 400, 0, 100, 512) == 412);
	CHECK(smodem_tx_lead(150, 1ULL << 40, 0, 100, 512) == 412);
	/* A lead made for shorter periods is kept as it is. */
	CHECK(smodem_tx_lead(480, 1000, 0, 100, 512) == 480);
	/* A response up to a quarter period: the half period covers it. */
	CHECK(smodem_tx_lead(150, 0, 25, 100, 512) == 150);
	/* A later one: it and a quarter period more (7.3 ms at 8 kHz). */
	CHECK(smodem_tx_lead(150, 0, 58, 100, 512) == 183);
	CHECK(smodem_tx_lead(150, 20, 100, 100, 512) == 245);

	g = smodem_tx_grow(1000, 100, 150, 0, 0, 0, 512);
	CHECK(g.lead == 150 && g.len == 0 && g.late == 0);
	/* The gap is the end of the last period to this period's start. */
	g = smodem_tx_grow(1000, 100, 150, 100, 0, 1100, 512);
	CHECK(g.lead == 250 && g.start == 1150 && g.len == 100 && g.late == 0);
	/* What the output already played of it is lost, not filled. */
	g = smodem_tx_grow(1000, 100, 150, 100, 0, 1180, 512);
	CHECK(g.lead == 250 && g.late == 30 && g.start == 1180 && g.len == 70);
	g = smodem_tx_grow(1000, 100, 150, 100, 0, 99999, 512);
	CHECK(g.late == 100 && g.len == 0);
}

/*
 * The output as the line hears it while the skew grows in steps: every
 * frame comes from one transmitter counting up, so a seamless signal is
 * one where each frame is its predecessor plus one.  The only frames never
 * written are those the output engine took before they could be.
 */
#define SIM_PERIODS	2000
#define SIM_N		100
#define SIM_RING	8192
#define SIM_LEN		(SIM_PERIODS * SIM_N + SIM_RING)

static long line[SIM_LEN];

struct sim {
	unsigned int growths, late, holes, seams;
};

static struct sim simulate(bool fill, u64 seed)
{
	struct sim r = { 0 };
	u64 skew = 0, skew_max = 0, tx_hw_last = 0, rng = seed | 1;
	long t = 0;
	u32 lead = SIM_N + SIM_N / 2, i, f;
	u64 first = 0, last = 0;

	for (i = 0; i < SIM_LEN; i++)
		line[i] = -1;
	for (i = 0; i < SIM_PERIODS; i++) {
		u64 pos = (u64)i * SIM_N, tx_hw, start;
		struct smodem_tx_gap g;
		u32 late;

		/* before the pump: the latest skew seen */
		g = smodem_tx_grow(pos, SIM_N, lead, skew_max, 0, tx_hw_last,
				   SIM_RING);
		if (g.lead != lead) {
			r.growths++;
			r.late += g.late;
			for (f = 0; f < g.len && fill; f++)
				line[g.start + f] = t++;
			lead = g.lead;
		}
		/* the output engine moves on meanwhile, now and then a lot */
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		if (rng % 50 == 0 && skew < 3000)
			skew += rng % 400;
		tx_hw = pos + SIM_N + skew;
		start = pos + lead;
		late = smodem_tx_late(start, SIM_N, tx_hw);
		r.late += late;
		for (f = late; f < SIM_N; f++)
			line[start + f] = t + f;
		t += SIM_N;
		if (!first)
			first = start + late;
		last = start + SIM_N;
		if (skew > skew_max)
			skew_max = skew;
		tx_hw_last = tx_hw;
	}
	for (i = first; i < last; i++) {
		if (line[i] < 0)
			r.holes++;
		else if (i > first && line[i - 1] >= 0 && line[i] != line[i - 1] + 1)
			r.seams++;
	}
	return r;
}

static void test_gap_fill(void)
{
	u64 seeds[] = { 1, 42, 0xdeadbeef, 777 };
	unsigned int i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct sim with = simulate(true, seeds[i]);
		struct sim without = simulate(false, seeds[i]);

		printf("gap fill, seed %llu: %u growths, %u frames late, "
		       "%u holes, %u seams; unfilled: %u holes, %u seams\n",
		       (unsigned long long)seeds[i], with.growths, with.late,
		       with.holes, with.seams, without.holes, without.seams);
		/* The run grows the lead, also by more than a period. */
		CHECK(with.growths >= 5);
		/* Filled: no seam, and a hole only where the output was first. */
		CHECK(with.seams == 0);
		CHECK(with.holes == with.late);
		/* Not filled: the growths leave holes and the test sees them. */
		CHECK(without.holes > with.holes);
	}
}

/*
 * The lead on hook and in a call (smodem_tx_decide()): fitted to the skew
 * seen, up or down, while nothing is sent; only grown once a call runs.
 */
static struct smodem_tx_seen seen(u64 skew, u64 delay, u64 late,
				   u64 late_hook)
{
	struct smodem_tx_seen s = { .skew = skew, .delay = delay, .late = late,
				    .late_hook = late_hook };

	return s;
}

/* late seen in calls only */
static u32 fit(u64 skew, u64 delay, u64 late, u32 n, u32 ring)
{
	return smodem_tx_fit(skew, delay, late, delay, n, ring);
}

static void test_lead_fit(void)
{
	struct smodem_tx_seen v = seen(1015, 0, 0, 0);
	struct smodem_tx_gap g;

	/* the need and a quarter of the skew: 1015 + 100 + 50 + 253 */
	CHECK(fit(1015, 0, 0, 100, 8192) == 1418);
	/* the vline: no skew, no margin, the period and a half */
	CHECK(fit(0, 0, 0, 100, 512) == 150);
	/* a late response: it and a quarter period */
	CHECK(fit(0, 80, 80, 100, 8192) == 205);
	/* never past ring - n */
	CHECK(fit(8000, 0, 0, 100, 8192) == 8092);
	CHECK(fit(1ULL << 40, 0, 0, 100, 8192) == 8092);
	/* a response within the period: fitted as it is */
	CHECK(fit(683, 100, 100, 100, 8192) == 1078);
	/* also one the 2.5 ms periods on hook took for late (phase_periods) */
	CHECK(fit(0, 20, 60, 100, 8192) == 185);
	/* a call's backlog (V.34's training: 140) is served, up to a quarter ring */
	CHECK(fit(1015, 92, 140, 100, 8192) == 1533);
	CHECK(fit(683, 100, 6000, 100, 8192) == 683 + 100 + 2048 + 25 + 170);
	/*
	 * One on hook, however short, is the host's (JACK's, loaded): a
	 * quarter ring at least, the safe lead of old
	 */
	CHECK(smodem_tx_fit(683, 100, 169, 169, 100, 8192) == 2048);
	CHECK(smodem_tx_fit(683, 100, 101, 101, 100, 8192) == 2048);
	CHECK(smodem_tx_fit(683, 100, 101, 100, 100, 8192) == 1078 + 1);
	/* never below what the skew and the period's own delays need */
	CHECK(smodem_tx_fit(1015, 0, 0, 6000, 100, 2048) == 1418);
	CHECK(smodem_tx_fit(4000, 0, 101, 101, 100, 8192) == 5150);
	/*
	 * nor raised by the stalls themselves: a starved reservation's
	 * backlogs (test_virtual_time's, 2000 frames) keep the quarter ring,
	 * as one seen only in a call is served
	 */
	CHECK(smodem_tx_fit(1015, 16, 2000, 2000, 100, 8192) == 2048);
	CHECK(smodem_tx_fit(1015, 16, 2000, 16, 100, 8192) ==
	      1015 + 100 + 2025 + 253);
	CHECK(smodem_tx_fit(1015, 100, 8000, 8000, 100, 8192) == 2048);
	CHECK(smodem_tx_fit(300, 50, 900, 900, 100, 512) == 412);

	/* on hook a lead too long (the quarter ring of old) comes down: no gap */
	g = smodem_tx_decide(5000, 100, 2048, true, 100, &v, 6000, 8192);
	CHECK(g.lead == 1418 && g.len == 0 && g.late == 0);
	/* and one too short goes up, its frames filled as in a call */
	g = smodem_tx_decide(5000, 100, 150, true, 100, &v, 5100, 8192);
	CHECK(g.lead == 1418 && g.start == 5150 && g.len == 1268 && !g.late);
	/* in a call the same lead too long stays, a short one grows no margin */
	g = smodem_tx_decide(5000, 100, 2048, false, 100, &v, 6000, 8192);
	CHECK(g.lead == 2048 && g.len == 0);
	g = smodem_tx_decide(5000, 100, 150, false, 100, &v, 5100, 8192);
	CHECK(g.lead == 1165 && g.len == 1015 && !g.late);
	/* nor for a backlog, which it cannot serve for good */
	v = seen(1015, 0, 3000, 3000);
	g = smodem_tx_decide(5000, 100, 1418, false, 100, &v, 5100, 8192);
	CHECK(g.lead == 1418 && g.len == 0);
	v = seen(1015, 0, 0, 0);
	/* on hook with 2.5 ms periods (phase_periods): fitted for the call's */
	g = smodem_tx_decide(5000, 20, 150, true, 100, &v, 6000, 8192);
	CHECK(g.lead == 1418);
	g = smodem_tx_decide(5000, 100, 1418, false, 100, &v, 6000, 8192);
	CHECK(g.lead == 1418 && g.len == 0);
	/* a period longer than the call's (a daemon's choice) counts as it is */
	g = smodem_tx_decide(5000, 400, 150, true, 100, &v, 6000, 8192);
	CHECK(g.lead == fit(1015, 0, 0, 400, 8192) && g.lead == 1868);

	/* what holds the line: the data engine, the fax pump, or neither */
	CHECK(smodem_hook_after(0, SMDSP_PHASE_ONHOOK) == 0);
	CHECK(smodem_hook_after(0, SMDSP_PHASE_OFFHOOK) == SMODEM_HOOK_DATA);
	CHECK(smodem_hook_after(0, SMDSP_PHASE_ANSWER_TONE) == SMODEM_HOOK_DATA);
	CHECK(smodem_hook_after(SMODEM_HOOK_DATA, SMDSP_PHASE_CONNECTED) ==
	      SMODEM_HOOK_DATA);
	CHECK(smodem_hook_after(SMODEM_HOOK_DATA, SMDSP_PHASE_HUNGUP) == 0);
	/* Class 1 takes over: the data engine's hang-up leaves the fax's */
	CHECK(smodem_hook_after(SMODEM_HOOK_DATA, SMODEM_PHASE_FAX_IDLE) ==
	      (SMODEM_HOOK_DATA | SMODEM_HOOK_FAX));
	CHECK(smodem_hook_after(SMODEM_HOOK_DATA | SMODEM_HOOK_FAX,
				SMDSP_PHASE_ONHOOK) == SMODEM_HOOK_FAX);
	CHECK(smodem_hook_after(SMODEM_HOOK_FAX, SMODEM_PHASE_FAX_TX_DATA) ==
	      SMODEM_HOOK_FAX);
	CHECK(smodem_hook_after(SMODEM_HOOK_FAX, SMODEM_PHASE_FAX_ON_HOOK) == 0);
}

/*
 * A device's life as the core runs it: the skew shows on hook, a call
 * starts (the command taken in a period whose lead was decided on hook,
 * its first phase reported in that period), the skew moves in the call,
 * the call ends, another starts.  Each period's output is one transmitter
 * counting up: the call's signal must have no seam and no hole, its lead
 * must be the one the engine was told unless the skew outgrew the margin,
 * and the lead only grows in the call.
 */
struct life {
	u32 hook, lead, call_lead, growths_in_call, seams, holes, late;
	struct smodem_tx_seen seen;
};

#define LIFE_N		100
#define LIFE_RING	8192
#define LIFE_PERIODS	1200
#define LIFE_LEN	(LIFE_PERIODS * LIFE_N + LIFE_RING)

static long tx_line[LIFE_LEN];

/*
 * skew(i): the output engine's lead over the input in period i; delay(i):
 * how far the input engine is past the period's end when its output is
 * placed; a call from period call_at to call_end (its first phase
 * reported in call_at); returns what the in-call signal looked like.
 */
static struct life live(u64 (*skew)(u32 i), u64 (*delay)(u32 i), u32 call_at,
			u32 call_end, u32 lead0)
{
	struct life r = { .lead = lead0 };
	u64 tx_hw_last = 0, first = 0, last = 0;
	long t = 0;
	u32 i, f;

	for (i = 0; i < LIFE_LEN; i++)
		tx_line[i] = -1;
	for (i = 0; i < LIFE_PERIODS; i++) {
		u64 pos = (u64)i * LIFE_N, k = skew(i), d = delay(i);
		u64 tx_hw = pos + LIFE_N + d + k;
		bool in_call = i >= call_at && i < call_end;
		struct smodem_tx_gap g;
		u32 late;

		g = smodem_tx_decide(pos, LIFE_N, r.lead, !r.hook, LIFE_N,
				     &r.seen, tx_hw_last, LIFE_RING);
		if (g.lead < r.lead && r.hook)
			r.seams += 1000;	/* shrunk in a call */
		if (g.lead > r.lead) {
			if (r.hook)
				r.growths_in_call++;
			if (in_call)
				r.late += g.late;
			for (f = 0; f < g.len; f++)
				tx_line[g.start + f] = in_call ? t++ : -2;
		}
		r.lead = g.lead;
		if (i == call_at)
			r.call_lead = r.lead;	/* smodem_call_config()'s */
		late = smodem_tx_late(pos + r.lead, LIFE_N, tx_hw);
		if (in_call)
			r.late += late;
		for (f = late; f < LIFE_N; f++)
			tx_line[pos + r.lead + f] = in_call ? t + f : -2;
		if (in_call) {
			t += LIFE_N;
			if (!first)
				first = pos + r.lead;
			last = pos + r.lead + LIFE_N;
		}
		/* the period's phase reports, then its output's placement */
		if (i == call_at)
			r.hook = smodem_hook_after(r.hook, SMDSP_PHASE_OFFHOOK);
		if (i + 1 == call_end)
			r.hook = smodem_hook_after(r.hook, SMDSP_PHASE_HUNGUP);
		if (k > r.seen.skew)
			r.seen.skew = k;
		if (d <= LIFE_N && d > r.seen.delay)
			r.seen.delay = d;
		if (d > r.seen.late)
			r.seen.late = d;
		if (!r.hook && d > r.seen.late_hook)
			r.seen.late_hook = d;
		tx_hw_last = tx_hw;
	}
	for (i = first; i < last; i++) {
		if (tx_line[i] < 0)
			r.holes++;
		else if (i > first && tx_line[i - 1] >= 0 &&
			 tx_line[i] != tx_line[i - 1] + 1)
			r.seams++;
	}
	return r;
}

/* QEMU's AC'97 on the virtual clock: a sawtooth up to 1015 from the start */
static u64 skew_steady(u32 i)
{
	return (i % 8) * 145;
}

/* on hook at most 1015; in the call a peak of 1200, within the margin */
static u64 skew_bump(u32 i)
{
	return i == 700 ? 1200 : skew_steady(i);
}

/* in the call 2000 from period 700 on: beyond any margin */
static u64 skew_jump(u32 i)
{
	return i >= 700 && i < 900 ? 2000 : skew_steady(i);
}

/* every response within a quarter period */
static u64 prompt(u32 i)
{
	(void)i;
	return 20;
}

/* a loaded real-time host: now and then a response 500 frames late */
static u64 stalls(u32 i)
{
	return i % 97 == 50 ? 500 : 20;
}

/* the same, in the call only (its own work's bursts) */
static u64 stalls_in_call(u32 i)
{
	return i >= 450 && i < 1000 ? stalls(i) : 20;
}

static void test_lead_life(void)
{
	struct life r;

	/* the skew seen on hook bounds the call's: one lead all along */
	r = live(skew_steady, prompt, 400, 1000, 150);
	printf("lead life, steady skew: call lead %u, now %u, %u growths in the call, %u seams, %u holes\n",
	       r.call_lead, r.lead, r.growths_in_call, r.seams, r.holes);
	CHECK(r.call_lead == fit(1015, 20, 20, LIFE_N, LIFE_RING));
	CHECK(r.call_lead == 1418 && r.lead == 1418);
	CHECK(r.growths_in_call == 0 && r.seams == 0 && r.holes == 0);
	/* the old quarter ring comes down on hook, before the call */
	r = live(skew_steady, prompt, 400, 1000, LIFE_RING / 4);
	CHECK(r.call_lead == 1418 && r.growths_in_call == 0 && r.seams == 0);
	CHECK(r.holes == 0);
	/* a peak in the call within the margin: no growth, nothing late */
	r = live(skew_bump, prompt, 400, 1000, 150);
	CHECK(r.call_lead == 1418 && r.growths_in_call == 0 && r.seams == 0);
	CHECK(r.holes == 0 && r.late == 0);
	/*
	 * Beyond it: the lead grows in the call, filled (no seam; holes only
	 * where the output engine took frames first), and is fitted to it
	 * once the call is over.
	 */
	r = live(skew_jump, prompt, 400, 1000, 150);
	printf("lead life, skew jump in the call: call lead %u, now %u, %u growths in the call, %u seams, %u holes, %u late\n",
	       r.call_lead, r.lead, r.growths_in_call, r.seams, r.holes, r.late);
	CHECK(r.call_lead == 1418 && r.growths_in_call == 1 && r.seams == 0);
	CHECK(r.holes == r.late && r.late > 0);
	CHECK(r.lead == fit(2000, 20, 20, LIFE_N, LIFE_RING));
	/*
	 * A call before the skew showed in full (580 of 1015 seen): the call
	 * starts with the fit of what was seen, and grows in the call as the
	 * skew shows more (870: beyond the margin, then 1015).
	 */
	r = live(skew_steady, prompt, 5, 1000, 150);
	printf("lead life, a call at once: call lead %u, now %u, %u growths in the call, %u seams, %u holes, %u late\n",
	       r.call_lead, r.lead, r.growths_in_call, r.seams, r.holes, r.late);
	CHECK(r.call_lead == fit(580, 20, 20, LIFE_N, LIFE_RING));
	CHECK(r.growths_in_call == 2 && r.seams == 0 && r.holes == r.late);
	CHECK(r.lead == 1418);
	/*
	 * Responses now and then 500 frames late, seen on hook (the host's):
	 * the call starts a quarter ring ahead, which serves them, nothing is
	 * lost.
	 */
	r = live(skew_steady, stalls, 400, 1000, 150);
	printf("lead life, stalls seen on hook: call lead %u, %u growths in the call, %u holes\n",
	       r.call_lead, r.growths_in_call, r.holes);
	CHECK(r.call_lead == LIFE_RING / 4);
	CHECK(r.growths_in_call == 0 && r.seams == 0 && r.holes == 0);
	/*
	 * Seen in the call only: frames lost at each (a backlog grows no
	 * call's lead), served once the call is over (1015 + 100 + 525 + 253).
	 */
	r = live(skew_steady, stalls_in_call, 400, 1000, 150);
	printf("lead life, stalls first in the call: call lead %u, now %u, %u growths in the call, %u holes\n",
	       r.call_lead, r.lead, r.growths_in_call, r.holes);
	CHECK(r.call_lead == 1418 && r.growths_in_call == 0 && r.seams == 0);
	CHECK(r.holes > 0 && r.holes == r.late);
	CHECK(r.lead == 1893);
}

/* An ATD with the factory settings. */
static struct at_call factory_call(void)
{
	struct at_call c;

	memset(&c, 0, sizeof(c));
	c.detect_dialtone = true;
	c.detect_busy = true;
	c.mod = AT_MOD_V34;
	c.automode = true;
	c.ec = AT_EC_AUTO;
	c.dialtone_wait_s = 2;
	c.carrier_wait_s = 50;
	c.comma_s = 2;
	c.carrier_loss_ds = 14;
	c.dtmf_ms = 95;
	return c;
}

static void test_engine_config(void)
{
	static const struct {
		enum at_ec ec;
		bool v42, required;
	} ecs[] = {
		{ AT_EC_NORMAL, false, false }, { AT_EC_DIRECT, false, false },
		{ AT_EC_AUTO, true, false }, { AT_EC_RELIABLE, true, true },
		{ AT_EC_LAPM, true, true }, { AT_EC_MNP, true, true },
	};
	struct smdsp_modem_config cfg;
	struct at_call c = factory_call();
	unsigned int i;
	char d[AT_DIAL_MAX + 1];

	/*
	 * The factory's ATD: V.34 through V.8 with +A8E off, every fallback
	 * down to V.21 for a far end that answers with a plain ANS
	 */
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.sample_rate == 8000 &&
	      cfg.flags == (SMDSP_MODEM_FLAG_V42 | SMDSP_MODEM_FLAG_V8));
	CHECK(cfg.modulations == (SMDSP_MODEM_V34 | SMDSP_MODEM_V32BIS | SMDSP_MODEM_V32 |
				  SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21));
	CHECK(cfg.min_rate == 0 && cfg.max_rate == 0);
	smodem_call_config(&c, true, 0, &cfg);
	CHECK(cfg.flags == (SMDSP_MODEM_FLAG_V42 | SMDSP_MODEM_FLAG_V8));
	/* +MS=V22B on it: V.25's start-up, no V.8 */
	c.mod = AT_MOD_V22B;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.flags == SMDSP_MODEM_FLAG_V42);
	CHECK(cfg.modulations ==
	      (SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21));
	CHECK(cfg.blind_wait_ms == 2000 && cfg.dialtone_wait_ms == 5000 &&
	      cfg.comma_ms == 2000 && cfg.wait_answer_ms == 50000 &&
	      cfg.carrier_loss_ms == 1400);
	for (i = 0; i < sizeof(ecs) / sizeof(ecs[0]); i++) {
		c.ec = ecs[i].ec;
		smodem_call_config(&c, i % 2, 0, &cfg);
		CHECK(!!(cfg.flags & SMDSP_MODEM_FLAG_V42) == ecs[i].v42);
		CHECK(smodem_call_ec_required(c.ec) == ecs[i].required);
	}
	/* +A8E=1,1: V.8 for V.22bis too */
	c = factory_call();
	c.mod = AT_MOD_V22B;
	c.v8 = true;
	smodem_call_config(&c, true, 0, &cfg);
	CHECK(cfg.flags == (SMDSP_MODEM_FLAG_V42 | SMDSP_MODEM_FLAG_V8));
	/* Blind (X0, X1, X3) when dialling only. */
	c.detect_dialtone = false;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.flags & SMDSP_MODEM_FLAG_BLIND);
	smodem_call_config(&c, true, 0, &cfg);
	CHECK(!(cfg.flags & SMDSP_MODEM_FLAG_BLIND));
	/* A longer S6 waits longer for the dial tone too. */
	c.dialtone_wait_s = 7;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.blind_wait_ms == 7000 && cfg.dialtone_wait_ms == 7000);
	/* The largest registers stay within what the engine takes. */
	c.dialtone_wait_s = c.carrier_wait_s = c.comma_s = 255;
	c.carrier_loss_ds = 255;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.blind_wait_ms <= 255000 && cfg.dialtone_wait_ms <= 255000 &&
	      cfg.comma_ms <= 255000 && cfg.wait_answer_ms <= 255000 &&
	      cfg.carrier_loss_ms == 25500);
	/* +MS */
	c.mod = AT_MOD_V21;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == SMDSP_MODEM_V21);
	c.mod = AT_MOD_V22;
	c.automode = false;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == SMDSP_MODEM_V22);
	/* V.32bis, with V.22bis and below as its automode's fallbacks, within the rate limits */
	c.mod = AT_MOD_V32B;
	c.automode = true;
	smodem_call_config(&c, true, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V32BIS | SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 |
				  SMDSP_MODEM_V21));
	CHECK(cfg.min_rate == 0 && cfg.max_rate == 0);
	c.min_rate = 2400;
	c.max_rate = 9600;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V32BIS | SMDSP_MODEM_V22BIS));
	CHECK(cfg.min_rate == 2400 && cfg.max_rate == 9600);
	c.min_rate = 4800;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == SMDSP_MODEM_V32BIS);
	c.min_rate = 0;
	c.max_rate = 0;
	c.automode = false;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == SMDSP_MODEM_V32BIS);
	c.mod = AT_MOD_V32;
	c.automode = true;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V32 | SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 |
				  SMDSP_MODEM_V21));
	c.max_rate = 1200;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V32 | SMDSP_MODEM_V22 | SMDSP_MODEM_V21));
	c.max_rate = 0;
	/*
	 * V.34, with V.32bis, V.32, V.22bis and below as its automode's
	 * fallbacks: those with no rate within the limits left out; the
	 * limits go to the engine as they are (V.34's and V.32bis's).
	 */
	c.mod = AT_MOD_V34;
	c.automode = true;
	c.v8 = false;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V34 | SMDSP_MODEM_V32BIS | SMDSP_MODEM_V32 |
				  SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21));
	CHECK(cfg.min_rate == 0 && cfg.max_rate == 0);
	/* V.34 only through V.8, even with +A8E off */
	CHECK(cfg.flags & SMDSP_MODEM_FLAG_V8);
	c.min_rate = 300;
	c.max_rate = 33600;
	smodem_call_config(&c, true, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V34 | SMDSP_MODEM_V32BIS | SMDSP_MODEM_V32 |
				  SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21));
	CHECK(cfg.min_rate == 300 && cfg.max_rate == 33600);
	c.min_rate = 12000;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V34 | SMDSP_MODEM_V32BIS));
	CHECK(cfg.min_rate == 12000 && cfg.max_rate == 33600);
	c.min_rate = 16800;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == SMDSP_MODEM_V34 && cfg.min_rate == 16800 && cfg.max_rate == 33600);
	c.min_rate = 2400;
	c.max_rate = 4800;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V34 | SMDSP_MODEM_V32BIS | SMDSP_MODEM_V32 |
				  SMDSP_MODEM_V22BIS));
	CHECK(cfg.min_rate == 2400 && cfg.max_rate == 4800);
	c.max_rate = 2400;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == (SMDSP_MODEM_V34 | SMDSP_MODEM_V22BIS));
	c.min_rate = 0;
	c.max_rate = 0;
	c.automode = false;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(cfg.modulations == SMDSP_MODEM_V34 && (cfg.flags & SMDSP_MODEM_FLAG_V8));
	c.automode = true;
	c.mod = AT_MOD_V32B;
	smodem_call_config(&c, false, 0, &cfg);
	CHECK(!(cfg.flags & SMDSP_MODEM_FLAG_V8));
	c.mod = AT_MOD_V34;
	/*
	 * V.34 is a call in which the engine ran V.34; the rate alone cannot
	 * say, nor can V.8's choice (a far end that named V.34 and answered
	 * V.22bis)
	 */
	{
		struct smdsp_modem_stats st;

		memset(&st, 0, sizeof(st));
		st.v34_used = 1;
		CHECK(smodem_call_is_v34(&st));
		st.v34_used = 0;
		st.v8_used = 1;
		st.v8.selected = SMDSP_V8_MOD_V34;
		CHECK(!smodem_call_is_v34(&st));
	}
	/* The output lead is V.32bis's echo latency, over a 2-wire line. */
	CHECK(cfg.echo_latency == 0 && !cfg.four_wire);
	smodem_call_config(&c, true, 2048, &cfg);
	CHECK(cfg.echo_latency == 2048 && !cfg.four_wire);

	smodem_call_digits(d, sizeof(d), "1,2W3!*#ABCD", true);
	CHECK(!strcmp(d, "1,2W3*#ABCD"));
	smodem_call_digits(d, sizeof(d), "1,2W3!*#ABCD", false);
	CHECK(!strcmp(d, "12W3*#ABCD"));
	smodem_call_digits(d, 4, "123456", true);
	CHECK(!strcmp(d, "123"));
	smodem_call_digits(d, sizeof(d), "", true);
	CHECK(d[0] == '\0');

	/* V.42 settled: LAPM up, or async after it; else wait. */
	CHECK(smodem_call_ec(SMDSP_LINK_V42, SMDSP_V42_DETECTING, true) ==
	      SMODEM_EC_WAIT);
	CHECK(smodem_call_ec(SMDSP_LINK_V42, SMDSP_V42_ESTABLISHING, false) ==
	      SMODEM_EC_WAIT);
	CHECK(smodem_call_ec(SMDSP_LINK_NONE, -1, false) == SMODEM_EC_WAIT);
	CHECK(smodem_call_ec(SMDSP_LINK_V42, SMDSP_V42_CONNECTED, true) ==
	      SMODEM_EC_CONNECT);
	CHECK(smodem_call_ec(SMDSP_LINK_ASYNC, SMDSP_V42_NO_V42, false) ==
	      SMODEM_EC_CONNECT);
	CHECK(smodem_call_ec(SMDSP_LINK_ASYNC, SMDSP_V42_NO_V42, true) ==
	      SMODEM_EC_REFUSE);
	/* V.8 agreed on no LAPM: async without any V.42 status. */
	CHECK(smodem_call_ec(SMDSP_LINK_ASYNC, -1, true) == SMODEM_EC_REFUSE);
}

/*
 * context=usr's stall rule: a DONE on another CPU may stamp
 * last_ns after the interrupt read now; that is no stall, not 584 years
 * of one.
 */
static void test_usr_stalled(void)
{
	const u64 lim = 2000ULL * 1000 * 1000;
	const u64 t = 5000ULL * 1000 * 1000;

	CHECK(!smodem_usr_stalled(t, t, lim));
	CHECK(!smodem_usr_stalled(t + lim, t, lim));
	CHECK(smodem_usr_stalled(t + lim + 1, t, lim));
	CHECK(!smodem_usr_stalled(t, t + 1, lim));
	CHECK(!smodem_usr_stalled(t, t + 12500000, lim));
	CHECK(!smodem_usr_stalled(0, 1, lim));
}

/*
 * A misbehaving device: what a position read or an interrupt's
 * position is worth (driver/smodem_ring.h, judged by smodem_core.c).
 */
static void test_fault_judge(void)
{
	/* at rest, on time, a burst of a ring beyond twice the time since */
	CHECK(smodem_pos_judge(1000, 1000, 0, 512) == SMODEM_POS_OK);
	CHECK(smodem_pos_judge(1100, 1000, 100, 512) == SMODEM_POS_OK);
	CHECK(smodem_pos_judge(1000 + 512 + 200, 1000, 100, 512) ==
	      SMODEM_POS_OK);
	CHECK(smodem_pos_judge(1000 + 512 + 201, 1000, 100, 512) ==
	      SMODEM_POS_JUMP);
	CHECK(smodem_pos_judge(1000 + (1ULL << 24), 1000, 8000, 512) ==
	      SMODEM_POS_JUMP);
	/* a long time since allows a long way: a stalled reader is no fault */
	CHECK(smodem_pos_judge(1000 + 80000, 1000, 80000, 512) ==
	      SMODEM_POS_OK);
	CHECK(smodem_pos_judge(999, 1000, 0, 512) == SMODEM_POS_BACK);
	CHECK(smodem_pos_judge(0, 1ULL << 40, 1ULL << 41, 512) ==
	      SMODEM_POS_BACK);
	/* no overflow at the top of the range */
	CHECK(smodem_pos_judge(~0ULL, 0, ~0ULL >> 1, 512) == SMODEM_POS_OK);
	CHECK(smodem_pos_judge(~0ULL, 0, ~0ULL >> 2, 512) == SMODEM_POS_JUMP);

	/* a storm: under a quarter period since the last kick */
	CHECK(smodem_irq_skipped(0, 100, 100) == -1);
	CHECK(smodem_irq_skipped(24, 100, 100) == -1);
	CHECK(smodem_irq_skipped(25, 100, 100) == 0);
	CHECK(smodem_irq_skipped(100, 100, 100) == 0);
	/* late by most of a period is late, not missed */
	CHECK(smodem_irq_skipped(199, 100, 100) == 0);
	CHECK(smodem_irq_skipped(200, 100, 100) == 1);
	CHECK(smodem_irq_skipped(500, 100, 100) == 4);
	/* the shortest period a quarter of 8 frames still is one frame */
	CHECK(smodem_irq_skipped(0, 3, 3) == -1);
	CHECK(smodem_irq_skipped(1, 3, 3) == 0);
	/* 20 -> 100: the queued 20-frame periods are neither storm nor gap */
	CHECK(smodem_irq_skipped(20, 20, 100) == 0);
	CHECK(smodem_irq_skipped(100, 20, 100) == 0);
	CHECK(smodem_irq_skipped(1ULL << 40, 8, 8) == 0x7fffffff);
}

/* What a modem saw of the lead, by the op the core called. */
struct lead_modem {
	struct smodem_modem base;
	u32 at_gap, at_fill, at_period;
	u32 filled;
};

static u32 lm_period(struct smodem_modem *m, const s16 *rx, s16 *tx, u32 n)
{
	struct lead_modem *lm = (struct lead_modem *)m;

	(void)rx;
	lm->at_period = m->lead;
	memset(tx, 0, n * sizeof(*tx));
	return n;
}

static void lm_gap(struct smodem_modem *m, u32 len, u32 late)
{
	struct lead_modem *lm = (struct lead_modem *)m;

	(void)len;
	(void)late;
	lm->at_gap = m->lead;
}

static void lm_fill(struct smodem_modem *m, s16 *tx, u32 n)
{
	struct lead_modem *lm = (struct lead_modem *)m;

	lm->at_fill = m->lead;
	lm->filled += n;
	memset(tx, 0, n * sizeof(*tx));
}

/*
 * The lead reaches the modem before anything of its period runs: a call
 * the period starts is configured with it, and a gap's fill already
 * belongs to the grown lead.  The kernel's core and smodemd both hand it
 * over through the gap (the daemon from its area's lead).
 */
static void test_lead_to_modem(void)
{
	static const struct smodem_modem_ops ops = {
		.period = lm_period, .gap = lm_gap, .fill = lm_fill,
	};
	struct lead_modem lm = { .base = { .ops = &ops } };
	s16 rx[100] = { 0 }, tx[100], buf[300];
	struct smodem_fill fill = { .buf = buf, .chunk = 100 };
	struct smodem_tx_gap g;
	struct smodem_gap gap = { 0 };
	struct smodem_usr_area a;

	/* the core's start: 2048 frames ahead (ring 8192), nothing grew */
	g = smodem_tx_grow(0, 100, 2048, 0, 0, 0, 8192);
	gap.lead = g.lead;
	CHECK(smodem_modem_step(&lm.base, &gap, &fill, rx, tx, 100) == 100);
	CHECK(lm.at_period == 2048 && lm.base.lead == 2048 && !lm.filled);
	/* a skew of 2100 frames: the lead grows, its gap filled at the new lead */
	g = smodem_tx_grow(100, 100, 2048, 2100, 0, 0, 8192);
	gap.grew = g.lead != 2048;
	gap.len = g.len;
	gap.lead = g.lead;
	CHECK(gap.grew && g.lead > 2048 && g.len == g.lead - 2048);
	smodem_modem_step(&lm.base, &gap, &fill, rx, tx, 100);
	CHECK(lm.at_gap == g.lead && lm.at_fill == g.lead && lm.at_period == g.lead &&
	      lm.filled == g.len);
	/* smodemd's copy of the area: the field the kernel writes at each WAIT */
	memset(&a, 0, sizeof(a));
	a.lead = 3000;
	gap = (struct smodem_gap){ .grew = a.gap, .len = a.gap_len, .late = a.gap_late,
				   .lead = a.lead };
	smodem_modem_step(&lm.base, &gap, &fill, rx, tx, 100);
	CHECK(lm.at_period == 3000);
}

int main(void)
{
	test_params();
	test_split();
	test_step();
	test_lead();
	test_gap_fill();
	test_lead_fit();
	test_lead_life();
	test_engine_config();
	test_lead_to_modem();
	test_usr_stalled();
	test_fault_judge();
	return t_report("test_driver_logic");
}
