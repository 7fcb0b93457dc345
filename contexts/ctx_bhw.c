// SPDX-License-Identifier: GPL-2.0
/*
 * context=bhw: the deferred call as BH workqueue work (system_bh_wq, 6.9+),
 * what replaces the tasklet of context=dpc.  It runs in the same softirq
 * (TASKLET_SOFTIRQ) on the CPU that queued it, so the two should measure
 * alike; what differs is the machinery around the call.  Without
 * system_bh_wq the parameter check refuses context=bhw, and this file only
 * provides an empty table entry.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "ctx_bh.h"

#ifdef SMODEM_HAVE_BH_WQ
struct bhw {
	struct smodem_bh bh;
	struct work_struct work;
};

static void bhw_work(struct work_struct *w)
{
	smodem_bh_run(&container_of(w, struct bhw, work)->bh);
}

static int bhw_start(struct smodem_dev *sd)
{
	struct bhw *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return -ENOMEM;
	b->bh.sd = sd;
	INIT_WORK(&b->work, bhw_work);
	sd->ctx_priv = b;
	return 0;
}

static void bhw_stop(struct smodem_dev *sd)
{
	struct bhw *b = sd->ctx_priv;

	cancel_work_sync(&b->work);
	kfree(b);
	sd->ctx_priv = NULL;
}

static void bhw_kick(struct smodem_dev *sd)
{
	struct bhw *b = sd->ctx_priv;

	atomic_inc(&b->bh.queued);
	queue_work(system_bh_wq, &b->work);
}
#else
static int bhw_start(struct smodem_dev *sd)
{
	return -EOPNOTSUPP;
}

static void bhw_stop(struct smodem_dev *sd)
{
}

static void bhw_kick(struct smodem_dev *sd)
{
}
#endif

static void bhw_show(struct smodem_dev *sd, struct seq_file *m)
{
	seq_puts(m, "exec bh_work\n");
}

const struct smodem_ctx_ops smodem_ctx_bhw = {
	.name = "bhw",
	.start = bhw_start,
	.stop = bhw_stop,
	.kick = bhw_kick,
	.show = bhw_show,
};
