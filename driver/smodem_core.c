// SPDX-License-Identifier: GPL-2.0
/*
 * The per-period path shared by every context: read the hardware position,
 * move complete periods through the data pump, write the output ahead of the
 * output engine, and account for everything the study measured.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/hardirq.h>
#include <smdsp/pump.h>
#include "smodem.h"
#include "smodem_engine.h"
#include "smodem_ring.h"
#include "smodem_trace.h"

void smodem_stat_add(struct smodem_stat *s, u64 v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

static u32 clamp_u32(u64 v)
{
	return v > U32_MAX ? U32_MAX : (u32)v;
}

/* Hard IRQ: the backend has acked the device and read its position. */
void smodem_irq(struct smodem_dev *sd, u64 hw_pos)
{
	u64 now = ktime_get_ns();
	u64 pending = hw_pos - min(hw_pos, READ_ONCE(sd->sw_pos));
	u32 pend32 = clamp_u32(pending);

	sd->st.irqs++;
	sd->period_idx++;
	if (!READ_ONCE(sd->irq_ns))
		WRITE_ONCE(sd->irq_ns, now);
	if (pend32 > sd->st.pending_irq_max)
		sd->st.pending_irq_max = pend32;
	trace_smodem_irq(sd, sd->period_idx, hw_pos, pend32);

	/* Counted once per episode; the processing resynchronises. */
	if (pending >= sd->p.ring && !sd->in_overrun) {
		sd->in_overrun = true;
		sd->st.overruns++;
		trace_smodem_overrun(sd, pend32, 0);
	}
	sd->ctx->kick(sd);
}

u64 smodem_take_irq_age(struct smodem_dev *sd, u64 now)
{
	u64 t = xchg(&sd->irq_ns, 0);

	return t && now > t ? now - t : 0;
}

/* Deinterleave the line (left channel) of [pos, pos + n) out of the ring. */
static void rx_copy(struct smodem_dev *sd, u64 pos, u32 n)
{
	struct smodem_piece pc[2];
	unsigned int k, i, j = 0;

	k = smodem_split_period(pos, n, sd->p.ring, pc);
	for (i = 0; i < k; i++) {
		const s16 *src = sd->rx_ring + 2 * pc[i].off;
		u32 f;

		for (f = 0; f < pc[i].len; f++)
			sd->rx_buf[j++] = READ_ONCE(src[2 * f]);
	}
}

/*
 * The output engine reads ahead of the input engine by this much.  A skew
 * the ring cannot hold a lead for makes every transmitted frame late (a
 * silent modem that cannot even dial): say so once, with what would do.
 */
static void note_skew(struct smodem_dev *sd, u64 rx_hw, u64 tx_hw, u32 n)
{
	u64 skew = tx_hw > rx_hw ? tx_hw - rx_hw : 0;

	if (skew <= sd->st.tx_skew_max)
		return;
	sd->st.tx_skew_max = clamp_u32(skew);
	if (skew + n + n / 2 > sd->p.ring - n)
		pr_warn_once("smodem: %s: the output DMA reads %llu frames ahead of the input, more than ring_samples=%u leaves room for: use ring_samples >= %llu\n",
			     sd->name, skew, sd->p.ring, 2 * (skew + 3 * (u64)n));
}

/* src[0..n) to both channels of the output frames [start, start + n). */
static void tx_write(struct smodem_dev *sd, u64 start, const s16 *src, u32 n)
{
	struct smodem_piece pc[2];
	u32 f, i, k, j = 0;

	k = smodem_split_period(start, n, sd->p.ring, pc);
	for (i = 0; i < k; i++) {
		s16 *dst = sd->tx_ring + 2 * pc[i].off;

		for (f = 0; f < pc[i].len; f++, j++) {
			WRITE_ONCE(dst[2 * f], src[j]);
			WRITE_ONCE(dst[2 * f + 1], src[j]);
		}
	}
}

/*
 * The output is written tx_lead frames after the input it answers: the
 * output engine reads ahead of the input engine by however much its device
 * buffers (QEMU's AC'97 pulls tens of ms early; the vline not at all).  A
 * larger skew than ever moves the lead on, before the pump runs, and the
 * frames the move leaves are the transmitter's own continuation: a gap
 * there is a carrier drop for the far modem (SpanDSP restarts its
 * handshake after 20-40 ms) and a hook flash for the line.  tx_buf, not
 * yet this period's, holds the pieces; the ring bounds the work.
 */
