// SPDX-License-Identifier: GPL-2.0
/*
 * Stolen time (the augmented-reservation study): how much of a
 * processing thread's activation went to hard interrupt handlers, to each
 * softirq and to other threads, rather than to the thread.  Debian's
 * kernels are built without IRQ_TIME_ACCOUNTING, so the scheduler charges
 * all of it to the thread (and to a SCHED_DEADLINE thread's budget); the
 * kernel's own tracepoints still see it.  The probes are attached by name
 * (for_each_kernel_tracepoint), as a tracer would, and count only while a
 * watched thread is the one interrupted or switched out.
 *
 * Besides the devices' threads, debugfs stolen_watch takes up to
 * WATCH_TASKS thread ids ("TID" to start, "-TID" to stop) and counts for
 * them all the time: the study's user-space detector (a thread polling the
 * clock) is compared with this accounting on its own thread.
 */
#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "smodem.h"
#include "smodem_stolen.h"
#include "smodem_trace.h"

#define WATCH_TASKS	4

/* devices' threads by id, then the debugfs-named tasks */
static struct smodem_stolen *watched[SMODEM_DEVICES_MAX + WATCH_TASKS];

static struct watch_task {
	struct smodem_stolen st;
	u64 since_ns;
	pid_t tid;
} wtasks[WATCH_TASKS];
static DEFINE_MUTEX(wtask_lock);

/* the kernel's softirq_to_name[], which is not exported */
static const char * const vec_name[] = {
	"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet",
	"sched", "hrtimer", "rcu",
};

struct stolen_cpu {
	struct smodem_stolen *irq_sd, *sirq_sd;
	u64 irq_at, sirq_at, sirq_irq;
	unsigned int vec;
};

static DEFINE_PER_CPU(struct stolen_cpu, stolen_cpu);

static struct smodem_stolen *watched_current(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		struct smodem_stolen *st = READ_ONCE(watched[i]);

		if (st && READ_ONCE(st->task) == current)
			return st;
	}
	return NULL;
}

static void probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	struct stolen_cpu *c = raw_cpu_ptr(&stolen_cpu);

	c->irq_sd = watched_current();
	if (c->irq_sd)
		c->irq_at = local_clock();
}

static void probe_irq_exit(void *data, int irq, struct irqaction *action,
			   int ret)
{
	struct stolen_cpu *c = raw_cpu_ptr(&stolen_cpu);
	u64 d;

	if (!c->irq_sd)
		return;
	/* (the local timer's probes share these: it never nests in a handler) */
	d = local_clock() - c->irq_at;
	WRITE_ONCE(c->irq_sd->irq, c->irq_sd->irq + d);
	/* a handler inside a softirq: not the softirq's own time */
	if (c->sirq_sd == c->irq_sd)
		c->sirq_irq += d;
	c->irq_sd = NULL;
}

/* x86's local APIC timer does not pass through irq_handler_entry/exit */
static void probe_timer_entry(void *data, int vector)
{
	probe_irq_entry(data, 0, NULL);
}

static void probe_timer_exit(void *data, int vector)
{
	probe_irq_exit(data, 0, NULL, 0);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	struct stolen_cpu *c = raw_cpu_ptr(&stolen_cpu);

	c->sirq_sd = vec < NR_SOFTIRQS ? watched_current() : NULL;
	if (!c->sirq_sd)
		return;
	c->vec = vec;
	c->sirq_irq = 0;
	c->sirq_at = local_clock();
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	struct stolen_cpu *c = raw_cpu_ptr(&stolen_cpu);
	struct smodem_stolen *st;
	u64 d;

	if (!c->sirq_sd || c->vec != vec)
		return;
	st = c->sirq_sd;
	d = local_clock() - c->sirq_at - c->sirq_irq;
	WRITE_ONCE(st->vec[vec], st->vec[vec] + d);
	WRITE_ONCE(st->softirq, st->softirq + d);
	c->sirq_sd = NULL;
}

static void probe_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		struct smodem_stolen *st = READ_ONCE(watched[i]);
		struct task_struct *t;

		if (!st)
			continue;
		t = READ_ONCE(st->task);
		if (!t)
			continue;
		if (prev == t) {
			WRITE_ONCE(st->out_at, local_clock());
		} else if (next == t && st->out_at) {
			WRITE_ONCE(st->other, st->other + local_clock() - st->out_at);
			WRITE_ONCE(st->out_at, 0);
		}
	}
}

