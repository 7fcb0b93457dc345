// SPDX-License-Identifier: GPL-2.0
/*
 * context=oth: a SCHED_OTHER kernel thread at nice=.  The study's THR-8 was
 * an NT priority in the time-sharing range, and it lost the call to a
 * normal-priority program that never blocks; on Linux the same mistake is a
 * thread left in the fair class, where a busy competitor gets the CPU in
 * proportion to its weight however late the modem's periods are.
 */
#include "ctx_kthread.h"

static int oth_start(struct smodem_dev *sd)
{
	struct sched_attr a;

	smodem_sched_other(&a, sd->p.nice);
	return smodem_kthread_start(sd, &a, 0);
}

const struct smodem_ctx_ops smodem_ctx_oth = {
	.name = "oth",
	.start = oth_start,
	.stop = smodem_kthread_stop,
	.kick = smodem_kthread_kick,
	.show = smodem_kthread_show,
};
