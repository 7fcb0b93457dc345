# Guest side of tests/module/test_modem.py (busybox sh, root): one call per
# execution context through QEMU's D-Bus audio to smline on the host, on
# the instruction-counted clock.  For each context in $CONTEXTS: load the
# module with $SMODEM_ARGS context=<ctx>, dial $DIAL, move $CALL_BYTES
# random bytes out and the far end's echo back (checked byte by byte here,
# by CRC-32 in smline's record), escape with +++, hang up, unload; the
# phases, period changes and overruns are traced.  With $V32_DIAL, a V.32bis
# call (AT+MS=V32B) to it follows in each context before the unload (then
# with $V34_DIAL a V.34 call, AT+MS=V34), and the contexts in $V32_ONLY get
# those calls alone.  Raw results go to
# /share/results for the host to judge.  Every wait is bounded.
#
# V.42bis (on at both ends by default): $TEXT_CTX's call moves $TEXT_FILE
# instead of random bytes; with $BIS_DIAL, bis_calls after the rest.
# $WORSEN_CTX's V.34 call escapes, comes back on line and has its line
# worsen under it (v34_call below).
#
# context=usr: the modem runs in smodemd (/usr/bin/smodemd, SCHED_FIFO 50
# as the thr thread), started right after insmod and stopped before rmmod;
# with USR_FAULTS=1 its fault cases follow the calls (usr_faults).

# echo_call's insmod and rmmod, with the daemon around the module's life
insmod() {
	command insmod "$@" || return
	case " $* " in *" context=usr "*) smodemd_start "$name" ;; esac
}
rmmod() {
	smodemd_stop
	command rmmod "$@"
}

# A second daemon is refused; the daemon killed with SIGKILL mid-call ends
# the call at the tty (NO CARRIER, DCD off) and the line (the hook opens);
# the next daemon takes over and the next call works; a daemon stopped
# mid-call is detached the same way, and the one after it attaches.
usr_faults() {
	name=fault
	say "usr faults"
	dmesg -c > /dev/null
	insmod $K $SMODEM_ARGS context=usr
	echo $? > $T/fault-insmod.rc
	trace_start -e smodem:smodem_phase -e smodem:smodem_overrun \
		-b 8192 > /dev/null 2>&1
	cat "$(dev_file stats)" > $T/fault-attached.stats
	smodemd --fifo 50 > $T/fault-second.log 2>&1
	echo $? > $T/fault-second.rc
	d1=$SMODEMD
	(wait_for $T/fault-kill.txt "READY connected" 600 && sleep 3 &&
	 kill -9 $d1 && echo killed > $T/fault-killed) &
	killer=$!
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "ATD$DIAL" %until:CONNECT:30000 \
		%tiocm %ready:connected "%until:NO CARRIER:15000" %tiocm AT \
		> $T/fault-kill.txt 2>&1
	echo $? > $T/fault-kill.rc
	wait $killer
	wait $d1
	echo $? > $T/fault-d1.rc
	SMODEMD=
	sleep 1
	cat "$(dev_file stats)" > $T/fault-killed.stats
	# the line goes idle between calls
	sleep 2
	smodemd_start fault-d2
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "ATD$DIAL" %expect:30000 %tiocm \
		"%data:$CALL_BYTES" %sleep:1500 %send:+++ %expect:2500 ATH %tiocm \
		> $T/fault-next.txt 2>&1
	echo $? > $T/fault-next.rc
	sleep 1
	cat "$(dev_file stats)" > $T/fault-next.stats
	# the daemon stopped (SIGSTOP) mid-call: detached after 2 s, the call
	# ends as above; continued, it is told so (EPIPE) and exits
	d2=$SMODEMD
	(wait_for $T/fault-stall.txt "READY connected" 600 && sleep 2 &&
	 kill -STOP $d2 && echo stopped > $T/fault-stopped) &
	killer=$!
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "ATD$DIAL" %until:CONNECT:30000 \
		%tiocm %ready:connected "%until:NO CARRIER:15000" %tiocm AT \
		> $T/fault-stall.txt 2>&1
	echo $? > $T/fault-stall.rc
	wait $killer
	cat "$(dev_file stats)" > $T/fault-stalled.stats
	kill -CONT $d2
	reap $d2 50 fault-d2
	SMODEMD=
	sleep 2
	smodemd_start fault-d3
	ttyat at $D AT > $T/fault-d3.txt 2>&1
	cat "$(dev_file stats)" > $T/fault-d3.stats
	trace-cmd stop
	trace-cmd extract -o $T/fault.dat > /dev/null 2>&1
	trace_reset > /dev/null 2>&1
	rmmod smodem
	echo $? > $T/fault-rmmod.rc
	loaded > $T/fault.loaded
	dmesg > $T/fault.dmesg
}

