// SPDX-License-Identifier: GPL-2.0
/*
 * The study's THR and RES: interrupt -> queue work for a kernel thread ->
 * the thread catches up on every complete period.  Only the thread's
 * scheduling class differs between the two, and that is decided before it
 * first runs.
 *
 * The thread is a kthread_worker given its policy with
 * sched_setattr_nocheck(), as cppc_cpufreq does for its SCHED_DEADLINE
 * worker.  Work queued while it is pending is the same work: the handler
 * coalesces, and smodem_run() catches up on every period the hardware has
 * completed, however many interrupts announced them.
 */
#include <linux/kthread.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "ctx_kthread.h"
#include "smodem_trace.h"

struct smodem_kthread {
	struct smodem_dev *sd;
	struct kthread_worker *worker;
	struct kthread_work work;
	u64 own[];			/* the context's own state */
};

void smodem_thread_activation(struct smodem_dev *sd)
{
	u64 t0 = ktime_get_ns(), t1, age;
	struct smodem_stolen_split split;
	unsigned int n;

	age = smodem_take_irq_age(sd, t0);
	smodem_stat_add(&sd->stats.wake_ns, age);
	trace_smodem_thread_wakeup(sd, age);
	smodem_stolen_begin(sd);
	n = smodem_run(sd);
	t1 = ktime_get_ns();
	if (smodem_stolen_end(sd, t1 - t0, &split) && sd->ctx->activated)
		sd->ctx->activated(sd, t1, &split);
	sd->stats.runs++;
	smodem_stat_add(&sd->stats.thr_ns, t1 - t0);
	if (age)
		smodem_stat_add(&sd->stats.resp_ns, age + t1 - t0);
	trace_smodem_thread_done(sd, t1 - t0, n);
}

static void smodem_kthread_work(struct kthread_work *w)
{
	smodem_thread_activation(container_of(w, struct smodem_kthread,
					      work)->sd);
}

int smodem_kthread_start(struct smodem_dev *sd, const struct sched_attr *a,
			 size_t own)
{
	struct smodem_kthread *k;
	int err;

	k = kzalloc(struct_size(k, own, DIV_ROUND_UP(own, sizeof(u64))),
		    GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	k->sd = sd;
	kthread_init_work(&k->work, smodem_kthread_work);
	/*
	 * The first modem keeps the name it had alone; the others are
	 * numbered.  cpus= binds the thread (-1: created unbound).
	 */
	if (sd->id)
		k->worker = kthread_create_worker_on_cpu(smodem_dev_cpu(sd), 0,
							 "smodem/%s/%u",
							 sd->ctx->name, sd->id);
	else
		k->worker = kthread_create_worker_on_cpu(smodem_dev_cpu(sd), 0,
							 "smodem/%s",
							 sd->ctx->name);
	if (IS_ERR(k->worker)) {
		err = PTR_ERR(k->worker);
		kfree(k);
		return err;
	}
	/* Before the first interrupt, so not one period runs otherwise. */
	err = smodem_sched_apply(k->worker->task, a);
	if (err) {
		kthread_destroy_worker(k->worker);
		kfree(k);
		return err;
	}
	sd->ctx_priv = k;
	return 0;
}

void smodem_kthread_stop(struct smodem_dev *sd)
{
	struct smodem_kthread *k = sd->ctx_priv;

	kthread_cancel_work_sync(&k->work);
	kthread_destroy_worker(k->worker);
	kfree(k);
	sd->ctx_priv = NULL;
}

void *smodem_kthread_own(const struct smodem_dev *sd)
{
	struct smodem_kthread *k = sd->ctx_priv;

	return k->own;
}

void smodem_kthread_kick(struct smodem_dev *sd)
{
	struct smodem_kthread *k = sd->ctx_priv;

	kthread_queue_work(k->worker, &k->work);
}

void smodem_kthread_show(struct smodem_dev *sd, struct seq_file *m)
{
	struct smodem_kthread *k = sd->ctx_priv;

	seq_puts(m, "exec kthread\n");
	smodem_sched_show(m, k->worker->task);
}
