/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the smodem system: enough to redraw the study's figures
 * (interrupt timing, elapsed times per context, samples pending) from one
 * trace-cmd capture.  Elapsed times are wall clock, preemption included.
 *
 * Every event fires per period or per activation, so every field is an
 * integer (the device is its id, phases and channels are enums printed by
 * name) and what the event can find out for itself (the execution context,
 * the scheduling policy) it reads in TP_fast_assign, at no cost when the
 * event is off.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smodem

#if !defined(_SMODEM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMODEM_TRACE_H

#include <linux/tracepoint.h>
#include <linux/hardirq.h>
#include <linux/sched.h>
#include <smdsp/modem.h>
#include "smodem_call.h"
#include "smodem.h"

/* Where an activation runs: flags, as a hard IRQ may interrupt a BH. */
#define SMODEM_EXEC_HARDIRQ	0x1
#define SMODEM_EXEC_SOFTIRQ	0x2
#define SMODEM_EXEC_TASK	0x4

#define smodem_exec_now()						\
	((in_hardirq() ? SMODEM_EXEC_HARDIRQ : 0) |			\
	 (in_serving_softirq() ? SMODEM_EXEC_SOFTIRQ : 0) ?:		\
	 SMODEM_EXEC_TASK)

#define smodem_show_exec(v)						\
	__print_flags(v, "|",						\
		      { SMODEM_EXEC_HARDIRQ, "hardirq" },		\
		      { SMODEM_EXEC_SOFTIRQ, "softirq" },		\
		      { SMODEM_EXEC_TASK, "task" })

#define smodem_show_policy(v)						\
	__print_symbolic(v,						\
			 { SCHED_NORMAL, "other" },			\
			 { SCHED_FIFO, "fifo" },			\
			 { SCHED_RR, "rr" },				\
			 { SCHED_BATCH, "batch" },			\
			 { SCHED_IDLE, "idle" },			\
			 { SCHED_DEADLINE, "deadline" })

TRACE_DEFINE_ENUM(SMDSP_PHASE_ONHOOK);
TRACE_DEFINE_ENUM(SMDSP_PHASE_OFFHOOK);
TRACE_DEFINE_ENUM(SMDSP_PHASE_DIALING);
TRACE_DEFINE_ENUM(SMDSP_PHASE_WAITING);
TRACE_DEFINE_ENUM(SMDSP_PHASE_ANSWER_TONE);
TRACE_DEFINE_ENUM(SMDSP_PHASE_V8);
TRACE_DEFINE_ENUM(SMDSP_PHASE_TRAINING);
TRACE_DEFINE_ENUM(SMDSP_PHASE_CONNECTED);
TRACE_DEFINE_ENUM(SMDSP_PHASE_RETRAIN);
TRACE_DEFINE_ENUM(SMDSP_PHASE_CARRIER_LOST);
TRACE_DEFINE_ENUM(SMDSP_PHASE_HUNGUP);
TRACE_DEFINE_ENUM(SMDSP_PHASE_PROBING);

#define smodem_show_phase(v)						\
	__print_symbolic(v,						\
			 { SMDSP_PHASE_ONHOOK, "on-hook" },		\
			 { SMDSP_PHASE_OFFHOOK, "off-hook" },		\
			 { SMDSP_PHASE_DIALING, "dialing" },		\
			 { SMDSP_PHASE_WAITING, "waiting" },		\
			 { SMDSP_PHASE_ANSWER_TONE, "answer-tone" },	\
			 { SMDSP_PHASE_V8, "v8" },			\
			 { SMDSP_PHASE_TRAINING, "training" },		\
			 { SMDSP_PHASE_CONNECTED, "connected" },	\
			 { SMDSP_PHASE_RETRAIN, "retrain" },		\
			 { SMDSP_PHASE_CARRIER_LOST, "carrier-lost" },	\
			 { SMDSP_PHASE_HUNGUP, "hung-up" },		\
			 { SMDSP_PHASE_PROBING, "probing" },		\
			 { SMODEM_PHASE_FAX_ON_HOOK, "fax-on-hook" },	\
			 { SMODEM_PHASE_FAX_IDLE, "fax-idle" },		\
			 { SMODEM_PHASE_FAX_DIALING, "fax-dialing" },	\
			 { SMODEM_PHASE_FAX_CNG, "fax-cng" },		\
			 { SMODEM_PHASE_FAX_CED, "fax-ced" },		\
			 { SMODEM_PHASE_FAX_TX_HDLC, "fax-tx-hdlc" },	\
			 { SMODEM_PHASE_FAX_RX_HDLC, "fax-rx-hdlc" },	\
			 { SMODEM_PHASE_FAX_TX_TRAIN, "fax-tx-train" },	\
			 { SMODEM_PHASE_FAX_TX_DATA, "fax-tx-data" },	\
			 { SMODEM_PHASE_FAX_RX_TRAIN, "fax-rx-train" },	\
			 { SMODEM_PHASE_FAX_RX_DATA, "fax-rx-data" },	\
			 { SMODEM_PHASE_FAX_TX_SILENCE, "fax-tx-silence" }, \
			 { SMODEM_PHASE_FAX_RX_SILENCE, "fax-rx-silence" })

