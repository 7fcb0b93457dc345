// SPDX-License-Identifier: GPL-2.0
/*
 * context=res: a CPU reservation, res_runtime_us of CPU every res_period_us,
 * as a SCHED_DEADLINE kernel thread.  The study's model: X/Y works iff
 * X/Y covers the load and Y - X does not exceed the interrupt period.
 */
#include "ctx_kthread.h"

static int res_start(struct smodem_dev *sd)
{
	struct sched_attr a;

	smodem_sched_deadline(&a, sd->p.res_runtime_us, sd->p.res_deadline_us,
			      sd->p.res_period_us);
	return smodem_kthread_start(sd, &a);
}

const struct smodem_ctx_ops smodem_ctx_res = {
	.name = "res",
	.start = res_start,
	.stop = smodem_kthread_stop,
	.kick = smodem_kthread_kick,
	.show = smodem_kthread_show,
};
