/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load-time parameters and their validation.  Kept free of kernel services so
 * the same rules are unit-tested in user space.
 */
#ifndef SMODEM_PARAMS_H
#define SMODEM_PARAMS_H

#include <linux/types.h>
#include <linux/math64.h>

enum smodem_context {
	SMODEM_CTX_INT,
	SMODEM_CTX_DPC,
	SMODEM_CTX_THR,
	SMODEM_CTX_RES,
	SMODEM_CTX_OTH,		/* time-shared kthread: the study's THR-8 */
	SMODEM_CTX_IRQT,	/* the interrupt's own thread (threaded IRQ) */
	SMODEM_CTX_BHW,		/* BH workqueue work (6.9+) */
	SMODEM_CTX_USR,		/* an upcall to a user process: smodemd */
	SMODEM_CTX_COUNT
};

/* How context=res keeps its reservation (the augmented-reservation study). */
enum smodem_res_mode {
	SMODEM_RES_PLAIN,	/* runtime as configured */
	SMODEM_RES_FEEDBACK,	/* Rez-FB: runtime adjusted once a period */
	SMODEM_RES_RECLAIM,	/* SCHED_FLAG_RECLAIM (GRUB) */
	SMODEM_RES_CATCHUP,	/* Rez-C: stolen time given back in the period */
	SMODEM_RES_COUNT
};

enum smodem_hw {
	SMODEM_HW_AC97,
	SMODEM_HW_VLINE,
	SMODEM_HW_COUNT
};

/* One tty minor per modem (SMODEM_TTY_MINORS). */
#define SMODEM_DEVICES_MAX	8

struct smodem_params {
	enum smodem_context context;
	enum smodem_hw hw;
	u32 rate;		/* line sample rate, Hz */
	u32 ring;		/* ring size, frames */
	u32 period;		/* frames per period interrupt */
	u32 load_us;		/* emulated processing cost per period */
	u32 prio;		/* SCHED_FIFO priority for thr */
	s32 nice;		/* SCHED_OTHER nice value for oth */
	u32 res_runtime_us;
	u32 res_period_us;
	u32 res_deadline_us;	/* 0: equal to the period */
	enum smodem_res_mode res_mode;
	u32 res_gain_pm;	/* feedback: the controller's gain, thousandths */
	u32 res_ceiling_us;	/* feedback, catchup: the most runtime; 0: default */
	bool stolen;		/* stolen-time accounting (forced by feedback) */
	u32 usr_mode;		/* usr: /dev/smodem<n>'s permission bits */
	u32 engine;		/* 1: call control behind the tty */
	u32 phase_periods;	/* 1: the period follows the call's phase */
	u32 devices;		/* vline: how many modems */
	u32 vline_pairs;	/* vline: 1 = modems 2k, 2k+1 wired together */
	/* Per device (by id): the CPU of its interrupt and processing, -1 any */
	s32 cpus[SMODEM_DEVICES_MAX];
	u32 ncpus;
};

#define SMODEM_RING_MIN		64
#define SMODEM_RING_MAX		8192
#define SMODEM_PERIOD_MIN	8
#define SMODEM_LOAD_MAX_US	100000
/* The scheduler accounts deadline runtime in units of 1024 ns. */
#define SMODEM_DL_RUNTIME_MIN_US 2
#define SMODEM_DL_PERIOD_MAX_US	4000000
#define SMODEM_NICE_MIN		(-20)
#define SMODEM_NICE_MAX		19

extern const char * const smodem_context_names[SMODEM_CTX_COUNT];
extern const char * const smodem_hw_names[SMODEM_HW_COUNT];
extern const char * const smodem_res_mode_names[SMODEM_RES_COUNT];

int smodem_parse_context(const char *s, enum smodem_context *out);
int smodem_parse_hw(const char *s, enum smodem_hw *out);
int smodem_parse_res_mode(const char *s, enum smodem_res_mode *out);
/* feedback's ceiling: res_ceiling_us, or twice the runtime within the deadline */
u32 smodem_res_ceiling_us(const struct smodem_params *p);

/*
 * Returns 0 or -EINVAL; on error *why is set to a one-line reason fit for
 * dmesg (a static string, possibly with the offending parameter's name).
 */
int smodem_params_check(const struct smodem_params *p, const char **why);

/* Period length in nanoseconds, rounded to the nearest. */
static inline u64 smodem_period_ns(u32 frames, u32 rate)
{
	return div_u64((u64)frames * 1000000000ULL + rate / 2, rate);
}

#endif