static struct {
	const char *name;
	void *probe;
	bool optional;			/* an architecture's own */
	struct tracepoint *tp;
} tps[] = {
	{ "irq_handler_entry", probe_irq_entry },
	{ "irq_handler_exit", probe_irq_exit },
	{ "local_timer_entry", probe_timer_entry, true },
	{ "local_timer_exit", probe_timer_exit, true },
	{ "softirq_entry", probe_softirq_entry },
	{ "softirq_exit", probe_softirq_exit },
	{ "sched_switch", probe_switch },
};

static void find_tp(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tps); i++)
		if (!strcmp(tp->name, tps[i].name))
			tps[i].tp = tp;
}

static bool registered;

/* the first n probes off; none runs, or will, once this returns */
static void detach(size_t n)
{
	while (n--)
		if (tps[n].tp)
			tracepoint_probe_unregister(tps[n].tp, tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

int smodem_stolen_init(void)
{
	size_t i;
	int err = 0;

	for_each_kernel_tracepoint(find_tp, NULL);
	/* both halves of a pair or neither */
	for (i = 0; i < ARRAY_SIZE(tps); i++)
		if (tps[i].optional && !tps[i ^ 1].tp)
			tps[i].tp = NULL;
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		if (!tps[i].tp && tps[i].optional)
			continue;
		if (!tps[i].tp) {
			pr_err("smodem: stolen=1: the kernel has no %s tracepoint\n",
			       tps[i].name);
			err = -ENOENT;
			break;
		}
		err = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (err) {
			pr_err("smodem: stolen=1: cannot attach to %s: %d\n",
			       tps[i].name, err);
			break;
		}
	}
	if (err) {
		detach(i);
		return err;
	}
	registered = true;
	return 0;
}

static void wtask_stop(struct watch_task *w)
{
	struct task_struct *t = w->st.task;

	WRITE_ONCE(watched[SMODEM_DEVICES_MAX + (w - wtasks)], NULL);
	tracepoint_synchronize_unregister();
	w->st.task = NULL;
	w->tid = 0;
	put_task_struct(t);
}

void smodem_stolen_exit(void)
{
	size_t i;

	if (!registered)
		return;
	for (i = 0; i < WATCH_TASKS; i++)
		if (wtasks[i].tid)
			wtask_stop(&wtasks[i]);
	detach(ARRAY_SIZE(tps));
	registered = false;
}

void smodem_stolen_watch(struct smodem_dev *sd, bool on)
{
	if (!registered || sd->id >= SMODEM_DEVICES_MAX)
		return;
	WRITE_ONCE(watched[sd->id], on ? &sd->stolen : NULL);
	if (!on)
		tracepoint_synchronize_unregister();
}

void smodem_stolen_begin(struct smodem_dev *sd)
{
	struct smodem_stolen *st = &sd->stolen;

	if (!registered)
		return;
	WRITE_ONCE(st->irq, 0);
	WRITE_ONCE(st->softirq, 0);
	WRITE_ONCE(st->other, 0);
	WRITE_ONCE(st->out_at, 0);
	memset(st->vec, 0, sizeof(st->vec));
	st->begin_ns = ktime_get_ns();
	WRITE_ONCE(st->task, current);
}

u64 smodem_stolen_ran_so_far(struct smodem_dev *sd, u64 now_ns)
{
	struct smodem_stolen *st = &sd->stolen;
	u64 wall = now_ns - st->begin_ns;
	u64 taken = READ_ONCE(st->irq) + READ_ONCE(st->softirq) +
		    READ_ONCE(st->other);

	return wall > taken ? wall - taken : 0;
}

bool smodem_stolen_end(struct smodem_dev *sd, u64 wall_ns,
		       struct smodem_stolen_split *out)
{
	struct smodem_stolen *st = &sd->stolen;
	u64 taken;
	int v;

	if (!registered)
		return false;
	WRITE_ONCE(st->task, NULL);
	out->wall = wall_ns;
	out->irq = READ_ONCE(st->irq);
	out->softirq = READ_ONCE(st->softirq);
	out->other = READ_ONCE(st->other);
	for (v = 0; v < NR_SOFTIRQS; v++) {
		out->vec[v] = READ_ONCE(st->vec[v]);
		st->sum.vec[v] += out->vec[v];
	}
	taken = out->irq + out->softirq + out->other;
	out->ran = wall_ns > taken ? wall_ns - taken : 0;
	st->sum.n++;
	st->sum.wall += wall_ns;
	st->sum.ran += out->ran;
	st->sum.irq += out->irq;
	st->sum.softirq += out->softirq;
	st->sum.other += out->other;
	trace_smodem_stolen(sd, out->wall, out->ran, out->irq, out->softirq,
			    out->vec[NET_RX_SOFTIRQ], out->other);
	return true;
}

void smodem_stolen_show(struct smodem_dev *sd, struct seq_file *m)
{
	const struct smodem_stolen *st = &sd->stolen;
	int v;

	BUILD_BUG_ON(ARRAY_SIZE(vec_name) != NR_SOFTIRQS);
	if (!registered)
		return;
	seq_printf(m, "stolen_activations %llu\n", st->sum.n);
	seq_printf(m, "stolen_wall_ns %llu\n", st->sum.wall);
	seq_printf(m, "stolen_ran_ns %llu\n", st->sum.ran);
	seq_printf(m, "stolen_irq_ns %llu\n", st->sum.irq);
	seq_printf(m, "stolen_softirq_ns %llu\n", st->sum.softirq);
	for (v = 0; v < NR_SOFTIRQS; v++)
		seq_printf(m, "stolen_softirq_%s_ns %llu\n", vec_name[v],
			   st->sum.vec[v]);
	seq_printf(m, "stolen_other_ns %llu\n", st->sum.other);
}

/* -- debugfs stolen_watch: tasks watched all the time ---------------------- */

static int wtask_start(pid_t tid)
{
	struct watch_task *w = NULL;
	struct task_struct *t;
	struct pid *pid;
	size_t i;

	for (i = 0; i < WATCH_TASKS; i++) {
		if (wtasks[i].tid == tid)
			return -EEXIST;
		if (!wtasks[i].tid && !w)
			w = &wtasks[i];
	}
	if (!w)
		return -ENOSPC;
	pid = find_get_pid(tid);
	t = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!t)
		return -ESRCH;
	memset(&w->st, 0, sizeof(w->st));
	w->st.task = t;
	w->tid = tid;
	w->since_ns = local_clock();
	WRITE_ONCE(watched[SMODEM_DEVICES_MAX + (w - wtasks)], &w->st);
	return 0;
}

