# Guest side of tests/module/test_faults.py (busybox sh, root): a
# misbehaving device and a hostile line, through the module's debugfs
# injections (inject_fault, inject_line; smodem_fault.h).
# Arguments: HW (vline: modems 0 and 1 wired, 0 dials 1; ac97: 0 dials
# smline's 5551234, which echoes) FAULT_CTX (the context of the fault
# calls, "none": no fault calls) LINE_CTXS (contexts of the hostile-line runs, "none": none) SCALE
# (1: make check's short form; more: every count and time that many times
# longer) SEED V32_CTXS (vline: contexts of the V.32bis and V.34 calls,
# "none": none) PUMPS (their +MS values, default "V32B V34").
#
# V.32bis and V.34 calls: modem 0 dials modem 1, both AT+MS=V32B (then
# AT+MS=V34) with V.8, CONNECT at the rate, 4 KiB of random bytes out and
# their echo back, compared at both ends, +++ and ATH.
#
# Fault call: connected, each recoverable fault in turn (stats before and
# after each), data through the call, then a halted engine that refuses
# three restarts: the watchdog ends the call (NO CARRIER), the tty answers
# AT.  vline adds two calls ended by interrupts that never come back and by
# positions that stay wild.  Every step is bounded; files in $T, judged on
# the host.
HW=${1:-vline}
FCTX=${2:-int}
LCTXS=${3:-"int dpc thr res oth usr"}
SCALE=${4:-1}
SEED=${5:-1}
V32CTXS=${6:-none}
PUMPS=${7:-"V32B V34"}
[ "$LCTXS" = none ] && LCTXS=
[ "$V32CTXS" = none ] && V32CTXS=
echo 1 > /proc/sys/kernel/sysrq
# A debug kernel's kmemleak: what boot left set aside, two scans at the end
# (as guest_checks.sh; its automatic scan would time the detector).
KL=/sys/kernel/debug/kmemleak
if [ -e $KL ]; then
	echo scan=off > $KL
	echo scan > $KL
	cat $KL > $T/kmemleak-boot.txt
	echo clear > $KL
fi

if [ "$HW" = vline ]; then
	LOAD="hw=vline devices=2 vline_pairs=1"
	DIAL=ATD1
else
	LOAD="hw=ac97 ring_samples=8192"
	DIAL=ATDT5551234
fi
BYTES=$((1000 * SCALE))

# inject NAME WHAT: WHAT to modem 0's inject_fault, its status kept
inject() {
	echo "$2" > "$(dev_file inject_fault)" 2> $T/$1.err
	echo $? > $T/$1.inject.rc
}

snap() { cat "$(dev_file stats)" > $T/$1.stats 2>&1; }

# The fault calls and the hostile line's attempts are V.22bis's (+MS=V22B,
# not the factory's V.34): their times and counts were set by its start-up.

# answerer NAME STEPS...: vline's modem 1 answers (ATA) in the background
ANS=
answerer() {
	n=$1
	shift
	ANS=
	[ "$HW" = vline ] || return 0
	ttyat at /dev/ttySM1 ATE0 ATX0 AT+MS=V22B '%send:ATA\r' \
		'%until:CONNECT\r\n:90000' "$@" > $T/$n-ans.txt 2>&1 &
	ANS=$!
}

# the dialer's session: connected, then the script's cue files
dialer() {
	n=$1
	shift
	ttyat at $D ATE0 ATX0 AT+MS=V22B "%send:$DIAL\\r" '%until:CONNECT\r\n:90000' \
		%ready:up "$@" > $T/$n.txt 2>&1 &
	DIALER=$!
}

# fatal_call NAME WHAT: a call that WHAT (inject_fault) ends
fatal_call() {
	name=$1
	say "fatal call $name: $2"
	rm -f $T/go
	answerer $name '%until:NO CARRIER:60000' ATH
	dialer $name '%waitfile:/tmp/results/go:90000' \
		'%until:NO CARRIER:20000' %sleep:300 AT
	wait_for $T/$name.txt "READY up" 900 || say "$name: no connection"
	snap $name-before
	inject $name "$2"
	touch $T/go
	reap $DIALER 400 $name
	snap $name-after
	inject $name-off off
	[ -n "$ANS" ] && reap $ANS 900 $name-ans
	# the engine back and moving before the next call
	sleep 2
	snap $name-healed
}

