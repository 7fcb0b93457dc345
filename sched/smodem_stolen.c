// SPDX-License-Identifier: GPL-2.0
/*
 * Stolen time (the augmented-reservation study, issue 12): how much of a
 * processing thread's activation went to hard interrupt handlers, to each
 * softirq and to other threads, rather than to the thread.  Debian's
 * kernels are built without IRQ_TIME_ACCOUNTING, so the scheduler charges
 * all of it to the thread (and to a SCHED_DEADLINE thread's budget); the
 * kernel's own tracepoints still see it.  The probes are attached by name
 * (for_each_kernel_tracepoint), as a tracer would, and count only while a
 * watched thread is the one interrupted or switched out.
 */
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "smodem.h"
#include "smodem_stolen.h"
#include "smodem_trace.h"

static struct smodem_dev *watched[SMODEM_DEVICES_MAX];

/* the kernel's softirq_to_name[], which is not exported */
static const char * const vec_name[] = {
	"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet",
	"sched", "hrtimer", "rcu",
};

struct stolen_cpu {
	struct smodem_dev *irq_sd, *sirq_sd;
	u64 irq_at, sirq_at, sirq_irq;
	unsigned int vec;
};

static DEFINE_PER_CPU(struct stolen_cpu, stolen_cpu);

static struct smodem_dev *watched_current(void)
{
	int i;

	for (i = 0; i < SMODEM_DEVICES_MAX; i++) {
		struct smodem_dev *sd = READ_ONCE(watched[i]);

		if (sd && READ_ONCE(sd->stolen.task) == current)
			return sd;
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
	WRITE_ONCE(c->irq_sd->stolen.irq, c->irq_sd->stolen.irq + d);
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
	st = &c->sirq_sd->stolen;
	d = local_clock() - c->sirq_at - c->sirq_irq;
	WRITE_ONCE(st->vec[vec], st->vec[vec] + d);
	WRITE_ONCE(st->softirq, st->softirq + d);
	c->sirq_sd = NULL;
}

static void probe_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	int i;

	for (i = 0; i < SMODEM_DEVICES_MAX; i++) {
		struct smodem_dev *sd = READ_ONCE(watched[i]);
		struct smodem_stolen *st;
		struct task_struct *t;

		if (!sd)
			continue;
		st = &sd->stolen;
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
		while (i--)
			if (tps[i].tp)
				tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL);
		tracepoint_synchronize_unregister();
		return err;
	}
	registered = true;
	return 0;
}

void smodem_stolen_exit(void)
{
	size_t i = ARRAY_SIZE(tps);

	if (!registered)
		return;
	while (i--)
		if (tps[i].tp)
			tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL);
	/* no probe runs, or will, once this returns */
	tracepoint_synchronize_unregister();
	registered = false;
}

void smodem_stolen_watch(struct smodem_dev *sd, bool on)
{
	if (!registered || sd->id >= SMODEM_DEVICES_MAX)
		return;
	WRITE_ONCE(watched[sd->id], on ? sd : NULL);
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
	WRITE_ONCE(st->task, current);
}

void smodem_stolen_end(struct smodem_dev *sd, u64 wall_ns,
		       struct smodem_stolen_split *out)
{
	struct smodem_stolen *st = &sd->stolen;
	u64 taken;
	int v;

	memset(out, 0, sizeof(*out));
	out->wall = wall_ns;
	out->ran = wall_ns;
	if (!registered)
		return;
	WRITE_ONCE(st->task, NULL);
	out->irq = READ_ONCE(st->irq);
	out->softirq = READ_ONCE(st->softirq);
	out->other = READ_ONCE(st->other);
	for (v = 0; v < NR_SOFTIRQS; v++) {
		out->vec[v] = READ_ONCE(st->vec[v]);
		st->vec_sum[v] += out->vec[v];
	}
	taken = out->irq + out->softirq + out->other;
	out->ran = wall_ns > taken ? wall_ns - taken : 0;
	st->n++;
	st->wall_sum += wall_ns;
	st->ran_sum += out->ran;
	st->irq_sum += out->irq;
	st->softirq_sum += out->softirq;
	st->other_sum += out->other;
	trace_smodem_stolen(sd, out->wall, out->ran, out->irq, out->softirq,
			    out->vec[NET_RX_SOFTIRQ], out->other);
}

void smodem_stolen_show(struct smodem_dev *sd, struct seq_file *m)
{
	const struct smodem_stolen *st = &sd->stolen;
	int v;

	BUILD_BUG_ON(ARRAY_SIZE(vec_name) != NR_SOFTIRQS);
	if (!registered)
		return;
	seq_printf(m, "stolen_activations %llu\n", st->n);
	seq_printf(m, "stolen_wall_ns %llu\n", st->wall_sum);
	seq_printf(m, "stolen_ran_ns %llu\n", st->ran_sum);
	seq_printf(m, "stolen_irq_ns %llu\n", st->irq_sum);
	seq_printf(m, "stolen_softirq_ns %llu\n", st->softirq_sum);
	for (v = 0; v < NR_SOFTIRQS; v++)
		seq_printf(m, "stolen_softirq_%s_ns %llu\n", vec_name[v],
			   st->vec_sum[v]);
	seq_printf(m, "stolen_other_ns %llu\n", st->other_sum);
}
