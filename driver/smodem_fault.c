// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection and the watchdog (see smodem_fault.h).  The injections
 * are debugfs files, 0200 and so root's: they exist in every build because
 * a test of the shipped module is the point, and do nothing until written.
 *
 * The watchdog looks at the engine every SMODEM_WD_MS (or two periods, if
 * longer): an engine whose position did not move is stopped, one that moves
 * without a single interrupt has lost them.  Either way the backend is
 * asked to restart it (->recover) every other look, and after
 * SMODEM_WD_HANGUP looks the call ends with NO CARRIER: a modem that hears
 * nothing must not keep DCD up for ever.  A healthy look ends the episode.
 */
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/jiffies.h>
#include "smodem.h"
#include "smodem_link.h"
#include "smodem_fault.h"
#include "smodem_trace.h"

#define SMODEM_WD_MS		250
#define SMODEM_WD_RECOVER	2	/* looks before a restart, and between */
#define SMODEM_WD_HANGUP	8	/* looks before the call ends */
/* How far back a misbehaving position reads: half a ring. */
#define FAULT_BACK(ring)	((ring) / 2)
/* How far forward: far beyond any ring, ~35 min at 8 kHz. */
#define FAULT_JUMP		(1ULL << 24)

/* The stats file's names, fault_<name>. */
const char * const smodem_fault_names[SMODEM_FAULT_COUNT] = {
	[SMODEM_FAULT_STORM] = "irq_storm",
	[SMODEM_FAULT_MISS] = "irq_missed",
	[SMODEM_FAULT_BACK] = "pos_back",
	[SMODEM_FAULT_JUMP] = "pos_jump",
	[SMODEM_FAULT_ORDER] = "irq_order",
	[SMODEM_FAULT_HALT] = "engine_stopped",
	[SMODEM_FAULT_SHARED] = "irq_foreign",
	[SMODEM_FAULT_LOST] = "irq_lost",
	[SMODEM_FAULT_RECOVER] = "recoveries",
	[SMODEM_FAULT_HANGUP] = "hangups",
};

/* inject_fault's words */
static const char * const inject_names[SMODEM_FAULT_INJECT] = {
	[SMODEM_FAULT_STORM] = "storm",
	[SMODEM_FAULT_MISS] = "miss",
	[SMODEM_FAULT_BACK] = "back",
	[SMODEM_FAULT_JUMP] = "jump",
	[SMODEM_FAULT_ORDER] = "order",
	[SMODEM_FAULT_HALT] = "halt",
	[SMODEM_FAULT_SHARED] = "shared",
};

static const char * const line_names[SMODEM_LINE_COUNT] = {
	[SMODEM_LINE_OFF] = "off",
	[SMODEM_LINE_NOISE] = "noise",
	[SMODEM_LINE_DC] = "dc",
	[SMODEM_LINE_SQUARE] = "square",
	[SMODEM_LINE_TONE] = "tone",
};

/* sin(2 pi k / 256) * 32767, k = 0..64: a quarter of a full-scale sine */
static const s16 quarter_sine[65] = {
	0, 804, 1608, 2410, 3212, 4011, 4808, 5602, 6393, 7179, 7962, 8739,
	9512, 10278, 11039, 11793, 12539, 13279, 14010, 14732, 15446, 16151,
	16846, 17530, 18204, 18868, 19519, 20159, 20787, 21403, 22005, 22594,
	23170, 23731, 24279, 24811, 25329, 25832, 26319, 26790, 27245, 27683,
	28105, 28510, 28898, 29268, 29621, 29956, 30273, 30571, 30852, 31113,
	31356, 31580, 31785, 31971, 32137, 32285, 32412, 32521, 32609, 32678,
	32728, 32757, 32767,
};

bool smodem_fault_take(struct smodem_dev *sd, int kind)
{
	if (!smodem_fault_armed(&sd->fault, kind))
		return false;
	return atomic_dec_if_positive(&sd->fault.left[kind]) >= 0;
}

void smodem_fault_seen_n(struct smodem_dev *sd, int kind, u32 n, u64 arg)
{
	atomic64_add(n, &sd->fault.seen[kind]);
	trace_smodem_fault(sd, kind, arg);
}

void smodem_fault_seen(struct smodem_dev *sd, int kind, u64 arg)
{
	smodem_fault_seen_n(sd, kind, 1, arg);
}

/*
 * back and jump: every other read of the count, so that each is judged
 * against a good one; wild: every read far forward (the processing, which
 * refuses each, hears nothing: see hw_read()).
 */