TRACE_DEFINE_ENUM(SMODEM_CHAN_IN);
TRACE_DEFINE_ENUM(SMODEM_CHAN_OUT);

#define smodem_show_chan(v)						\
	__print_symbolic(v, { SMODEM_CHAN_IN, "pi" }, { SMODEM_CHAN_OUT, "po" })

TRACE_EVENT(smodem_irq,
	TP_PROTO(struct smodem_dev *sd, u64 period, u64 hwpos, u32 pending),
	TP_ARGS(sd, period, hwpos, pending),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, pending)
		__field(u64, period)
		__field(u64, hwpos)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->pending = pending;
		__entry->period = period;
		__entry->hwpos = hwpos;
	),
	TP_printk("dev=%u period=%llu hwpos=%llu pending=%u", __entry->dev,
		  __entry->period, __entry->hwpos, __entry->pending)
);

DECLARE_EVENT_CLASS(smodem_elapsed,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns),
	TP_ARGS(sd, elapsed_ns),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, elapsed_ns)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->elapsed_ns = elapsed_ns;
	),
	TP_printk("dev=%u elapsed_ns=%llu", __entry->dev, __entry->elapsed_ns)
);

DEFINE_EVENT(smodem_elapsed, smodem_isr_exit,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns),
	TP_ARGS(sd, elapsed_ns));

TRACE_EVENT(smodem_dpc_entry,
	TP_PROTO(struct smodem_dev *sd, u32 queued, u64 delay_ns),
	TP_ARGS(sd, queued, delay_ns),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, queued)
		__field(u64, delay_ns)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->queued = queued;
		__entry->delay_ns = delay_ns;
	),
	TP_printk("dev=%u queued=%u delay_ns=%llu", __entry->dev,
		  __entry->queued, __entry->delay_ns)
);

DECLARE_EVENT_CLASS(smodem_run_done,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns, u32 periods),
	TP_ARGS(sd, elapsed_ns, periods),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, periods)
		__field(u64, elapsed_ns)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->periods = periods;
		__entry->elapsed_ns = elapsed_ns;
	),
	TP_printk("dev=%u elapsed_ns=%llu periods=%u", __entry->dev,
		  __entry->elapsed_ns, __entry->periods)
);

DEFINE_EVENT(smodem_run_done, smodem_dpc_exit,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns, u32 periods),
	TP_ARGS(sd, elapsed_ns, periods));

DEFINE_EVENT(smodem_run_done, smodem_thread_done,
	TP_PROTO(struct smodem_dev *sd, u64 elapsed_ns, u32 periods),
	TP_ARGS(sd, elapsed_ns, periods));

TRACE_EVENT(smodem_thread_wakeup,
	TP_PROTO(struct smodem_dev *sd, u64 latency_ns),
	TP_ARGS(sd, latency_ns),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, policy)
		__field(u32, prio)
		__field(u64, latency_ns)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->policy = current->policy;
		__entry->prio = current->rt_priority;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("dev=%u latency_ns=%llu policy=%s prio=%u", __entry->dev,
		  __entry->latency_ns, smodem_show_policy(__entry->policy),
		  __entry->prio)
);

