/*
 * Call-progress (NA and ETSI plans) and ring detection, on independently
 * generated (floating-point) signals with noise, level and frequency offsets.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <smdsp/callprog.h>
#include <smdsp/ring.h>
#include "tutil.h"

#define MAXS (8000 * 20)
static int16_t sig[MAXS];

/* dual tone with cadence (off 0: continuous), noise at noise_dbm0 */
static int gen(double f1, double f2, double level_dbm0, int on_ms, int off_ms, int total_ms,
	       double noise_dbm0, uint64_t seed)
{
	int n = total_ms * 8, i;
	double a = 32767.0 * pow(10, (level_dbm0 - 3.14) / 20.0);
	double na = 32767.0 * pow(10, (noise_dbm0 - 3.14) / 20.0) / sqrt(2.0);
	int period = (on_ms + off_ms) * 8;

	for (i = 0; i < n; i++) {
		double v = 0;
		int pos = off_ms ? i % period : 0;

		if (!off_ms)
			on_ms = total_ms;

		if (pos < on_ms * 8) {
			v = a * sin(2 * M_PI * f1 * i / 8000.0 + 0.4);
			if (f2 > 0)
				v += a * sin(2 * M_PI * f2 * i / 8000.0 + 1.1);
		}
		if (noise_dbm0 > -100)
			v += na * t_gauss(&seed);
		sig[i] = t_sat16(v);
	}
	return n;
}

static int first_event[8];
static int count_event[8];

static void run_cpt(enum smdsp_callprog_plan plan, int n, unsigned int block)
{
	struct smdsp_callprog *s = smdsp_callprog_create(plan);
	int i;

	memset(first_event, -1, sizeof(first_event));
	memset(count_event, 0, sizeof(count_event));
	for (i = 0; i < n; i += block) {
		unsigned int m = (unsigned int)(n - i) < block ? (unsigned int)(n - i) : block;
		enum smdsp_callprog_event e = smdsp_callprog_process(s, sig + i, m);

		if (e) {
			if (first_event[e] < 0)
				first_event[e] = (i + (int)m) / 8;
			count_event[e]++;
		}
	}
	smdsp_callprog_free(s);
}

static const char *ev_name[] = { "none", "dialtone", "ringback", "busy", "congestion" };

struct cpt_case {
	const char *name;
	enum smdsp_callprog_plan plan;
	double f1, f2, level;
	int on, off, total;
	double noise;
	enum smdsp_callprog_event want;	/* must be reported */
};

static void test_cpt(void)
{
	static const struct cpt_case cases[] = {
		{ "NA dial tone", SMDSP_CALLPROG_PLAN_NA, 350, 440, -17, 0, 0, 3000, -200, SMDSP_CALLPROG_DIALTONE },
		{ "NA dial tone -35 dBm0 + noise", SMDSP_CALLPROG_PLAN_NA, 350, 440, -35, 0, 0, 3000, -45,
		  SMDSP_CALLPROG_DIALTONE },
		{ "NA ringback", SMDSP_CALLPROG_PLAN_NA, 440, 480, -19, 2000, 4000, 13000, -200, SMDSP_CALLPROG_RINGBACK },
		{ "NA busy", SMDSP_CALLPROG_PLAN_NA, 480, 620, -24, 500, 500, 4000, -50, SMDSP_CALLPROG_BUSY },
		{ "NA reorder", SMDSP_CALLPROG_PLAN_NA, 480, 620, -24, 250, 250, 3000, -50, SMDSP_CALLPROG_CONGESTION },
		{ "ETSI dial tone", SMDSP_CALLPROG_PLAN_ETSI, 425, 0, -15, 0, 0, 4000, -200, SMDSP_CALLPROG_DIALTONE },
		{ "ETSI dial tone 450 Hz", SMDSP_CALLPROG_PLAN_ETSI, 450, 0, -15, 0, 0, 4000, -50, SMDSP_CALLPROG_DIALTONE },
		{ "UK dial tone 350+450", SMDSP_CALLPROG_PLAN_ETSI, 350, 450, -18, 0, 0, 4000, -50, SMDSP_CALLPROG_DIALTONE },
		{ "ETSI ringback", SMDSP_CALLPROG_PLAN_ETSI, 425, 0, -20, 1000, 4000, 11000, -50, SMDSP_CALLPROG_RINGBACK },
		{ "ETSI busy", SMDSP_CALLPROG_PLAN_ETSI, 425, 0, -20, 500, 500, 4000, -50, SMDSP_CALLPROG_BUSY },
		{ "ETSI congestion", SMDSP_CALLPROG_PLAN_ETSI, 425, 0, -20, 250, 250, 3000, -50, SMDSP_CALLPROG_CONGESTION },
		{ "NA: 2100 Hz answer tone", SMDSP_CALLPROG_PLAN_NA, 2100, 0, -12, 0, 0, 4000, -200, SMDSP_CALLPROG_NONE },
		{ "ETSI: 1000 Hz tone", SMDSP_CALLPROG_PLAN_ETSI, 1000, 0, -12, 0, 0, 4000, -200, SMDSP_CALLPROG_NONE },
		{ "NA: noise only", SMDSP_CALLPROG_PLAN_NA, 0, 0, -200, 0, 0, 4000, -20, SMDSP_CALLPROG_NONE },
		{ "ETSI: noise only", SMDSP_CALLPROG_PLAN_ETSI, 0, 0, -200, 0, 0, 4000, -20, SMDSP_CALLPROG_NONE },
		{ "NA: busy is not dial", SMDSP_CALLPROG_PLAN_NA, 480, 620, -20, 0, 0, 3000, -200, SMDSP_CALLPROG_NONE },
	};
	unsigned int c;
	int e;

	for (c = 0; c < SMDSP_ARRAY_SIZE(cases); c++) {
		const struct cpt_case *k = &cases[c];
		int n = gen(k->f1, k->f2, k->level, k->on, k->off, k->total, k->noise, c + 1);
		char seen[128] = "";

		run_cpt(k->plan, n, 160);
		for (e = 1; e <= 4; e++)
			if (count_event[e])
				sprintf(seen + strlen(seen), " %s@%dms", ev_name[e], first_event[e]);
		printf("cpt %-32s ->%s\n", k->name, seen[0] ? seen : " nothing");
		for (e = 1; e <= 4; e++) {
			if (e == (int)k->want)
				CHECK(count_event[e] > 0, "%s: %s not reported", k->name, ev_name[e]);
			else
				CHECK(count_event[e] == 0, "%s: false %s", k->name, ev_name[e]);
		}
	}
	/* odd block sizes give the same answer */
	gen(480, 620, -24, 500, 500, 4000, -50, 99);
	run_cpt(SMDSP_CALLPROG_PLAN_NA, 4000 * 8, 37);
	CHECK(count_event[SMDSP_CALLPROG_BUSY] == 1, "busy with 37-sample blocks");
}