# -- faults ---------------------------------------------------------------
fault_calls() {
	dmesg -c > /dev/null
	# shellcheck disable=SC2086
	insmod $K $LOAD context=$FCTX engine=1
	echo $? > $T/fault-insmod.rc
	trace_start -e smodem:smodem_fault > /dev/null 2>&1
	sleep 1
	snap idle
	answerer fault "%echo:$BYTES:120000" '%until:NO CARRIER:60000' ATH
	dialer fault '%waitfile:/tmp/results/go-data:120000' "%data:$BYTES" \
		%ready:data '%waitfile:/tmp/results/go-fatal:120000' \
		'%until:NO CARRIER:20000' %sleep:300 AT
	wait_for $T/fault.txt "READY up" 900 || say "fault: no connection"
	for f in "storm 100" "miss 3" "back 50" "jump 50" "order 8" "shared 200"; do
		k=${f%% *}
		c=${f#* }
		snap fault-$k-before
		# SCALE rounds a second apart: a count the ring holds, over and over
		i=0
		while [ $i -lt "$SCALE" ]; do
			inject fault-$k "$k $c"
			sleep 1
			i=$((i + 1))
		done
		snap fault-$k-after
		say "fault $k: $(grep -c . $T/fault-$k-after.stats) lines"
	done
	touch $T/go-data
	wait_for $T/fault.txt "READY data" $((600 * SCALE)) || say "fault: no data"
	snap fault-halt-before
	inject fault-halt "halt 3"
	touch $T/go-fatal
	reap $DIALER $((300 + 100 * SCALE)) fault
	snap fault-halt-after
	[ -n "$ANS" ] && reap $ANS 900 fault-ans
	sleep 2
	snap fault-halt-healed

	if [ "$HW" = vline ]; then
		fatal_call lost "miss 1000000"
		fatal_call wild "wild 1000000"
	fi
	trace-cmd stop > /dev/null 2>&1
	trace-cmd extract -o $T/fault.dat > /dev/null 2>&1
	trace_reset > /dev/null 2>&1
	# bad words refused, nothing armed by them
	snap bad-words-before
	for w in "storm 0" "storm -1" "storm 1000001" "flood 3" "halt x" "" "storm 1 2"; do
		echo "$w" > "$(dev_file inject_fault)" 2>/dev/null
		echo "$? $w" >> $T/bad-words.txt
	done
	for w in "tone 0" "tone 4000" "dc 32768" "dc -32769" "square" "noise x" "hum"; do
		echo "$w" > "$(dev_file inject_line)" 2>/dev/null
		echo "$? $w" >> $T/bad-words.txt
	done
	sleep 1
	snap bad-words-after
	ls -l "$(dev_file inject_fault)" "$(dev_file inject_line)" > $T/modes.txt
	unload fault
	dmesg > $T/fault.dmesg
}
[ "$FCTX" = none ] || fault_calls

# -- hostile line ---------------------------------------------------------
# One call attempt per context, the pump hearing each signal in turn for
# 0.2 s, the noise last till the modem gives up: it must give up by
# itself, the tty answer AT, no period be lost.  The long form (SCALE > 1)
# first makes one attempt per signal, hearing only it (the answer tone
# for a whole dial and a whole answer).
SIGNALS="answer tone:980 tone:1180 tone:1200 tone:1650 tone:1850 tone:2400 \
tone:1800 tone:1700 tone:2225 square:1000 square:2100 dc:32767 dc:-32768 \
noise:$SEED"
for ctx in $LCTXS; do
	say "line $ctx"
	dmesg -c > /dev/null
	# shellcheck disable=SC2086
	insmod $K $LOAD context=$ctx engine=1
	echo $? > $T/line-$ctx-insmod.rc
	if [ "$ctx" = usr ]; then
		# no daemon yet: the ring moves on without processing, and one
		# wild read (jump 2: the first read of two) must not move it
		inject line-usr-wild "jump 2"
		sleep 0.5
		snap line-usr-wild
		smodemd_start line-$ctx
	fi
	sleep 1
	echo 1 > "$(dev_file reset)"
	if [ "$SCALE" -gt 1 ]; then
		# the long form: each signal for a whole dial (S7 = SCALE s),
		# the answer tone also for a whole answer
		for s in $SIGNALS; do
			sig="${s%%:*} ${s#*:}"
			[ "$s" = answer ] && sig=answer
			echo "$sig" > "$(dev_file inject_line)" 2>> $T/line-$ctx.err
			ttyat at $D ATE0 ATX0 AT+MS=V22B "ATS7=$SCALE" "%send:ATD5\\r" \
				"%final:$((60000 + 10000 * SCALE))" %sleep:300 AT \
				>> $T/line-$ctx-long.txt 2>&1
		done
		echo answer > "$(dev_file inject_line)"
		ttyat at $D ATE0 ATX0 AT+MS=V22B "ATS7=$SCALE" "%send:ATA\\r" \
			"%final:$((60000 + 10000 * SCALE))" %sleep:300 AT \
			>> $T/line-$ctx-long.txt 2>&1
	fi
	echo "noise $SEED" > "$(dev_file inject_line)"
	# blind dial, then the handshake's wait (S7) hears only the signals
	ttyat at $D ATE0 ATX0 AT+MS=V22B ATS7=3 "%send:ATD5\\r" "%final:45000" \
		%sleep:300 AT ATI0 > $T/line-$ctx.txt 2>&1 &
	p=$!
	for s in $SIGNALS; do
		sig="${s%%:*} ${s#*:}"
		[ "$s" = answer ] && sig=answer
		echo "$sig" > "$(dev_file inject_line)" 2>> $T/line-$ctx.err
		sleep 0.2
	done
	reap $p 600 line-$ctx
	snap line-$ctx
	echo off > "$(dev_file inject_line)"
	if [ "$ctx" = usr ] && [ "$HW" = vline ]; then
		# the engine stands about 3 s (six restarts refused) while
		# smodemd waits in WAIT: it owed nothing meanwhile, so the
		# restarted engine's first interrupt must not detach it
		inject line-usr-halt "halt 6"
		sleep 4.5
		snap line-usr-halt
	fi
	smodemd_stop
	unload line-$ctx
	dmesg > $T/line-$ctx.dmesg
done
# -- V.32bis and V.34 ----------------------------------------------------------
V32_BYTES=4096
for ms in $PUMPS; do
	case $ms in V32B) p=v32 ;; V34) p=v34 ;; *) p=$ms ;; esac
	for ctx in $V32CTXS; do
		say "$ms $ctx"
		dmesg -c > /dev/null
		# shellcheck disable=SC2086
		insmod $K $LOAD context=$ctx engine=1
		echo $? > $T/$p-$ctx-insmod.rc
		sleep 1
		# X1: CONNECT with its rate, blind dialling
		ttyat at /dev/ttySM1 ATE0 ATX1 "AT+MS=$ms;+A8E=1,1" '%send:ATA\r' \
			'%until:CONNECT:90000' "%echo:$V32_BYTES:120000" \
			'%until:NO CARRIER:60000' ATH > $T/$p-$ctx-ans.txt 2>&1 &
		ans=$!
		ttyat at $D ATE0 ATX1 "AT+MS=$ms;+MR=1;+A8E=1,1" "%send:$DIAL\\r" \
			'%until:CONNECT:90000' %tiocm "%data:$V32_BYTES" %sleep:1500 \
			%send:+++ %expect:2500 ATH %tiocm > $T/$p-$ctx.txt 2>&1
		echo $? > $T/$p-$ctx.rc
		reap $ans 900 $p-$ctx-ans
		snap $p-$ctx
		unload $p-$ctx
		dmesg > $T/$p-$ctx.dmesg
	done
done

if [ -e $KL ]; then
	say "kmemleak"
	sleep 6
	echo scan > $KL
	sleep 6
	echo scan > $KL
	cat $KL > $T/kmemleak.txt
fi
finish
