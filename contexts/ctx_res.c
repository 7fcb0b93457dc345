// SPDX-License-Identifier: GPL-2.0
/*
 * context=res: a CPU reservation, res_runtime_us of CPU every res_period_us,
 * as a SCHED_DEADLINE kernel thread.  The study's model: X/Y works iff
 * X/Y covers the load and Y - X does not exceed the interrupt period.
 *
 * res_mode= keeps the reservation in one of the augmented-reservation
 * study's ways.  plain: the runtime as set.  reclaim: Linux's bandwidth
 * reclaiming (SCHED_FLAG_RECLAIM, GRUB): the thread may use bandwidth the
 * others leave idle.  feedback: the study's Rez-FB, an integral controller
 * run once a reservation period from the thread itself,
 *	C_t = C_(t-1) + G (R - P_(t-1)),  P = C_(t-1) - stolen,
 * R the configured runtime and stolen the hard IRQ and softirq time that
 * ran inside the thread's activations and so was charged to its budget
 * (Debian's kernels have no IRQ time accounting).  The new runtime goes
 * through sched_setattr_nocheck(), so admission control still decides; it
 * never exceeds res_ceiling_us, and a refusal or the ceiling holds it and
 * is counted.
 *
 * catchup: the study's Rez-C.  SCHED_DEADLINE has no call that adds runtime
 * to the period in progress, so the reservation is admitted at the ceiling
 * (res_ceiling_us every period: admission control reserves that) and the
 * thread keeps the configured runtime itself: once it has run
 * res_runtime_us of its own time in a period, it leaves the remaining
 * work for the next period.  It can only stop between two interrupt
 * periods' work, so what one period's work runs beyond the runtime is
 * owed: it comes off the next reservation periods' runtime.  The
 * scheduler charges it its own time plus what interrupts took inside it,
 * up to the ceiling, so that time is given back within the same period and
 * never beyond the admitted bandwidth.
 * (With IRQ time accounting the scheduler would not charge interrupt time
 * at all, but the wall time it takes still passes within the deadline;
 * Debian's kernels are built without it.)  The periods are counted from
 * the thread's start, not read from the scheduler's own replenishments.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>
#include "ctx_kthread.h"
#include "smodem_trace.h"

struct res_ctl {
	u64 origin_ns, period_ns, idx;	/* reservation periods since start */
	u64 runtime_ns;			/* the thread's runtime now */
	u64 stolen_ns;			/* charged to it in this period */
	u64 ran_ns;			/* its own time in this period */
	u64 owed_ns;			/* catchup: run beyond the runtime before */
	u64 steps, ceiling_hits, refusals, deferrals;
};

/* beside the thread's, in its ctx_priv */
static struct res_ctl *ctl_of(const struct smodem_dev *sd)
{
	return smodem_kthread_own(sd);
}

static void res_attr(struct smodem_dev *sd, struct sched_attr *a, u64 runtime_ns)
{
	smodem_sched_deadline(a, 0, sd->p.res_deadline_us, sd->p.res_period_us);
	a->sched_runtime = runtime_ns;
	if (sd->p.res_mode == SMODEM_RES_RECLAIM)
		a->sched_flags |= SCHED_FLAG_RECLAIM;
}

static int res_start(struct smodem_dev *sd)
{
	struct res_ctl c = {
		.origin_ns = ktime_get_ns(),
		.period_ns = (u64)sd->p.res_period_us * NSEC_PER_USEC,
		.runtime_ns = (u64)sd->p.res_runtime_us * NSEC_PER_USEC,
	};
	struct sched_attr a;
	int err;

	if (sd->p.res_mode == SMODEM_RES_CATCHUP)
		c.runtime_ns = (u64)smodem_res_ceiling_us(&sd->p) * NSEC_PER_USEC;
	res_attr(sd, &a, c.runtime_ns);
	err = smodem_kthread_start(sd, &a, sizeof(c));
	/* the thread runs at the first interrupt, which comes after this */
	if (!err)
		*ctl_of(sd) = c;
	return err;
}

/* catchup, once a period: what it ran and what was taken, given back */
static void catchup_period(struct smodem_dev *sd, struct res_ctl *c, u64 idx)
{
	u64 req = (u64)sd->p.res_runtime_us * NSEC_PER_USEC;
	u64 given = req + c->stolen_ns;
	u32 sat = 0;

	if (given > c->runtime_ns) {
		given = c->runtime_ns;
		sat = 1;
		c->ceiling_hits++;
	}
	trace_smodem_res_ctl(sd, c->idx, req, c->ran_ns, c->stolen_ns, given, sat);
	c->owed_ns += c->ran_ns;
	/* periods with no activation at all paid req each */
	c->owed_ns -= min(c->owed_ns, req * (idx - c->idx));
	c->ran_ns = 0;
	c->stolen_ns = 0;
	c->idx = idx;
	c->steps++;
}