/* One period through the modem, and where it ran. */
TRACE_EVENT(smodem_process,
	TP_PROTO(struct smodem_dev *sd, u32 samples, u64 elapsed_ns,
		 u32 pending),
	TP_ARGS(sd, samples, elapsed_ns, pending),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, samples)
		__field(u64, elapsed_ns)
		__field(u32, pending)
		__field(u8, exec)
		__field(u8, policy)
		__field(u8, prio)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->samples = samples;
		__entry->elapsed_ns = elapsed_ns;
		__entry->pending = pending;
		__entry->exec = smodem_exec_now();
		__entry->policy = current->policy;
		__entry->prio = current->rt_priority;
	),
	TP_printk("dev=%u samples=%u elapsed_ns=%llu pending=%u exec=%s policy=%s prio=%u",
		  __entry->dev, __entry->samples, __entry->elapsed_ns,
		  __entry->pending, smodem_show_exec(__entry->exec),
		  smodem_show_policy(__entry->policy), __entry->prio)
);

/* One thread activation's time, and what took it (stolen=1). */
TRACE_EVENT(smodem_stolen,
	TP_PROTO(struct smodem_dev *sd, u64 wall_ns, u64 ran_ns, u64 irq_ns,
		 u64 softirq_ns, u64 net_rx_ns, u64 other_ns),
	TP_ARGS(sd, wall_ns, ran_ns, irq_ns, softirq_ns, net_rx_ns, other_ns),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, wall_ns)
		__field(u64, ran_ns)
		__field(u64, irq_ns)
		__field(u64, softirq_ns)
		__field(u64, net_rx_ns)
		__field(u64, other_ns)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->wall_ns = wall_ns;
		__entry->ran_ns = ran_ns;
		__entry->irq_ns = irq_ns;
		__entry->softirq_ns = softirq_ns;
		__entry->net_rx_ns = net_rx_ns;
		__entry->other_ns = other_ns;
	),
	TP_printk("dev=%u wall_ns=%llu ran_ns=%llu irq_ns=%llu softirq_ns=%llu net_rx_ns=%llu other_ns=%llu",
		  __entry->dev, __entry->wall_ns, __entry->ran_ns,
		  __entry->irq_ns, __entry->softirq_ns, __entry->net_rx_ns,
		  __entry->other_ns)
);

/*
 * Once a reservation period.  res_mode=feedback: what was asked (the
 * configured runtime), what the thread received of the runtime it had
 * (that runtime minus the stolen time charged to it), the stolen time, the
 * runtime set now, and whether the ceiling or admission control held it.
 * catchup: the configured runtime, what the thread ran of its own in the
 * period, the stolen time, the runtime that gave it (the configured one
 * plus the stolen time), and whether the ceiling cut that.
 */
TRACE_EVENT(smodem_res_ctl,
	TP_PROTO(struct smodem_dev *sd, u64 period, u64 requested_ns,
		 u64 received_ns, u64 stolen_ns, u64 runtime_ns, u32 saturated),
	TP_ARGS(sd, period, requested_ns, received_ns, stolen_ns, runtime_ns,
		saturated),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u64, period)
		__field(u64, requested_ns)
		__field(u64, received_ns)
		__field(u64, stolen_ns)
		__field(u64, runtime_ns)
		__field(u32, saturated)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->period = period;
		__entry->requested_ns = requested_ns;
		__entry->received_ns = received_ns;
		__entry->stolen_ns = stolen_ns;
		__entry->runtime_ns = runtime_ns;
		__entry->saturated = saturated;
	),
	TP_printk("dev=%u period=%llu requested_ns=%llu received_ns=%llu stolen_ns=%llu runtime_ns=%llu saturated=%s",
		  __entry->dev, __entry->period, __entry->requested_ns,
		  __entry->received_ns, __entry->stolen_ns, __entry->runtime_ns,
		  __print_symbolic(__entry->saturated, { 0, "no" },
				   { 1, "ceiling" }, { 2, "admission" }))
);

