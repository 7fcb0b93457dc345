// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter rules.  Every rule here is what the hardware, the scheduler or
 * the study's model needs; the reason strings are what insmod users see.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <smdsp/modem.h>
#include "smodem_params.h"

/* The reasons below name the figures: they are static strings. */
_Static_assert(SMDSP_MODEM_RATE == 8000, "engine=1's reason names 8000");
/* phase_periods: the longest period a phase asks for (12.5 ms), twice */
#define PHASE_RING_MIN		(2 * (SMDSP_MODEM_RATE / 80))
_Static_assert(PHASE_RING_MIN == 200, "phase_periods=1's reason names 200");

const char * const smodem_context_names[SMODEM_CTX_COUNT] = {
	[SMODEM_CTX_INT] = "int",
	[SMODEM_CTX_DPC] = "dpc",
	[SMODEM_CTX_THR] = "thr",
	[SMODEM_CTX_RES] = "res",
	[SMODEM_CTX_OTH] = "oth",
	[SMODEM_CTX_IRQT] = "irqt",
	[SMODEM_CTX_BHW] = "bhw",
	[SMODEM_CTX_USR] = "usr",
};

const char * const smodem_hw_names[SMODEM_HW_COUNT] = {
	[SMODEM_HW_AC97] = "ac97",
	[SMODEM_HW_VLINE] = "vline",
};

const char * const smodem_res_mode_names[SMODEM_RES_COUNT] = {
	[SMODEM_RES_PLAIN] = "plain",
	[SMODEM_RES_FEEDBACK] = "feedback",
	[SMODEM_RES_RECLAIM] = "reclaim",
	[SMODEM_RES_CATCHUP] = "catchup",
};

static int lookup(const char * const *names, int n, const char *s)
{
	int i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -EINVAL;
}

