// SPDX-License-Identifier: GPL-2.0
/*
 * The study's THR and RES: interrupt -> wake a kernel thread -> the thread
 * catches up on every complete period.  Only the thread's scheduling class
 * differs between the two, and that is decided before it first runs.
 */
#include <linux/kthread.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "ctx_kthread.h"
#include "smodem_trace.h"

struct smodem_kthread {
	struct smodem_dev *sd;
	struct task_struct *task;
	atomic_t kicks;
};

static int smodem_kthread_fn(void *data)
{
	struct smodem_kthread *k = data;
	struct smodem_dev *sd = k->sd;

	while (!kthread_should_stop()) {
		u64 t0, t1, age;
		unsigned int n;

		set_current_state(TASK_INTERRUPTIBLE);
		if (!atomic_read(&k->kicks) && !kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
		if (!atomic_xchg(&k->kicks, 0))
			continue;

		t0 = ktime_get_ns();
		age = smodem_take_irq_age(sd, t0);
		smodem_stat_add(&sd->st.wake_ns, age);
		trace_smodem_thread_wakeup(sd, age, current->policy,
					   current->rt_priority);
		n = smodem_run(sd);
		t1 = ktime_get_ns();
		sd->st.runs++;
		smodem_stat_add(&sd->st.thr_ns, t1 - t0);
		trace_smodem_thread_done(sd, t1 - t0, n);
	}
	return 0;
}

int smodem_kthread_start(struct smodem_dev *sd, const struct sched_attr *a)
{
	struct smodem_kthread *k;
	int err;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	k->sd = sd;
	atomic_set(&k->kicks, 0);
	k->task = kthread_create(smodem_kthread_fn, k, "smodem/%s",
				 sd->ctx->name);
	if (IS_ERR(k->task)) {
		err = PTR_ERR(k->task);
		kfree(k);
		return err;
	}
	/* Before the first run, so not one period is processed otherwise. */
	err = smodem_sched_apply(k->task, a);
	if (err) {
		kthread_stop(k->task);
		kfree(k);
		return err;
	}
	sd->ctx_priv = k;
	wake_up_process(k->task);
	return 0;
}

void smodem_kthread_stop(struct smodem_dev *sd)
{
	struct smodem_kthread *k = sd->ctx_priv;

	kthread_stop(k->task);
	kfree(k);
	sd->ctx_priv = NULL;
}

void smodem_kthread_kick(struct smodem_dev *sd)
{
	struct smodem_kthread *k = sd->ctx_priv;

	atomic_inc(&k->kicks);
	wake_up_process(k->task);
}

void smodem_kthread_show(struct smodem_dev *sd, struct seq_file *m)
{
	struct smodem_kthread *k = sd->ctx_priv;

	seq_puts(m, "exec kthread\n");
	smodem_sched_show(m, k->task);
}
