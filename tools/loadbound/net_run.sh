# Guest side of tools/loadbound/net_experiment.py (busybox sh, root):
# network receive processing under the load-bound probe
# (experiments 2 and 3), with tools/netload/netload.sh's load.
#   NL_MODES     modes in turn, each: none | flood | flood-noreply | sink
#                (netload.sh); results in /share/results/<mode>/
#   LB_IRQ       the receiving NIC's IRQ thread on PREEMPT_RT: default (as
#                the kernel makes it, SCHED_FIFO 50), fifo:PRIO, or
#                deadline:RUNTIME_US:PERIOD_US; ignored without one
#   LB_PRIO      the probe's SCHED_FIFO priority
#   LB_SECONDS   seconds of probe (0: none)
#   LB_OSNOISE   1: after the probe, the osnoise tracer for as long under the
#                same load, where the kernel has it (the second measurement)
#   LB_TASKS     optional: "E1_US E2_US[,E2_US..] PERIOD_US SECONDS PRIO1 PRIO2":
#                after the probe, lbtasks (tau1 reading the heartbeat, tau2)
#   NL_HB_NS     heartbeat period (ns, 0: none)
# Raw results go to /share/results.
set -u
R=/share/results
T=/tmp/lb
mkdir -p $R $T
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
. /opt/netload/netload.sh
fail() { echo "$*" > $R/error; dmesg | tail -n 20 >> $R/error; exit 1; }
netload_setup || fail "netload_setup failed"
irq_pid() {
	for p in /proc/[0-9]*; do
		case "$(cat $p/comm 2>/dev/null)" in
		irq/*-"$1") echo "${p#/proc/}"; return 0 ;;
		esac
	done
	return 1
}
: > $T/irq.txt
if pid=$(irq_pid "$NL_RX"); then
	case $LB_IRQ in
	default) ;;
	fifo:*) lbtasks setsched "$pid" fifo "${LB_IRQ#fifo:}" || fail "chrt $LB_IRQ" ;;
	deadline:*)
		x=${LB_IRQ#deadline:}
		lbtasks setsched "$pid" deadline "${x%%:*}" "${x#*:}" || fail "setsched $LB_IRQ" ;;
	esac
	echo "rx_irq_thread $(cat /proc/$pid/comm) $(lbtasks getsched "$pid")" >> $T/irq.txt
	[ -n "$(irq_pid "$NL_TX")" ] && echo "tx_irq_thread $(cat /proc/$(irq_pid "$NL_TX")/comm) $(lbtasks getsched "$(irq_pid "$NL_TX")")" >> $T/irq.txt
else
	echo "rx_irq_thread none (not threaded)" >> $T/irq.txt
fi
hb=
[ "${NL_HB_NS:-0}" != 0 ] && hb="hb_period_ns=$NL_HB_NS"
# one directory per mode: the load on, the probe (and the tasks), the load off
for mode in $NL_MODES; do
	D=$T/$mode
	mkdir -p $D
	netload_counters > $D/counters-start.txt
	# shellcheck disable=SC2086
	netload_start "$mode" $hb || fail "netload_start $mode failed"
	pid=$(for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = netload ] && echo "${p#/proc/}"; done)
	[ -n "$pid" ] && echo "sender netload $(lbtasks getsched "$pid")" > $D/sender.txt
	sleep 0.2
	if [ "$LB_SECONDS" != 0 ]; then
		echo "[guest] $mode irq=$LB_IRQ: lbprobe -p $LB_PRIO -d $LB_SECONDS"
		lbprobe -p "$LB_PRIO" -c 0 -d "$LB_SECONDS" -o $D/probe.txt 2> $D/probe.log
		echo $? > $D/probe.rc
		if [ "${LB_OSNOISE:-0}" = 1 ] && [ -d /sys/kernel/tracing/osnoise ]; then
			echo "[guest] $mode irq=$LB_IRQ: osnoise for $LB_SECONDS s"
			sh /opt/lb/osnoise.sh 0 "$LB_PRIO" "$LB_SECONDS" 1 $D/osnoise.txt /usr/bin/lbprobe gaps 2> $D/osnoise.log
			echo $? > $D/osnoise.rc
		fi
	fi
	if [ -n "${LB_TASKS:-}" ]; then
		# shellcheck disable=SC2086
		set -- $LB_TASKS
		echo "[guest] $mode irq=$LB_IRQ: lbtasks tau1 $1 us, tau2 $2 us every $3 us, $4 s each"
		lbtasks run -1 "$1" -2 "$2" -P "$3" -d "$4" --prio1 "$5" --prio2 "$6" \
			--port 9000 -o $D/tasks.txt 2> $D/tasks.log
		echo $? > $D/tasks.rc
	fi
	netload_stop $D/counters.txt
	sleep 0.2
done
dmesg > $T/dmesg.txt
cp -r $T/. $R/
echo "[guest] done"