void smodem_fault_pos(struct smodem_dev *sd, u64 *rx, u64 *tx)
{
	u64 back = FAULT_BACK(sd->p.ring);

	if (smodem_fault_take(sd, SMODEM_FAULT_BACK) &&
	    atomic_read(&sd->fault.left[SMODEM_FAULT_BACK]) % 2) {
		*rx -= min(*rx, back);
		if (tx)
			*tx -= min(*tx, back);
	}
	if (smodem_fault_take(sd, SMODEM_FAULT_JUMP) &&
	    (READ_ONCE(sd->fault.jump_every) ||
	     atomic_read(&sd->fault.left[SMODEM_FAULT_JUMP]) % 2)) {
		*rx += FAULT_JUMP;
		if (tx)
			*tx += FAULT_JUMP;
	}
}

static s16 sine(u32 phase)
{
	u32 i = phase >> 24, k = i & 63;
	s16 v = i & 64 ? quarter_sine[64 - k] : quarter_sine[k];

	return i & 128 ? -v : v;
}

void smodem_fault_line(struct smodem_dev *sd, s16 *rx, u32 n)
{
	struct smodem_fault *f = &sd->fault;
	u32 mode = READ_ONCE(f->line_mode), step = READ_ONCE(f->line_step);
	s16 level = (s16)READ_ONCE(f->line_level);
	u32 i;

	for (i = 0; i < n; i++) {
		switch (mode) {
		case SMODEM_LINE_NOISE:
			/* Numerical Recipes' LCG: its top 16 bits are uniform */
			f->line_seed = f->line_seed * 1664525u + 1013904223u;
			rx[i] = (s16)(f->line_seed >> 16);
			break;
		case SMODEM_LINE_DC:
			rx[i] = level;
			break;
		case SMODEM_LINE_SQUARE:
			f->line_phase += step;
			rx[i] = f->line_phase & BIT(31) ? S16_MIN : S16_MAX;
			break;
		case SMODEM_LINE_TONE:
			f->line_phase += step;
			rx[i] = sine(f->line_phase);
			break;
		default:
			return;
		}
	}
}

/* -- the watchdog ---------------------------------------------------------- */

static unsigned long wd_interval(struct smodem_dev *sd)
{
	u64 ms = div_u64(2 * smodem_period_ns(READ_ONCE(sd->period),
					      sd->p.rate), NSEC_PER_MSEC);

	return msecs_to_jiffies(max_t(u64, ms, SMODEM_WD_MS));
}

static void wd_work(struct work_struct *w)
{
	struct smodem_fault *f = container_of(to_delayed_work(w),
					      struct smodem_fault, wd);
	struct smodem_dev *sd = container_of(f, struct smodem_dev, fault);
	u64 pos = sd->hw->position(sd, NULL);
	u64 irqs = READ_ONCE(sd->stats.irqs);
	bool moved = pos != f->wd_pos;

	if (moved && irqs != f->wd_irqs) {
		f->wd_strikes = 0;
		f->wd_gone = false;
	} else if (++f->wd_strikes % SMODEM_WD_RECOVER == 0) {
		if (f->wd_strikes == SMODEM_WD_RECOVER)
			smodem_fault_seen(sd, moved ? SMODEM_FAULT_LOST :
					  SMODEM_FAULT_HALT, pos);
		if (f->wd_strikes >= SMODEM_WD_HANGUP && !f->wd_gone) {
			f->wd_gone = true;
			smodem_fault_seen(sd, SMODEM_FAULT_HANGUP, pos);
			smodem_link_gone(sd);
		}
		if (sd->hw->recover) {
			smodem_fault_seen(sd, SMODEM_FAULT_RECOVER, pos);
			sd->hw->recover(sd);
		}
	}
	f->wd_pos = pos;
	f->wd_irqs = irqs;
	queue_delayed_work(system_wq, &f->wd, wd_interval(sd));
}

/* Before the backend starts: its positions are judged from now. */
void smodem_fault_init(struct smodem_dev *sd)
{
	struct smodem_fault *f = &sd->fault;

	f->ok_ns = ktime_get_ns();
	f->tx_ok_ns = f->ok_ns;
	f->kick_ns = f->ok_ns;
	INIT_DELAYED_WORK(&f->wd, wd_work);
}

/* After the backend started. */
void smodem_fault_start(struct smodem_dev *sd)
{
	queue_delayed_work(system_wq, &sd->fault.wd, wd_interval(sd));
}

/* Before the backend stops: nothing asks it to recover after this. */
void smodem_fault_stop(struct smodem_dev *sd)
{
	cancel_delayed_work_sync(&sd->fault.wd);
}

void smodem_fault_show(struct smodem_dev *sd, struct seq_file *m)
{
	int i;

	for (i = 0; i < SMODEM_FAULT_COUNT; i++)
		seq_printf(m, "fault_%s %lld\n", smodem_fault_names[i],
			   (long long)atomic64_read(&sd->fault.seen[i]));
}

/* -- debugfs ------------------------------------------------------------- */

static int word(const char * const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -EINVAL;
}