# $WORSEN_CTX's V.34 call dials $WORSEN_DIAL instead: smline's route whose
# line worsens in the call (its worsen= words).  $WORSEN_FIRST bytes out and
# back, +++ (OK, the call up), ATO (CONNECT again), $WORSEN_BYTES out and
# back while the line worsens, +++ again and the stats with the call still
# up, ATO (CONNECT at the rate the call has now), +++, ATH.  Leaves
# $T/NAME-v34.txt, .rc, .stats and NAME-v34-up.stats (the stats before ATH).
v34_call() {
	if [ "$1" != "${WORSEN_CTX:-}" ]; then
		pump_call "$1" v34 V34 "$V34_DIAL" "${V34_BYTES:-$CALL_BYTES}"
		return
	fi
	# the line goes idle between calls
	sleep 2
	(wait_for $T/$1-v34.txt "READY escaped" 1800 &&
	 cat "$(dev_file stats)" > $T/$1-v34-up.stats
	 touch $T/$1-v34-up.done) &
	statter=$!
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "AT+MS=V34;+MR=1;+A8E=1" "ATD$WORSEN_DIAL" \
		%until:CONNECT:40000 %tiocm "%data:$WORSEN_FIRST" %sleep:1500 \
		%send:+++ "%until:OK:4000" %tiocm ATO "%data:$WORSEN_BYTES" \
		%sleep:1500 %send:+++ "%until:OK:4000" %tiocm %ready:escaped \
		"%waitfile:$T/$1-v34-up.done:10000" ATO %sleep:1500 %send:+++ \
		"%until:OK:4000" ATH %tiocm > $T/$1-v34.txt 2>&1
	echo $? > $T/$1-v34.rc
	reap $statter 50 $1-v34-statter
	sleep 1
	cat "$(dev_file stats)" > $T/$1-v34.stats
}

# V.42bis required against a far end without it ($BIS_DIAL, smline's
# nov42bis route): AT+DS=3,1 ends the call after XID with NO CARRIER;
# AT+DS=3,0 connects with plain V.42 and moves $BIS_BYTES.  One load.
bis_calls() {
	name=bis
	say "V.42bis required, refused"
	dmesg -c > /dev/null
	insmod $K $SMODEM_ARGS context=thr
	echo $? > $T/bis-insmod.rc
	sleep 1
	ttyat at $D ATE0 ATX4 "$AT_SETUP" 'AT+DS=3,1' "ATD$BIS_DIAL" \
		"%until:NO CARRIER:40000" %tiocm AT > $T/bis-required.txt 2>&1
	sleep 1
	cat "$(dev_file stats)" > $T/bis-required.stats
	# the line goes idle between calls
	sleep 2
	ttyat at $D ATE0 ATX4 "$AT_SETUP" 'AT+DS=3,0' "ATD$BIS_DIAL" \
		%until:CONNECT:30000 %tiocm "%data:$BIS_BYTES" %sleep:1500 \
		%send:+++ %expect:2500 ATH %tiocm > $T/bis-optional.txt 2>&1
	sleep 1
	cat "$(dev_file stats)" > $T/bis-optional.stats
	rmmod smodem
	echo $? > $T/bis-rmmod.rc
	loaded > $T/bis.loaded
	dmesg > $T/bis.dmesg
}

for ctx in $CONTEXTS; do
	# $TEXT_CTX's call carries $TEXT_FILE (text, for V.42bis) both ways
	CALL_STEP=
	[ "$ctx" = "${TEXT_CTX:-}" ] && CALL_STEP="%datafile:$TEXT_FILE"
	# shellcheck disable=SC2086
	echo_call $ctx "-e smodem:smodem_phase -e smodem:smodem_period_change \
		-e smodem:smodem_overrun -e smodem:smodem_dma_halt -b 8192" \
		$SMODEM_ARGS context=$ctx
done
# the contexts with the V.32bis and V.34 calls only ($V32_ONLY)
for ctx in $V32_ONLY; do
	name=$ctx
	say "$ctx: V.32bis and V.34 only"
	dmesg -c > /dev/null
	# shellcheck disable=SC2086
	insmod $K $SMODEM_ARGS context=$ctx
	echo $? > $T/$ctx-insmod.rc
	sleep 1
	echo 1 > "$(dev_file reset)"
	v32_call $ctx
	if [ -n "${V34_DIAL:-}" ]; then v34_call $ctx; fi
	rmmod smodem
	echo $? > $T/$ctx-rmmod.rc
	dmesg > $T/$ctx.dmesg
	sleep 2
done
CALL_STEP=
[ "${USR_FAULTS:-0}" = 1 ] && usr_faults
[ -n "${BIS_DIAL:-}" ] && bis_calls
cp -r $T/. $R/
say "done"
