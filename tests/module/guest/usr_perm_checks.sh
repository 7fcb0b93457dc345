# Guest side of tests/module/test_usr_perm.py (busybox sh, root): who may
# attach a daemon to /dev/smodem<n> (context=usr).  runas (tests/module/
# runas.c) runs smodemd as uid 1000, no capabilities, limits as given.
#   usr_mode=0600 (the default): uid 1000 gets EACCES, root attaches
#   usr_mode=0666: uid 1000 attaches at the default policy; --fifo 50
#   fails (EPERM, no CAP_SYS_NICE, RLIMIT_RTPRIO 0) and works with
#   RLIMIT_RTPRIO 50 (systemd's LimitRTPRIO=); mlockall fails with a tiny
#   RLIMIT_MEMLOCK
# Results in $T: NAME.rc, NAME.log, NAME.stats, NAME.status (the daemon's
# /proc status while attached), mode-*.txt (ls -l of the device); then
# the hostile daemon, h-*.txt (see the end).

# daemon_run NAME RUNAS-ARGS... -- SMODEMD-ARGS: started, its stats and
# /proc status taken once attached, then SIGTERM (or its own exit).
daemon_run() {
	name=$1
	shift
	"$@" 2> $T/$name.log &
	pid=$!
	i=0
	while [ $i -lt 50 ] && kill -0 $pid 2>/dev/null &&
		! grep -q '^usr_pid ' "$(dev_file stats)"; do
		sleep 0.1
		i=$((i + 1))
	done
	cat "$(dev_file stats)" > $T/$name.stats
	grep -E '^(Uid|Gid|Groups|CapEff|VmLck):' /proc/$pid/status > $T/$name.status 2>/dev/null
	kill -TERM $pid 2>/dev/null
	reap $pid 50 $name
	cat "$(dev_file stats)" > $T/$name.after
}

dmesg -c > /dev/null
say "usr_mode default (0600)"
insmod $K context=usr engine=1
echo $? > $T/m600-insmod.rc
ls -ln /dev/smodem0 > $T/mode-600.txt
daemon_run u600 runas 1000 -- smodemd --verbose
daemon_run root600 smodemd --verbose --fifo 50
rmmod smodem
echo $? > $T/m600-rmmod.rc

say "usr_mode=0666"
insmod $K context=usr engine=1 usr_mode=0666
echo $? > $T/m666-insmod.rc
ls -ln /dev/smodem0 > $T/mode-666.txt
daemon_run fifo666 runas 1000 -- smodemd --verbose --fifo 50
daemon_run dl666 runas 1000 -- smodemd --verbose --deadline 2000/12500
daemon_run memlock666 runas 1000 -l 64 -- smodemd --verbose
daemon_run other666 runas 1000 -- smodemd --verbose
daemon_run rtprio666 runas 1000 -r 50 -- smodemd --verbose --fifo 50
rmmod smodem
echo $? > $T/m666-rmmod.rc

# usrhostile (tests/module/guest/usrhostile.c), a daemon doing what
# smodemd would not, one scenario a run, as root; ring_samples=8192 makes
# a max_frames period 512 ms.  The position reads are counted by a kprobe
# on ac97_position; "gen" spins at SCHED_FIFO on the one CPU for 2.5 s,
# with the real-time throttle off meanwhile.  Results: h-NAME.txt, .stats.
say "usrhostile"
insmod $K context=usr engine=1 ring_samples=8192
echo $? > $T/m35-insmod.rc
ST=$(dev_file stats)
TR=/sys/kernel/tracing
echo 'p:smodem_pos smodem:ac97_position' > $TR/kprobe_events
echo 0 > $TR/tracing_on
echo 1 > $TR/events/kprobes/smodem_pos/enable
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
for s in restore gone-fax gone-full clear header stale dial stats intr throttle gen revoke; do
	[ $s = gen ] && echo -1 > /proc/sys/kernel/sched_rt_runtime_us
	usrhostile $s /dev/smodem0 $D "$ST" $TR/kprobe_profile > $T/h-$s.txt 2>&1 &
	reap $! 300 h-$s
	echo "$rt" > /proc/sys/kernel/sched_rt_runtime_us
	cat "$ST" > $T/h-$s.stats
done
echo 0 > $TR/events/kprobes/smodem_pos/enable
echo > $TR/kprobe_events
echo 1 > $TR/tracing_on
rmmod smodem
echo $? > $T/m35-rmmod.rc
loaded > $T/loaded.txt
finish