static void ring_gen(double f, double amp, int on_ms, int off_ms, int total_ms, double noise)
{
	int i;
	uint64_t seed = 5;

	for (i = 0; i < total_ms * 8; i++) {
		int pos = i % ((on_ms + off_ms) * 8);
		double v = pos < on_ms * 8 ? amp * sin(2 * M_PI * f * i / 8000.0) : 0;

		sig[i] = t_sat16(v + noise * t_gauss(&seed));
	}
}

static uint32_t run_ring(int total_ms)
{
	struct smdsp_ring *r = smdsp_ring_create();
	uint32_t n;
	int i;

	for (i = 0; i < total_ms * 8; i += 20)
		smdsp_ring_process(r, sig + i, 20);
	n = smdsp_ring_count(r);
	smdsp_ring_free(r);
	return n;
}

static void test_ring(void)
{
	uint32_t n;

	ring_gen(20, 20000, 2000, 4000, 18000, 30);
	n = run_ring(18000);
	printf("ring 20 Hz 2 s/4 s x3: %u rings\n", n);
	CHECK(n == 3, "20 Hz rings %u", n);
	ring_gen(25, 300000, 1000, 4000, 15000, 100);	/* hard clipped */
	n = run_ring(15000);
	printf("ring 25 Hz clipped 1 s/4 s x3: %u rings\n", n);
	CHECK(n == 3, "clipped rings %u", n);
	ring_gen(50, 8000, 400, 200, 6000, 30);		/* UK-ish double ring */
	n = run_ring(6000);
	printf("ring 50 Hz 0.4 s/0.2 s x10: %u rings\n", n);
	CHECK(n == 10, "50 Hz rings %u", n);
	ring_gen(1000, 20000, 2000, 4000, 12000, 30);
	CHECK(run_ring(12000) == 0, "1 kHz tone counted as ring");
	ring_gen(350, 20000, 2000, 4000, 12000, 30);
	CHECK(run_ring(12000) == 0, "350 Hz tone counted as ring");
	ring_gen(20, 20000, 100, 400, 5000, 30);
	CHECK(run_ring(5000) == 0, "100 ms bursts counted as rings");
	ring_gen(0, 0, 1000, 0, 5000, 6000);
	CHECK(run_ring(5000) == 0, "noise counted as ring");
	{
		int i;

		for (i = 0; i < 8000 * 5; i++)
			sig[i] = 20000;	/* DC */
		CHECK(run_ring(5000) == 0, "DC counted as ring");
	}
}

int main(void)
{
	test_cpt();
	test_ring();
	return t_report("test_callprog");
}