int smodem_parse_context(const char *s, enum smodem_context *out)
{
	int i = lookup(smodem_context_names, SMODEM_CTX_COUNT, s);

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

int smodem_parse_hw(const char *s, enum smodem_hw *out)
{
	int i = lookup(smodem_hw_names, SMODEM_HW_COUNT, s);

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

int smodem_parse_res_mode(const char *s, enum smodem_res_mode *out)
{
	int i = lookup(smodem_res_mode_names, SMODEM_RES_COUNT, s);

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

static u32 res_deadline(const struct smodem_params *p)
{
	return p->res_deadline_us ? p->res_deadline_us : p->res_period_us;
}

u32 smodem_res_ceiling_us(const struct smodem_params *p)
{
	u32 d = res_deadline(p);

	if (p->res_ceiling_us)
		return p->res_ceiling_us;
	return p->res_runtime_us > d / 2 ? d : 2 * p->res_runtime_us;
}

/* Whether any CPU exists is the caller's to check: a kernel service. */
static bool cpus_ok(const struct smodem_params *p, const char **why)
{
	bool pinned = false;
	u32 i;

	if (p->ncpus > SMODEM_DEVICES_MAX ||
	    (p->hw == SMODEM_HW_VLINE && p->ncpus > p->devices)) {
		*why = "cpus= names more CPUs than there are devices";
		return false;
	}
	for (i = 0; i < p->ncpus; i++) {
		if (p->cpus[i] < -1) {
			*why = "cpus= takes a CPU number per device, or -1 for any";
			return false;
		}
		pinned |= p->cpus[i] >= 0;
	}
	/* The kernel's admission control would refuse it (-EPERM). */
	if (pinned && p->context == SMODEM_CTX_RES) {
		*why = "cpus= cannot pin context=res: SCHED_DEADLINE admits only threads free to run on every CPU of their root domain";
		return false;
	}
	return true;
}

static bool rate_ok(u32 rate)
{
	/* The rates a V-series soft modem codec runs at (the study: 7.2-16 kHz). */
	return rate == 7200 || rate == 8000 || rate == 9600 || rate == 16000;
}

int smodem_params_check(const struct smodem_params *p, const char **why)
{
	u32 deadline = res_deadline(p);

	if (!rate_ok(p->rate)) {
		*why = "rate must be 7200, 8000, 9600 or 16000";
		return -EINVAL;
	}
	if (p->ring < SMODEM_RING_MIN || p->ring > SMODEM_RING_MAX) {
		*why = "ring_samples must be 64..8192";
		return -EINVAL;
	}
	/*
	 * The period need not divide the ring (the study ran 90-sample periods
	 * in a 512-sample ring), but two periods must fit, or the hardware
	 * overwrites a period while it is being announced.
	 */
	if (p->period < SMODEM_PERIOD_MIN || p->period > p->ring / 2) {
		*why = "period_samples must be >= 8 and <= ring_samples / 2";
		return -EINVAL;
	}
	if (p->engine > 1 || p->phase_periods > 1) {
		*why = "engine and phase_periods must be 0 or 1";
		return -EINVAL;
	}
	/* The call control's pump runs at one rate. */
	if (p->engine && p->rate != SMDSP_MODEM_RATE) {
		*why = "engine=1 (the default) needs rate=8000; engine=0 for other rates";
		return -EINVAL;
	}
	if (p->phase_periods &&
	    (!p->engine || p->ring < PHASE_RING_MIN)) {
		*why = "phase_periods=1 needs engine=1 and ring_samples >= 200";
		return -EINVAL;
	}
	if (p->load_us > SMODEM_LOAD_MAX_US) {
		*why = "load_us must be <= 100000";
		return -EINVAL;
	}
	/*
	 * In hard IRQ context a load at or above the period never lets the CPU
	 * leave the handler: the machine would be lost, not measured.
	 */
	if (p->context == SMODEM_CTX_INT &&
	    (u64)p->load_us * 1000 >= smodem_period_ns(p->period, p->rate)) {
		*why = "load_us must be shorter than the period for context=int";
		return -EINVAL;
	}
	/* The timer-paced backend has no interrupt line to thread. */
	if (p->context == SMODEM_CTX_IRQT && p->hw != SMODEM_HW_AC97) {
		*why = "context=irqt needs an interrupt line: hw=ac97";
		return -EINVAL;
	}
#ifndef SMODEM_HAVE_BH_WQ
	if (p->context == SMODEM_CTX_BHW) {
		*why = "context=bhw needs BH workqueues (system_bh_wq, Linux 6.9+)";
		return -EINVAL;
	}
#endif
	if (p->context == SMODEM_CTX_OTH &&
	    (p->nice < SMODEM_NICE_MIN || p->nice > SMODEM_NICE_MAX)) {
		*why = "nice must be -20..19";
		return -EINVAL;
	}
	if (p->context == SMODEM_CTX_THR && (p->prio < 1 || p->prio > 99)) {
		*why = "prio must be 1..99";
		return -EINVAL;
	}
	if (p->context == SMODEM_CTX_USR && p->usr_mode > 0777) {
		*why = "usr_mode must be 0..0777 (permission bits)";
		return -EINVAL;
	}
	if (p->devices < 1 || p->devices > SMODEM_DEVICES_MAX) {
		*why = "devices must be 1..8";
		return -EINVAL;
	}
	/* A PCI driver binds every controller there is; nothing to count. */
	if (p->devices != 1 && p->hw != SMODEM_HW_VLINE) {
		*why = "devices=N needs hw=vline (hw=ac97 drives every controller)";
		return -EINVAL;
	}
	if (p->vline_pairs > 1) {
		*why = "vline_pairs must be 0 or 1";
		return -EINVAL;
	}
	if (p->vline_pairs && (p->hw != SMODEM_HW_VLINE || p->devices % 2)) {
		*why = "vline_pairs=1 needs hw=vline and an even devices count";
		return -EINVAL;
	}
	if (!cpus_ok(p, why))
		return -EINVAL;
	if (p->context == SMODEM_CTX_RES) {
		if (p->res_runtime_us < SMODEM_DL_RUNTIME_MIN_US) {
			*why = "res_runtime_us must be >= 2";
			return -EINVAL;
		}
		if (p->res_period_us > SMODEM_DL_PERIOD_MAX_US) {
			*why = "res_period_us must be <= 4000000";
			return -EINVAL;
		}
		if (p->res_runtime_us > p->res_period_us) {
			*why = "res_runtime_us must not exceed res_period_us";
			return -EINVAL;
		}
		if (deadline > p->res_period_us) {
			*why = "res_deadline_us must not exceed res_period_us";
			return -EINVAL;
		}
		if (p->res_runtime_us > deadline) {
			*why = "res_runtime_us must not exceed res_deadline_us";
			return -EINVAL;
		}
		if (p->res_gain_pm < 1 || p->res_gain_pm > 1000) {
			*why = "res_gain_pm must be 1..1000 (a gain in (0, 1])";
			return -EINVAL;
		}
		if (p->res_ceiling_us && p->res_ceiling_us < p->res_runtime_us) {
			*why = "res_ceiling_us must not be below res_runtime_us";
			return -EINVAL;
		}
		if (p->res_ceiling_us > deadline) {
			*why = "res_ceiling_us must not exceed res_deadline_us";
			return -EINVAL;
		}
	} else if (p->res_mode != SMODEM_RES_PLAIN) {
		*why = "res_mode other than plain needs context=res";
		return -EINVAL;
	}
	if (p->stolen && p->context != SMODEM_CTX_THR && p->context != SMODEM_CTX_RES &&
	    p->context != SMODEM_CTX_OTH && p->context != SMODEM_CTX_IRQT) {
		*why = "stolen=1 needs a thread context: thr, res, oth or irqt";
		return -EINVAL;
	}
	return 0;
}
