// SPDX-License-Identifier: GPL-2.0
/*
 * context=irqt: the way Linux drivers defer work today, which the study
 * could not have.  The backend registers the processing as its interrupt's
 * thread function (request_threaded_irq()); its hard handler acks the
 * device and returns IRQ_WAKE_THREAD for a period, and the IRQ core's
 * irq/<n>-smodem thread catches up on every complete period.  Unlike thr,
 * the thread and its scheduling are the IRQ core's (SCHED_FIFO 50, what
 * every IRQ thread gets; chrt changes it as for any other): the stats file
 * shows what it really holds.  An interrupt that comes while the thread
 * runs makes it run once more (IRQTF_RUNTHREAD), so none is lost.
 */
#include <linux/interrupt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "ctx_kthread.h"

struct irqt {
	/* the IRQ thread, once it has run: it lives until free_irq() */
	struct task_struct *task;
};

static int irqt_start(struct smodem_dev *sd)
{
	struct irqt *it = kzalloc(sizeof(*it), GFP_KERNEL);

	if (!it)
		return -ENOMEM;
	sd->ctx_priv = it;
	return 0;
}

/* After the backend's free_irq(): the thread has stopped. */
static void irqt_stop(struct smodem_dev *sd)
{
	kfree(sd->ctx_priv);
	sd->ctx_priv = NULL;
}

/* The hard handler's IRQ_WAKE_THREAD is the kick. */
static void irqt_kick(struct smodem_dev *sd)
{
}

static irqreturn_t irqt_thread(struct smodem_dev *sd)
{
	struct irqt *it = sd->ctx_priv;

	WRITE_ONCE(it->task, current);
	smodem_thread_activation(sd);
	return IRQ_HANDLED;
}

static void irqt_show(struct smodem_dev *sd, struct seq_file *m)
{
	struct irqt *it = sd->ctx_priv;
	struct task_struct *t = READ_ONCE(it->task);

	seq_puts(m, "exec irq_thread\n");
	if (t)
		smodem_sched_show(m, t);
}

const struct smodem_ctx_ops smodem_ctx_irqt = {
	.name = "irqt",
	.start = irqt_start,
	.stop = irqt_stop,
	.kick = irqt_kick,
	.irq_thread = irqt_thread,
	.show = irqt_show,
};
