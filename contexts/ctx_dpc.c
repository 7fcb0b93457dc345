// SPDX-License-Identifier: GPL-2.0
/*
 * context=dpc: the study's deferred procedure call as a tasklet.  The
 * handler only counts the period and schedules the tasklet, which then
 * catches up on every complete period.  Tasklets are on their way out (BH
 * workqueues replace them from 6.9 on: context=bhw) but every kernel still
 * has them, so dpc means the same thing on each.
 */
#include <linux/interrupt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "ctx_bh.h"
#include "smodem_trace.h"

struct dpc {
	struct smodem_bh bh;
	struct tasklet_struct tasklet;
};

void smodem_bh_run(struct smodem_bh *b)
{
	struct smodem_dev *sd = b->sd;
	u64 t0 = ktime_get_ns(), t1, age;
	u32 queued = atomic_xchg(&b->queued, 0);
	unsigned int n;

	age = smodem_take_irq_age(sd, t0);
	smodem_stat_add(&sd->stats.wake_ns, age);
	trace_smodem_dpc_entry(sd, queued, age);
	n = smodem_run(sd);
	t1 = ktime_get_ns();
	sd->stats.runs++;
	smodem_stat_add(&sd->stats.dpc_ns, t1 - t0);
	trace_smodem_dpc_exit(sd, t1 - t0, n);
}

static void dpc_tasklet(struct tasklet_struct *t)
{
	smodem_bh_run(&container_of(t, struct dpc, tasklet)->bh);
}

static int dpc_start(struct smodem_dev *sd)
{
	struct dpc *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->bh.sd = sd;
	tasklet_setup(&d->tasklet, dpc_tasklet);
	sd->ctx_priv = d;
	return 0;
}

static void dpc_stop(struct smodem_dev *sd)
{
	struct dpc *d = sd->ctx_priv;

	tasklet_kill(&d->tasklet);
	kfree(d);
	sd->ctx_priv = NULL;
}

static void dpc_kick(struct smodem_dev *sd)
{
	struct dpc *d = sd->ctx_priv;

	atomic_inc(&d->bh.queued);
	tasklet_schedule(&d->tasklet);
}

static void dpc_show(struct smodem_dev *sd, struct seq_file *m)
{
	seq_puts(m, "exec tasklet\n");
}

const struct smodem_ctx_ops smodem_ctx_dpc = {
	.name = "dpc",
	.start = dpc_start,
	.stop = dpc_stop,
	.kick = dpc_kick,
	.show = dpc_show,
};
