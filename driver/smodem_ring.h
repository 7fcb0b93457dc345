/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Position arithmetic shared by every backend and context. Pure functions on
 * absolute frame counts, so they are unit-tested in user space as they are.
 *
 * Positions are absolute (u64) frame counts since the DMA engine started,
 * never ring offsets: a ring offset cannot tell "nothing pending" from "one
 * whole ring pending", and the second is exactly the overrun we must see.
 */
#ifndef SMODEM_RING_H
#define SMODEM_RING_H

#include <linux/types.h>
#include <linux/math64.h>

/* A piece of a period as one DMA descriptor sees it: offset and length. */
struct smodem_piece {
	u32 off;
	u32 len;
};

/*
 * A period may straddle the end of the ring when the period does not divide
 * the ring (the study's 90-sample periods in a 512-sample ring).  It is then
 * carried by two descriptors; only the second raises the period interrupt.
 * Returns the number of pieces (1 or 2).
 */
static inline unsigned int smodem_split_period(u64 start, u32 len, u32 ring,
					       struct smodem_piece *p)
{
	u32 off;

	div_u64_rem(start, ring, &off);

	p[0].off = off;
	if (off + len <= ring) {
		p[0].len = len;
		return 1;
	}
	p[0].len = ring - off;
	p[1].off = 0;
	p[1].len = len - p[0].len;
	return 2;
}

/* What the processing must do next, decided from the two positions. */
struct smodem_step {
	u64 dropped;	/* frames skipped because the ring was overrun */
	u64 new_sw;	/* software position after the step */
	bool overrun;
	bool process;	/* one quantum at the old new_sw is ready */
};

/*
 * Once pending reaches the ring, the hardware has overwritten frames we never
 * read.  We then skip whole quanta, keeping the quantum phase, so the next
 * processing call starts on fresh data rather than on a torn one.
 */
static inline struct smodem_step smodem_next_step(u64 hw, u64 sw, u32 quantum,
						  u32 ring)
{
	struct smodem_step s = { .dropped = 0, .new_sw = sw,
				 .overrun = false, .process = false };
	u64 pending = hw > sw ? hw - sw : 0;
	u32 torn;

	if (pending >= ring) {
		div_u64_rem(pending, quantum, &torn);
		s.dropped = pending - torn;
		s.new_sw = sw + s.dropped;
		s.overrun = true;
		return s;
	}
	s.process = pending >= quantum;
	return s;
}

/* Frames of the period [start, start + len) the output hardware already played. */
static inline u32 smodem_tx_late(u64 start, u32 len, u64 tx_hw)
{
	if (tx_hw <= start)
		return 0;
	return tx_hw - start >= len ? len : (u32)(tx_hw - start);
}

/*
 * How far ahead of the input the output is written: the largest skew seen
 * between the output and the input engines, the period, and room for the
 * processing itself: half a period, or the longest delay (at most a
 * period) seen from a period's end to its output's placement and a quarter
 * period more (a period handled later than half a period after its
 * interrupt, as the last of several modems one thread serves, would
 * otherwise lose the first frames of every output).  It only grows (a
 * latency that moved back and forth would be a phase jump on the line at
 * every move), and never beyond ring - n, where a period would overwrite
 * what is still to be played.
 */
static inline u32 smodem_tx_lead(u32 lead, u64 skew, u64 delay, u32 n,
				 u32 ring)
{
	u64 room = delay + n / 4 > n / 2 ? delay + n / 4 : n / 2;
	u64 want = skew + n + room;

	if (want > ring - n)
		want = ring - n;
	return want > lead ? (u32)want : lead;
}

/* Output frames a growing lead leaves between two periods. */
struct smodem_tx_gap {
	u32 lead;	/* the lead from this period on */
	u64 start;	/* the first frame still to be filled */
	u32 len;	/* frames to fill from start */
	u32 late;	/* frames before start already played: lost */
};

/*
 * Decided before the period at pos is processed: the frames from the last
 * period's end (pos + lead) to this one's start (pos + the new lead) are
 * then filled by the transmitter first, and the signal goes on without a
 * gap.  Decided after, the transmitter would already be a period further.
 */
static inline struct smodem_tx_gap smodem_tx_grow(u64 pos, u32 n, u32 lead,
						  u64 skew, u64 delay,
						  u64 tx_hw, u32 ring)
{
	struct smodem_tx_gap g;
	u32 len;

	g.lead = smodem_tx_lead(lead, skew, delay, n, ring);
	len = g.lead - lead;
	g.late = smodem_tx_late(pos + lead, len, tx_hw);
	g.start = pos + lead + g.late;
	g.len = len - g.late;
	return g;
}

/* What a position read is worth, judged against the one believed before. */
enum smodem_pos_verdict {
	SMODEM_POS_OK,
	SMODEM_POS_BACK,	/* behind it: no engine runs backwards */
	SMODEM_POS_JUMP,	/* further on than the time since allows */
};

/*
 * A DMA engine moves at the rate: in since_frames of time it cannot have
 * moved more than that, doubled (engines deliver in bursts), and a ring
 * beyond (a whole ring may be in flight at once).
 */
static inline enum smodem_pos_verdict smodem_pos_judge(u64 pos, u64 last,
							u64 since_frames,
							u32 ring)
{
	if (pos < last)
		return SMODEM_POS_BACK;
	/* so long ago that anything goes (and the sum would overflow) */
	if (since_frames > (~0ULL - ring) / 2)
		return SMODEM_POS_OK;
	if (pos - last > ring + 2 * since_frames)
		return SMODEM_POS_JUMP;
	return SMODEM_POS_OK;
}

/*
 * A period interrupt adv frames after the last one that started
 * processing, the period between lo and hi frames (both while a new length
 * replaces queued periods of the old): less than a quarter period is a
 * storm (returns -1: no processing to start); otherwise the periods it
 * skipped, 0 for an interrupt on time.
 */
static inline int smodem_irq_skipped(u64 adv, u32 lo, u32 hi)
{
	u64 n;

	if (adv < (lo / 4 ? lo / 4 : 1))
		return -1;
	if (adv < 2 * (u64)hi)
		return 0;
	n = div_u64(adv, hi) - 1;
	return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

#endif
