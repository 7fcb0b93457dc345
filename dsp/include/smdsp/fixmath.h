/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-point helpers shared by the pump's blocks. Phases are uint32_t with
 * 2^32 = one turn; amplitudes are Q15 unless stated.
 */
#ifndef SMDSP_FIXMATH_H
#define SMDSP_FIXMATH_H

#include <smdsp/compat.h>
#include <smdsp/tables.h>

#define SMDSP_RATE 8000

struct smdsp_cplx {
	int32_t re;
	int32_t im;
};

static inline int16_t smdsp_sin(uint32_t phase)
{
	uint32_t i = phase >> (32 - SMDSP_SIN_BITS);
	int32_t frac = (int32_t)((phase >> (16 - SMDSP_SIN_BITS)) & 0xffff);
	int32_t a = smdsp_sin_tab[i];
	int32_t b = smdsp_sin_tab[i + 1];

	return (int16_t)(a + (((b - a) * frac) >> 16));
}

static inline int16_t smdsp_cos(uint32_t phase)
{
	return smdsp_sin(phase + 0x40000000u);
}

static inline int16_t smdsp_sat16(int32_t v)
{
	if (v > 32767)
		return 32767;
	if (v < -32768)
		return -32768;
	return (int16_t)v;
}

static inline int32_t smdsp_sat32(int64_t v)
{
	if (v > 0x7fffffffLL)
		return 0x7fffffff;
	if (v < -0x80000000LL)
		return (int32_t)-0x80000000LL;
	return (int32_t)v;
}

static inline int32_t smdsp_abs32(int32_t v)
{
	return v < 0 ? -v : v;
}

/* Phase increment per sample for a frequency in mHz. */
uint32_t smdsp_phase_rate(int32_t freq_mhz, uint32_t rate);
/* Amplitude ratio 10^(db10/200) in Q32 for db10 in tenths of a dB, -1200..+400. */
uint64_t smdsp_db_to_amp_q32(int db10);
/* Peak amplitude of a sine at level dbm0_10 tenths of dBm0 (3.14 dBm0 = full scale). */
int32_t smdsp_dbm0_to_amp(int dbm0_10);
/* Mean square (of int16 samples) of a sine at dbm0_10 tenths of dBm0. */
uint64_t smdsp_dbm0_to_power(int dbm0_10);
/* Level in tenths of dBm0 of a signal whose mean square is ms; -999 for 0. */
int smdsp_power_to_dbm0(uint64_t ms);
uint32_t smdsp_isqrt64(uint64_t v);
/* Angle of (x, y) as a phase, 2^32 = one turn. */
uint32_t smdsp_atan2(int32_t y, int32_t x);

#endif /* SMDSP_FIXMATH_H */
