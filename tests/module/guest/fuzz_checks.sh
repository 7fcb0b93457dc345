# Guest side of tests/module/test_tty_fuzz.py (busybox sh, root): runs
# /usr/bin/ttyfuzz against /dev/ttySM0 with the module loaded in several
# contexts, in command mode and in data mode during calls to smline, then
# checks the tty still works and the module unloads.  Arguments: SECONDS
# (each fuzz phase) SEED CONTEXTS (the full ones: command + data mode + a
# clean call after) QUICK (contexts fuzzed in command mode only).  Every
# step is bounded: a fuzzer still running FUZZ_LIMIT s after its budget is
# reported stuck (its processes' kernel stacks, sysrq w) and killed.
FS=${1:-6}
SEED=${2:-1}
FULL=${3:-"int thr"}
QUICK=${4:-"dpc res"}
[ "$QUICK" = none ] && QUICK=
echo 1 > /proc/sys/kernel/sysrq

# fuzz NAME LIMIT_S ARGS...: ttyfuzz ARGS > $T/NAME.txt, bounded.
fuzz() {
	name=$1
	limit=$2
	shift 2
	say "fuzz $name: $*"
	ttyfuzz "$@" > $T/$name.txt 2>&1 &
	pid=$!
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt $((limit * 2)) ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		echo "STUCK after $limit s" > $T/$name.stuck
		for p in $(ls /proc | grep '^[0-9]*$'); do
			grep -q ttyfuzz /proc/$p/comm 2>/dev/null || continue
			{
				echo "pid $p state $(grep State /proc/$p/status)"
				echo "wchan $(cat /proc/$p/wchan 2>/dev/null)"
				cat /proc/$p/stack 2>/dev/null
			} >> $T/$name.stuck
		done
		echo w > /proc/sysrq-trigger
		kill -9 $pid 2>/dev/null
		for p in $(ls /proc | grep '^[0-9]*$'); do
			grep -q ttyfuzz /proc/$p/comm 2>/dev/null && kill -9 $p 2>/dev/null
		done
	fi
	wait $pid
	echo $? > $T/$name.rc
}

n=0
for ctx in $FULL; do
	dmesg -c > /dev/null
	insmod $K hw=ac97 engine=1 ring_samples=8192 context=$ctx
	echo $? > $T/$ctx-insmod.rc
	# the counters from here on (the start counts a DMA halt)
	sleep 1
	echo 1 > "$(dev_file reset)"
	fuzz $ctx-cmd $((FS + 40)) -s $((SEED + n)) -t $FS -p 2 $D
	# what the fuzz left: the settings, the engine (for a failure's analysis)
	ttyat at $D 'AT&V' > $T/$ctx-cmd.settings 2>&1
	cat "$(dev_file stats)" > $T/$ctx-cmd.stats 2>&1
	sleep 2
	# the first full context's call: the far end hangs up during the fuzz
	num=5551234
	[ $n -eq 0 ] && num=5551239
	fuzz $ctx-data $((FS + 100)) -s $((SEED + n + 1)) -t $FS -p 2 \
		-d $num -D 5551234 $D
	cat "$(dev_file stats)" > $T/$ctx-data.stats 2>&1
	sleep 2
	# the tty still works (after AT&F: the fuzz may have stored V0, Q1, S7=0,
	# +MS=V21 ... with &W, which ATZ would restore): AT, and a clean call
	# (V.22bis, the far end's)
	ttyat at $D 'AT&F' ATE0 AT AT > $T/$ctx-at.txt 2>&1
	echo $? > $T/$ctx-at.rc
	ttyat at $D 'AT&F' ATE0 ATX4 AT+MS=V22B ATD5551234 %expect:30000 %data:256 %sleep:1500 \
		%send:+++ %expect:2500 ATH > $T/$ctx-call.txt 2>&1
	echo $? > $T/$ctx-call.rc
	unload $ctx
	dmesg > $T/$ctx.dmesg
	sleep 2
	n=$((n + 2))
done
for ctx in $QUICK; do
	dmesg -c > /dev/null
	insmod $K hw=ac97 engine=1 ring_samples=8192 context=$ctx phase_periods=1
	echo $? > $T/$ctx-insmod.rc
	fuzz $ctx-cmd $((FS + 40)) -s $((SEED + n)) -t $((FS / 2 + 1)) -p 3 $D
	sleep 1
	ttyat at $D 'AT&F' ATE0 AT AT > $T/$ctx-at.txt 2>&1
	echo $? > $T/$ctx-at.rc
	unload $ctx
	dmesg > $T/$ctx.dmesg
	n=$((n + 1))
done
cp -r $T/. $R/
say done
