// SPDX-License-Identifier: GPL-2.0
/*
 * The per-period path shared by every context, top to bottom:
 *
 *   backend interrupt -> smodem_irq() -> ctx->kick()
 *   context           -> smodem_run() -> process_one() per complete period
 *                                         -> smodem_modem_step()
 *                                            -> modem->ops->period()
 *
 * smodem_run() reads the hardware position, moves each complete period
 * out of the input ring, makes the one outward call per period (to the
 * modem, smodem_modem.h), writes the output ahead of the output engine,
 * applies the period the modem wants next, and accounts for everything the
 * study measured.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/hardirq.h>
#include "smodem.h"
#include "smodem_modem.h"
#include "smodem_ring.h"
#include "smodem_trace.h"
#include "smodem_link.h"
#include "smodem_call.h"

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

static u64 frames_in(const struct smodem_dev *sd, u64 ns)
{
	return div_u64(ns, NSEC_PER_USEC) * sd->p.rate / USEC_PER_SEC;
}

/* smodem_pos_judge() in time elapsed, as the fault kind it finds, or -1. */
static int pos_judge(const struct smodem_dev *sd, u64 pos, u64 last,
		     u64 since_ns)
{
	switch (smodem_pos_judge(pos, last, frames_in(sd, since_ns),
				 sd->p.ring)) {
	case SMODEM_POS_BACK:
		return SMODEM_FAULT_BACK;
	case SMODEM_POS_JUMP:
		return SMODEM_FAULT_JUMP;
	default:
		return -1;
	}
}

/*
 * Whether an interrupt at hw_pos deserves a kick.  Not when it reports an
 * older completion than the last one did (descriptors out of order), a
 * position no engine can be at, or less than a quarter period beyond the
 * last kick (a storm: whatever it brought, that kick's run has it or the
 * next period's interrupt will).  Periods it skipped are counted; while a
 * new period length replaces the queued old ones, either may pace.
 */
static bool irq_judge(struct smodem_dev *sd, u64 hw_pos, u64 now)
{
	struct smodem_fault *f = &sd->fault;
	u32 lo = READ_ONCE(sd->period), hi = lo, old = READ_ONCE(f->old_period);
	u64 adv;
	int bad, skipped;

	if (READ_ONCE(f->old_left)) {
		WRITE_ONCE(f->old_left, f->old_left - 1);
		lo = min(lo, old);
		hi = max(hi, old);
	}
	if (hw_pos < sd->irq_pos) {
		smodem_fault_seen(sd, SMODEM_FAULT_ORDER, sd->irq_pos - hw_pos);
		return false;
	}
	bad = pos_judge(sd, hw_pos, f->kick_pos, now - f->kick_ns);
	if (bad == SMODEM_FAULT_JUMP) {
		smodem_fault_seen(sd, bad, hw_pos);
		return false;
	}
	adv = hw_pos - f->kick_pos;
	skipped = smodem_irq_skipped(adv, lo, hi);
	if (skipped < 0) {
		smodem_fault_seen(sd, SMODEM_FAULT_STORM, adv);
		return false;
	}
	if (skipped)
		smodem_fault_seen_n(sd, SMODEM_FAULT_MISS, skipped, adv);
	f->kick_pos = hw_pos;
	f->kick_ns = now;
	return true;
}

/* Hard IRQ: the backend has acked the device and read its position. */
bool smodem_irq(struct smodem_dev *sd, u64 hw_pos)
{
	u64 now = ktime_get_ns();
	u64 pending = hw_pos - min(hw_pos, READ_ONCE(sd->sw_pos));
	u32 pend32 = clamp_u32(pending);
	u32 period;

	sd->stats.irqs++;
	sd->stats.irq_cpus |= BIT_ULL(raw_smp_processor_id() & 63);
	if (!irq_judge(sd, hw_pos, now))
		return false;
	sd->period_idx++;
	WRITE_ONCE(sd->irq_pos, hw_pos);
	if (!READ_ONCE(sd->irq_ns))
		WRITE_ONCE(sd->irq_ns, now);
	if (pend32 > sd->stats.pending_irq_max)
		sd->stats.pending_irq_max = pend32;
	trace_smodem_irq(sd, sd->period_idx, hw_pos, pend32);
	/*
	 * A deadline miss: more than the period just completed is waiting,
	 * so the one before it was not processed by the end of its period
	 * (half a period of slack for where the position is read).
	 */
	period = READ_ONCE(sd->period);
	if (pending >= period + period / 2)
		sd->stats.deadline_misses++;

	/* Counted once per episode; the processing resynchronises. */
	if (unlikely(pending >= sd->p.ring) &&
	    smodem_overrun_seen(&sd->ovr, &sd->stats.overruns))
		trace_smodem_overrun(sd, pend32, 0);
	sd->ctx->kick(sd);
	return true;
}

