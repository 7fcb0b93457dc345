# Guest side of tests/module/test_call.py (busybox sh, root): the data
# pump's modem engine behind /dev/ttySM0 on a silent line (no exchange):
# a call attempt must end in NO DIALTONE, with the phases and, with
# phase_periods=1, the period changes traced; the AT settings (+A8E, \N,
# +ES, X, S8) must reach the engine, as its stats show, and the dial
# string's pauses and 'W' must take their time.  Raw results go to
# /share/results for the host to judge.  Every wait is bounded.

# silent_call NAME INSMOD-ARGS...: load, dial, trace, unload.
silent_call() {
	name=$1
	shift
	say "$name: $*"
	dmesg -c > /dev/null
	insmod $K "$@"
	echo $? > $T/$name-insmod.rc
	trace_start -e smodem:smodem_phase \
		-e smodem:smodem_period_change -b 4096 > /dev/null 2>&1
	sleep 1
	cat "$(dev_file stats)" > $T/$name-before.stats
	# The engine gives up after 5 s without a dial tone: read on after
	# the command step's own 5 s.
	ttyat at $D ATE0 ATDT5551234 %expect:3000 AT %tiocm \
		> $T/$name.txt 2>&1
	echo $? > $T/$name.rc
	sleep 1
	cat "$(dev_file stats)" > $T/$name-after.stats
	trace-cmd stop
	trace-cmd extract -o $T/$name.dat > /dev/null 2>&1
	trace_reset > /dev/null 2>&1
	rmmod smodem
	echo $? > $T/$name-rmmod.rc
	loaded > $T/$name.loaded
	dmesg > $T/$name.dmesg
}

silent_call vline hw=vline engine=1 phase_periods=1
silent_call ac97 hw=ac97 engine=1 phase_periods=1 context=int
silent_call fixed hw=vline engine=1

# One load, several calls; the engine's stats after each.  X1 dials blind
# (2 s after off-hook, S6) and says NO CARRIER where X4 says NO DIALTONE.
say "flags"
dmesg -c > /dev/null
insmod $K hw=vline engine=1
echo $? > $T/flags-insmod.rc
trace_start -e smodem:smodem_phase -b 4096 > /dev/null 2>&1
sleep 1
# V.8 both ways for V.22bis, LAPM required; '1', 1 s, '2', a dial tone
# that never comes (5 s): hung up after about 8.3 s.
ttyat at $D ATE0 'AT+MS=V22B' 'AT+A8E=1,1' 'AT\N4' ATX1 ATS8=1 'ATDT1,2W3' \
	%expect:5000 > $T/flags-1.txt 2>&1
# the hang-up reaches the engine at its next period
sleep 1
cat "$(dev_file stats)" > $T/flags-1.stats
# Neither, and 3 s pauses: 2 s longer.
ttyat at $D ATE0 'AT+A8E=0,0' 'AT\N0' ATX1 ATS8=3 'ATDT1,2W3' \
	%expect:7000 > $T/flags-2.txt 2>&1
# the hang-up reaches the engine at its next period
sleep 1
cat "$(dev_file stats)" > $T/flags-2.stats
# Factory settings (\N3: V.42 if the peer has it; +MS=V34, so V.8 though
# +A8E is off), blind: the engine dials and waits for an answer until the
# next command aborts it.
ttyat at $D ATZ ATE0 ATX1 ATDT1 AT > $T/flags-3.txt 2>&1
# the hang-up reaches the engine at its next period
sleep 1
cat "$(dev_file stats)" > $T/flags-3.stats
# Answering with V.8 (ANSam after the 2 s billing delay) and +ES's
# answerer asking for LAPM only; the next command aborts it.
ttyat at $D ATZ ATE0 'AT+A8E=0,5' 'AT+ES=1,0,5' ATA AT \
	> $T/flags-4.txt 2>&1
# the hang-up reaches the engine at its next period
sleep 1
cat "$(dev_file stats)" > $T/flags-4.stats
trace-cmd stop
trace-cmd extract -o $T/flags.dat > /dev/null 2>&1
trace_reset > /dev/null 2>&1
rmmod smodem
echo $? > $T/flags-rmmod.rc
loaded > $T/flags.loaded
dmesg > $T/flags.dmesg

say "bad parameters"
n=0
# engine=1 is the default: phase_periods=1 needs only engine=0 to fail,
# and another rate fails unless engine=0 says so.
for args in "engine=2" "phase_periods=2" "engine=0 phase_periods=1" \
	"engine=1 rate=9600" "engine=1 phase_periods=1 ring_samples=128" \
	"rate=9600"; do
	n=$((n + 1))
	dmesg -c > /dev/null
	# shellcheck disable=SC2086
	insmod $K hw=vline $args 2> /dev/null
	rc=$?
	{
		echo "args $args"
		echo "rc $rc"
		echo "loaded $(loaded)"
		echo "msg $(dmesg | grep 'smodem:' | tail -1)"
	} > $T/bad-$n.txt
	[ "$(loaded)" = 0 ] || rmmod smodem
done

cp -r $T/. $R/
say "done"
