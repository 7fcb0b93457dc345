// SPDX-License-Identifier: GPL-2.0
/*
 * A test helper: holds one interrupt line exclusively (no IRQF_SHARED), so
 * that a driver asking to share it is refused with -EBUSY, as on a machine
 * where another driver owns the line.  Its handler claims nothing.
 */
#include <linux/interrupt.h>
#include <linux/module.h>

static int irq = -1;
module_param(irq, int, 0444);
MODULE_PARM_DESC(irq, "the interrupt line to hold");

static irqreturn_t irqhog_isr(int n, void *dev)
{
	return IRQ_NONE;
}

static int __init irqhog_init(void)
{
	if (irq < 0) {
		pr_err("irqhog: irq= is required\n");
		return -EINVAL;
	}
	return request_irq(irq, irqhog_isr, 0, "irqhog", &irq);
}

static void __exit irqhog_exit(void)
{
	free_irq(irq, &irq);
}

module_init(irqhog_init);
module_exit(irqhog_exit);
MODULE_DESCRIPTION("Holds an interrupt line, for smodem's tests");
MODULE_LICENSE("GPL");
