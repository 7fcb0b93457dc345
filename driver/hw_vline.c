// SPDX-License-Identifier: GPL-2.0
/*
 * hw=vline: a DMA engine made of an hrtimer, for machines without an AC'97
 * controller.  The timer fires in hard IRQ context (also on PREEMPT_RT) once
 * per period like the controller's interrupt; the "hardware position" is
 * derived from the clock, and the line is an in-kernel loopback: what the
 * pump wrote to the output ring comes back in the input ring as the output
 * engine plays it, tx_lead frames later.
 *
 * devices=N makes N such modems, each its own engine, timer and line.  With
 * vline_pairs=1 modems 2k and 2k+1 share one lock and are wired to each
 * other instead of to themselves: what one plays goes, through a DC block
 * (the off-hook offset is no sound), into a FIFO that the other's input
 * engine reads from.  Both engines run on the same clock, so the FIFO keeps
 * the level it starts with (VLINE_WIRE_DELAY of silence, against the one
 * frame by which two engines' floors can differ); while one end is not
 * running the other hears silence and plays into nothing.
 */
#include <linux/kernel.h>
#include <linux/hrtimer.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include "smodem.h"
#include <linux/delay.h>
#include "smodem_ring.h"
#include "smodem_trace.h"

/* Frames of silence a wire starts with: its delay, one direction. */
#define VLINE_WIRE_DELAY	64
/* DC block: y = x - x' + y' - y' / 2^6, a 20 Hz high-pass at 8 kHz */
#define VLINE_DC_SHIFT		6
/* inject_fault storm and shared: the timer's extra fires this far apart */
#define VLINE_FAULT_NS		20000

struct vline {
	struct smodem_dev *sd;
	struct hrtimer timer;
	raw_spinlock_t own_lock;
	raw_spinlock_t *lock;	/* the engine's position and the line */
	u64 t0;			/* ns when the engine started */
	u64 moved;		/* frames moved through the line */
	u64 interval;		/* ns between period interrupts */
	bool stopping;
	/* inject_fault, under *lock */
	bool halted;		/* the engine stands still at halt_pos */
	u64 halt_pos;
	u64 due;		/* a period interrupt claims no earlier frame */
	/* vline_pairs=1, all under *lock: */
	bool paired;
	bool running;		/* the engine moves frames */
	struct vline *peer;	/* the other end, NULL once it is gone */
	u32 *fifo;		/* frames the peer played, not yet heard here */
	u32 fifo_mask, head, tail;
	s32 dc_x[2], dc_y[2];	/* this end's output DC block, per channel */
};

static struct vline *vlines[SMODEM_DEVICES_MAX];
static unsigned int vline_count;

static u64 vline_now(struct vline *v)
{
	if (unlikely(v->halted))
		return v->halt_pos;
	return div_u64((ktime_get_ns() - v->t0) * v->sd->p.rate, NSEC_PER_SEC);
}

static void loop_advance(struct vline *v, u64 now)
{
	struct smodem_dev *sd = v->sd;

	while (v->moved < now) {
		u32 off, n, i;

		div_u64_rem(v->moved, sd->p.ring, &off);
		n = min_t(u64, now - v->moved, sd->p.ring - off);

		for (i = 0; i < 2 * n; i++) {
			sd->rx_ring[2 * off + i] = sd->tx_ring[2 * off + i];
			sd->tx_ring[2 * off + i] = 0;
		}
		v->moved += n;
	}
}

static s16 dc_block(struct vline *v, int c, s16 x)
{
	s32 y = x - v->dc_x[c] + v->dc_y[c] - (v->dc_y[c] >> VLINE_DC_SHIFT);

	v->dc_x[c] = x;
	v->dc_y[c] = y;
	return clamp_t(s32, y, S16_MIN, S16_MAX);
}

static void fifo_reset(struct vline *v)
{
	v->tail = 0;
	v->head = VLINE_WIRE_DELAY;
	memset(v->fifo, 0, VLINE_WIRE_DELAY * sizeof(*v->fifo));
}

