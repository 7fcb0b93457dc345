// SPDX-License-Identifier: GPL-2.0
/*
 * context=dpc: the study's deferred procedure call.  The handler only counts
 * the period and queues a bottom half, which then catches up on every
 * complete period.  A tasklet before 6.9; BH work from 6.9 on, where tasklets
 * are on their way out and system_bh_wq is the same softirq context
 * (SMODEM_HAVE_BH_WQ is probed from the headers by Kbuild).
 */
#include <linux/interrupt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "smodem.h"
#include "smodem_trace.h"

struct dpc {
	struct smodem_dev *sd;
	atomic_t queued;	/* periods announced since the last run */
#ifdef SMODEM_HAVE_BH_WQ
	struct work_struct work;
#else
	struct tasklet_struct tasklet;
#endif
};

static void dpc_run(struct dpc *d)
{
	struct smodem_dev *sd = d->sd;
	u64 t0 = ktime_get_ns(), t1, age;
	u32 queued = atomic_xchg(&d->queued, 0);
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

#ifdef SMODEM_HAVE_BH_WQ
static void dpc_work(struct work_struct *w)
{
	dpc_run(container_of(w, struct dpc, work));
}
#else
static void dpc_tasklet(struct tasklet_struct *t)
{
	dpc_run(container_of(t, struct dpc, tasklet));
}
#endif

static int dpc_start(struct smodem_dev *sd)
{
	struct dpc *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->sd = sd;
	atomic_set(&d->queued, 0);
#ifdef SMODEM_HAVE_BH_WQ
	INIT_WORK(&d->work, dpc_work);
#else
	tasklet_setup(&d->tasklet, dpc_tasklet);
#endif
	sd->ctx_priv = d;
	return 0;
}

static void dpc_stop(struct smodem_dev *sd)
{
	struct dpc *d = sd->ctx_priv;

#ifdef SMODEM_HAVE_BH_WQ
	cancel_work_sync(&d->work);
#else
	tasklet_kill(&d->tasklet);
#endif
	kfree(d);
	sd->ctx_priv = NULL;
}

static void dpc_kick(struct smodem_dev *sd)
{
	struct dpc *d = sd->ctx_priv;

	atomic_inc(&d->queued);
#ifdef SMODEM_HAVE_BH_WQ
	queue_work(system_bh_wq, &d->work);
#else
	tasklet_schedule(&d->tasklet);
#endif
}

static void dpc_show(struct smodem_dev *sd, struct seq_file *m)
{
#ifdef SMODEM_HAVE_BH_WQ
	seq_puts(m, "exec bh_work\n");
#else
	seq_puts(m, "exec tasklet\n");
#endif
}

const struct smodem_ctx_ops smodem_ctx_dpc = {
	.name = "dpc",
	.start = dpc_start,
	.stop = dpc_stop,
	.kick = dpc_kick,
	.show = dpc_show,
};