/*
 * The engine's positions as the processing believes them: a read that no
 * engine can give (pos_judge(), the input's and the output's each against
 * its own last good one) is counted and replaced by that one, so that one
 * bad read neither skips the ring (a jump is an overrun) nor moves the
 * output lead for good (it only grows).  An input engine that gives nothing
 * else for a second has lost the call: NO CARRIER, once.
 */
static u64 hw_read(struct smodem_dev *sd, u64 *tx_out)
{
	struct smodem_fault *f = &sd->fault;
	u64 tx, rx = sd->hw->position(sd, &tx), now = ktime_get_ns();
	int bad = pos_judge(sd, rx, f->rx_ok, now - f->ok_ns);
	int tx_bad = pos_judge(sd, tx, f->tx_ok, now - f->tx_ok_ns);

	if (unlikely(tx_bad >= 0)) {
		smodem_fault_seen(sd, tx_bad, tx);
	} else {
		f->tx_ok = tx;
		f->tx_ok_ns = now;
	}
	if (likely(bad < 0)) {
		f->rx_ok = rx;
		f->ok_ns = now;
		f->bad_since_ns = 0;
		f->bad_gone = false;
	} else {
		smodem_fault_seen(sd, bad, rx);
		if (!f->bad_since_ns)
			f->bad_since_ns = now;
		if (now - f->bad_since_ns > NSEC_PER_SEC && !f->bad_gone) {
			f->bad_gone = true;
			smodem_fault_seen(sd, SMODEM_FAULT_HANGUP, rx);
			smodem_link_gone(sd);
		}
	}
	*tx_out = f->tx_ok;
	return f->rx_ok;
}

/*
 * The input position as the processing believes it (hw_read()), for a
 * context that moves the ring on without processing (usr with no daemon):
 * one wild read must not skip it ahead for good.
 */
u64 smodem_hw_position(struct smodem_dev *sd)
{
	u64 tx;

	return hw_read(sd, &tx);
}

u64 smodem_take_irq_age(struct smodem_dev *sd, u64 now)
{
	u64 t = xchg(&sd->irq_ns, 0);

	return t && now > t ? now - t : 0;
}

/* Deinterleave the line (left channel) of [pos, pos + n) out of the ring. */
static void rx_copy(struct smodem_dev *sd, s16 *dst, u64 pos, u32 n)
{
	struct smodem_piece pc[2];
	unsigned int k, i, j = 0;

	k = smodem_split_period(pos, n, sd->p.ring, pc);
	for (i = 0; i < k; i++) {
		const s16 *src = sd->rx_ring + 2 * pc[i].off;
		u32 f;

		for (f = 0; f < pc[i].len; f++)
			dst[j++] = READ_ONCE(src[2 * f]);
	}
}

/* With call control, as the modem's phases say; without it, never. */
static bool on_hook(const struct smodem_dev *sd)
{
	return sd->p.engine && !sd->hook;
}

/*
 * The output engine reads ahead of the input engine by this much.  A skew
 * the ring cannot hold a lead for makes every transmitted frame late (a
 * silent modem that cannot even dial): say so once, with what would do.
 * Kept apart on hook and in a call: whether the one bounds the other is
 * what the lead fitted on hook stands on.
 */