/* This end's output up to now goes to the peer's FIFO, if it listens. */
static void wire_play(struct vline *v, u64 now)
{
	struct smodem_dev *sd = v->sd;
	struct vline *p = v->peer && v->peer->running ? v->peer : NULL;

	while (v->moved < now) {
		u32 off, n, i;
		s16 *tx;

		div_u64_rem(v->moved, sd->p.ring, &off);
		n = min_t(u64, now - v->moved, sd->p.ring - off);
		tx = sd->tx_ring + 2 * off;
		for (i = 0; i < n; i++, tx += 2) {
			u16 l = dc_block(v, 0, tx[0]), r = dc_block(v, 1, tx[1]);

			tx[0] = 0;
			tx[1] = 0;
			/* a full FIFO (cannot happen at equal rates) drops */
			if (p && p->head - p->tail <= p->fifo_mask)
				p->fifo[p->head++ & p->fifo_mask] =
					l | (u32)r << 16;
		}
		v->moved += n;
	}
}

/* Input frames [from, now) come out of this end's FIFO, silence if empty. */
static void wire_hear(struct vline *v, u64 from, u64 now)
{
	struct smodem_dev *sd = v->sd;

	while (from < now) {
		u32 off, n, i;
		s16 *rx;

		div_u64_rem(from, sd->p.ring, &off);
		n = min_t(u64, now - from, sd->p.ring - off);
		rx = sd->rx_ring + 2 * off;
		for (i = 0; i < n; i++, rx += 2) {
			u32 f = 0;

			if (v->head != v->tail)
				f = v->fifo[v->tail++ & v->fifo_mask];
			rx[0] = (s16)(f & 0xffff);
			rx[1] = (s16)(f >> 16);
		}
		from += n;
	}
}

/*
 * The engine moves frames when anyone looks at it, so that the position read
 * at any instant is exact and the data up to it is really in the ring.  A
 * wired pair moves both ends to the same instant, outputs first, so that what
 * one end hears is what the other played up to then.
 */
static u64 vline_advance(struct vline *v)
{
	struct vline *p = v->peer;
	u64 v0 = v->moved, p0 = 0, vn, pn = 0;

	if (!v->paired) {
		loop_advance(v, vline_now(v));
		return v->moved;
	}
	vn = vline_now(v);
	if (p && p->running) {
		p0 = p->moved;
		pn = vline_now(p);
		wire_play(p, pn);
	}
	wire_play(v, vn);
	wire_hear(v, v0, vn);
	if (p && p->running)
		wire_hear(p, p0, pn);
	return v->moved;
}

static u64 vline_position(struct smodem_dev *sd, u64 *tx_pos)
{
	struct vline *v = sd->hw_priv;
	unsigned long flags;
	u64 pos;

	raw_spin_lock_irqsave(v->lock, flags);
	pos = vline_advance(v);
	raw_spin_unlock_irqrestore(v->lock, flags);
	if (tx_pos)
		*tx_pos = pos;
	smodem_fault_pos(sd, &pos, tx_pos);
	return pos;
}

/*
 * order: completions in pairs swapped, the later period reported first,
 * then the earlier one.
 */
static u64 vline_order(struct smodem_dev *sd, u64 pos)
{
	u32 n = READ_ONCE(sd->period);

	if (!smodem_fault_take(sd, SMODEM_FAULT_ORDER))
		return pos;
	if (atomic_read(&sd->fault.left[SMODEM_FAULT_ORDER]) % 2)
		return pos + n;
	return pos - min_t(u64, pos, n);
}

/*
 * The engine's "status": a period interrupt claims a period only once the
 * position has moved on since the last one (a frame; a period tick late by
 * all but a frame of its period is the only real one that does not, and
 * the next one has its period); a fire before that is somebody else's, as
 * on a shared line.  The fault
 * injections make the timer fire between periods (storm: claiming a
 * period all the same; shared: not), lose period interrupts (miss), report
 * an older period's completion (order) or stop the engine (halt, which
 * raises no interrupt at all).
 */
static enum hrtimer_restart vline_tick(struct hrtimer *t)
{
	struct vline *v = container_of(t, struct vline, timer);
	struct smodem_dev *sd = v->sd;
	u64 t0 = ktime_get_ns(), t1, pos, next = READ_ONCE(v->interval);
	bool storm, foreign, claim, halted;

