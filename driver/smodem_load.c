// SPDX-License-Identifier: GPL-2.0
/*
 * Workload emulation (load_us=): today's data pump costs microseconds where the
 * study's V.90 pump cost 1.84 ms per 12.5 ms, so the driver can add real
 * arithmetic on the period's samples until the processing has cost load_us of
 * CPU.  The amount of work is calibrated once at load, with interrupts off,
 * and then fixed: preemption stretches the wall-clock time of the work, as it
 * did the study's pump, but not the CPU it needs.
 *
 * In the contexts that run the modem in the kernel the work is a modem of
 * its own, wrapped around the real one (smodem_load_modem()), so that the
 * per-period path still makes one call.  context=usr spends it in the
 * kernel at SMODEM_USR_DONE (smodem_period_put()), after the daemon's
 * modem.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include "smodem.h"
#include "smodem_modem.h"

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

/* The real modem, then the work on the period's input. */
struct load_modem {
	struct smodem_modem base;
	struct smodem_modem *inner;
	u64 units;
	u32 sink;			/* the work's result, kept */
};

static struct load_modem *load_of(struct smodem_modem *m)
{
	return container_of(m, struct load_modem, base);
}

static u32 load_period(struct smodem_modem *m, const s16 *rx, s16 *tx, u32 n)
{
	struct load_modem *lm = load_of(m);
	u32 next = lm->inner->ops->period(lm->inner, rx, tx, n);

	lm->sink += smodem_load_run(rx, n, lm->units);
	return next;
}

static void load_gap(struct smodem_modem *m, u32 len, u32 late)
{
	struct smodem_modem *in = load_of(m)->inner;

	in->ops->gap(in, len, late);
}

static void load_fill(struct smodem_modem *m, s16 *tx, u32 n)
{
	struct smodem_modem *in = load_of(m)->inner;

	in->ops->fill(in, tx, n);
}

static void load_show(struct smodem_modem *m, struct seq_file *sf)
{
	struct smodem_modem *in = load_of(m)->inner;

	in->ops->show(in, sf);
}

static void load_free(struct smodem_modem *m)
{
	struct load_modem *lm = load_of(m);

	lm->inner->ops->free(lm->inner);
	kfree(lm);
}

static const struct smodem_modem_ops load_ops = {
	.period = load_period,
	.gap = load_gap,
	.fill = load_fill,
	.show = load_show,
	.free = load_free,
};

struct smodem_modem *smodem_load_modem(struct smodem_modem *inner, u64 units)
{
	struct load_modem *lm;

	if (IS_ERR(inner) || !units)
		return inner;
	lm = kzalloc(sizeof(*lm), GFP_KERNEL);
	if (!lm) {
		inner->ops->free(inner);
		return ERR_PTR(-ENOMEM);
	}
	lm->base.ops = &load_ops;
	lm->inner = inner;
	lm->units = units;
	return &lm->base;
}
