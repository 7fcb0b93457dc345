#!/bin/sh
# osnoise.sh: the kernel's own noise tracer as the load-bound probe's
# independent second measurement.  POSIX/busybox sh, root.
#
#   osnoise.sh CPU PRIO SECONDS THRESHOLD_US OUT [LBPROBE [EVENTS]]
#
# Runs the osnoise tracer (/sys/kernel/tracing/osnoise, CONFIG_OSNOISE_TRACER)
# on CPU for SECONDS, its osnoise/CPU thread at SCHED_FIFO PRIO (set with
# `lbprobe --chrt`, LBPROBE default lbprobe from PATH), noise longer than
# THRESHOLD_US reported, and saves to OUT a "# lbosnoise 1" header followed
# by the raw trace: one osnoise:sample_threshold event per gap (its start,
# its length, how many interferences it held), the per-noise events
# (irq_noise, softirq_noise, thread_noise, nmi_noise) and the tracer's
# per-period summaries, bracketed by two trace_marker lines that give the
# run's start and end on the trace's clock.  loadbound.py reads OUT like a
# probe trace (the sample_threshold events are the gaps).
#
# On a uniprocessor the tracer and lbprobe cannot measure the same CPU at
# once (each would be the other's interference): run it right after the
# probe, with the same load, at the probe's priority.
# EVENTS: all (default) records the per-noise events too; gaps only the
# sample_threshold events, for heavy noise (a packet flood's per-interrupt
# events overflow the trace buffer, and with it the start marker).
# Exit: 0 ok, 1 usage, 3 no osnoise in this kernel, 4 tracefs error, 5 the
# trace buffer overflowed.
set -u
usage="usage: osnoise.sh CPU PRIO SECONDS THRESHOLD_US OUT [LBPROBE [all|gaps]]"
[ $# -ge 5 ] || { echo "$usage" >&2; exit 1; }
cpu=$1 prio=$2 secs=$3 thr=$4 out=$5 probe=${6:-lbprobe} events=${7:-all}
case $events in
all) events="sample_threshold irq_noise softirq_noise thread_noise nmi_noise" ;;
gaps) events=sample_threshold ;;
*) echo "$usage" >&2; exit 1 ;;
esac
T=/sys/kernel/tracing
[ -d $T/osnoise ] || T=/sys/kernel/debug/tracing
if [ ! -d $T/osnoise ]; then
	echo "osnoise.sh: no osnoise tracer in this kernel ($(uname -r)): CONFIG_OSNOISE_TRACER" >&2
	exit 3
fi
w() { echo "$2" > "$T/$1" || { echo "osnoise.sh: cannot write $2 to $T/$1" >&2; exit 4; }; }

# The tracer's thread gets the probe's priority and no pause (runtime =
# period): this shell must be above it to wake and stop it.
"$probe" --chrt $$ 99 || exit 4
w tracing_on 0
w current_tracer nop
w trace ""
w osnoise/cpus "$cpu"
# 95 ms of every 100: the tracer spinning at a real-time priority with no
# pause at all hangs the kernel's own tracer start on a uniprocessor (its
# RCU waits); in the pauses, what it would have seen as noise runs unseen
# (runtime first: the kernel keeps runtime <= period)
w osnoise/runtime_us 95000
w osnoise/period_us 100000
# the tracer's noise threshold is the top-level tracing_thresh (us)
w tracing_thresh "$thr"
for f in stop_tracing_us stop_tracing_total_us; do
	[ -f $T/osnoise/$f ] && w osnoise/$f 0
done
w buffer_size_kb 16384
w set_event ""
for e in $events; do
	[ -d $T/events/osnoise/$e ] && w events/osnoise/$e/enable 1
done
[ -f $T/options/markers ] && w options/markers 1
w current_tracer osnoise
w tracing_on 1
pid=
for i in 1 2 3 4 5 6 7 8 9 10; do
	for p in /proc/[0-9]*; do
		[ "$(cat $p/comm 2>/dev/null)" = "osnoise/$cpu" ] && pid=${p#/proc/}
	done
	[ -n "$pid" ] && break
	sleep 0.1
done
if [ -z "$pid" ]; then
	echo "osnoise.sh: no osnoise/$cpu thread" >&2
	w tracing_on 0
	w current_tracer nop
	exit 4
fi
"$probe" --chrt "$pid" "$prio" || { w tracing_on 0; w current_tracer nop; exit 4; }
echo "lbosnoise start" > $T/trace_marker
sleep "$secs"
echo "lbosnoise stop" > $T/trace_marker
w tracing_on 0
{
	echo "# lbosnoise 1"
	echo "# cpu $cpu"
	echo "# prio $prio"
	echo "# policy fifo"
	echo "# threshold_ns $((thr * 1000))"
	echo "# requested_ns $(awk "BEGIN{printf \"%d\", $secs * 1e9}")"
	echo "# kernel $(uname -r)"
	cat $T/trace
} > "$out"
w current_tracer nop
w set_event ""
w tracing_thresh 0
if ! grep -q 'lbosnoise start' "$out"; then
	echo "osnoise.sh: the trace buffer overflowed (its start marker is gone): record gaps only, or a longer buffer" >&2
	exit 5
fi
echo "osnoise.sh: $(grep -c 'sample_threshold:' "$out") samples over ${thr} us in ${secs} s on CPU $cpu -> $out" >&2
