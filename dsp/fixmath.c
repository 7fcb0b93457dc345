// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed-point helpers: phase rates, dB conversions, square root and a CORDIC
 * arctangent. None of these are on a per-sample path.
 */
#include <smdsp/fixmath.h>

uint32_t smdsp_phase_rate(int32_t freq_mhz, uint32_t rate)
{
	uint64_t f = (uint64_t)(freq_mhz < 0 ? -(int64_t)freq_mhz : freq_mhz);
	uint32_t r = (uint32_t)smdsp_div_u64((f << 32) + rate * 500ULL, rate * 1000);

	return freq_mhz < 0 ? (uint32_t)-r : r;
}

uint64_t smdsp_db_to_amp_q32(int db10)
{
	int up = 0;
	int att;
	uint64_t v;

	if (db10 > 400)
		db10 = 400;
	if (db10 < -1200)
		db10 = -1200;
	/* Positive gains are taken as 20 dB (x10) steps over an attenuation. */
	while (db10 > 0) {
		db10 -= 200;
		up++;
	}
	att = -db10;
	v = ((uint64_t)smdsp_db_int_tab[att / 10] * smdsp_db_frac_tab[att % 10]) >> 30;
	while (up--)
		v *= 10;
	return v;
}

int32_t smdsp_dbm0_to_amp(int dbm0_10)
{
	/* 32767 at +3.14 dBm0 */
	return (int32_t)((32767ULL * smdsp_db_to_amp_q32(dbm0_10 - 31)) >> 32);
}

uint64_t smdsp_dbm0_to_power(int dbm0_10)
{
	uint64_t a = smdsp_db_to_amp_q32(dbm0_10 - 31);
	/* (32767 * a)^2 / 2 with a in Q32 */
	uint64_t amp16 = (32767ULL * a) >> 16;

	return (amp16 * amp16) >> 33;
}

/* log2(v) in Q16 for v >= 1 */
static int32_t log2_q16(uint64_t v)
{
	int32_t e = 0;
	int32_t r;
	uint64_t m;
	int i;

	while (v >= (2ULL << 31)) {
		v >>= 1;
		e++;
	}
	while (v < (1ULL << 31)) {
		v <<= 1;
		e--;
	}
	/* v in [2^31, 2^32): mantissa m in [1, 2) as Q31 */
	m = v;
	r = (e + 31) << 16;
	for (i = 15; i >= 0; i--) {
		m = (m * m) >> 31;
		if (m >= (2ULL << 31)) {
			m >>= 1;
			r += 1 << i;
		}
	}
	return r;
}

int smdsp_power_to_dbm0(uint64_t ms)
{
	/* full-scale sine: ms = 32767^2 / 2, which is +3.14 dBm0 */
	int32_t l;

	if (!ms)
		return -999;
	l = log2_q16(ms) - log2_q16(536838144ULL);
	/* 10 * log10(2) = 3.0103 -> tenths of a dB: 30.103 */
	return (int)(((int64_t)l * 30103 / 1000 + 32768) >> 16) + 31;
}

uint32_t smdsp_isqrt64(uint64_t v)
{
	uint64_t r = 0;
	uint64_t bit = 1ULL << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint32_t)r;
}

static const uint32_t cordic_atan[20] = {
	536870912, 316933406, 167458907, 85004756, 42667331,
	21354465, 10679838, 5340245, 2670163, 1335087,
	667544, 333772, 166886, 83443, 41722,
	20861, 10430, 5215, 2608, 1304,
};

uint32_t smdsp_atan2(int32_t y, int32_t x)
{
	int64_t xx = x;
	int64_t yy = y;
	int64_t t;
	uint32_t a = 0;
	int i;

	if (!x && !y)
		return 0;
	/* rotate into the right half plane first */
	if (xx < 0) {
		xx = -xx;
		yy = -yy;
		a = 0x80000000u;
	}
	for (i = 0; i < 20; i++) {
		if (yy > 0) {
			t = xx + (yy >> i);
			yy -= xx >> i;
			xx = t;
			a += cordic_atan[i];
		} else {
			t = xx - (yy >> i);
			yy += xx >> i;
			xx = t;
			a -= cordic_atan[i];
		}
	}
	return a;
}
