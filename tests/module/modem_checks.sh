# Guest side of tests/module/test_modem.py (busybox sh, root): one call per
# execution context through QEMU's D-Bus audio to smline on the host, on
# the instruction-counted clock.  For each context in $CONTEXTS: load the
# module with $SMODEM_ARGS context=<ctx>, dial $DIAL, move $CALL_BYTES
# random bytes out and the far end's echo back (checked byte by byte here,
# by CRC-32 in smline's record), escape with +++, hang up, unload; the
# phases, period changes and overruns are traced.  Raw results go to
# /share/results for the host to judge.  Every wait is bounded.
set -u
K=/opt/smodem/smodem.ko
R=/share/results
T=/tmp/results
D=/dev/ttySM0
mkdir -p $R $T

say() { echo "[guest] $*"; }
loaded() { lsmod | grep -c '^smodem'; }
dev_file() { for f in /sys/kernel/debug/smodem/*/"$1"; do echo "$f"; return; done; }

for ctx in $CONTEXTS; do
	say "$ctx: call"
	dmesg -c > /dev/null
	# shellcheck disable=SC2086
	insmod $K $SMODEM_ARGS context=$ctx
	echo $? > $T/$ctx-insmod.rc
	trace-cmd start -q -e smodem:smodem_phase -e smodem:smodem_period_change \
		-e smodem:smodem_overrun -e smodem:smodem_dma_halt -b 8192 \
		> /dev/null 2>&1
	sleep 1
	echo 1 > "$(dev_file reset)"
	# set-up (dial tone, digits, ringback, answer tone, training) takes
	# about 14 s of line time: read on for 30 s after the command step
	ttyat at $D ATE0 ATX4 "$AT_SETUP" "ATD$DIAL" %expect:30000 %tiocm \
		"%data:$CALL_BYTES" %sleep:1500 %send:+++ %expect:2500 ATH %tiocm \
		> $T/$ctx.txt 2>&1
	echo $? > $T/$ctx.rc
	sleep 1
	cat "$(dev_file stats)" > $T/$ctx.stats
	trace-cmd stop
	trace-cmd extract -o $T/$ctx.dat > /dev/null 2>&1
	trace-cmd reset > /dev/null 2>&1
	rmmod smodem
	echo $? > $T/$ctx-rmmod.rc
	loaded > $T/$ctx.loaded
	dmesg > $T/$ctx.dmesg
	# the line goes idle between calls
	sleep 2
done
cp -r $T/. $R/
say "done"
