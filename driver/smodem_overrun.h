/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An overrun episode: the hardware filled the input ring before the
 * processing took it.  The hard interrupt may notice it first; the
 * processing always ends it when it skips to fresh data.  The two may run
 * on two CPUs at once (int and dpc on SMP, every thread context), so both
 * sides take the lock, and an episode is counted exactly once whichever
 * side sees it first.  Pure logic: tests/unit/test_overrun.c runs it on
 * two threads under ThreadSanitizer.
 */
#ifndef SMODEM_OVERRUN_H
#define SMODEM_OVERRUN_H

#include <linux/types.h>
#include <linux/spinlock.h>

struct smodem_overrun {
	raw_spinlock_t lock;
	bool open;		/* seen by the interrupt, not yet ended */
};

static inline void smodem_overrun_init(struct smodem_overrun *o)
{
	raw_spin_lock_init(&o->lock);
	o->open = false;
}

/*
 * A measurement restarts (debugfs reset, the counts zeroed): an episode
 * the interrupt saw before it is the new measurement's to count, since
 * its dropped frames will be (a starved context's one episode over the
 * reset read 0 overruns and 19200 frames dropped).
 */
static inline void smodem_overrun_restart(struct smodem_overrun *o)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&o->lock, flags);
	o->open = false;
	raw_spin_unlock_irqrestore(&o->lock, flags);
}

/*
 * From the hard interrupt handler (interrupts off).  Returns true when this
 * starts an episode, counted in *episodes.
 */
static inline bool smodem_overrun_seen(struct smodem_overrun *o,
				       u64 *episodes)
{
	bool first;

	raw_spin_lock(&o->lock);
	first = !o->open;
	if (first) {
		o->open = true;
		(*episodes)++;
	}
	raw_spin_unlock(&o->lock);
	return first;
}

/*
 * From the processing, which skipped @lost frames: the episode ends.
 * Returns true when the interrupt had not seen it (counted here).
 */
static inline bool smodem_overrun_end(struct smodem_overrun *o, u64 *episodes,
				      u64 *dropped, u32 lost)
{
	unsigned long flags;
	bool first;

	raw_spin_lock_irqsave(&o->lock, flags);
	first = !o->open;
	if (first)
		(*episodes)++;
	o->open = false;
	*dropped += lost;
	raw_spin_unlock_irqrestore(&o->lock, flags);
	return first;
}

#endif
