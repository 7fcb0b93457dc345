/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smodem core: one device = one DMA engine (a backend) + one execution context
 * + one modem (driver/smodem_modem.h).  The per-period path is
 * driver/smodem_core.c: the backend's interrupt calls smodem_irq(), the
 * context calls smodem_run(), and smodem_run() makes one outward call per
 * period, to the modem.
 */
#ifndef SMODEM_H
#define SMODEM_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/irqreturn.h>
#include "smodem_params.h"
#include "smodem_overrun.h"
#include "smodem_stolen.h"
#include "smodem_fault.h"
#include "smodem_link.h"
#include "smodem_ring.h"
#include "smodem_modem.h"

struct smodem_dev;
struct smodem_tty;
struct dentry;
struct seq_file;

/**
 * struct smodem_backend_ops - a DMA engine
 * @name: the hw= value that selects it
 * @init: module load: register the driver or create the devices, each of
 *	which it passes to smodem_dev_alloc() and smodem_dev_register();
 *	returns 0 if at least one device exists
 * @exit: module unload: unregister and free every device it created
 * @start: start one device's engine (interrupt, DMA, timers).  On failure it
 *	undoes what it did itself: @stop is not called after a failed @start
 * @stop: stop it; no interrupt runs after it returns
 * @position: the frames captured so far (absolute, since @start), read from
 *	the hardware; @tx_pos, if not NULL, is set to the frames the output
 *	engine has consumed.  Safe in any context, also while the interrupt
 *	handler runs on another CPU
 * @set_period: the core changed smodem_dev.period: interrupt once every that
 *	many frames from the next queued period on.  Any context
 * @recover: NULL, or restart an engine the watchdog found stopped or
 *	silent (smodem_fault.c); process context, the engine started
 * @inject: NULL, or act on a fault injection just armed (debugfs,
 *	smodem_fault.h) that cannot wait for the next interrupt or read;
 *	process context, the engine started
 *
 * Adding a device type is one of these in a file of its own and an entry
 * in the backends[] table of smodem_main.c.  Its interrupt handler acks the
 * device, reads the position and calls smodem_irq() once per period.  A
 * backend with an interrupt line registers the context's @irq_thread, if it
 * has one, as the line's thread function and returns IRQ_WAKE_THREAD from a
 * period's interrupt; one without refuses such a context (parameter check).
 */
struct smodem_backend_ops {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	int (*start)(struct smodem_dev *sd);
	void (*stop)(struct smodem_dev *sd);
	u64 (*position)(struct smodem_dev *sd, u64 *tx_pos);
	void (*set_period)(struct smodem_dev *sd);
	void (*recover)(struct smodem_dev *sd);
	void (*inject)(struct smodem_dev *sd, int kind);
};

/**
 * struct smodem_ctx_ops - an execution context: where the processing runs
 * @name: the context= value that selects it
 * @start: set the context up (threads, tasklets, scheduling attributes)
 *	before the first interrupt; process context
 * @stop: tear it down after the last interrupt: no smodem_run() is running
 *	or will run once it returns; process context
 * @kick: from the backend's hard interrupt handler, once per period: get
 *	smodem_run() called, now (int) or soon (a bottom half, a thread)
 * @irq_thread: NULL, or the thread function of a threaded interrupt
 *	(request_threaded_irq()): the backend registers it with its handler,
 *	whose IRQ_WAKE_THREAD for a period is then the kick; runs in the IRQ
 *	core's thread
 * @show: append the context's own lines ("exec ...", the scheduling
 *	attributes the thread really has) to the stats file; may sleep
 * @activated: NULL, or called by a processing thread after each activation
 *	it accounted (stolen=1) with its end time and its stolen-time split
 *	(res's controllers); runs in the thread
 * @may_run: NULL, or asked by smodem_run() before each period whether the
 *	context's budget lets it process one now (res_mode=catchup); what it
 *	leaves is the next activation's
 *
 * Adding a context is one of these in a file of its own under contexts/ and
 * an entry in the contexts[] table of smodem_main.c.  The context measures
 * its own activation (stats and tracepoints of its own).
 */
