# Guest side of tests/module/test_stolen.py (busybox sh, root): the modem's
# thread (context=thr, the study's load, stolen=1: the module's own
# accounting) traced with the interrupts, softirqs and context switches
# around it, with no network load and under a ping flood into the guest
# (tools/netload), for tools/analysis/stolen.py and the module's
# smodem_stolen events and debugfs counters, and stolenpoll (the polling
# detector) on its own thread beside the module's stolen_watch of it.  Then context=res, plain,
# res_mode=feedback, reclaim and catchup, under the flood: the
# controllers' smodem_res_ctl.
set -u
R=/share/results
mkdir -p $R /tmp/st
. /opt/netload/netload.sh
stats() { for f in /sys/kernel/debug/smodem/*/stats; do cat "$f"; return; done; }
reset() { for f in /sys/kernel/debug/smodem/*/reset; do echo 1 > "$f"; return; done; }
netload_setup || { echo "netload_setup failed" > $R/error; exit 10; }
insmod /opt/smodem/smodem.ko hw=ac97 context=thr load_us=1840 stolen=1 ||
	{ echo "insmod failed" > $R/error; exit 11; }
sleep 1
for mode in none flood; do
	echo "[guest] $mode"
	NL_PERIOD_NS=50000 netload_start $mode || { echo "netload $mode failed" > $R/error; exit 12; }
	sleep 1
	reset
	trace-cmd record -q -b 8192 -o /tmp/st/$mode.dat -e smodem \
		-e irq:irq_handler_entry -e irq:irq_handler_exit \
		-e irq:softirq_entry -e irq:softirq_exit -e sched:sched_switch \
		-e irq_vectors:local_timer_entry -e irq_vectors:local_timer_exit \
		sleep 2 > /tmp/st/$mode.log 2>&1
	echo $? > /tmp/st/$mode.rc
	stats > /tmp/st/$mode.stats
	# the study's user-space detector beside the module's accounting of it
	stolenpoll 1 1000 10 > /tmp/st/$mode.poll 2>&1
	netload_stop /tmp/st/$mode.counters
done
rmmod smodem
echo $? > /tmp/st/thr-rmmod.rc
for res in plain feedback reclaim catchup; do
	echo "[guest] res $res"
	dmesg -c > /dev/null
	insmod /opt/smodem/smodem.ko hw=ac97 context=res load_us=1840 stolen=1 \
		res_runtime_us=2500 res_period_us=10000 res_mode=$res ||
		{ echo "insmod res $res failed" > $R/error; exit 13; }
	sleep 1
	NL_PERIOD_NS=50000 netload_start flood || { echo "netload res failed" > $R/error; exit 14; }
	sleep 1
	reset
	trace-cmd record -q -b 8192 -o /tmp/st/res-$res.dat -e smodem sleep 2 \
		> /tmp/st/res-$res.log 2>&1
	echo $? > /tmp/st/res-$res.rc
	stats > /tmp/st/res-$res.stats
	netload_stop /tmp/st/res-$res.counters
	# unloading under the stream: clean
	NL_PERIOD_NS=50000 netload_start flood
	sleep 1
	rmmod smodem
	echo $? > /tmp/st/res-$res-rmmod.rc
	netload_stop /tmp/st/res-$res-unload.counters
	dmesg > /tmp/st/res-$res.dmesg
done
cp /tmp/st/* $R/
echo "[guest] done"
