# What every guest script of tests/module shares (busybox sh, root):
# guestboot.run_checks() puts this in front of the script it runs.  A
# script may redefine any of it after.
set -u
K=/opt/smodem/smodem.ko
R=/share/results
T=/tmp/results
D=/dev/ttySM0
mkdir -p $R $T

say() { echo "[guest] $*"; }
loaded() { lsmod | grep -c '^smodem'; }
dev_file() { for f in /sys/kernel/debug/smodem/*/"$1"; do echo "$f"; return; done; }
# trace_start [-q] [-e SYSTEM[:EVENT]]... [-b KB] [-C CLOCK]: trace-cmd
# start's options, done on tracefs directly; trace_reset puts back what it
# changed.  trace-cmd start and reset each walk every event of the kernel:
# 1.3 and 1.8 s of guest time a trace at icount shift 2 (0.9 s of the host's
# CPU), these 0.1 s.  trace-cmd stop and extract are used as they are.
TR=/sys/kernel/tracing
# the size trace_reset puts back: an unused buffer reads "7 (expanded: 1408)"
TRACE_KB0=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $TR/buffer_size_kb 2>/dev/null)
trace_start() {
	_ev=
	_kb=
	_clock=local
	while [ $# -gt 0 ]; do
		case $1 in
		-q) ;;
		-e) _ev="$_ev $2"; shift ;;
		-b) _kb=$2; shift ;;
		-C) _clock=$2; shift ;;
		*) echo "trace_start: $1: not an option of this subset" >&2; return 2 ;;
		esac
		shift
	done
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/enable
	if [ -n "$_kb" ]; then echo "$_kb" > $TR/buffer_size_kb || return 1; fi
	echo "$_clock" > $TR/trace_clock || return 1
	: > $TR/trace
	for _e in $_ev; do
		echo 1 > "$TR/events/$(echo "$_e" | tr : /)/enable" || return 1
	done
	echo 1 > $TR/tracing_on
}
trace_reset() {
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/enable
	[ -z "$TRACE_KB0" ] || echo "$TRACE_KB0" > $TR/buffer_size_kb
	echo local > $TR/trace_clock
	: > $TR/trace
	echo 1 > $TR/tracing_on
}
# unload NAME: rmmod, retried (the last close releases the module
# asynchronously); NAME-rmmod.rc, NAME-rmmod.err and NAME.loaded in $T
unload() {
	i=0
	rc=1
	while [ $i -lt 50 ]; do
		rmmod smodem 2> $T/$1-rmmod.err && { rc=0; break; }
		sleep 0.2
		i=$((i + 1))
	done
	echo $rc > $T/$1-rmmod.rc
	loaded > $T/$1.loaded
}
# Wait for process $1 to end, at most $2 tenths of a second, else kill it
# ($T/$3.stuck); its exit status goes to $T/$3.rc.
reap() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt "$2" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$1" 2>/dev/null && { echo "stuck" > $T/$3.stuck; kill -9 "$1"; }
	wait "$1"
	echo $? > $T/$3.rc
}
# The end of a script: dmesg, the results to the share.
finish() {
	dmesg > $T/dmesg.txt
	cp -r $T/. $R/
	say "done"
	exit 0
}
# Wait until file $1 contains $2, at most $3 tenths of a second.
wait_for() {
	i=0
	while [ $i -lt "$3" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# all_stats NAME: every modem's stats file, each after a "== <dir>" line
all_stats() {
	for d in /sys/kernel/debug/smodem/*/; do
		echo "== $(basename "$d")"
		cat "$d/stats"
	done > $T/$1.stats
}

# pair_calls NAME N BYTES: with vline_pairs=1, modem 2k dials 2k+1 (ATD1,
# ATA), all pairs at once, V.22bis both ends (+MS=V22B, not the factory's
# V.34: the pairs' load and times are V.22bis's); the caller sends BYTES
# random bytes and checks the answerer's echo, +++, ATH.  Transcripts in
# $T/NAME-<n>.txt.
pair_calls() {
	pids=
	k=0
	while [ "$k" -lt "$2" ]; do
		b=$((k + 1))
		ttyat at /dev/ttySM$b ATE0 ATX0 AT+MS=V22B '%send:ATA\r' "%until:CONNECT\\r\\n:60000" \
			"%echo:$3:120000" "%until:NO CARRIER:30000" ATH \
			> $T/$1-$b.txt 2>&1 &
		pids="$pids $!"
		ttyat at /dev/ttySM$k ATE0 ATX0 AT+MS=V22B '%send:ATD1\r' "%until:CONNECT\\r\\n:60000" \
			%expect:1000 "%data:$3" %sleep:1500 %send:+++ \
			%expect:2500 ATH > $T/$1-$k.txt 2>&1 &
		pids="$pids $!"
		k=$((k + 2))
	done
	for p in $pids; do
		reap "$p" 3000 "$1-tty-$p"
	done
}

