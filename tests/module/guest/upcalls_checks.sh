# Guest side of tools/upcalls.py (make upcalls) and tests/module/
# test_upcalls.py (busybox sh, root): the upcall study's experiments with
# modems as the periodic work, one boot per background load.
#   For each N in $NS: hw=vline devices=N vline_pairs=1 context=usr
#   load_us=$LOAD_US; the background load $BG running; for each mode in
#   $MODES (rm: smodemd's single rate-monotonic thread; threads: one thread
#   per modem), one smodemd -v --fifo 50 --no-admission for all N (the host
#   compares the admission test's answer with what happened), the pairs
#   call each other at once ($CALL_BYTES out and echoed back), or $IDLE_S
#   seconds of periods if there is no pair.  An odd N loads N + 1 devices
#   (vline_pairs=1 wires them in pairs) and serves N: the modem out serves
#   its periods on-hook, its partner has no daemon.  The stats of every modem before and after, the
#   daemon's own counts.  Files: n<N>-<mode>.{smodemd,start.stats,stats,rc},
#   n<N>-<mode>-<k>.txt (transcripts), bg.txt (the load's own counts).
NS=${NS:-1 2 3 4}
MODES=${MODES:-rm threads}
LOAD_US=${LOAD_US:-1840}
CALL_BYTES=${CALL_BYTES:-1024}
BG=${BG:-none}
IDLE_S=${IDLE_S:-20}
NL_PERIOD_NS=${NL_PERIOD_NS:-50000}

# The study's background loads: its spinning competitor (tools/guest/
# spin.c), a compile (no compiler in the guest: processes created one after
# another, each compressing and writing a file, as a build's do), a network
# stream (tools/netload's ICMP flood, answered).
bg_start() {
	case "$BG" in
	none) ;;
	spin)
		spin &
		BG_PID=$!
		;;
	build)
		(while :; do
			gzip -c $K > /tmp/bg.gz && gunzip -c /tmp/bg.gz | md5sum > /dev/null
			echo x >> /tmp/bg.count
		done) &
		BG_PID=$!
		;;
	net)
		netload_start flood > /dev/null || say "netload_start failed"
		;;
	*)
		say "unknown background load $BG"
		;;
	esac
}

bg_stop() {
	case "$BG" in
	spin | build)
		kill "$BG_PID"
		wait "$BG_PID" 2>/dev/null
		;;
	net)
		netload_stop $T/bg-n$1.txt
		;;
	esac
	[ -f /tmp/bg.count ] && wc -l < /tmp/bg.count > $T/bg-n$1.txt
	rm -f /tmp/bg.count /tmp/bg.gz
}

one() {
	n=$1 mode=$2
	name=n$n-$mode
	say "$name ($BG)"
	opt=
	[ "$mode" = threads ] && opt=--threads
	# shellcheck disable=SC2086
	smodemd -v --fifo 50 --no-admission $opt -d "$(devlist "$n")" 2> $T/$name.smodemd &
	dpid=$!
	attached "$n"
	echo $? > $T/$name-attached.rc
	sleep 1
	for r in /sys/kernel/debug/smodem/*/reset; do echo 1 > "$r"; done
	all_stats "$name.start"
	if [ "$n" -ge 2 ]; then
		pair_calls "$name" $((n - n % 2)) "$CALL_BYTES"
	else
		sleep "$IDLE_S"
	fi
	all_stats "$name"
	kill -TERM "$dpid"
	reap "$dpid" 50 "$name"
	sleep 0.5
}

[ "$BG" = net ] && { . /opt/netload/netload.sh; netload_setup || say "netload_setup failed"; }
for n in $NS; do
	dmesg -c > /dev/null
	insmod $K hw=vline devices=$((n + n % 2)) vline_pairs=1 context=usr load_us=$LOAD_US
	echo $? > $T/n$n-insmod.rc
	bg_start
	for m in $MODES; do
		one "$n" "$m"
	done
	bg_stop "$n"
	rmmod smodem
	echo $? > $T/n$n-rmmod.rc
	dmesg > $T/n$n.dmesg
done
finish