static ssize_t watch_write(struct file *f, const char __user *ubuf, size_t n,
			   loff_t *off)
{
	int tid, err;
	size_t i;

	err = kstrtoint_from_user(ubuf, n, 10, &tid);
	if (err)
		return err;
	if (!tid)
		return -EINVAL;
	mutex_lock(&wtask_lock);
	if (tid > 0) {
		err = wtask_start(tid);
	} else {
		err = -ESRCH;
		for (i = 0; i < WATCH_TASKS; i++)
			if (wtasks[i].tid == -tid) {
				wtask_stop(&wtasks[i]);
				err = 0;
			}
	}
	mutex_unlock(&wtask_lock);
	return err ? err : n;
}

static int watch_show(struct seq_file *m, void *unused)
{
	size_t i;

	mutex_lock(&wtask_lock);
	for (i = 0; i < WATCH_TASKS; i++) {
		const struct watch_task *w = &wtasks[i];

		if (!w->tid)
			continue;
		seq_printf(m, "tid %d wall_ns %llu irq_ns %llu softirq_ns %llu net_rx_ns %llu other_ns %llu\n",
			   w->tid, local_clock() - w->since_ns, READ_ONCE(w->st.irq),
			   READ_ONCE(w->st.softirq), READ_ONCE(w->st.vec[NET_RX_SOFTIRQ]),
			   READ_ONCE(w->st.other));
	}
	mutex_unlock(&wtask_lock);
	return 0;
}

static int watch_open(struct inode *inode, struct file *f)
{
	return single_open(f, watch_show, NULL);
}

static const struct file_operations watch_fops = {
	.owner = THIS_MODULE,
	.open = watch_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = watch_write,
};

void smodem_stolen_debugfs(struct dentry *root)
{
	if (registered)
		debugfs_create_file("stolen_watch", 0600, root, NULL, &watch_fops);
}
