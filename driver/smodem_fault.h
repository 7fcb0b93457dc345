/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A misbehaving device and a hostile line, on purpose (debugfs, root only)
 * and by accident (what the module notices on its own).
 *
 * Injection: a test writes "<kind> <count>" to inject_fault, and the
 * backend perturbs what the driver reads from its device for the next
 * <count> events of that kind: interrupts it delivers, positions it reports
 * (smodem_fault_take()).  Each backend does it at the register or timer
 * level where it can (hw_ac97.c, hw_vline.c).  inject_line replaces what the
 * pump hears with noise, DC, a clipped square wave or a tone, in every
 * context and on both backends (smodem_fault_line()).  Nothing here runs
 * unless such a file was written: the per-period path pays one predictable
 * branch per interrupt and per period.
 *
 * Detection does not look at what was injected: smodem_core.c judges every
 * interrupt and every position read against what the device can do, and a
 * watchdog notices an engine that stopped or stopped interrupting.  Each
 * finding is counted per kind (the stats file's fault_* lines) and traced
 * (smodem_fault); what cannot be recovered ends the call with NO CARRIER.
 */
#ifndef SMODEM_FAULT_H
#define SMODEM_FAULT_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/workqueue.h>

struct smodem_dev;
struct seq_file;
struct dentry;

/* What a device can do wrong; the injections and the findings share it. */
enum smodem_fault_kind {
	SMODEM_FAULT_STORM,	/* interrupts with no new period behind them */
	SMODEM_FAULT_MISS,	/* period interrupts that never came */
	SMODEM_FAULT_BACK,	/* a position read behind one read before */
	SMODEM_FAULT_JUMP,	/* a position further on than time allows */
	SMODEM_FAULT_ORDER,	/* an older descriptor completing after a newer */
	SMODEM_FAULT_HALT,	/* the engine stopped moving */
	SMODEM_FAULT_SHARED,	/* the line fired for another device */
	/* findings only */
	SMODEM_FAULT_LOST,	/* no interrupt at all while the engine moves */
	SMODEM_FAULT_RECOVER,	/* restarts the watchdog asked of the backend */
	SMODEM_FAULT_HANGUP,	/* calls ended because the engine was lost */
	SMODEM_FAULT_COUNT
};

#define SMODEM_FAULT_INJECT	(SMODEM_FAULT_SHARED + 1)
/* Interrupts a queued period of the old length may still pace: AC'97's 9. */
#define SMODEM_FAULT_OLD_IRQS	16

/* inject_line's signals */
enum smodem_line_mode {
	SMODEM_LINE_OFF,
	SMODEM_LINE_NOISE,	/* full-scale uniform noise, seeded */
	SMODEM_LINE_DC,		/* a constant */
	SMODEM_LINE_SQUARE,	/* a full-scale square wave: a clipped tone */
	SMODEM_LINE_TONE,	/* a full-scale sine (2100 Hz: the answer tone) */
	SMODEM_LINE_COUNT
};

struct smodem_fault {
	/* injections armed: events left per kind (debugfs writes, any CPU) */
	atomic_t left[SMODEM_FAULT_INJECT];
	bool jump_every;	/* "wild": every read, not every other */
	/* what the module noticed, per kind */
	atomic64_t seen[SMODEM_FAULT_COUNT];

	/* the processing side's judgement of positions (owned by it) */
	u64 rx_ok, tx_ok;	/* the last positions believed */
	u64 ok_ns, tx_ok_ns;	/* when they were read */
	u64 bad_since_ns;	/* first of the reads refused in a row, or 0 */
	bool bad_gone;		/* this run of bad reads ended the call */

	/* the interrupt side's (owned by the hard handler) */
	u64 kick_pos;		/* position of the last interrupt that kicked */
	u64 kick_ns;		/* and when */
	u32 old_period;		/* before the last change: descriptors queued */
	u32 old_left;		/* interrupts that may still be paced by it */

	/* the watchdog (process context) */
	struct delayed_work wd;
	u64 wd_pos, wd_irqs;
	u32 wd_strikes;
	bool wd_gone;

	/* inject_line: set by debugfs, read by the processing */
	u32 line_mode;
	s32 line_level;		/* DC level */
	u32 line_step;		/* phase step, 2^32 per cycle */
	u32 line_phase, line_seed;
};

/* The period-long path: is anything armed at all? */
static inline bool smodem_fault_armed(struct smodem_fault *f, int kind)
{
	return unlikely(atomic_read(&f->left[kind]) > 0);
}

/* Consume one event of an armed injection: true if this one misbehaves. */
bool smodem_fault_take(struct smodem_dev *sd, int kind);
/* The module noticed a fault of this kind (n of them); arg for the trace. */
void smodem_fault_seen(struct smodem_dev *sd, int kind, u64 arg);
void smodem_fault_seen_n(struct smodem_dev *sd, int kind, u32 n, u64 arg);
/* Positions a backend reports, perturbed by the back and jump injections. */
void smodem_fault_pos(struct smodem_dev *sd, u64 *rx, u64 *tx);
/* The pump's input replaced by inject_line's signal, if any. */
void smodem_fault_line(struct smodem_dev *sd, s16 *rx, u32 n);

void smodem_fault_init(struct smodem_dev *sd);
void smodem_fault_start(struct smodem_dev *sd);
void smodem_fault_stop(struct smodem_dev *sd);
void smodem_fault_show(struct smodem_dev *sd, struct seq_file *m);
void smodem_fault_debugfs(struct smodem_dev *sd, struct dentry *dir);

/* inject_fault's and inject_line's words: 0 or -EINVAL; s is modified. */
#define SMODEM_FAULT_COUNT_MAX	1000000
int smodem_fault_parse(char *s, int *kind, u32 *count, bool *every);
int smodem_line_parse(char *s, u32 rate, u32 *mode, s32 *level,
		      u32 *hz);
extern const char * const smodem_fault_names[SMODEM_FAULT_COUNT];

#endif
