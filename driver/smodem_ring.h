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
 * otherwise lose the first frames of every output).
 */
static inline u64 smodem_tx_need(u64 skew, u64 delay, u32 n)
{
	u64 room = delay + n / 4 > n / 2 ? delay + n / 4 : n / 2;

	return skew + n + room;
}

/*
 * In a call the lead only grows (a latency that moved back and forth would
 * be a phase jump on the line at every move, and it would move the echo
 * under a trained canceller), and never beyond ring - n, where a period
 * would overwrite what is still to be played.
 */
static inline u32 smodem_tx_lead(u32 lead, u64 skew, u64 delay, u32 n,
				 u32 ring)
{
	u64 want = smodem_tx_need(skew, delay, n);

	if (want > ring - n)
		want = ring - n;
	return want > lead ? (u32)want : lead;
}

/*
 * On hook the lead is fitted, up or down, to what the engines did so far:
 * nothing is sent and nothing is trained, so a move costs nothing, and the
 * lead a call starts with is the one its echo canceller is told.  n: the
 * longest period the call will run at.  A quarter of the skew more: the
 * skew the call itself will see, unless it is seen on hook, is a growth
 * mid-call (a seam in the signal, an echo moved under a trained
 * canceller).  late: the longest delay seen, backlogs beyond a period
 * included (V.34's training, processed late by its own bursts of work),
 * which a call's lead does not grow for (one stall would keep it long for
 * good) but which loses output frames all the same: served here, up to a
 * quarter ring.  late_hook: the same on hook, where the modem's work is
 * next to nothing: a backlog there is the host starving the processing
 * (a loaded host in real time), whose stalls the little seen on hook does
 * not bound (on JACK 169 frames in a second on hook, 510 in the call).
 * The lead is then a quarter ring, what every call with engine=1 used to
 * start with, or what the skew needs if that is more.  The backlogs are
 * not added to it: what a second of them showed does not bound the call's,
 * and added they lengthen the round trip by up to another quarter ring on
 * that guess (a starved context's 2000 frames: 3393 instead of 2048).
 */
static inline u32 smodem_tx_fit(u64 skew, u64 delay, u64 late, u64 late_hook,
				u32 n, u32 ring)
{
	bool starved = late_hook > n;
	u64 d = late > delay ? late : delay;
	u64 want;

	if (starved)
		d = delay;
	else if (d > ring / 4)
		d = ring / 4;
	want = smodem_tx_need(skew, d, n) + skew / 4;
	if (starved && want < ring / 4)
		want = ring / 4;
	return want > ring - n ? ring - n : (u32)want;
}

/* Output frames a moving lead leaves between two periods. */
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
 * A lead that shrinks leaves no gap: the period overwrites what was
 * written for those frames.
 */
static inline struct smodem_tx_gap smodem_tx_move(u64 pos, u32 lead,
						  u32 want, u64 tx_hw)
{
	struct smodem_tx_gap g;
	u32 len = want > lead ? want - lead : 0;

	g.lead = want;
	g.late = smodem_tx_late(pos + lead, len, tx_hw);
	g.start = pos + lead + g.late;
	g.len = len - g.late;
	return g;
}

/* In a call: grown, if the skew or the delay calls for it. */
static inline struct smodem_tx_gap smodem_tx_grow(u64 pos, u32 n, u32 lead,
						  u64 skew, u64 delay,
						  u64 tx_hw, u32 ring)
{
	return smodem_tx_move(pos, lead,
			      smodem_tx_lead(lead, skew, delay, n, ring),
			      tx_hw);
}

/* What the lead is decided on: the largest the engines gave, since load. */
struct smodem_tx_seen {
	u64 skew;	/* output engine ahead of the input engine */
	u64 delay;	/* a period's end to its output's placement, up to n */
	u64 late;	/* the same, backlogs beyond a period included */
	u64 late_hook;	/* late, on hook */
};

/*
 * The lead from the period at pos on: fitted while on hook (n_call: the
 * period the modem runs a call at), only grown in a call.
 */
static inline struct smodem_tx_gap smodem_tx_decide(u64 pos, u32 n, u32 lead,
						    bool on_hook, u32 n_call,
						    const struct smodem_tx_seen *s,
						    u64 tx_hw, u32 ring)
{
	u32 want;

	if (!on_hook)
		return smodem_tx_grow(pos, n, lead, s->skew, s->delay, tx_hw,
				      ring);
	want = smodem_tx_fit(s->skew, s->delay, s->late, s->late_hook,
			     n_call > n ? n_call : n, ring);
	return smodem_tx_move(pos, lead, want, tx_hw);
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