struct smodem_ctx_ops {
	const char *name;
	int (*start)(struct smodem_dev *sd);
	void (*stop)(struct smodem_dev *sd);
	void (*kick)(struct smodem_dev *sd);
	irqreturn_t (*irq_thread)(struct smodem_dev *sd);
	void (*show)(struct smodem_dev *sd, struct seq_file *m);
	void (*activated)(struct smodem_dev *sd, u64 now_ns,
			  const struct smodem_stolen_split *split);
	bool (*may_run)(struct smodem_dev *sd);
};

/* A DMA channel, as the traces name it. */
enum smodem_chan {
	SMODEM_CHAN_IN,		/* the line's receive samples (AC'97 PI) */
	SMODEM_CHAN_OUT,	/* its transmit samples (AC'97 PO) */
};

struct smodem_stat {
	u64 n, sum, min, max;
};

struct smodem_stats {
	u64 since_ns;		/* when counting started: start or reset */
	u64 irqs;
	u64 runs;		/* context activations (thread wakeups, BH runs) */
	u64 periods;		/* periods processed */
	u64 overruns;
	u64 dropped;		/* frames lost to overruns */
	/* periods whose work was not done when the next one completed */
	u64 deadline_misses;
	u64 tx_late;		/* output frames played before they were written */
	u32 tx_skew_max;	/* output engine ahead of the input engine, frames */
	u32 tx_delay_max;	/* input engine past a period's end at its output */
	/* tx_skew_max's parts: seen on hook, and in a call (engine=1) */
	u32 tx_skew_hook_max;
	u32 tx_skew_call_max;
	u32 tx_late_delay_max;	/* tx_delay_max, backlogs included */
	u32 tx_late_delay_hook_max;	/* the same, on hook */
	u64 dma_halts;
	u64 period_changes;
	u32 pending_irq_max;
	u32 pending_max;	/* after a processing call returns */
	u64 irq_cpus;		/* CPUs (0-63) that took its interrupts */
	u64 proc_cpus;		/* CPUs (0-63) that processed its periods */
	struct smodem_stat isr_ns;
	struct smodem_stat dpc_ns;	/* one bottom-half run */
	struct smodem_stat thr_ns;	/* one thread activation */
	struct smodem_stat wake_ns;	/* interrupt to processing start */
	struct smodem_stat proc_ns;	/* one period through the modem */
	/* interrupt to the end of the activation serving it (threads, usr) */
	struct smodem_stat resp_ns;
};

struct smodem_dev {
	char name[32];
	u32 id;				/* the traces' dev=, from 0 */
	struct device *dev;		/* DMA/printing device, may be NULL */
	const struct smodem_backend_ops *hw;
	void *hw_priv;
	const struct smodem_ctx_ops *ctx;
	void *ctx_priv;
	struct smodem_params p;		/* as loaded; never changes */

	/* Interleaved stereo s16 rings of p.ring frames; the line is left. */
	s16 *rx_ring;
	s16 *tx_ring;

	/* Frames per period now: p.period at load, then the modem's choice. */
	u32 period;

	/* Owned by whichever context processes; never runs concurrently. */
	u64 sw_pos;
	u32 tx_lead;			/* output written this far ahead */
	/*
	 * What the lead serves: the largest skew and delays since load (the
	 * stats' maxima, which a reset clears), and what holds the line off
	 * hook (SMODEM_HOOK_*, from the modem's phase reports).
	 */
	struct smodem_tx_seen lead_seen;
	u32 hook;
	s16 *rx_buf, *tx_buf;		/* one period, mono */
	struct smodem_fill fill;	/* a grown lead's frames: a ring's */
	struct smodem_modem *modem;
	/* what the in-kernel modem talks to: the tty (smodem_link.c) */
	struct smodem_link link;
	/* load_us in work units: the modem's (smodem_load_modem()), or usr's */
	u64 load_units;
	u32 load_sink;

	/* Written by the interrupt handler. */
	u64 irq_ns;			/* oldest interrupt not yet served */
	u64 irq_pos;			/* the position it last read */
	u64 period_idx;
	u32 stall_ms;			/* fault injection, debugfs */
	/* injections, what the module noticed, the watchdog */
	struct smodem_fault fault;

	/* stats.overruns and .dropped: the interrupt's and the processing's */
	struct smodem_overrun ovr;
	struct smodem_stats stats;
	struct smodem_stolen stolen;	/* stolen=1 */
	struct dentry *dbg;
	/* /dev/ttySM<n>; RCU: the modem's reports may outlive the port. */
	struct smodem_tty __rcu *tty;
};

