// SPDX-License-Identifier: GPL-2.0
/*
 * Ring detector. A soft modem without a separate ring-detect line sees the
 * ring voltage only as a strong, often clipped, low-frequency signal on its
 * input. After DC removal, two low-pass stages (~160 Hz) keep that signal
 * and reject speech and modem tones; a 100 ms window must hold half of the
 * energy below 160 Hz at a high level, with 3-14 zero crossings (15-68 Hz).
 */
#include <smdsp/private/ring.h>

void smdsp_ring_init(struct smdsp_ring *s)
{
	uint64_t a;

	memset(s, 0, sizeof(*s));
	/* a 20 Hz sine at -25 dBm0 over a window: N A^2 / 2 */
	a = (uint64_t)smdsp_dbm0_to_amp(-250);
	s->min_energy = a * a / 2 * SMDSP_RING_BLOCK * SMDSP_RING_WIN;
	s->hyst = (int32_t)a / 8;
	s->off_ms = 100000;
}

struct smdsp_ring *smdsp_ring_create(void)
{
	struct smdsp_ring *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_ring_init(s);
	return s;
}

void smdsp_ring_free(struct smdsp_ring *s)
{
	smdsp_free(s);
}

uint32_t smdsp_ring_count(const struct smdsp_ring *s)
{
	return s->rings;
}

uint32_t smdsp_ring_quiet_ms(const struct smdsp_ring *s)
{
	return s->on ? 0 : s->off_ms;
}

static bool end_block(struct smdsp_ring *s)
{
	uint64_t lp = 0, all = 0;
	unsigned int zc = 0;
	bool ring, hit = false;
	int i;

	for (i = 0; i < SMDSP_RING_WIN; i++) {
		lp += s->lp_energy[i];
		all += s->all_energy[i];
		zc += s->crossings[i];
	}
	ring = lp >= s->min_energy && lp * 2 >= all && zc >= 3 && zc <= 14;
	if (ring) {
		if (!s->on) {
			s->on = true;
			s->on_ms = 0;
			s->counted = false;
		}
		s->on_ms += 10;
		if (s->on_ms >= 200 && !s->counted) {
			s->counted = true;
			s->rings++;
			hit = true;
		}
		s->off_ms = 0;
	} else {
		if (s->on)
			s->on = false;
		if (s->off_ms < 100000)
			s->off_ms += 10;
	}
	s->blk = (s->blk + 1) % SMDSP_RING_WIN;
	s->lp_energy[s->blk] = 0;
	s->all_energy[s->blk] = 0;
	s->crossings[s->blk] = 0;
	return hit;
}

bool smdsp_ring_process(struct smdsp_ring *s, const int16_t *x, unsigned int n)
{
	bool hit = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		int32_t v = (int32_t)x[i] * 256;
		int32_t y;

		/* DC tracker (~3 Hz), then two ~160 Hz one-pole low-pass stages */
		s->dc += (v - s->dc) >> 9;
		v -= s->dc;
		s->lp1 += (v - s->lp1) >> 3;
		s->lp2 += (s->lp1 - s->lp2) >> 3;
		y = s->lp2 >> 8;
		v >>= 8;
		s->lp_energy[s->blk] += (uint64_t)((int64_t)y * y);
		s->all_energy[s->blk] += (uint64_t)((int64_t)v * v);
		if (y > s->hyst && s->sign <= 0) {
			if (s->sign < 0)
				s->crossings[s->blk]++;
			s->sign = 1;
		} else if (y < -s->hyst && s->sign >= 0) {
			if (s->sign > 0)
				s->crossings[s->blk]++;
			s->sign = -1;
		}
		if (++s->count >= SMDSP_RING_BLOCK) {
			s->count = 0;
			if (end_block(s))
				hit = true;
		}
	}
	return hit;
}

void smdsp_ring_reset(struct smdsp_ring *s)
{
	smdsp_ring_init(s);
}

int smdsp_ring_print(const struct smdsp_ring *s, char *buf, size_t len)
{
	return snprintf(buf, len, "ring on=%d rings=%u on_ms=%u off_ms=%u",
			s->on, s->rings, s->on_ms, s->off_ms);
}