static void note_skew(struct smodem_dev *sd, u64 rx_hw, u64 tx_hw, u32 n)
{
	u32 skew = clamp_u32(tx_hw > rx_hw ? tx_hw - rx_hw : 0);
	u32 *part = on_hook(sd) ? &sd->stats.tx_skew_hook_max :
				  &sd->stats.tx_skew_call_max;

	if (skew > *part)
		*part = skew;
	if (skew > sd->stats.tx_skew_max)
		sd->stats.tx_skew_max = skew;
	if (skew <= sd->lead_seen.skew)
		return;
	sd->lead_seen.skew = skew;
	if ((u64)skew + n + n / 2 > sd->p.ring - n)
		pr_warn_once("smodem: %s: the output DMA reads %u frames ahead of the input, more than ring_samples=%u leaves room for: use ring_samples >= %llu\n",
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
 * buffers (QEMU's AC'97 pulls tens of ms early; the vline not at all).  On
 * hook (engine=1) the lead is fitted to the largest skew seen, with a
 * margin (smodem_tx_fit()); in a call, or without call control, a larger
 * skew than ever moves it on, before the pump runs, and the frames the
 * move leaves are the transmitter's own continuation: a gap there is a
 * carrier drop for the far modem (SpanDSP restarts its handshake after
 * 20-40 ms) and a hook flash for the line.  Decided here, filled by the
 * modem (smodem_modem_step(), here or in the daemon of context=usr).
 */
static void tx_grow(struct smodem_dev *sd, u64 pos, u32 n, u64 tx_hw,
		    struct smodem_upcall *up)
{
	/* the period of a call: phase_periods' 12.5 ms, or the loaded one */
	u32 n_call = sd->p.phase_periods ? SMDSP_MODEM_RATE / 80 : sd->p.period;
	struct smodem_tx_gap g;

	g = smodem_tx_decide(pos, n, sd->tx_lead, on_hook(sd), n_call,
			     &sd->lead_seen, tx_hw, sd->p.ring);
	up->gap.grew = g.lead > sd->tx_lead;
	up->gap.start = g.start;
	up->gap.len = up->gap.grew ? g.len : 0;
	up->gap.late = up->gap.grew ? g.late : 0;
	up->gap.lead = g.lead;
	sd->tx_lead = g.lead;
}

void smodem_hook_phase(struct smodem_dev *sd, u32 phase)
{
	sd->hook = smodem_hook_after(sd->hook, phase);
}

/* What of the gap was played already, tx_grow() left out. */
void smodem_fill_place(const struct smodem_fill *f,
		       const struct smodem_gap *gap)
{
	tx_write(container_of(f, struct smodem_dev, fill), gap->start, f->buf,
		 gap->len);
}

/*
 * Output at its place in the ring.  Frames the output engine already read
 * are dropped and counted: written, they would go out a whole ring later,
 * which is worse than a gap.
 */
static void tx_place(struct smodem_dev *sd, u64 start, const s16 *src, u32 n,
		     u64 tx_hw)
{
	u32 late = smodem_tx_late(start, n, tx_hw);

	sd->stats.tx_late += late;
	if (late < n)
		tx_write(sd, start + late, src + late, n - late);
}

/*
 * This period's output.  A skew or a delay seen only now moves the lead for
 * the next period, where the move can be filled without a seam.
 */
static void tx_copy(struct smodem_dev *sd, u64 pos, const s16 *tx, u32 n,
		    u64 rx_hw, u64 tx_hw)
{
	u64 delay = rx_hw > pos + n ? rx_hw - (pos + n) : 0;

	note_skew(sd, rx_hw, tx_hw, n);
	/*
	 * A response within the period moves the lead; a backlog beyond it
	 * (catching up, an overrun) is not a response time a call's lead can
	 * serve, only one fitted on hook (smodem_tx_fit()).  Below a ring: a
	 * backlog of a ring is an overrun, skipped before it gets here.
	 */
	if (delay <= n) {
		sd->stats.tx_delay_max = max_t(u32, sd->stats.tx_delay_max,
					       delay);
		sd->lead_seen.delay = max_t(u64, sd->lead_seen.delay, delay);
	}
	sd->stats.tx_late_delay_max = max_t(u32, sd->stats.tx_late_delay_max,
					    clamp_u32(delay));
	sd->lead_seen.late = max_t(u64, sd->lead_seen.late, delay);
	if (on_hook(sd)) {
		sd->stats.tx_late_delay_hook_max =
			max_t(u32, sd->stats.tx_late_delay_hook_max,
			      clamp_u32(delay));
		sd->lead_seen.late_hook = max_t(u64, sd->lead_seen.late_hook,
						delay);
	}
	tx_place(sd, pos + sd->tx_lead, tx, n, tx_hw);
}

/* The first half of the period at sw_pos: its input in rx, the lead moved. */
static void period_in(struct smodem_dev *sd, u32 n, u64 tx_hw, s16 *rx,
		      struct smodem_upcall *up)
{
	up->t0 = ktime_get_ns();
	up->pos = sd->sw_pos;
	up->n = n;
	rx_copy(sd, rx, sd->sw_pos, n);
	if (unlikely(READ_ONCE(sd->fault.line_mode)))
		smodem_fault_line(sd, rx, n);
	tx_grow(sd, sd->sw_pos, n, tx_hw, up);
}

/*
 * The second half: the output tx at its place, the period accounted for.
 * Returns the output engine's position, read again here.
 */
static u64 period_out(struct smodem_dev *sd, const struct smodem_upcall *up,
		      const s16 *tx)
{
	u64 t1, hw, tx_hw;
	u32 pend, n = up->n;

	/*
	 * One position read serves both the output placement and the health
	 * metric: what is left pending once this period's work is done.
	 */
	hw = hw_read(sd, &tx_hw);
	tx_copy(sd, up->pos, tx, n, hw, tx_hw);
	WRITE_ONCE(sd->sw_pos, up->pos + n);
	t1 = ktime_get_ns();

	pend = clamp_u32(hw - min(hw, sd->sw_pos));
	if (pend > sd->stats.pending_max)
		sd->stats.pending_max = pend;
	sd->stats.periods++;
	sd->stats.proc_cpus |= BIT_ULL(raw_smp_processor_id() & 63);
	smodem_stat_add(&sd->stats.proc_ns, t1 - up->t0);
	trace_smodem_process(sd, n, t1 - up->t0, pend);
	return tx_hw;
}

/*
 * One period at sw_pos through the in-kernel modem.  *tx_hw_last: the
 * output engine's latest position.  Returns the period the modem wants
 * from now on.
 */
static u32 process_one(struct smodem_dev *sd, u32 n, u64 *tx_hw_last)
{
	struct smodem_modem *m = sd->modem;
	struct smodem_upcall up;
	u32 next;

	period_in(sd, n, *tx_hw_last, sd->rx_buf, &up);
	next = smodem_modem_step(m, &up.gap, &sd->fill, sd->rx_buf, sd->tx_buf,
				 n);
	*tx_hw_last = period_out(sd, &up, sd->tx_buf);
	return next;
}

/* Frames skipped to get back to fresh data; the episode counted once. */
static void overrun(struct smodem_dev *sd, u64 hw, const struct smodem_step *s)
{
	smodem_overrun_end(&sd->ovr, &sd->stats.overruns, &sd->stats.dropped,
			   s->dropped);
	trace_smodem_overrun(sd, clamp_u32(hw - sd->sw_pos), s->dropped);
	WRITE_ONCE(sd->sw_pos, s->new_sw);
}

/*
 * The length of the complete period at sw_pos, 0 if there is none yet;
 * an overrun is resynchronised first.
 */
static u32 next_period(struct smodem_dev *sd, u64 hw)
{
	for (;;) {
		u32 n = READ_ONCE(sd->period);
		struct smodem_step s = smodem_next_step(hw, sd->sw_pos, n,
							sd->p.ring);

		if (!s.overrun)
			return s.process ? n : 0;
		overrun(sd, hw, &s);
	}
}

unsigned int smodem_run(struct smodem_dev *sd)
{
	u64 tx_hw, hw = hw_read(sd, &tx_hw);
	unsigned int done = 0;
	u32 n, next;

	note_skew(sd, hw, tx_hw, READ_ONCE(sd->period));
	/*
	 * One position snapshot bounds the loop: a context slower than the
	 * line would otherwise never return.  What arrives meanwhile is the
	 * next run's work.
	 */
	while ((n = next_period(sd, hw)) != 0) {
		if (sd->ctx->may_run && !sd->ctx->may_run(sd))
			break;
		next = process_one(sd, n, &tx_hw);
		if (next != n)
			smodem_set_period(sd, next);
		done++;
	}
	return done;
}

bool smodem_period_take(struct smodem_dev *sd, s16 *rx,
			struct smodem_upcall *up)
{
	u64 tx_hw, hw = hw_read(sd, &tx_hw);
	u32 n;

	note_skew(sd, hw, tx_hw, READ_ONCE(sd->period));
	n = next_period(sd, hw);
	if (!n)
		return false;
	period_in(sd, n, tx_hw, rx, up);
	return true;
}

void smodem_period_put(struct smodem_dev *sd, const struct smodem_upcall *up,
		       const s16 *fill, const s16 *tx, const s16 *rx, u32 next)
{
	u64 tx_hw;

	if (up->gap.len) {
		/* Written after the fact: what was played meanwhile is lost. */
		hw_read(sd, &tx_hw);
		tx_place(sd, up->gap.start, fill, up->gap.len, tx_hw);
	}
	/* the in-kernel modem's load_us is a modem of its own: here, usr's */
	if (sd->load_units)
		sd->load_sink += smodem_load_run(rx, up->n, sd->load_units);
	period_out(sd, up, tx);
	if (next != up->n)
		smodem_set_period(sd, next);
}

/*
 * From the processing context (the modem's phase) or debugfs.  The
 * processing takes periods of the new length at once; the backend
 * interrupts at the new pace from its next queued period on.
 */
void smodem_set_period(struct smodem_dev *sd, u32 frames)
{
	u32 old = READ_ONCE(sd->period);

	if (frames == old)
		return;
	sd->stats.period_changes++;
	trace_smodem_period_change(sd, old, frames);
	/* the backend's queued periods keep the old length for a while */
	WRITE_ONCE(sd->fault.old_period, old);
	WRITE_ONCE(sd->fault.old_left, SMODEM_FAULT_OLD_IRQS);
	WRITE_ONCE(sd->period, frames);
	sd->hw->set_period(sd);
}
