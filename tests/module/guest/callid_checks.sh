# Guest side of tests/module/test_callid.py (busybox sh, root): a new
# command aimed at the moment the call before it ends by itself.  One load
# of the module (context=thr: SCHED_FIFO 50, on a preempt=full kernel) and
# ttyat's race at SCHED_FIFO 99, which preempts the modem's thread
# wherever its timer falls.  Each attempt dials 2 with a ';' (smline never
# answers it: the modem reports OK once dialled, then ends the call by
# itself, NO ANSWER, ATS7=1 s later) and writes ATH and ATDT9 (unobtainable:
# BUSY) 1 s + d after that OK; d sweeps SMODEM_RACE ("FROM_US STEP_US
# COUNT") across the moment the modem produces that NO ANSWER.  The phases
# and periods are traced on CLOCK_MONOTONIC, ttyat's clock, so that the
# host sees which writes fell inside the period that produced it.

say "load: $SMODEM_ARGS"
dmesg -c > /dev/null
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc
cat /sys/kernel/debug/sched/preempt > $T/preempt 2>&1
# what loading itself counted (the calls' figures start from zero)
cat "$(dev_file stats)" > $T/load.stats
echo 1 > "$(dev_file reset)"
trace_start -C mono -e smodem:smodem_phase -e smodem:smodem_process \
	-e smodem:smodem_overrun -e smodem:smodem_dma_halt -b 8192 > /dev/null 2>&1
# shellcheck disable=SC2086
set -- $SMODEM_RACE
say "race: from $1 us, step $2 us, $3 attempts"
# +MS=V22B: the sweep's moments were measured on V.25's start-up
ttyat race -p 99 $D 'ATS7=1DT2;\r' 'ATH\rATS7=30DT9\r' 1000 "$1" "$2" "$3" \
	ATZ ATE0 ATX4 AT+MS=V22B > $T/race.txt 2>&1
echo $? > $T/race.rc
sleep 1
cat "$(dev_file stats)" > $T/race.stats
trace-cmd stop
trace-cmd extract -o $T/race.dat > /dev/null 2>&1
trace_reset > /dev/null 2>&1
rmmod smodem
echo $? > $T/rmmod.rc
loaded > $T/loaded
finish