static bool res_may_run(struct smodem_dev *sd)
{
	struct res_ctl *c = ctl_of(sd);
	u64 now, idx;

	/* before each period: nothing more than this for the other modes */
	if (sd->p.res_mode != SMODEM_RES_CATCHUP)
		return true;
	now = ktime_get_ns();
	idx = div64_u64(now - c->origin_ns, c->period_ns);
	if (idx != c->idx)
		catchup_period(sd, c, idx);
	if (c->owed_ns + c->ran_ns + smodem_stolen_ran_so_far(sd, now) <
	    (u64)sd->p.res_runtime_us * NSEC_PER_USEC)
		return true;
	c->deferrals++;
	return false;
}

static void res_activated(struct smodem_dev *sd, u64 now_ns,
			  const struct smodem_stolen_split *split)
{
	struct res_ctl *c = ctl_of(sd);
	u64 req = (u64)sd->p.res_runtime_us * NSEC_PER_USEC;
	u64 ceil = (u64)smodem_res_ceiling_us(&sd->p) * NSEC_PER_USEC;
	u64 min = (u64)SMODEM_DL_RUNTIME_MIN_US * NSEC_PER_USEC;
	u64 idx, recv, next;
	struct sched_attr a;
	u32 sat = 0;
	s64 step;

	if (sd->p.res_mode != SMODEM_RES_FEEDBACK &&
	    sd->p.res_mode != SMODEM_RES_CATCHUP)
		return;
	idx = div64_u64(now_ns - c->origin_ns, c->period_ns);
	if (sd->p.res_mode == SMODEM_RES_CATCHUP) {
		/* an activation that began in the last period counts there */
		if (idx != c->idx)
			catchup_period(sd, c, idx);
		c->ran_ns += split->ran;
		c->stolen_ns += split->irq + split->softirq;
		return;
	}
	c->stolen_ns += split->irq + split->softirq;
	if (idx == c->idx)
		return;
	recv = c->runtime_ns > c->stolen_ns ? c->runtime_ns - c->stolen_ns : 0;
	step = div_s64(((s64)req - (s64)recv) * sd->p.res_gain_pm, 1000);
	if (step < 0 && (u64)-step >= c->runtime_ns - min)
		next = min;
	else
		next = c->runtime_ns + step;
	if (next > ceil) {
		next = ceil;
		sat = 1;
		c->ceiling_hits++;
	}
	if (next != c->runtime_ns) {
		res_attr(sd, &a, next);
		/* admission control may refuse: the runtime stays */
		if (sched_setattr_nocheck(current, &a)) {
			next = c->runtime_ns;
			sat = 2;
			c->refusals++;
		}
	}
	trace_smodem_res_ctl(sd, idx, req, recv, c->stolen_ns, next, sat);
	c->runtime_ns = next;
	c->stolen_ns = 0;
	c->idx = idx;
	c->steps++;
}

static void res_show(struct smodem_dev *sd, struct seq_file *m)
{
	const struct res_ctl *c = ctl_of(sd);

	smodem_kthread_show(sd, m);
	seq_printf(m, "res_mode %s\n", smodem_res_mode_names[sd->p.res_mode]);
	if (sd->p.res_mode != SMODEM_RES_FEEDBACK &&
	    sd->p.res_mode != SMODEM_RES_CATCHUP)
		return;
	seq_printf(m, "res_ceiling_us %u\n", smodem_res_ceiling_us(&sd->p));
	seq_printf(m, "res_steps %llu\n", c->steps);
	seq_printf(m, "res_ceiling_hits %llu\n", c->ceiling_hits);
	if (sd->p.res_mode == SMODEM_RES_CATCHUP) {
		seq_printf(m, "res_deferrals %llu\n", c->deferrals);
		seq_printf(m, "res_owed_ns %llu\n", c->owed_ns);
		return;
	}
	seq_printf(m, "res_gain_pm %u\n", sd->p.res_gain_pm);
	seq_printf(m, "res_runtime_now_ns %llu\n", c->runtime_ns);
	seq_printf(m, "res_refusals %llu\n", c->refusals);
}

const struct smodem_ctx_ops smodem_ctx_res = {
	.name = "res",
	.start = res_start,
	.stop = smodem_kthread_stop,
	.kick = smodem_kthread_kick,
	.show = res_show,
	.activated = res_activated,
	.may_run = res_may_run,
};
