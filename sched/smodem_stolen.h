/* SPDX-License-Identifier: GPL-2.0 */
/* Stolen time: what a processing thread's activation lost, and to what. */
#ifndef SMODEM_STOLEN_H
#define SMODEM_STOLEN_H

#include <linux/interrupt.h>
#include <linux/types.h>

struct smodem_dev;
struct seq_file;
struct task_struct;

/* One activation's split, nanoseconds; wall = ran + irq + softirq + other. */
struct smodem_stolen_split {
	u64 wall, ran, irq, softirq, other;
	u64 vec[NR_SOFTIRQS];
};

/*
 * Per device.  The probes write the current activation's figures, on the
 * CPU the thread runs on, only while task is set; the thread reads them
 * after clearing it.
 */
struct smodem_stolen {
	struct task_struct *task;	/* the thread, during an activation */
	u64 irq, softirq, other;
	u64 vec[NR_SOFTIRQS];
	u64 out_at;			/* switched out at, 0: running */
	u64 begin_ns;			/* the activation's start (ktime) */
	/* totals since load or reset */
	struct smodem_stolen_sums {
		u64 n, wall, ran, irq, softirq, other;
		u64 vec[NR_SOFTIRQS];
	} sum;
};

/* Probes on the kernel's irq, softirq and sched_switch tracepoints. */
int smodem_stolen_init(void);
void smodem_stolen_exit(void);
/* The device's thread is watched from now on (its start) or no longer. */
void smodem_stolen_watch(struct smodem_dev *sd, bool on);
void smodem_stolen_begin(struct smodem_dev *sd);
/* What the thread itself has run of the activation so far, nanoseconds. */
u64 smodem_stolen_ran_so_far(struct smodem_dev *sd, u64 now_ns);
/*
 * Ends the activation begun wall_ns ago: its split, traced and summed.
 * False, out untouched, when there is no accounting (stolen=0).
 */
bool smodem_stolen_end(struct smodem_dev *sd, u64 wall_ns,
		       struct smodem_stolen_split *out);
void smodem_stolen_show(struct smodem_dev *sd, struct seq_file *m);
/* debugfs stolen_watch under root (stolen=1 only) */
struct dentry;
void smodem_stolen_debugfs(struct dentry *root);

#endif