SMODEMD=
# smodemd_start NAME: a daemon for /dev/smodem0 (context=usr, SCHED_FIFO 50
# as the thr thread), attached when this returns
smodemd_start() {
	smodemd --fifo 50 --verbose 2> $T/$1-smodemd.log &
	SMODEMD=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q "^usr_attached 1" "$(dev_file stats)"; do
		sleep 0.1
		i=$((i + 1))
	done
}
smodemd_stop() {
	[ -n "$SMODEMD" ] || return 0
	kill -TERM $SMODEMD 2>/dev/null
	reap $SMODEMD 50 smodemd-stop
	SMODEMD=
}

# call_stats_trace NAME: after a call, the device's stats in $T/NAME.stats
# and the trace in $T/NAME.dat; tracing stops.
call_stats_trace() {
	sleep 1
	cat "$(dev_file stats)" > $T/$1.stats
	trace-cmd stop
	trace-cmd extract -o $T/$1.dat > /dev/null 2>&1
	trace_reset > /dev/null 2>&1
}

# pump_call NAME TAG MS DIAL BYTES: with the module loaded, a call through
# V.8 with AT+MS=MS (+MCR/+MRR reported) to DIAL moving BYTES random bytes
# out and the far end's echo back, the driver's stats while still in data
# mode (ttyat's %cat), +++, ATH.  Leaves $T/NAME-TAG.txt, .rc, .stats.
pump_call() {
	# the line goes idle between calls
	sleep 2
	# on at CONNECT (the set-up takes about 15 s of line time), not 40 s on
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "AT+MS=$3;+MR=1;+A8E=1" "ATD$4" \
		%until:CONNECT:40000 %tiocm "%data:$5" "%cat:$(dev_file stats)" \
		%sleep:1500 %send:+++ %expect:2500 ATH %tiocm > $T/$1-$2.txt 2>&1
	echo $? > $T/$1-$2.rc
	sleep 1
	cat "$(dev_file stats)" > $T/$1-$2.stats
}

# v32_call NAME: a V.32bis call (AT+MS=V32B) to $V32_DIAL moving $V32_BYTES
# (default $CALL_BYTES); v34_call NAME: a V.34 call (AT+MS=V34) to
# $V34_DIAL moving $V34_BYTES.  Leave $T/NAME-v32.* and $T/NAME-v34.*.
v32_call() {
	pump_call "$1" v32 V32B "$V32_DIAL" "${V32_BYTES:-$CALL_BYTES}"
}
v34_call() {
	pump_call "$1" v34 V34 "$V34_DIAL" "${V34_BYTES:-$CALL_BYTES}"
}

# echo_call NAME TRACE-OPTIONS INSMOD-ARGS...: load the module, trace, dial
# ATD$DIAL after ATE0 ATX4 $AT_SETUP, move $CALL_BYTES random bytes out and
# the far end's echo back (or what ttyat's $CALL_STEP says, e.g. a file's
# bytes: %datafile:PATH), +++, ATH, unload.  Leaves $T/NAME.txt (ttyat's
# transcript), .rc, .stats, .dat, -insmod.rc, -rmmod.rc, .loaded, .dmesg.
# With $V32_DIAL set, v32_call follows before the unload, then with
# $V34_DIAL v34_call.
echo_call() {
	name=$1
	trace=$2
	shift 2
	say "$name: $*"
	dmesg -c > /dev/null
	insmod $K "$@"
	echo $? > $T/$name-insmod.rc
	# shellcheck disable=SC2086
	trace_start $trace > /dev/null 2>&1
	sleep 1
	echo 1 > "$(dev_file reset)"
	# set-up (dial tone, digits, ringback, answer tone, training) takes
	# about 14 s of line time: read on for 30 s after the command step
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "ATD$DIAL" %expect:30000 %tiocm \
		"${CALL_STEP:-%data:$CALL_BYTES}" %sleep:1500 %send:+++ %expect:2500 \
		ATH %tiocm > $T/$name.txt 2>&1
	echo $? > $T/$name.rc
	call_stats_trace $name
	if [ -n "${V32_DIAL:-}" ]; then v32_call $name; fi
	if [ -n "${V34_DIAL:-}" ]; then v34_call $name; fi
	rmmod smodem
	echo $? > $T/$name-rmmod.rc
	loaded > $T/$name.loaded
	dmesg > $T/$name.dmesg
	# the line goes idle between calls
	sleep 2
}
# devlist N: /dev/smodem0,...,/dev/smodem<N-1> (smodemd -d's list)
devlist() {
	i=0
	l=
	while [ $i -lt "$1" ]; do
		l="$l${l:+,}/dev/smodem$i"
		i=$((i + 1))
	done
	echo "$l"
}
# attached N: wait (5 s at most) until N modems have a daemon attached
attached() {
	i=0
	while [ $i -lt 50 ]; do
		a=$(cat /sys/kernel/debug/smodem/*/stats 2>/dev/null |
			grep -c '^usr_attached 1')
		[ "$a" -ge "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