/* core: the device's lifetime (smodem_main.c) */
struct smodem_dev *smodem_dev_alloc(const char *name, struct device *dev);
int smodem_dev_register(struct smodem_dev *sd);
void smodem_dev_unregister(struct smodem_dev *sd);
/* cpus= for this device: the CPU of its interrupt and processing, or -1. */
int smodem_dev_cpu(const struct smodem_dev *sd);
void smodem_dev_free(struct smodem_dev *sd);
extern struct smodem_params smodem_p;

/* core: the per-period path (smodem_core.c) */

/*
 * Called by a backend's interrupt with the hardware position it just read.
 * Returns whether the context was kicked: false for an interrupt that
 * brought no new period (a storm) or a position no engine can be at.
 */
bool smodem_irq(struct smodem_dev *sd, u64 hw_pos);
/* Called by a context: processes every complete period, returns how many. */
unsigned int smodem_run(struct smodem_dev *sd);
/* The input position judged as the processing reads it (hw_read()). */
u64 smodem_hw_position(struct smodem_dev *sd);
/* The oldest unserved interrupt's age, for wakeup latency; clears it. */
u64 smodem_take_irq_age(struct smodem_dev *sd, u64 now);
/*
 * One period handed out of the kernel (context=usr): smodem_period_take()
 * copies the complete period at sw_pos, if there is one, to rx and decides
 * the output lead; whoever processes it fills the gap, if any, then writes
 * the period's output (smodem_modem_step()), and smodem_period_put()
 * places both, spends load_us and accounts for the period.  smodem_run()
 * is the same two halves around the in-kernel modem.  One period at a
 * time, from the processing side only.
 */
struct smodem_upcall {
	u64 t0;			/* when it was taken */
	u64 pos;		/* its first frame */
	u32 n;			/* its frames */
	struct smodem_gap gap;	/* the output lead grew: fill it first */
};

bool smodem_period_take(struct smodem_dev *sd, s16 *rx,
			struct smodem_upcall *up);
/* The in-kernel modem's gap, placed before its period (sd->fill.place). */
void smodem_fill_place(const struct smodem_fill *f,
		       const struct smodem_gap *gap);
void smodem_period_put(struct smodem_dev *sd, const struct smodem_upcall *up,
		       const s16 *fill, const s16 *tx, const s16 *rx, u32 next);
/*
 * The modem's phase report (the smodem_phase trace's phase), as the output
 * lead needs it: whether the line is on hook.  Processing side only.
 */
void smodem_hook_phase(struct smodem_dev *sd, u32 phase);
/* A new period length from the next period on (debugfs, the modem). */
void smodem_set_period(struct smodem_dev *sd, u32 frames);

void smodem_stat_add(struct smodem_stat *s, u64 v);

/* workload emulation */
void smodem_load_calibrate(void);
u64 smodem_load_units(u32 us);
u32 smodem_load_run(const s16 *buf, u32 n, u64 units);
u32 smodem_load_units_per_ms(void);
/*
 * inner with units of work after each period (none: inner itself); on
 * failure inner is freed.  An ERR_PTR inner is given back as it is.
 */
struct smodem_modem *smodem_load_modem(struct smodem_modem *inner, u64 units);

/* debugfs */
void smodem_debugfs_init(void);
void smodem_debugfs_exit(void);
void smodem_debugfs_add(struct smodem_dev *sd);
void smodem_debugfs_remove(struct smodem_dev *sd);

/* backends and contexts */
extern const struct smodem_backend_ops smodem_hw_ac97;
extern const struct smodem_backend_ops smodem_hw_vline;
extern const struct smodem_ctx_ops smodem_ctx_int;
extern const struct smodem_ctx_ops smodem_ctx_dpc;
extern const struct smodem_ctx_ops smodem_ctx_thr;
extern const struct smodem_ctx_ops smodem_ctx_res;
extern const struct smodem_ctx_ops smodem_ctx_oth;
extern const struct smodem_ctx_ops smodem_ctx_irqt;
extern const struct smodem_ctx_ops smodem_ctx_bhw;
extern const struct smodem_ctx_ops smodem_ctx_usr;

#endif
