// SPDX-License-Identifier: GPL-2.0
/*
 * The thread contexts' scheduling: a chosen SCHED_FIFO priority (thr) or a
 * SCHED_DEADLINE reservation (res, the Linux form of the study's Rialto/NT
 * "X ms every Y ms").  sched_setattr_nocheck() is the one exported way to
 * give a kthread either, as cppc_cpufreq does for its deadline worker.
 */
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/time64.h>
#include "smodem_sched.h"

void smodem_sched_fifo(struct sched_attr *a, u32 prio)
{
	*a = (struct sched_attr){
		.size = sizeof(*a),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
}

void smodem_sched_other(struct sched_attr *a, s32 nice)
{
	*a = (struct sched_attr){
		.size = sizeof(*a),
		.sched_policy = SCHED_NORMAL,
		.sched_nice = nice,
	};
}

void smodem_sched_deadline(struct sched_attr *a, u32 runtime_us,
			   u32 deadline_us, u32 period_us)
{
	*a = (struct sched_attr){
		.size = sizeof(*a),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = (u64)runtime_us * NSEC_PER_USEC,
		.sched_deadline = (u64)(deadline_us ?: period_us) *
				  NSEC_PER_USEC,
		.sched_period = (u64)period_us * NSEC_PER_USEC,
	};
}

int smodem_sched_apply(struct task_struct *t, const struct sched_attr *a)
{
	int err = sched_setattr_nocheck(t, a);

	if (err == -EBUSY)
		pr_err("smodem: SCHED_DEADLINE admission refused %llu/%llu us: not enough deadline bandwidth left (see /proc/sys/kernel/sched_rt_runtime_us)\n",
		       div_u64(a->sched_runtime, NSEC_PER_USEC),
		       div_u64(a->sched_period, NSEC_PER_USEC));
	else if (err)
		pr_err("smodem: cannot set scheduling policy %u: %d\n",
		       a->sched_policy, err);
	return err;
}

static const char *policy_name(unsigned int policy)
{
	switch (policy) {
	case SCHED_NORMAL:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_DEADLINE:
		return "SCHED_DEADLINE";
	default:
		return "other";
	}
}

void smodem_sched_show(struct seq_file *m, struct task_struct *t)
{
	seq_printf(m, "thread_pid %d\n", task_pid_nr(t));
	seq_printf(m, "policy %s\n", policy_name(t->policy));
	seq_printf(m, "rt_priority %u\n", t->rt_priority);
	if (t->policy == SCHED_NORMAL)
		seq_printf(m, "nice %d\n", task_nice(t));
	if (t->policy == SCHED_DEADLINE) {
		seq_printf(m, "dl_runtime_ns %llu\n", t->dl.dl_runtime);
		seq_printf(m, "dl_deadline_ns %llu\n", t->dl.dl_deadline);
		seq_printf(m, "dl_period_ns %llu\n", t->dl.dl_period);
		seq_printf(m, "dl_flags %#x\n", t->dl.flags);
	}
}
