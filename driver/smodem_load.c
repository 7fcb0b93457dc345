// SPDX-License-Identifier: GPL-2.0
/*
 * Workload emulation (load_us=): today's data pump costs microseconds where the
 * study's V.90 pump cost 1.84 ms per 12.5 ms, so the driver can add real
 * arithmetic on the period's samples until the processing has cost load_us of
 * CPU.  The amount of work is calibrated once at load, with interrupts off,
 * and then fixed: preemption stretches the wall-clock time of the work, as it
 * did the study's pump, but not the CPU it needs.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include "smodem.h"

/* Work units per millisecond of CPU, measured by smodem_load_calibrate(). */
static u32 units_per_ms;
static u32 calib_sink;
static u32 calib_len = SMODEM_PERIOD_MIN * 16;

#define UNIT_TAPS 32

/* One unit: a 32-tap multiply-accumulate over the samples, like a FIR. */
static u32 load_unit(const s16 *buf, u32 n, u32 seed)
{
	u32 acc = seed;
	u32 i;

	for (i = 0; i < UNIT_TAPS; i++)
		acc = acc * 1664525u + (u32)(s32)buf[(seed + i) % n] * (i + 1);
	return acc;
}

u32 smodem_load_run(const s16 *buf, u32 n, u64 units)
{
	u32 acc = 1;
	u64 u;

	if (!n)
		return 0;
	for (u = 0; u < units; u++)
		acc = load_unit(buf, n, acc ^ (u32)u);
	return acc;
}

void smodem_load_calibrate(void)
{
	static const s16 probe[SMODEM_PERIOD_MIN * 16] = { 1, -2, 3, -4, 5 };
	u64 best = U64_MAX, units = 2000;
	unsigned long flags;
	u32 sink = 0;
	int i;

	/* The fastest of a few trials is the one nothing interrupted. */
	for (i = 0; i < 5; i++) {
		u64 t0, t1;

		local_irq_save(flags);
		t0 = ktime_get_ns();
		/*
		 * A length the compiler cannot see: a constant one lets it
		 * specialise the modulo, and the calibrated work must cost
		 * what the periods' work costs.
		 */
		sink += smodem_load_run(probe, READ_ONCE(calib_len), units);
		t1 = ktime_get_ns();
		local_irq_restore(flags);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	/* Keeps the compiler from dropping the timed work as unused. */
	WRITE_ONCE(calib_sink, sink);
	if (!best)
		best = 1;
	units_per_ms = max_t(u64, 1, div64_u64(units * NSEC_PER_MSEC, best));
}

u64 smodem_load_units(u32 us)
{
	return div_u64((u64)us * units_per_ms, 1000);
}

u32 smodem_load_units_per_ms(void)
{
	return units_per_ms;
}
