# Guest side of the real call in tests/module/test_call.py (busybox sh,
# root, real clock, AC'97 through QEMU's JACK backend to smline on the
# host): dial 5551234, move data through smline's echo service, hang up.
# Insmod arguments come in SMODEM_ARGS, the payload size in CALL_BYTES.
set -u
K=/opt/smodem/smodem.ko
R=/share/results
T=/tmp/results
D=/dev/ttySM0
mkdir -p $R $T

say() { echo "[guest] $*"; }
dev_file() { for f in /sys/kernel/debug/smodem/*/"$1"; do echo "$f"; return; done; }

dmesg -c > /dev/null
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc
trace-cmd start -q -e smodem:smodem_phase -e smodem:smodem_period_change \
	-e smodem:smodem_overrun -b 8192 > /dev/null 2>&1
sleep 1
# the lead fitted on hook, and the skew it was fitted to, before the reset
cat "$(dev_file stats)" > $T/onhook.stats
echo 1 > "$(dev_file reset)"
say "dialing"
# The call set-up (dial tone, digits, ringback, answer tone, training)
# takes longer than a command step's 5 s: read on for 25 s, then data.
# smline's far end answers V.22bis only: +MS=V22B, V.25's start-up.
ttyat at $D ATE0 ATX4 AT+MS=V22B ATDT5551234 %expect:25000 %tiocm \
	'%send:hello, far end\r\n' %expect:3000 "%data:$CALL_BYTES" %sleep:1500 %send:+++ %expect:2500 ATH %tiocm \
	> $T/call.txt 2>&1
echo $? > $T/call.rc
say "call over"
sleep 1
cat "$(dev_file stats)" > $T/call.stats
trace-cmd stop
trace-cmd extract -o $T/call.dat > /dev/null 2>&1
trace-cmd reset > /dev/null 2>&1
rmmod smodem
echo $? > $T/rmmod.rc
dmesg > $T/call.dmesg
cp -r $T/. $R/
say "done"
