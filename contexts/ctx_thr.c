// SPDX-License-Identifier: GPL-2.0
/*
 * context=thr: a SCHED_FIFO kernel thread at prio=.  The study's THR-24
 * kept every buffer healthy; THR-8 under a busy competitor lost the call.
 */
#include "ctx_kthread.h"

static int thr_start(struct smodem_dev *sd)
{
	struct sched_attr a;

	smodem_sched_fifo(&a, sd->p.prio);
	return smodem_kthread_start(sd, &a, 0);
}

const struct smodem_ctx_ops smodem_ctx_thr = {
	.name = "thr",
	.start = thr_start,
	.stop = smodem_kthread_stop,
	.kick = smodem_kthread_kick,
	.show = smodem_kthread_show,
};