static void tx_grow(struct smodem_dev *sd, u64 pos, u32 n, u64 tx_hw)
{
	struct smodem_tx_gap g = smodem_tx_grow(pos, n, sd->tx_lead,
						sd->st.tx_skew_max, tx_hw,
						sd->p.ring);
	u32 chunk = sd->p.ring / 2, k;

	if (g.lead == sd->tx_lead)
		return;
	sd->tx_lead = g.lead;
	smodem_engine_tx_gap(sd, g.len, g.late);
	while (g.len) {
		k = min(g.len, chunk);
		smodem_engine_tx_fill(sd, sd->tx_buf, k);
		tx_write(sd, g.start, sd->tx_buf, k);
		g.start += k;
		g.len -= k;
	}
}

/*
 * This period's output at its place.  Frames the output engine already
 * read are dropped and counted: written, they would go out a whole ring
 * later, which is worse than a gap.  A skew seen only now moves the lead
 * for the next period, where the move can be filled without a seam.
 */
static void tx_copy(struct smodem_dev *sd, u64 pos, u32 n, u64 rx_hw, u64 tx_hw)
{
	u64 start = pos + sd->tx_lead;
	u32 late = smodem_tx_late(start, n, tx_hw);

	note_skew(sd, rx_hw, tx_hw, n);
	if (late) {
		sd->st.tx_late += late;
		if (late == n)
			return;
	}
	tx_write(sd, start + late, sd->tx_buf + late, n - late);
}

/* *tx_hw: the output engine's latest position, read again here. */
static void process_one(struct smodem_dev *sd, u32 n, u64 *tx_hw_last)
{
	u64 t0 = ktime_get_ns(), t1, hw, tx_hw;
	u32 pend;

	rx_copy(sd, sd->sw_pos, n);
	tx_grow(sd, sd->sw_pos, n, *tx_hw_last);
	smodem_engine_pre(sd);
	smdsp_pump_process(sd->pump, sd->rx_buf, sd->tx_buf, n);
	smodem_engine_post(sd, sd->tx_buf, n);
	if (sd->load_units)
		sd->load_sink += smodem_load_run(sd->rx_buf, n, sd->load_units);
	/*
	 * One position read serves both the output placement and the health
	 * metric: what is left pending once this period's work is done.
	 */
	hw = sd->hw->position(sd, &tx_hw);
	tx_copy(sd, sd->sw_pos, n, hw, tx_hw);
	*tx_hw_last = tx_hw;
	WRITE_ONCE(sd->sw_pos, sd->sw_pos + n);
	t1 = ktime_get_ns();

	pend = clamp_u32(hw - min(hw, sd->sw_pos));
	if (pend > sd->st.pending_max)
		sd->st.pending_max = pend;
	sd->st.periods++;
	smodem_stat_add(&sd->st.proc_ns, t1 - t0);
	trace_smodem_process(sd, n, t1 - t0, pend, in_hardirq() ? 1 : 0,
			     in_serving_softirq() ? 1 : 0, current->policy,
			     current->rt_priority);
}

unsigned int smodem_run(struct smodem_dev *sd)
{
	u64 tx_hw, hw = sd->hw->position(sd, &tx_hw);
	unsigned int done = 0;

	note_skew(sd, hw, tx_hw, sd->p.period);
	/*
	 * One position snapshot bounds the loop: a context slower than the
	 * line would otherwise never return.  What arrives meanwhile is the
	 * next run's work.
	 */
	for (;;) {
		u32 q = READ_ONCE(sd->quantum);
		struct smodem_step s = smodem_next_step(hw, sd->sw_pos, q,
							sd->p.ring);

		if (s.overrun) {
			/* The interrupt may have seen this episode already. */
			if (!READ_ONCE(sd->in_overrun))
				sd->st.overruns++;
			sd->st.dropped += s.dropped;
			trace_smodem_overrun(sd, clamp_u32(hw - sd->sw_pos),
					     s.dropped);
			WRITE_ONCE(sd->sw_pos, s.new_sw);
			WRITE_ONCE(sd->in_overrun, false);
			continue;
		}
		if (!s.process)
			break;
		process_one(sd, q, &tx_hw);
		done++;
	}
	return done;
}

void smodem_request_period(struct smodem_dev *sd, u32 frames)
{
	u32 old = READ_ONCE(sd->quantum);

	if (frames == old)
		return;
	sd->st.period_changes++;
	trace_smodem_period_change(sd, old, frames);
	sd->hw->set_period(sd, frames);
	WRITE_ONCE(sd->quantum, frames);
}