	if (unlikely(sd->stall_ms)) {
		mdelay(sd->stall_ms);
		sd->stall_ms = 0;
	}
	raw_spin_lock(v->lock);
	pos = vline_advance(v);
	halted = v->halted;
	raw_spin_unlock(v->lock);
	storm = smodem_fault_take(sd, SMODEM_FAULT_STORM);
	foreign = smodem_fault_take(sd, SMODEM_FAULT_SHARED);
	if (storm || foreign)
		next = VLINE_FAULT_NS;
	claim = !halted && (storm || pos >= v->due);
	if (!claim && !halted)
		smodem_fault_seen(sd, SMODEM_FAULT_SHARED, pos);
	if (claim && !smodem_fault_take(sd, SMODEM_FAULT_MISS)) {
		v->due = pos + 1;
		smodem_irq(sd, vline_order(sd, pos));
	} else if (claim) {
		v->due = pos + 1;
	}
	t1 = ktime_get_ns();
	smodem_stat_add(&sd->stats.isr_ns, t1 - t0);
	trace_smodem_isr_exit(sd, t1 - t0);
	if (READ_ONCE(v->stopping))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/* halt: the engine stops where it is (the watchdog notices). */
static void vline_inject(struct smodem_dev *sd, int kind)
{
	struct vline *v = sd->hw_priv;
	unsigned long flags;

	if (kind != SMODEM_FAULT_HALT)
		return;
	raw_spin_lock_irqsave(v->lock, flags);
	if (!v->halted) {
		v->halt_pos = vline_advance(v);
		v->halted = true;
	}
	raw_spin_unlock_irqrestore(v->lock, flags);
}

/*
 * The watchdog's restart: the engine goes on from where it stopped, the
 * frames of the time it stood lost.  An armed halt refuses a restart per
 * count, as a device that does not respond.
 */
static void vline_recover(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;
	unsigned long flags;
	u64 ns;

	if (smodem_fault_take(sd, SMODEM_FAULT_HALT))
		return;
	raw_spin_lock_irqsave(v->lock, flags);
	if (v->halted) {
		ns = div_u64(v->halt_pos * NSEC_PER_SEC, sd->p.rate);
		v->t0 = ktime_get_ns() - ns;
		v->halted = false;
	}
	raw_spin_unlock_irqrestore(v->lock, flags);
}

static void vline_set_period(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;

	WRITE_ONCE(v->interval, smodem_period_ns(READ_ONCE(sd->period),
						 sd->p.rate));
}

/*
 * On the CPU cpus= names: a pinned timer re-armed from its own callback
 * stays on the CPU it was started on, so every interrupt is taken there.
 */
static void vline_arm_here(void *arg)
{
	struct vline *v = arg;

	hrtimer_start(&v->timer, ns_to_ktime(v->interval),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int vline_start(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;
	int cpu = smodem_dev_cpu(sd);
	unsigned long flags;
	int err;

	v->interval = smodem_period_ns(sd->p.period, sd->p.rate);
	v->stopping = false;
	v->halted = false;
	v->due = 0;
	raw_spin_lock_irqsave(v->lock, flags);
	/* The peer, if running, is brought up to now on the old wiring. */
	if (v->peer && v->peer->running)
		vline_advance(v->peer);
	v->moved = 0;
	v->t0 = ktime_get_ns();
	if (v->paired) {
		memset(v->dc_x, 0, sizeof(v->dc_x));
		memset(v->dc_y, 0, sizeof(v->dc_y));
		fifo_reset(v);
		if (v->peer)
			fifo_reset(v->peer);
		v->running = true;
	}
	raw_spin_unlock_irqrestore(v->lock, flags);
	if (cpu < 0) {
		hrtimer_start(&v->timer, ns_to_ktime(v->interval),
			      HRTIMER_MODE_REL_HARD);
		return 0;
	}
	err = smp_call_function_single(cpu, vline_arm_here, v, 1);
	if (err) {
		raw_spin_lock_irqsave(v->lock, flags);
		v->running = false;
		raw_spin_unlock_irqrestore(v->lock, flags);
	}
	return err;
}

static void vline_stop(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;
	unsigned long flags;

	WRITE_ONCE(v->stopping, true);
	hrtimer_cancel(&v->timer);
	/* The peer's engine no longer touches this end's rings. */
	raw_spin_lock_irqsave(v->lock, flags);
	v->running = false;
	raw_spin_unlock_irqrestore(v->lock, flags);
}

/* Undo vline_create(): the device is not registered. */
static void vline_free(struct vline *v)
{
	struct smodem_dev *sd = v->sd;
	unsigned long flags;

	if (v->peer) {
		raw_spin_lock_irqsave(v->lock, flags);
		v->peer->peer = NULL;
		raw_spin_unlock_irqrestore(v->lock, flags);
	}
	if (sd) {
		kfree(sd->rx_ring);
		kfree(sd->tx_ring);
		smodem_dev_free(sd);
	}
	kvfree(v->fifo);
	kfree(v);
}

/* Modem k, registered: its tty, debugfs and engine exist when this returns. */
static int vline_create(unsigned int k)
{
	size_t bytes = smodem_p.ring * 2 * sizeof(s16);
	struct smodem_dev *sd;
	unsigned long flags;
	struct vline *v;
	char name[16];
	int err;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	raw_spin_lock_init(&v->own_lock);
	v->lock = &v->own_lock;
	hrtimer_init(&v->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	v->timer.function = vline_tick;
	v->paired = smodem_p.vline_pairs;
	if (v->paired) {
		/* two rings of lead and the wire's delay fit, rounded up */
		v->fifo_mask = roundup_pow_of_two(2 * smodem_p.ring +
						  VLINE_WIRE_DELAY) - 1;
		v->fifo = kvcalloc(v->fifo_mask + 1, sizeof(*v->fifo),
				   GFP_KERNEL);
		if (!v->fifo) {
			kfree(v);
			return -ENOMEM;
		}
	}

	snprintf(name, sizeof(name), "vline%u", k);
	sd = smodem_dev_alloc(name, NULL);
	if (IS_ERR(sd)) {
		err = PTR_ERR(sd);
		goto free_v;
	}
	v->sd = sd;
	sd->rx_ring = kzalloc(bytes, GFP_KERNEL);
	sd->tx_ring = kzalloc(bytes, GFP_KERNEL);
	if (!sd->rx_ring || !sd->tx_ring) {
		err = -ENOMEM;
		goto free_v;
	}
	sd->hw = &smodem_hw_vline;
	sd->hw_priv = v;
	if (v->paired && k % 2) {
		struct vline *a = vlines[k - 1];

		/* a runs: the link is made under the lock both now share */
		v->lock = a->lock;
		raw_spin_lock_irqsave(v->lock, flags);
		v->peer = a;
		a->peer = v;
		raw_spin_unlock_irqrestore(v->lock, flags);
	}
	err = smodem_dev_register(sd);
	if (err)
		goto free_v;
	vlines[k] = v;
	return 0;

free_v:
	vline_free(v);
	return err;
}

static void vline_destroy(struct vline *v)
{
	smodem_dev_unregister(v->sd);
	vline_free(v);
}

static void vline_exit(void)
{
	while (vline_count)
		vline_destroy(vlines[--vline_count]);
}

/* Modems 0..devices-1; a failure removes the ones made, last first. */
static int vline_init(void)
{
	int err;

	vline_count = 0;
	while (vline_count < smodem_p.devices) {
		err = vline_create(vline_count);
		if (err) {
			pr_err("smodem: hw=vline: modem %u of %u failed (%d)\n",
			       vline_count, smodem_p.devices, err);
			vline_exit();
			return err;
		}
		vline_count++;
	}
	return 0;
}

const struct smodem_backend_ops smodem_hw_vline = {
	.name = "vline",
	.init = vline_init,
	.exit = vline_exit,
	.start = vline_start,
	.stop = vline_stop,
	.position = vline_position,
	.set_period = vline_set_period,
	.recover = vline_recover,
	.inject = vline_inject,
};
