# Guest side of tests/module/test_loadbound.py (busybox sh, root, after
# guestlib.sh): the load-bound probe (tools/loadbound/probe.c, /usr/bin/lbprobe)
# below the modem's processing in the interrupt, and above its thread.
#   int  insmod context=int load_us=1840, lbprobe at SCHED_FIFO $LB_PRIO_INT
#   thr  insmod context=thr (its thread at SCHED_FIFO 50), lbprobe at $LB_PRIO_THR
# $LB_SECONDS of probe each.  Raw traces and stats go to /share/results.
# Real-time throttling off: its 50 ms pauses every second would be
# interference of their own.
echo -1 > /proc/sys/kernel/sched_rt_runtime_us

probe_under() {
	name=$1 prio=$2
	shift 2
	say "$name: insmod $* ; lbprobe -p $prio -d $LB_SECONDS"
	if ! insmod $K "$@"; then
		echo "insmod failed" > $T/$name.err
		return
	fi
	sleep 1
	echo 1 > "$(dev_file reset)"
	lbprobe -p "$prio" -c 0 -d "$LB_SECONDS" -n 1000000 -o $T/$name.txt 2> $T/$name.log
	echo $? > $T/$name.rc
	cat "$(dev_file stats)" > $T/$name.stats
	rmmod smodem || echo "rmmod failed" > $T/$name.err
}

probe_under int "$LB_PRIO_INT" hw=ac97 engine=0 context=int load_us=1840
probe_under thr "$LB_PRIO_THR" hw=ac97 engine=0 context=thr load_us=1840
dmesg > $T/dmesg.txt
cp -r $T/. $R/
say "done"
