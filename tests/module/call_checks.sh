# Guest side of tests/module/test_call.py (busybox sh, root): the data
# pump's modem engine behind /dev/ttySM0 on a silent line (no exchange):
# a call attempt must end in NO DIALTONE, with the phases and, with
# phase_periods=1, the period changes traced.  Raw results go to
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

# silent_call NAME INSMOD-ARGS...: load, dial, trace, unload.
silent_call() {
	name=$1
	shift
	say "$name: $*"
	dmesg -c > /dev/null
	insmod $K "$@"
	echo $? > $T/$name-insmod.rc
	trace-cmd start -q -e smodem:smodem_phase \
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
	trace-cmd reset > /dev/null 2>&1
	rmmod smodem
	echo $? > $T/$name-rmmod.rc
	loaded > $T/$name.loaded
	dmesg > $T/$name.dmesg
}

silent_call vline hw=vline engine=1 phase_periods=1
silent_call ac97 hw=ac97 engine=1 phase_periods=1 context=int
silent_call fixed hw=vline engine=1

say "bad parameters"
n=0
for args in "engine=2" "phase_periods=2" "phase_periods=1" \
	"engine=1 rate=9600" "engine=1 phase_periods=1 ring_samples=128"; do
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
