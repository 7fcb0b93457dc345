# Guest side of tests/module/test_virtual_time.py (busybox sh, root): two
# calls through QEMU's D-Bus audio to smline, on the instruction-counted
# clock, every smodem tracepoint recorded:
#   ok       context=thr, $CALL_BYTES echoed
#   starved  context=res with a reservation far too small for load_us
#            ($STARVE_ARGS): the call must degrade, the kernel stay healthy
# The host runs this twice and compares.  Raw results go to /share/results.
set -u
K=/opt/smodem/smodem.ko
R=/share/results
T=/tmp/results
D=/dev/ttySM0
mkdir -p $R $T

say() { echo "[guest] $*"; }
loaded() { lsmod | grep -c '^smodem'; }
dev_file() { for f in /sys/kernel/debug/smodem/*/"$1"; do echo "$f"; return; done; }

call() {
	name=$1
	shift
	say "$name: $*"
	dmesg -c > /dev/null
	insmod $K "$@"
	echo $? > $T/$name-insmod.rc
	trace-cmd start -q -e smodem -b 16384 > /dev/null 2>&1
	sleep 1
	echo 1 > "$(dev_file reset)"
	ttyat at $D ATE0 ATX4 'AT\N3' ATDT5551234 %expect:30000 %tiocm \
		"%data:$CALL_BYTES" %sleep:1500 %send:+++ %expect:2500 ATH %tiocm \
		> $T/$name.txt 2>&1
	echo $? > $T/$name.rc
	sleep 1
	cat "$(dev_file stats)" > $T/$name.stats
	trace-cmd stop
	trace-cmd extract -o $T/$name.dat > /dev/null 2>&1
	trace-cmd reset > /dev/null 2>&1
	rmmod smodem
	echo $? > $T/$name-rmmod.rc
	loaded > $T/$name.loaded
	dmesg > $T/$name.dmesg
	sleep 2
}

# shellcheck disable=SC2086
call ok $SMODEM_ARGS context=thr
# shellcheck disable=SC2086
call starved $SMODEM_ARGS $STARVE_ARGS
cp -r $T/. $R/
say "done"
