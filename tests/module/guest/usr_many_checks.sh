# Guest side of tests/module/test_usr_many.py (busybox sh, root): one
# smodemd serving several modems, one boot, virtual clock.
#   serve  hw=vline devices=$N vline_pairs=1 context=usr load_us=$SERVE_LOAD_US:
#          for each mode in $MODES (rm: the single rate-monotonic thread,
#          threads: --threads), one smodemd -v for all $N modems, the pairs
#          call each other at once ($CALL_BYTES out and echoed back), stats,
#          SIGTERM, the daemon's own counts
#   admit  devices=$ADMIT_N: smodemd's admission test at the default cost
#          and at --cost $LOAD_US (refusals), and --no-admission (serves);
#          then $N of them with load_us=$LOAD_US for $LOAD_PERIODS periods,
#          in each mode: the daemon's context switches under load
N=${N:-4}
ADMIT_N=${ADMIT_N:-6}
LOAD_US=${LOAD_US:-1840}
SERVE_LOAD_US=${SERVE_LOAD_US:-0}
CALL_BYTES=${CALL_BYTES:-2048}
MODES=${MODES:-rm threads}
LOAD_PERIODS=${LOAD_PERIODS:-200}

# serving: the daemon's first periods (attached is at open(); the threads
# of --threads start later)
serving() {
	sleep 1
}


serve_case() {
	mode=$1
	name=serve-$mode
	say "$name"
	opt=
	[ "$mode" = threads ] && opt=--threads
	# shellcheck disable=SC2086
	smodemd -v --fifo 50 $opt -d "$(devlist "$N")" 2> $T/$name.smodemd &
	dpid=$!
	attached "$N" && serving
	echo $? > $T/$name-attached.rc
	for r in /sys/kernel/debug/smodem/*/reset; do echo 1 > "$r"; done
	# usr_* count since the load: the start's, to subtract
	all_stats "$name-start"
	pair_calls "$name" "$N" "$CALL_BYTES"
	sleep 1
	all_stats "$name"
	kill -TERM "$dpid"
	reap "$dpid" 50 "$name-daemon"
	sleep 0.5
}

phase_serve() {
	dmesg -c > /dev/null
	insmod $K hw=vline devices=$N vline_pairs=1 context=usr load_us=$SERVE_LOAD_US
	echo $? > $T/serve-insmod.rc
	for m in $MODES; do
		serve_case "$m"
	done
	rmmod smodem
	echo $? > $T/serve-rmmod.rc
	dmesg > $T/serve.dmesg
}

phase_admit() {
	dmesg -c > /dev/null
	insmod $K hw=vline devices=$ADMIT_N context=usr load_us=$LOAD_US
	echo $? > $T/admit-insmod.rc
	smodemd -v -d "$(devlist "$ADMIT_N")" --periods 20 > /dev/null 2> $T/admit-default.err
	echo $? > $T/admit-default.rc
	smodemd -v -d "$(devlist "$ADMIT_N")" --cost "$LOAD_US" --periods 20 > /dev/null 2> $T/admit-cost.err
	echo $? > $T/admit-cost.rc
	smodemd -v -d "$(devlist "$ADMIT_N")" --no-admission --periods 20 > /dev/null 2> $T/admit-none.err
	echo $? > $T/admit-none.rc
	# the study's comparison under load: the admitted $N, each mode
	for m in rm threads; do
		opt=
		[ "$m" = threads ] && opt=--threads
		# shellcheck disable=SC2086
		smodemd -v --fifo 50 $opt -d "$(devlist "$N")" --periods $LOAD_PERIODS \
			> /dev/null 2> $T/load-$m.err
		echo $? > $T/load-$m.rc
	done
	all_stats admit
	rmmod smodem
	echo $? > $T/admit-rmmod.rc
}

phase_serve
phase_admit
finish
