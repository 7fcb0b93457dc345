// SPDX-License-Identifier: GPL-2.0
/*
 * Call-progress tone detector: a bank of Goertzel filters over 20 ms blocks
 * decides "tone on" per block, then the cadence of on and off segments, and
 * in the North American plan the frequency pair, name the tone.
 */
#include <smdsp/private/callprog.h>

enum { F350, F400, F425, F440, F450, F480, F620 };

static const int32_t cpt_mhz[SMDSP_CALLPROG_NFREQ] = {
	350000, 400000, 425000, 440000, 450000, 480000, 620000
};

/* frequency signatures of a burst */
#define SIG_DIAL	1	/* 350 + 440 */
#define SIG_RING	2	/* 440 + 480 */
#define SIG_BUSY	4	/* 480 + 620 */
#define SIG_425		8

void smdsp_callprog_init(struct smdsp_callprog *s, enum smdsp_callprog_plan plan)
{
	uint64_t a;
	int i;

	memset(s, 0, sizeof(*s));
	s->plan = plan;
	for (i = 0; i < SMDSP_CALLPROG_NFREQ; i++)
		smdsp_goertzel_init(&s->g[i], cpt_mhz[i]);
	/* a tone at -40 dBm0: (A N / 2)^2 */
	a = (uint64_t)smdsp_dbm0_to_amp(-400) * SMDSP_CALLPROG_BLOCK / 2;
	s->min_energy = a * a;
}

struct smdsp_callprog *smdsp_callprog_create(enum smdsp_callprog_plan plan)
{
	struct smdsp_callprog *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_callprog_init(s, plan);
	return s;
}

void smdsp_callprog_free(struct smdsp_callprog *s)
{
	smdsp_free(s);
}

bool smdsp_callprog_tone_on(const struct smdsp_callprog *s)
{
	return s->on;
}

static uint64_t cpt_max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

/* Returns the signature of a tone block, 0 if no call-progress tone. */
static uint8_t classify_block(struct smdsp_callprog *s)
{
	uint64_t e[SMDSP_CALLPROG_NFREQ];
	uint64_t tone, ref = s->energy * (SMDSP_CALLPROG_BLOCK / 2);
	int i;

	for (i = 0; i < SMDSP_CALLPROG_NFREQ; i++)
		e[i] = smdsp_goertzel_result(&s->g[i]);
	if (s->plan == SMDSP_CALLPROG_PLAN_ETSI) {
		tone = cpt_max3(e[F400], e[F425], e[F450]);
		/* UK-style 350 + 450 dial tone also counts */
		if (e[F350] * 4 > tone)
			tone += e[F350];
		if (tone < s->min_energy || tone * 10 < ref * 6)
			return 0;
		return SIG_425;
	}
	/* the bins are 50 Hz wide: 440 and 480 leak a little into each other */
	if (e[F350] + e[F440] >= s->min_energy && (e[F350] + e[F440]) * 10 >= ref * 6 &&
	    e[F350] * 8 > e[F440] && e[F440] * 8 > e[F350])
		return SIG_DIAL;
	if (e[F440] + e[F480] >= s->min_energy && (e[F440] + e[F480]) * 10 >= ref * 6 &&
	    e[F440] * 8 > e[F480] && e[F480] * 8 > e[F440] && e[F350] * 8 < e[F440])
		return SIG_RING;
	if (e[F480] + e[F620] >= s->min_energy && (e[F480] + e[F620]) * 10 >= ref * 6 &&
	    e[F480] * 8 > e[F620] && e[F620] * 8 > e[F480])
		return SIG_BUSY;
	return 0;
}

static bool cpt_within(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

static enum smdsp_callprog_event end_block(struct smdsp_callprog *s)
{
	uint8_t sig = classify_block(s);
	bool on = sig != 0;
	enum smdsp_callprog_event ev = SMDSP_CALLPROG_NONE;
	bool na = s->plan == SMDSP_CALLPROG_PLAN_NA;

	if (on != s->on) {
		if (s->on) {
			/* an on segment ended: remember it for the off segment */
			s->last_on_ms = s->seg_ms;
			s->last_kind = s->kind;
		} else {
			/* an off segment ended: judge the on/off pair */
			uint32_t on_ms = s->last_on_ms, off_ms = s->seg_ms;

			if (cpt_within(on_ms, 350, 650) && cpt_within(off_ms, 350, 650) &&
			    (!na || s->last_kind == SIG_BUSY)) {
				s->cong_cycles = 0;
				if (++s->busy_cycles == 2)
					ev = SMDSP_CALLPROG_BUSY;
			} else if (cpt_within(on_ms, 140, 349) && cpt_within(off_ms, 140, 349) &&
				   (!na || s->last_kind == SIG_BUSY)) {
				s->busy_cycles = 0;
				if (++s->cong_cycles == 2)
					ev = SMDSP_CALLPROG_CONGESTION;
			} else {
				s->busy_cycles = 0;
				s->cong_cycles = 0;
			}
			s->ring_reported = false;
		}
		s->on = on;
		s->seg_ms = 0;
		s->kind = sig;
		if (!on)
			s->dial_reported = false;
	}
	s->seg_ms += 20;
	if (s->on && !s->dial_reported &&
	    ((na && s->kind == SIG_DIAL && s->seg_ms >= 1000) || (!na && s->seg_ms >= 2600))) {
		/* continuous: longer than any ringback burst */
		s->dial_reported = true;
		ev = SMDSP_CALLPROG_DIALTONE;
	}
	if (!s->on && !s->ring_reported && s->seg_ms >= 2000 &&
	    cpt_within(s->last_on_ms, 700, 2500) && (!na || s->last_kind == SIG_RING)) {
		s->ring_reported = true;
		ev = SMDSP_CALLPROG_RINGBACK;
	}
	if (s->seg_ms > 60000)
		s->seg_ms = 60000;
	return ev;
}

enum smdsp_callprog_event smdsp_callprog_process(struct smdsp_callprog *s, const int16_t *x, unsigned int n)
{
	enum smdsp_callprog_event ev = SMDSP_CALLPROG_NONE, e;
	unsigned int i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < SMDSP_CALLPROG_NFREQ; k++)
			smdsp_goertzel_sample(&s->g[k], x[i]);
		s->energy += (uint64_t)((int32_t)x[i] * x[i]);
		if (++s->count < SMDSP_CALLPROG_BLOCK)
			continue;
		e = end_block(s);
		if (e != SMDSP_CALLPROG_NONE)
			ev = e;
		s->count = 0;
		s->energy = 0;
	}
	if (ev != SMDSP_CALLPROG_NONE)
		s->last = ev;
	return ev;
}

void smdsp_callprog_reset(struct smdsp_callprog *s)
{
	smdsp_callprog_init(s, s->plan);
}

int smdsp_callprog_print(const struct smdsp_callprog *s, char *buf, size_t len)
{
	return snprintf(buf, len, "callprog plan=%s on=%d kind=%u seg_ms=%u busy=%u last=%d",
			s->plan == SMDSP_CALLPROG_PLAN_ETSI ? "etsi" : "na", s->on, s->kind,
			s->seg_ms, s->busy_cycles, s->last);
}