/* s split at its first space: the word in s, the rest returned, or NULL. */
static char *split(char *s)
{
	char *arg;

	s = strim(s);
	arg = strchr(s, ' ');
	if (arg)
		*arg++ = 0;
	return arg;
}

/*
 * "<kind> <count>", "<kind>" (count 1) or "off" (everything disarmed);
 * "wild" is jump on every read.  s is modified.
 */
int smodem_fault_parse(char *s, int *kind, u32 *count, bool *every)
{
	char *arg;
	int k;

	s = strim(s);
	arg = split(s);
	*every = false;
	if (!strcmp(s, "off")) {
		*kind = -1;
		*count = 0;
		return arg ? -EINVAL : 0;
	}
	if (!strcmp(s, "wild")) {
		*every = true;
		s = "jump";
	}
	k = word(inject_names, SMODEM_FAULT_INJECT, s);
	if (k < 0)
		return -EINVAL;
	*kind = k;
	*count = 1;
	if (arg && (kstrtou32(arg, 10, count) || *count < 1 ||
		    *count > SMODEM_FAULT_COUNT_MAX))
		return -EINVAL;
	return 0;
}

/*
 * "off", "noise [SEED]", "dc LEVEL", "square HZ", "tone HZ" or "answer"
 * (the 2100 Hz answer tone); HZ below half the rate, LEVEL an s16; s is
 * modified.
 */
int smodem_line_parse(char *s, u32 rate, u32 *mode, s32 *level, u32 *hz)
{
	char *arg;
	s32 v = 0;
	int m;

	s = strim(s);
	arg = split(s);
	*level = 0;
	*hz = 0;
	if (!strcmp(s, "answer")) {
		if (arg)
			return -EINVAL;
		*mode = SMODEM_LINE_TONE;
		*hz = 2100;
		return 0;
	}
	m = word(line_names, SMODEM_LINE_COUNT, s);
	if (m < 0)
		return -EINVAL;
	switch (m) {
	case SMODEM_LINE_OFF:
		if (arg)
			return -EINVAL;
		break;
	case SMODEM_LINE_NOISE:
		if (arg && kstrtou32(arg, 0, hz))	/* the seed */
			return -EINVAL;
		break;
	case SMODEM_LINE_DC:
		if (!arg || kstrtos32(arg, 0, &v) || v < S16_MIN || v > S16_MAX)
			return -EINVAL;
		*level = v;
		break;
	default:
		if (!arg || kstrtou32(arg, 10, hz) || *hz < 1 ||
		    *hz >= rate / 2)
			return -EINVAL;
		break;
	}
	*mode = m;
	return 0;
}

static ssize_t inject_fault_write(struct file *file, const char __user *ubuf,
				  size_t n, loff_t *off)
{
	struct smodem_dev *sd = file_inode(file)->i_private;
	char buf[32];
	u32 count;
	int kind, i, err;
	bool every;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	err = smodem_fault_parse(buf, &kind, &count, &every);
	if (err)
		return err;
	if (kind < 0) {
		for (i = 0; i < SMODEM_FAULT_INJECT; i++)
			atomic_set(&sd->fault.left[i], 0);
		return n;
	}
	if (kind == SMODEM_FAULT_JUMP)
		WRITE_ONCE(sd->fault.jump_every, every);
	atomic_set(&sd->fault.left[kind], count);
	if (sd->hw->inject)
		sd->hw->inject(sd, kind);
	return n;
}

static const struct file_operations inject_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_fault_write,
	.llseek = noop_llseek,
};

static ssize_t inject_line_write(struct file *file, const char __user *ubuf,
				 size_t n, loff_t *off)
{
	struct smodem_dev *sd = file_inode(file)->i_private;
	struct smodem_fault *f = &sd->fault;
	char buf[32];
	u32 mode, hz;
	s32 level;
	int err;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	err = smodem_line_parse(buf, sd->p.rate, &mode, &level, &hz);
	if (err)
		return err;
	/* The processing owns phase and seed; it reads these as they come. */
	WRITE_ONCE(f->line_mode, SMODEM_LINE_OFF);
	WRITE_ONCE(f->line_level, level);
	WRITE_ONCE(f->line_step, mode == SMODEM_LINE_NOISE ? 0 :
		   (u32)div_u64((u64)hz << 32, sd->p.rate));
	if (mode == SMODEM_LINE_NOISE)
		WRITE_ONCE(f->line_seed, hz);
	WRITE_ONCE(f->line_mode, mode);
	return n;
}

static const struct file_operations inject_line_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_line_write,
	.llseek = noop_llseek,
};

void smodem_fault_debugfs(struct smodem_dev *sd, struct dentry *dir)
{
	debugfs_create_file("inject_fault", 0200, dir, sd, &inject_fault_fops);
	debugfs_create_file("inject_line", 0200, dir, sd, &inject_line_fops);
}