TRACE_EVENT(smodem_overrun,
	TP_PROTO(struct smodem_dev *sd, u32 pending, u64 dropped),
	TP_ARGS(sd, pending, dropped),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, pending)
		__field(u64, dropped)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->pending = pending;
		__entry->dropped = dropped;
	),
	TP_printk("dev=%u pending=%u dropped=%llu", __entry->dev,
		  __entry->pending, __entry->dropped)
);

TRACE_EVENT(smodem_period_change,
	TP_PROTO(struct smodem_dev *sd, u32 old, u32 new),
	TP_ARGS(sd, old, new),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("dev=%u old=%u new=%u", __entry->dev, __entry->old,
		  __entry->new)
);

/*
 * phase: enum smdsp_modem_phase; arg: the bit rate when connected, enum
 * smdsp_modem_cause when hung up.  Class 1: SMODEM_PHASE_FAX_* (the fax
 * pump's phase, smodem_call.h), arg: the modulation (T.31's code).
 */
TRACE_EVENT(smodem_phase,
	TP_PROTO(struct smodem_dev *sd, u32 phase, u32 arg),
	TP_ARGS(sd, phase, arg),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, phase)
		__field(u32, arg)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->phase = phase;
		__entry->arg = arg;
	),
	TP_printk("dev=%u phase=%s arg=%u", __entry->dev,
		  smodem_show_phase(__entry->phase), __entry->arg)
);

TRACE_EVENT(smodem_dma_halt,
	TP_PROTO(struct smodem_dev *sd, enum smodem_chan chan, u32 civ, u32 lvi),
	TP_ARGS(sd, chan, civ, lvi),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, chan)
		__field(u32, civ)
		__field(u32, lvi)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->chan = chan;
		__entry->civ = civ;
		__entry->lvi = lvi;
	),
	TP_printk("dev=%u chan=%s civ=%u lvi=%u", __entry->dev,
		  smodem_show_chan(__entry->chan), __entry->civ, __entry->lvi)
);

TRACE_DEFINE_ENUM(SMODEM_FAULT_STORM);
TRACE_DEFINE_ENUM(SMODEM_FAULT_MISS);
TRACE_DEFINE_ENUM(SMODEM_FAULT_BACK);
TRACE_DEFINE_ENUM(SMODEM_FAULT_JUMP);
TRACE_DEFINE_ENUM(SMODEM_FAULT_ORDER);
TRACE_DEFINE_ENUM(SMODEM_FAULT_HALT);
TRACE_DEFINE_ENUM(SMODEM_FAULT_SHARED);
TRACE_DEFINE_ENUM(SMODEM_FAULT_LOST);
TRACE_DEFINE_ENUM(SMODEM_FAULT_RECOVER);
TRACE_DEFINE_ENUM(SMODEM_FAULT_HANGUP);

/*
 * The module noticed its device misbehave (smodem_fault.h): kind as in the
 * stats file's fault_* lines, arg the position it saw (or by how much).
 */
TRACE_EVENT(smodem_fault,
	TP_PROTO(struct smodem_dev *sd, int kind, u64 arg),
	TP_ARGS(sd, kind, arg),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(int, kind)
		__field(u64, arg)
	),
	TP_fast_assign(
		__entry->dev = sd->id;
		__entry->kind = kind;
		__entry->arg = arg;
	),
	TP_printk("dev=%u kind=%s arg=%llu", __entry->dev,
		  __print_symbolic(__entry->kind,
				   { SMODEM_FAULT_STORM, "irq_storm" },
				   { SMODEM_FAULT_MISS, "irq_missed" },
				   { SMODEM_FAULT_BACK, "pos_back" },
				   { SMODEM_FAULT_JUMP, "pos_jump" },
				   { SMODEM_FAULT_ORDER, "irq_order" },
				   { SMODEM_FAULT_HALT, "engine_stopped" },
				   { SMODEM_FAULT_SHARED, "irq_foreign" },
				   { SMODEM_FAULT_LOST, "irq_lost" },
				   { SMODEM_FAULT_RECOVER, "recoveries" },
				   { SMODEM_FAULT_HANGUP, "hangups" }),
		  __entry->arg)
);

#endif /* _SMODEM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE smodem_trace
#include <trace/define_trace.h>
