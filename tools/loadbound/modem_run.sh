# Guest side of tools/loadbound/experiment.py (busybox sh, root): one
# context of the modem under the load-bound probe.
#   LB_CONTEXT   control (no module) or int|dpc|thr|res
#   LB_PARAMS    insmod arguments beyond context=
#   LB_PRIO      the probe's SCHED_FIFO priority (below the modem's work)
#   LB_SECONDS   seconds of probe (and of osnoise after it)
#   LB_OSNOISE   1: then the osnoise tracer for as long, same CPU, same
#                priority, same load, where the kernel has it
# Raw results (probe.txt, osnoise.txt, stats.txt, *.log, *.rc) go to
# /share/results.
set -u
R=/share/results
T=/tmp/lb
mkdir -p $R $T
# real-time throttling's 50 ms pauses every second would be interference
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
stats() { for f in /sys/kernel/debug/smodem/*/"$1"; do echo "$f"; return; done; }
if [ "$LB_CONTEXT" != control ]; then
	# shellcheck disable=SC2086
	if ! insmod /opt/smodem/smodem.ko context=$LB_CONTEXT $LB_PARAMS; then
		echo "insmod context=$LB_CONTEXT $LB_PARAMS failed" > $R/error
		dmesg | tail -n 5 >> $R/error
		exit 1
	fi
	sleep 1
	echo 1 > "$(stats reset)"
fi
echo "[guest] $LB_CONTEXT: lbprobe -p $LB_PRIO -d $LB_SECONDS"
lbprobe -p "$LB_PRIO" -c 0 -d "$LB_SECONDS" -o $T/probe.txt 2> $T/probe.log
echo $? > $T/probe.rc
[ "$LB_CONTEXT" != control ] && cat "$(stats stats)" > $T/stats.txt
if [ "$LB_OSNOISE" = 1 ]; then
	if [ -d /sys/kernel/tracing/osnoise ]; then
		echo "[guest] $LB_CONTEXT: osnoise for $LB_SECONDS s"
		sh /opt/lb/osnoise.sh 0 "$LB_PRIO" "$LB_SECONDS" 1 $T/osnoise.txt /usr/bin/lbprobe 2> $T/osnoise.log
		echo $? > $T/osnoise.rc
	else
		echo "no osnoise tracer in $(uname -r)" > $T/osnoise.log
	fi
fi
[ "$LB_CONTEXT" != control ] && cat "$(stats stats)" > $T/stats-end.txt
[ "$LB_CONTEXT" != control ] && { rmmod smodem || echo "rmmod failed" >> $T/probe.log; }
dmesg > $T/dmesg.txt
cp -r $T/. $R/
echo "[guest] done"
