// SPDX-License-Identifier: GPL-2.0
/*
 * hw=vline: a DMA engine made of an hrtimer, for machines without an AC'97
 * controller.  The timer fires in hard IRQ context (also on PREEMPT_RT) once
 * per period like the controller's interrupt; the "hardware position" is
 * derived from the clock, and the line is an in-kernel loopback: what the
 * pump wrote to the output ring comes back in the input ring as the output
 * engine plays it, tx_lead frames later.
 */
#include <linux/kernel.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "smodem.h"
#include <linux/delay.h>
#include "smodem_ring.h"
#include "smodem_trace.h"

struct vline {
	struct smodem_dev *sd;
	struct hrtimer timer;
	raw_spinlock_t lock;	/* the engine's position and the loopback */
	u64 t0;			/* ns when the engine started */
	u64 moved;		/* frames moved through the loopback */
	u64 interval;		/* ns between period interrupts */
	bool stopping;
};

static struct smodem_dev *vline_dev;

/*
 * The engine moves frames when anyone looks at it, so that the position read
 * at any instant is exact and the data up to it is really in the ring.
 */
static u64 vline_advance(struct vline *v)
{
	struct smodem_dev *sd = v->sd;
	u64 now = div_u64((ktime_get_ns() - v->t0) * sd->p.rate, NSEC_PER_SEC);

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
	return v->moved;
}

static u64 vline_position(struct smodem_dev *sd, u64 *tx_pos)
{
	struct vline *v = sd->hw_priv;
	unsigned long flags;
	u64 pos;

	raw_spin_lock_irqsave(&v->lock, flags);
	pos = vline_advance(v);
	raw_spin_unlock_irqrestore(&v->lock, flags);
	if (tx_pos)
		*tx_pos = pos;
	return pos;
}

static enum hrtimer_restart vline_tick(struct hrtimer *t)
{
	struct vline *v = container_of(t, struct vline, timer);
	struct smodem_dev *sd = v->sd;
	u64 t0 = ktime_get_ns(), t1, pos;

	if (unlikely(sd->stall_ms)) {
		mdelay(sd->stall_ms);
		sd->stall_ms = 0;
	}
	raw_spin_lock(&v->lock);
	pos = vline_advance(v);
	raw_spin_unlock(&v->lock);
	smodem_irq(sd, pos);
	t1 = ktime_get_ns();
	smodem_stat_add(&sd->stats.isr_ns, t1 - t0);
	trace_smodem_isr_exit(sd, t1 - t0);
	if (READ_ONCE(v->stopping))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(READ_ONCE(v->interval)));
	return HRTIMER_RESTART;
}

static void vline_set_period(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;

	WRITE_ONCE(v->interval, smodem_period_ns(READ_ONCE(sd->period),
						 sd->p.rate));
}

static int vline_start(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;

	v->interval = smodem_period_ns(sd->p.period, sd->p.rate);
	v->moved = 0;
	v->stopping = false;
	v->t0 = ktime_get_ns();
	hrtimer_start(&v->timer, ns_to_ktime(v->interval),
		      HRTIMER_MODE_REL_HARD);
	return 0;
}

static void vline_stop(struct smodem_dev *sd)
{
	struct vline *v = sd->hw_priv;

	WRITE_ONCE(v->stopping, true);
	hrtimer_cancel(&v->timer);
}

static int vline_init(void)
{
	struct smodem_dev *sd;
	struct vline *v;
	size_t bytes = smodem_p.ring * 2 * sizeof(s16);
	int err = -ENOMEM;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	raw_spin_lock_init(&v->lock);
	hrtimer_init(&v->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	v->timer.function = vline_tick;

	sd = smodem_dev_alloc("vline0", NULL);
	if (IS_ERR(sd)) {
		err = PTR_ERR(sd);
		goto free_v;
	}
	sd->rx_ring = kzalloc(bytes, GFP_KERNEL);
	sd->tx_ring = kzalloc(bytes, GFP_KERNEL);
	if (!sd->rx_ring || !sd->tx_ring)
		goto free_sd;
	sd->hw = &smodem_hw_vline;
	sd->hw_priv = v;
	v->sd = sd;
	err = smodem_dev_register(sd);
	if (err)
		goto free_sd;
	vline_dev = sd;
	return 0;

free_sd:
	kfree(sd->rx_ring);
	kfree(sd->tx_ring);
	smodem_dev_free(sd);
free_v:
	kfree(v);
	return err;
}

static void vline_exit(void)
{
	struct smodem_dev *sd = vline_dev;
	struct vline *v = sd->hw_priv;

	smodem_dev_unregister(sd);
	kfree(sd->rx_ring);
	kfree(sd->tx_ring);
	smodem_dev_free(sd);
	kfree(v);
	vline_dev = NULL;
}

const struct smodem_backend_ops smodem_hw_vline = {
	.name = "vline",
	.init = vline_init,
	.exit = vline_exit,
	.start = vline_start,
	.stop = vline_stop,
	.position = vline_position,
	.set_period = vline_set_period,
};
