// SPDX-License-Identifier: GPL-2.0
/*
 * context=int: the vendor's choice in the study.  The whole per-period
 * processing runs inside the hard interrupt handler, so everything on this
 * CPU, the highest priority thread included, waits for it.
 */
#include <linux/seq_file.h>
#include "smodem.h"

static int int_start(struct smodem_dev *sd)
{
	return 0;
}

static void int_stop(struct smodem_dev *sd)
{
}

static void int_kick(struct smodem_dev *sd)
{
	smodem_stat_add(&sd->stats.wake_ns,
			smodem_take_irq_age(sd, ktime_get_ns()));
	sd->stats.runs++;
	smodem_run(sd);
}

static void int_show(struct smodem_dev *sd, struct seq_file *m)
{
	seq_puts(m, "exec hardirq\n");
}

const struct smodem_ctx_ops smodem_ctx_int = {
	.name = "int",
	.start = int_start,
	.stop = int_stop,
	.kick = int_kick,
	.show = int_show,
};
