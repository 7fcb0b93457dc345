# Guest side of tests/module/test_scenarios.py (busybox sh, root): the
# working modem's call scenarios, one load of the module and nine calls in
# a row through QEMU's D-Bus audio to smline on the host, on the
# instruction-counted clock.  smline (routes, incoming calls and the
# unplugged call set by the test) writes one record per call, numbered in
# this order:
#   1 incoming, auto-answered on the second ring (ATS0=2), RI watched
#   2 incoming, answered with ATA
#   3 V.21 (AT+MS=V21), the far end hangs up; CLOCAL off, controlling tty
#   4 V.22 (AT+MS=V22), the far end hangs up; CLOCAL on
#   5 V.8 (AT+A8E=1,1) into V.22bis + V.42; +++, ATO, +++, ATH
#   6 busy, 7 unobtainable, 8 no answer (ATS7), 9 no dial tone
# Raw results go to /share/results for the host to judge.  Every wait is
# bounded.

# after each call: the engine's figures, and a pause the line hears as
# on-hook (smline needs 300 ms) before the next one
stats() {
	sleep 1
	cat "$(dev_file stats)" > $T/$1.stats
}

say "load: $SMODEM_ARGS"
dmesg -c > /dev/null
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc
trace_start -e smodem:smodem_phase -e smodem:smodem_overrun \
	-e smodem:smodem_dma_halt -b 4096 > /dev/null 2>&1
# what loading itself counted (the calls' figures start from zero)
cat "$(dev_file stats)" > $T/load.stats
echo 1 > "$(dev_file reset)"

# The connected calls name their modulation (+MS=V22B for smline's V.22bis
# callers and answerer, not the factory's V.34: their times are V.22bis's);
# the call-progress results 7-10 are the factory profile's.

# 1: smline rings at 4 s of line time (the line starts with the AC'97)
say "incoming, auto-answer"
ttyat at $D ATZ ATE0 AT+MS=V22B ATS0=2 %miwait:RNG:20000 %tiocm %icount \
	'%until:CONNECT:40000' %tiocm %icount '%data:256' \
	%sleep:1200 %send:+++ '%until:OK:4000' ATH %tiocm \
	> $T/in-auto.txt 2>&1
stats in-auto

# 2: rings as soon as the line is idle again
say "incoming, ATA"
ttyat at $D ATZ ATE0 AT+MS=V22B '%until:RING:20000' '%send:ATA\r' '%final:40000' '%data:256' \
	%sleep:1200 %send:+++ '%until:OK:4000' ATH %tiocm \
	> $T/in-ata.txt 2>&1
stats in-ata

# 3: V.21, 300 bytes each way; the far end hangs up 16 s into the data
# phase: with CLOCAL off the session is hung up (SIGHUP, EOF).  The data
# starts half a second after CONNECT: the engine's V.21 transmitter sends
# the DTE's bytes from the first bit of its carrier, back to back, and a
# receiver (smline's, as a UART after carrier detect) needs some idle mark
# to find the first start bit.
say "V.21, remote hang-up, SIGHUP"
ttyat at -c -h $D ATZ ATE0 ATX4 'AT\N0' AT+MS=V21 '%send:ATDT5550300\r' \
	'%final:40000' %tiocm %sleep:500 '%data:300' '%hupwait:30000' %reopen %tiocm \
	> $T/v21.txt 2>&1
stats v21

# 4: V.22, 300 bytes each way; the far end hangs up 7 s into the data
# phase: NO CARRIER, DCD down
say "V.22, remote hang-up, NO CARRIER"
ttyat at $D ATZ ATE0 ATX4 'AT\N0' AT+MS=V22 '%send:ATDT5551200\r' \
	'%final:40000' %tiocm %icount '%data:300' '%until:NO CARRIER:20000' \
	%tiocm %icount AT > $T/v22.txt 2>&1
stats v22

# 5: V.8 into V.22bis + V.42; the escape, back on line, data, hang-up;
# 6: a dial the moment ATH said OK (a busy number): its own result, not
# the hung-up call's late report
say "V.8, V.22bis + V.42, +++ ATO ATH, ATD at once"
ttyat at $D ATZ ATE0 ATX4 'AT\N3' AT+MS=V22B AT+A8E=1,1 '%send:ATDT5552400\r' \
	'%final:40000' '%data:512' %sleep:1200 %send:+++ '%until:OK:4000' \
	AT ATO '%data:512' %sleep:1200 %send:+++ '%until:OK:4000' ATH %tiocm \
	'%send:ATDT5550001\r' '%final:30000' AT > $T/v8.txt 2>&1
stats v8

say "busy"
ttyat at $D ATZ ATE0 ATX4 '%send:ATDT5550001\r' '%final:30000' AT \
	> $T/busy.txt 2>&1
stats busy

say "unobtainable"
ttyat at $D ATZ ATE0 ATX4 '%send:ATDT5559999\r' '%final:30000' AT \
	> $T/unobtainable.txt 2>&1
stats unobtainable

# ringback that never ends: NO ANSWER after S7 seconds
say "no answer"
ttyat at $D ATZ ATE0 ATX4 ATS7=8 '%send:ATDT5550002\r' '%final:30000' AT \
	> $T/noanswer.txt 2>&1
stats noanswer

# smline unplugs the line for this call (--no-dialtone-calls)
say "no dial tone"
ttyat at $D ATZ ATE0 ATX4 '%send:ATDT5552400\r' '%final:30000' AT %tiocm \
	> $T/nodialtone.txt 2>&1
stats nodialtone

trace-cmd stop
trace-cmd extract -o $T/phases.dat > /dev/null 2>&1
trace_reset > /dev/null 2>&1
rmmod smodem
echo $? > $T/rmmod.rc
loaded > $T/loaded
dmesg > $T/dmesg.txt
cp -r $T/. $R/
say "done"
