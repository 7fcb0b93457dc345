# Guest side of tests/module/test_stolen.py (busybox sh, root): the modem's
# thread (context=thr, the study's load) traced with the interrupts,
# softirqs and context switches around it, with no network load and under
# a ping flood into the guest (tools/netload), for tools/analysis/stolen.py.
set -u
R=/share/results
mkdir -p $R /tmp/st
. /opt/netload/netload.sh
netload_setup || { echo "netload_setup failed" > $R/error; exit 10; }
insmod /opt/smodem/smodem.ko hw=ac97 context=thr load_us=1840 ||
	{ echo "insmod failed" > $R/error; exit 11; }
sleep 1
for mode in none flood; do
	echo "[guest] $mode"
	NL_PERIOD_NS=50000 netload_start $mode || { echo "netload $mode failed" > $R/error; exit 12; }
	sleep 1
	trace-cmd record -q -b 8192 -o /tmp/st/$mode.dat -e smodem \
		-e irq:irq_handler_entry -e irq:irq_handler_exit \
		-e irq:softirq_entry -e irq:softirq_exit -e sched:sched_switch \
		-e irq_vectors:local_timer_entry -e irq_vectors:local_timer_exit \
		sleep 2 > /tmp/st/$mode.log 2>&1
	echo $? > /tmp/st/$mode.rc
	netload_stop /tmp/st/$mode.counters
done
rmmod smodem
cp /tmp/st/* $R/
echo "[guest] done"
