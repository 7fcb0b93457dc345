/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduling attributes of the processing threads: apply, and read back. */
#ifndef SMODEM_SCHED_H
#define SMODEM_SCHED_H

#include <linux/sched.h>
#include <uapi/linux/sched/types.h>

struct seq_file;

void smodem_sched_fifo(struct sched_attr *a, u32 prio);
void smodem_sched_other(struct sched_attr *a, s32 nice);
void smodem_sched_deadline(struct sched_attr *a, u32 runtime_us,
			   u32 deadline_us, u32 period_us);
int smodem_sched_apply(struct task_struct *t, const struct sched_attr *a);
/* What the scheduler actually holds for t, as "name value" lines. */
void smodem_sched_show(struct seq_file *m, struct task_struct *t);

#endif
