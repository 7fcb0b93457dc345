/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smodem core: one device = one DMA engine (a backend) + one execution context
 * running the data pump once per period.
 */
#ifndef SMODEM_H
#define SMODEM_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include "smodem_params.h"

struct smodem_dev;
struct smdsp_pump;
struct smodem_tty;
struct smodem_engine;
struct dentry;

/*
 * A DMA engine.  Adding a device type is one of these in a file of its own
 * and an entry in smodem_backends[].
 */
struct smodem_backend_ops {
	const char *name;
	/* Register the driver / create the devices; 0 if at least one exists. */
	int (*init)(void);
	void (*exit)(void);
	/* Start and stop the engine of one device (IRQ, DMA, timers). */
	int (*start)(struct smodem_dev *sd);
	void (*stop)(struct smodem_dev *sd);
	/*
	 * Frames captured so far (absolute), read from the hardware.  Safe in
	 * any context, including while the interrupt handler runs elsewhere.
	 * *tx_pos is set to the frames the output engine has consumed.
	 */
	u64 (*position)(struct smodem_dev *sd, u64 *tx_pos);
	/* Ask for a different period from the next queued one on. */
	void (*set_period)(struct smodem_dev *sd, u32 frames);
};

/*
 * An execution context: where the per-period processing runs.  The backend's
 * interrupt calls kick(); the context calls smodem_run() when it gets the CPU.
 */
struct smodem_ctx_ops {
	const char *name;
	int (*start)(struct smodem_dev *sd);
	void (*stop)(struct smodem_dev *sd);
	void (*kick)(struct smodem_dev *sd);	/* hard IRQ */
	/* Append the applied scheduling attributes to the stats file. */
	void (*show)(struct smodem_dev *sd, struct seq_file *m);
};

struct smodem_stat {
	u64 n, sum, min, max;
};

struct smodem_stats {
	u64 irqs;
	u64 runs;		/* context activations (thread wakeups, BH runs) */
	u64 periods;		/* periods processed */
	u64 overruns;
	u64 dropped;		/* frames lost to overruns */
	u64 tx_late;		/* output frames played before they were written */
	u32 tx_skew_max;	/* output engine ahead of the input engine, frames */
	u64 dma_halts;
	u64 period_changes;
	u32 pending_irq_max;
	u32 pending_max;	/* after a processing call returns */
	struct smodem_stat isr_ns;
	struct smodem_stat dpc_ns;
	struct smodem_stat thr_ns;
	struct smodem_stat wake_ns;	/* interrupt to processing start */
	struct smodem_stat proc_ns;	/* one period through the pump */
};

struct smodem_dev {
	char name[32];
	struct device *dev;		/* DMA/printing device, may be NULL */
	const struct smodem_backend_ops *hw;
	void *hw_priv;
	const struct smodem_ctx_ops *ctx;
	void *ctx_priv;
	struct smodem_params p;		/* a copy: set_period changes period */

	/* Interleaved stereo s16 rings of p.ring frames; the line is left. */
	s16 *rx_ring;
	s16 *tx_ring;
	u32 tx_lead;			/* output written this far ahead */

	/* Owned by whichever context processes; never runs concurrently. */
	u64 sw_pos;
	u32 quantum;			/* frames per processing call */
	s16 *rx_buf, *tx_buf;		/* one period, mono */
	struct smdsp_pump *pump;
	/* The pump's call control behind the tty; NULL: none. */
	struct smodem_engine *engine;
	u64 load_units;
	u32 load_sink;

	/* Written by the interrupt handler. */
	u64 irq_ns;			/* oldest interrupt not yet served */
	u64 period_idx;
	bool in_overrun;
	u32 stall_ms;			/* fault injection, debugfs */

	struct smodem_stats st;
	struct dentry *dbg;
	/* /dev/ttySM<n>; RCU: the engine's callbacks may outlive the port. */
	struct smodem_tty __rcu *tty;
	struct list_head node;
};

/* core */
struct smodem_dev *smodem_dev_alloc(const char *name, struct device *dev);
int smodem_dev_register(struct smodem_dev *sd);
void smodem_dev_unregister(struct smodem_dev *sd);
void smodem_dev_free(struct smodem_dev *sd);
extern struct smodem_params smodem_p;

/* Called by a backend's interrupt with the hardware position it just read. */
void smodem_irq(struct smodem_dev *sd, u64 hw_pos);
/* Called by a context: processes every complete period, returns how many. */
unsigned int smodem_run(struct smodem_dev *sd);
/* The oldest unserved interrupt's age, for wakeup latency; clears it. */
u64 smodem_take_irq_age(struct smodem_dev *sd, u64 now);
void smodem_request_period(struct smodem_dev *sd, u32 frames);

void smodem_stat_add(struct smodem_stat *s, u64 v);

/* workload emulation */
void smodem_load_calibrate(void);
u64 smodem_load_units(u32 us);
u32 smodem_load_run(const s16 *buf, u32 n, u64 units);
u32 smodem_load_units_per_ms(void);

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

#endif
