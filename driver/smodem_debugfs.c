// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/smodem/<dev>/: stats (one "name value" per line, for
 * people and scripts alike; the modem's own lines, engine_*, come
 * from smodem_modem.c), reset, period (ask for a new period, as a modem
 * phase will), inject_irq_stall_ms (hold the next interrupt handler busy, to
 * prove that a halted DMA engine is detected and recovered); inject_fault
 * and inject_line are smodem_fault.c's.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/kstrtox.h>
#include "smodem.h"
#include "smodem_modem.h"

static struct dentry *root;

static void show_stat(struct seq_file *m, const char *name,
		      const struct smodem_stat *s)
{
	seq_printf(m, "%s_n %llu\n", name, s->n);
	seq_printf(m, "%s_min %llu\n", name, s->min);
	seq_printf(m, "%s_avg %llu\n", name, s->n ? div64_u64(s->sum, s->n) : 0);
	seq_printf(m, "%s_max %llu\n", name, s->max);
}

static int stats_show(struct seq_file *m, void *unused)
{
	struct smodem_dev *sd = m->private;
	const struct smodem_stats *s = &sd->stats;

	seq_printf(m, "device %s\n", sd->name);
	seq_printf(m, "hw %s\n", sd->hw->name);
	seq_printf(m, "context %s\n", sd->ctx->name);
	sd->ctx->show(sd, m);
	seq_printf(m, "rate %u\n", sd->p.rate);
	seq_printf(m, "ring_samples %u\n", sd->p.ring);
	seq_printf(m, "period_samples %u\n", READ_ONCE(sd->period));
	seq_printf(m, "load_us %u\n", sd->p.load_us);
	seq_printf(m, "load_units_per_ms %u\n", smodem_load_units_per_ms());
	/* what the counters below cover: rates need no guess of the window */
	seq_printf(m, "window_ns %llu\n",
		   ktime_get_ns() - READ_ONCE(s->since_ns));
	seq_printf(m, "irqs %llu\n", s->irqs);
	seq_printf(m, "runs %llu\n", s->runs);
	seq_printf(m, "periods %llu\n", s->periods);
	seq_printf(m, "overruns %llu\n", s->overruns);
	seq_printf(m, "dropped %llu\n", s->dropped);
	seq_printf(m, "deadline_misses %llu\n", s->deadline_misses);
	seq_printf(m, "tx_late %llu\n", s->tx_late);
	seq_printf(m, "tx_skew_max %u\n", s->tx_skew_max);
	seq_printf(m, "tx_skew_hook_max %u\n", s->tx_skew_hook_max);
	seq_printf(m, "tx_skew_call_max %u\n", s->tx_skew_call_max);
	seq_printf(m, "tx_delay_max %u\n", s->tx_delay_max);
	seq_printf(m, "tx_late_delay_max %u\n", s->tx_late_delay_max);
	seq_printf(m, "tx_late_delay_hook_max %u\n",
		   s->tx_late_delay_hook_max);
	seq_printf(m, "tx_lead %u\n", sd->tx_lead);
	seq_printf(m, "dma_halts %llu\n", s->dma_halts);
	seq_printf(m, "period_changes %llu\n", s->period_changes);
	seq_printf(m, "pending_irq_max %u\n", s->pending_irq_max);
	seq_printf(m, "pending_max %u\n", s->pending_max);
	seq_printf(m, "cpu %d\n", smodem_dev_cpu(sd));
	seq_printf(m, "irq_cpus %#llx\n", s->irq_cpus);
	seq_printf(m, "proc_cpus %#llx\n", s->proc_cpus);
	show_stat(m, "isr_ns", &s->isr_ns);
	show_stat(m, "dpc_ns", &s->dpc_ns);
	show_stat(m, "thr_ns", &s->thr_ns);
	show_stat(m, "wake_ns", &s->wake_ns);
	show_stat(m, "proc_ns", &s->proc_ns);
	show_stat(m, "resp_ns", &s->resp_ns);
	smodem_fault_show(sd, m);
	smodem_stolen_show(sd, m);
	sd->modem->ops->show(sd->modem, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/*
 * A number written to one of sd's files (any base kstrtou32 reads), for
 * set(), which acts on it or refuses it with an error and changes nothing.
 */
static ssize_t write_u32(struct file *f, const char __user *buf, size_t n,
			 int (*set)(struct smodem_dev *sd, u32 v))
{
	u32 v;
	int err = kstrtou32_from_user(buf, n, 0, &v);

	if (!err)
		err = set(file_inode(f)->i_private, v);
	return err ? err : n;
}

static int reset_set(struct smodem_dev *sd, u32 v)
{
	/* "1" restarts the measurement; anything else is a mistake to report */
	if (v != 1)
		return -EINVAL;
	/* Racy against a running context by design: a measurement restart. */
	memset(&sd->stats, 0, sizeof(sd->stats));
	smodem_overrun_restart(&sd->ovr);
	memset(&sd->stolen.sum, 0, sizeof(sd->stolen.sum));
	WRITE_ONCE(sd->stats.since_ns, ktime_get_ns());
	return 0;
}

static ssize_t reset_write(struct file *f, const char __user *buf, size_t n,
			   loff_t *off)
{
	return write_u32(f, buf, n, reset_set);
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = reset_write,
	.llseek = noop_llseek,
};

static int period_set(struct smodem_dev *sd, u32 v)
{
	if (v < SMODEM_PERIOD_MIN || v > sd->p.ring / 2)
		return -EINVAL;
	smodem_set_period(sd, v);
	return 0;
}

static ssize_t period_write(struct file *f, const char __user *buf, size_t n,
			    loff_t *off)
{
	return write_u32(f, buf, n, period_set);
}

static ssize_t period_read(struct file *f, char __user *buf, size_t n,
			   loff_t *off)
{
	struct smodem_dev *sd = file_inode(f)->i_private;
	char tmp[16];
	int len = scnprintf(tmp, sizeof(tmp), "%u\n", READ_ONCE(sd->period));

	return simple_read_from_buffer(buf, n, off, tmp, len);
}

static const struct file_operations period_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = period_read,
	.write = period_write,
	.llseek = default_llseek,
};

static int stall_set(void *data, u64 v)
{
	struct smodem_dev *sd = data;

	if (v > 1000)
		return -EINVAL;
	WRITE_ONCE(sd->stall_ms, (u32)v);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(stall_fops, NULL, stall_set, "%llu\n");

void smodem_debugfs_init(void)
{
	root = debugfs_create_dir("smodem", NULL);
	smodem_stolen_debugfs(root);
}

void smodem_debugfs_exit(void)
{
	debugfs_remove_recursive(root);
	root = NULL;
}

void smodem_debugfs_add(struct smodem_dev *sd)
{
	sd->dbg = debugfs_create_dir(sd->name, root);
	debugfs_create_file("stats", 0444, sd->dbg, sd, &stats_fops);
	debugfs_create_file("reset", 0200, sd->dbg, sd, &reset_fops);
	debugfs_create_file("period", 0644, sd->dbg, sd, &period_fops);
	debugfs_create_file_unsafe("inject_irq_stall_ms", 0200, sd->dbg, sd,
				   &stall_fops);
	smodem_fault_debugfs(sd, sd->dbg);
}

void smodem_debugfs_remove(struct smodem_dev *sd)
{
	debugfs_remove_recursive(sd->dbg);
	sd->dbg = NULL;
}
