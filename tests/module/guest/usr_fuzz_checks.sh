# Guest side of tests/module/test_usr_fuzz.py (busybox sh, root): hostile
# daemons (tests/module/guest/usrfuzz.c) as uid 1000 against context=usr with
# usr_mode=0666, then a well-behaved smodemd's call on the same load.
#   vline  hw=vline devices=2 vline_pairs=1: $FUZZ_DAEMONS daemons race for
#          both devices for $FUZZ_SECONDS; then smodemd serves both and
#          modem 0 calls modem 1 ($CALL_BYTES out, echoed back); then it is
#          stopped past the stall limit and must exit by itself once
#          continued (its one thread polls both devices)
#   ac97   the AC'97, one device, $FUZZ_DAEMONS daemons for $AC97_SECONDS
#          (0: skipped); then smodemd attaches and serves
# The vline fuzz is traced (smodem_phase: vline-phase.dat).
# Each phase: the fuzzer's output (NAME.txt, .rc, .stuck and the stuck
# processes' kernel stacks), the stats after the fuzz and after the call,
# rmmod's status, dmesg.
FUZZ_SEED=${FUZZ_SEED:-1}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
AC97_SECONDS=${AC97_SECONDS:-10}
FUZZ_DAEMONS=${FUZZ_DAEMONS:-4}
FUZZ_SKIP=${FUZZ_SKIP:-0}
CALL_BYTES=${CALL_BYTES:-1024}

# On a debug kernel (kmemleak, tests/debug/test_debug_usr_fuzz.py): what
# boot left set aside now, two scans after everything is unloaded.
KL=/sys/kernel/debug/kmemleak
if [ -e $KL ]; then
	echo scan=off > $KL
	echo scan > $KL
	cat $KL > $T/kmemleak-boot.txt
	echo clear > $KL
fi
leak_scan() {
	[ -e $KL ] || return 0
	say "kmemleak"
	sleep 6
	echo scan > $KL
	sleep 6
	echo scan > $KL
	cat $KL > $T/kmemleak.txt
}
nproc > $T/cpus.txt

# fuzz NAME SECONDS SEED DEV...: usrfuzz as uid 1000, bounded
fuzz() {
	name=$1
	secs=$2
	s=$3
	shift 3
	say "$name: usrfuzz -s $s -t $secs -j $FUZZ_DAEMONS $*"
	chmod 0666 /dev/ttySM*
	runas 1000 -- usrfuzz -v -s "$s" -t "$secs" -j "$FUZZ_DAEMONS" -x "$FUZZ_SKIP" "$@" \
		> $T/$name.txt 2>&1 &
	fpid=$!
	# a heartbeat on the console: a guest that hangs shows where
	(while kill -0 $fpid 2>/dev/null; do
		sleep 5
		echo "usrfuzz-beat $(cut -d' ' -f1 /proc/uptime) $(cut -d' ' -f1-4 /proc/loadavg)"
	done) &
	# the fuzz, the daemons' last stalls, the DTEs' last +++
	limit=$(((secs + 40) * 10))
	i=0
	while kill -0 $fpid 2>/dev/null && [ $i -lt $limit ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $fpid 2>/dev/null; then
		echo stuck > $T/$name.stuck
		for p in $(pidof usrfuzz); do
			echo "== $p $(cat /proc/$p/wchan 2>/dev/null)"
			cat /proc/$p/stack 2>/dev/null
			for t in /proc/$p/task/*; do
				echo "-- $t"
				cat $t/stack 2>/dev/null
			done
		done > $T/$name.stacks
		# shellcheck disable=SC2046
		kill -9 $(pidof usrfuzz) 2>/dev/null
	fi
	wait $fpid
	echo $? > $T/$name.rc
	# every daemon gone: nobody attached
	sleep 0.5
	all_stats "$name-fuzz"
}

phase_vline() {
	dmesg -c > /dev/null
	insmod $K hw=vline devices=2 vline_pairs=1 context=usr engine=1 usr_mode=0666
	echo $? > $T/vline-insmod.rc
	ls -ln /dev/smodem0 > $T/vline-mode.txt
	# No parameter takes a write at run time (each is checked once, at
	# load), not root's (no store method: EACCES) nor the fuzz's user's:
	# NAME ROOT_RC USER_RC same|changed MODE
	for p in /sys/module/smodem/parameters/*; do
		v0=$(cat "$p")
		(echo 0777 > "$p") 2> /dev/null
		r0=$?
		runas 1000 -- /bin/sh -c "echo 0777 > $p" 2> /dev/null
		r1=$?
		v1=$(cat "$p")
		same=changed
		[ "$v1" = "$v0" ] && same=same
		echo "$(basename "$p") $r0 $r1 $same $(ls -l "$p" | cut -c1-10)"
	done > $T/vline-params.txt
	# the phases the kernel took from the daemons' reports
	trace_start -e smodem:smodem_phase > /dev/null 2>&1
	fuzz vline "$FUZZ_SECONDS" "$FUZZ_SEED" /dev/smodem0 /dev/smodem1
	trace-cmd stop > /dev/null 2>&1
	trace-cmd extract -o $T/vline-phase.dat > /dev/null 2>&1
	trace_reset > /dev/null 2>&1
	# what the DTEs typed stays the tty's (+FCLASS=1, S0=1, ...): reset it
	ttyat at /dev/ttySM0 ATZ AT\&F AT+FCLASS=0 > $T/vline-reset-0.txt 2>&1
	ttyat at /dev/ttySM1 ATZ AT\&F AT+FCLASS=0 > $T/vline-reset-1.txt 2>&1
	say "vline: smodemd and a call"
	smodemd -v --fifo 50 -d /dev/smodem0,/dev/smodem1 2> $T/vline-smodemd.log &
	dpid=$!
	attached 2
	echo $? > $T/vline-attached.rc
	sleep 0.5
	all_stats vline-start
	pair_calls vline-call 2 "$CALL_BYTES"
	sleep 0.5
	all_stats vline-call
	# stopped past the stall limit: both modems detach it; continued,
	# its poll() must say so (it slept for ever) and it exits by itself
	say "vline: smodemd stopped 2.5 s"
	kill -STOP $dpid
	sleep 2.5
	kill -CONT $dpid
	reap $dpid 30 vline-smodemd
	all_stats vline-stopped
	rmmod smodem
	echo $? > $T/vline-rmmod.rc
	loaded > $T/vline.loaded
	dmesg > $T/vline.dmesg
}

phase_ac97() {
	[ "$AC97_SECONDS" -gt 0 ] || return 0
	dmesg -c > /dev/null
	insmod $K context=usr engine=1 usr_mode=0666
	echo $? > $T/ac97-insmod.rc
	fuzz ac97 "$AC97_SECONDS" "$((FUZZ_SEED + 1))" /dev/smodem0
	say "ac97: smodemd"
	smodemd -v --fifo 50 2> $T/ac97-smodemd.log &
	dpid=$!
	attached 1
	echo $? > $T/ac97-attached.rc
	sleep 1
	all_stats ac97-served
	kill -TERM $dpid
	reap $dpid 50 ac97-smodemd
	rmmod smodem
	echo $? > $T/ac97-rmmod.rc
	loaded > $T/ac97.loaded
	dmesg > $T/ac97.dmesg
}

phase_vline
phase_ac97
leak_scan
finish
