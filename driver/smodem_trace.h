/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the smodem system: enough to redraw the study's figures
 * (interrupt timing, elapsed times per context, samples pending) from one
 * trace-cmd capture.  Elapsed times are wall clock, preemption included.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smodem

#if !defined(_SMODEM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMODEM_TRACE_H

#include <linux/tracepoint.h>
#include "smodem.h"

/* __assign_str() lost its source argument in 6.10 (probed by Kbuild). */
#ifdef SMODEM_ASSIGN_STR_DST_ONLY
#define smodem_assign_dev(sd)	__assign_str(dev)
#define smodem_assign_str(f, v)	__assign_str(f)
#else
#define smodem_assign_dev(sd)	__assign_str(dev, (sd)->name)
#define smodem_assign_str(f, v)	__assign_str(f, v)
#endif

TRACE_EVENT(smodem_irq,
	TP_PROTO(struct smodem_dev *sd, u64 period, u64 hwpos, u32 pending),
	TP_ARGS(sd, period, hwpos, pending),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u64, period)
		__field(u64, hwpos)
		__field(u32, pending)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->period = period;
		__entry->hwpos = hwpos;
		__entry->pending = pending;
	),
	TP_printk("dev=%s period=%llu hwpos=%llu pending=%u", __get_str(dev),
		  __entry->period, __entry->hwpos, __entry->pending)
);

DECLARE_EVENT_CLASS(smodem_elapsed,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns),
	TP_ARGS(sd, elapsed_ns),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u64, elapsed_ns)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->elapsed_ns = elapsed_ns;
	),
	TP_printk("dev=%s elapsed_ns=%llu", __get_str(dev), __entry->elapsed_ns)
);

DEFINE_EVENT(smodem_elapsed, smodem_isr_exit,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns),
	TP_ARGS(sd, elapsed_ns));

TRACE_EVENT(smodem_dpc_entry,
	TP_PROTO(struct smodem_dev *sd, u32 queued, u64 delay_ns),
	TP_ARGS(sd, queued, delay_ns),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u32, queued)
		__field(u64, delay_ns)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->queued = queued;
		__entry->delay_ns = delay_ns;
	),
	TP_printk("dev=%s queued=%u delay_ns=%llu", __get_str(dev),
		  __entry->queued, __entry->delay_ns)
);

DECLARE_EVENT_CLASS(smodem_run_done,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns, u32 periods),
	TP_ARGS(sd, elapsed_ns, periods),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u64, elapsed_ns)
		__field(u32, periods)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->elapsed_ns = elapsed_ns;
		__entry->periods = periods;
	),
	TP_printk("dev=%s elapsed_ns=%llu periods=%u", __get_str(dev),
		  __entry->elapsed_ns, __entry->periods)
);

DEFINE_EVENT(smodem_run_done, smodem_dpc_exit,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns, u32 periods),
	TP_ARGS(sd, elapsed_ns, periods));

DEFINE_EVENT(smodem_run_done, smodem_thread_done,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns, u32 periods),
	TP_ARGS(sd, elapsed_ns, periods));

TRACE_EVENT(smodem_thread_wakeup,
	TP_PROTO(struct smodem_dev *sd, u64 latency_ns, u32 policy, u32 prio),
	TP_ARGS(sd, latency_ns, policy, prio),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u64, latency_ns)
		__field(u32, policy)
		__field(u32, prio)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->latency_ns = latency_ns;
		__entry->policy = policy;
		__entry->prio = prio;
	),
	TP_printk("dev=%s latency_ns=%llu policy=%u prio=%u", __get_str(dev),
		  __entry->latency_ns, __entry->policy, __entry->prio)
);

TRACE_EVENT(smodem_process,
	TP_PROTO(struct smodem_dev *sd, u32 samples, u64 elapsed_ns, u32 pending,
		 u32 hardirq, u32 softirq, u32 policy, u32 prio),
	TP_ARGS(sd, samples, elapsed_ns, pending, hardirq, softirq, policy,
		prio),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u32, samples)
		__field(u64, elapsed_ns)
		__field(u32, pending)
		__field(u32, hardirq)
		__field(u32, softirq)
		__field(u32, policy)
		__field(u32, prio)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->samples = samples;
		__entry->elapsed_ns = elapsed_ns;
		__entry->pending = pending;
		__entry->hardirq = hardirq;
		__entry->softirq = softirq;
		__entry->policy = policy;
		__entry->prio = prio;
	),
	TP_printk("dev=%s samples=%u elapsed_ns=%llu pending=%u hardirq=%u softirq=%u policy=%u prio=%u",
		  __get_str(dev), __entry->samples, __entry->elapsed_ns,
		  __entry->pending, __entry->hardirq, __entry->softirq,
		  __entry->policy, __entry->prio)
);

TRACE_EVENT(smodem_overrun,
	TP_PROTO(struct smodem_dev *sd, u32 pending, u64 dropped),
	TP_ARGS(sd, pending, dropped),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u32, pending)
		__field(u64, dropped)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->pending = pending;
		__entry->dropped = dropped;
	),
	TP_printk("dev=%s pending=%u dropped=%llu", __get_str(dev),
		  __entry->pending, __entry->dropped)
);

TRACE_EVENT(smodem_period_change,
	TP_PROTO(struct smodem_dev *sd, u32 old, u32 new),
	TP_ARGS(sd, old, new),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("dev=%s old=%u new=%u", __get_str(dev), __entry->old,
		  __entry->new)
);

/* arg: the bit rate when connected, enum smdsp_modem_cause when hung up. */
TRACE_EVENT(smodem_phase,
	TP_PROTO(struct smodem_dev *sd, const char *phase, u32 arg),
	TP_ARGS(sd, phase, arg),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__string(phase, phase)
		__field(u32, arg)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		smodem_assign_str(phase, phase);
		__entry->arg = arg;
	),
	TP_printk("dev=%s phase=%s arg=%u", __get_str(dev), __get_str(phase),
		  __entry->arg)
);

TRACE_EVENT(smodem_dma_halt,
	TP_PROTO(struct smodem_dev *sd, const char *chan, u32 civ, u32 lvi),
	TP_ARGS(sd, chan, civ, lvi),
	TP_STRUCT__entry(
		__string(dev, sd->name)
		__string(chan, chan)
		__field(u32, civ)
		__field(u32, lvi)
	),
	TP_fast_assign(
		smodem_assign_dev(sd);
		smodem_assign_str(chan, chan);
		__entry->civ = civ;
		__entry->lvi = lvi;
	),
	TP_printk("dev=%s chan=%s civ=%u lvi=%u", __get_str(dev),
		  __get_str(chan), __entry->civ, __entry->lvi)
);

#endif /* _SMODEM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE smodem_trace
#include <trace/define_trace.h>
