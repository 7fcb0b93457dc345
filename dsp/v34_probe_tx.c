// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 line probing transmitter: L1 and L2 (10.1.2.4).
 *
 * The signal is 21 tones, 150 Hz apart, so it repeats every 1/150 s; at 8000
 * samples/s that is 53 1/3 samples, so the table holds three of its periods,
 * 160 samples, which repeat exactly. It is computed at create from the
 * shared sine table, each tone at its phase (0 or 180 degrees), the sum
 * scaled so that its power is the nominal level (L2) or 6 dB above it (L1):
 * each tone then carries 1/21 of the power. The phases keep the peaks
 * low (the sum's crest factor is 1.56, 3.9 dB, measured by test_v34_probe),
 * so L1 does not clip even at 0 dBm0.
 *
 * L1 lasts 160 ms (eight tables) and L2 follows with no break in phase, the
 * table read on from where L1 left it, for as long as asked or until
 * stopped.
 */
#include <smdsp/private/v34_probe.h>

void smdsp_v34_probe_tx_init(struct smdsp_v34_probe_tx *s, int level_dbm0_10)
{
	/* each tone's amplitude: the power shared by 21 sines, a^2 / 2 = P / 21 */
	uint32_t a2 = smdsp_isqrt64(smdsp_div_u64(2 * smdsp_dbm0_to_power(level_dbm0_10) << 16,
						  SMDSP_V34_PROBE_SENT));
	uint32_t a1 = (uint32_t)(((uint64_t)a2 * smdsp_db_to_amp_q32(SMDSP_V34_PROBE_L1_DB10)) >> 32);
	unsigned int n, i;

	memset(s, 0, sizeof(*s));
	s->level_dbm0_10 = level_dbm0_10;
	for (n = 0; n < SMDSP_V34P_N; n++) {
		int64_t sum = 0;

		for (i = 0; i < SMDSP_V34_PROBE_SENT; i++) {
			unsigned int m = smdsp_v34p_sent_m[i];
			/* 150 m Hz: 3 m / 160 of a turn a sample */
			uint32_t ph = (uint32_t)smdsp_div_u64((uint64_t)((3 * m * n) % SMDSP_V34P_N) << 32,
							     SMDSP_V34P_N);

			sum += smdsp_v34p_sign(m) * smdsp_cos(ph);
		}
		/* a in Q8 (the square root of a Q16 power), cos Q15 */
		s->l2[n] = smdsp_sat16((int32_t)((sum * a2 + (1 << 22)) >> 23));
		s->l1[n] = smdsp_sat16((int32_t)((sum * a1 + (1 << 22)) >> 23));
	}
}

struct smdsp_v34_probe_tx *smdsp_v34_probe_tx_create(int level_dbm0_10)
{
	struct smdsp_v34_probe_tx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_probe_tx_init(s, level_dbm0_10);
	return s;
}

void smdsp_v34_probe_tx_free(struct smdsp_v34_probe_tx *s)
{
	smdsp_free(s);
}

void smdsp_v34_probe_tx_reset(struct smdsp_v34_probe_tx *s)
{
	s->idx = 0;
	s->l1_left = 0;
	s->l2_left = 0;
	s->busy = false;
}

int smdsp_v34_probe_tx_print(const struct smdsp_v34_probe_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_probe_tx level=%d %s", s->level_dbm0_10,
			!s->busy ? "silent" : s->l1_left ? "L1" : "L2");
}

void smdsp_v34_probe_tx_start(struct smdsp_v34_probe_tx *s, unsigned int l2_ms)
{
	s->idx = 0;
	s->l1_left = SMDSP_V34_L1_MS * (SMDSP_RATE / 1000);
	s->l2_left = l2_ms ? l2_ms * (SMDSP_RATE / 1000) : SMDSP_V34P_FOREVER;
	s->busy = true;
}

void smdsp_v34_probe_tx_stop(struct smdsp_v34_probe_tx *s)
{
	s->busy = false;
}

bool smdsp_v34_probe_tx_busy(const struct smdsp_v34_probe_tx *s)
{
	return s->busy;
}

void smdsp_v34_probe_tx_process(struct smdsp_v34_probe_tx *s, int16_t *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!s->busy) {
			out[i] = 0;
			continue;
		}
		if (s->l1_left) {
			out[i] = s->l1[s->idx];
			s->l1_left--;
		} else {
			out[i] = s->l2[s->idx];
			if (s->l2_left != SMDSP_V34P_FOREVER && --s->l2_left == 0)
				s->busy = false;
		}
		if (++s->idx == SMDSP_V34P_N)
			s->idx = 0;
	}
}
