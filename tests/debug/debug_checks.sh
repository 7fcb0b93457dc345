# Guest side of tests/debug/test_debug_kernel.py (busybox sh, root), on the
# debug kernel (tools/lab/debug-kernel.sh).  test_debug_kernel.py puts in
# front of it tests/module/guest/guestlib.sh and guest_checks.sh's own preamble,
# and in place of the UNLOAD-READ line below guest_checks.sh's unload-read
# check itself (taken from that file, not copied).  Every dmesg line since
# boot ends up in one of $T/*.dmesg: the host judges them all.
# Usage: debug_checks.sh CYCLES
cycles=${2:-1000}
kl=/sys/kernel/debug/kmemleak

# -- the detectors are live --------------------------------------------------
say "detectors"
dmesg -c > $T/boot.dmesg
{
	echo "kmemleak $([ -e $kl ] && echo yes || echo no)"
	echo "lockdep_stats $([ -e /proc/lockdep_stats ] && echo yes || echo no)"
	echo "debug_objects $([ -e /sys/kernel/debug/debug_objects/stats ] && echo yes || echo no)"
	echo "kasan $(grep -c 'KernelAddressSanitizer initialized' $T/boot.dmesg)"
	echo "tracing $([ -e /sys/kernel/tracing/events ] && echo yes || echo no)"
} > $T/detectors.txt
cp /proc/lockdep_stats $T/lockdep-start.txt 2>/dev/null
# what the kernel itself leaves unreferenced at boot (reported apart), then
# forgotten: whatever kmemleak reports at the end is new
sleep 6
echo scan > $kl
echo "kmemleak-scan-rc $?" >> $T/detectors.txt
cat $kl > $T/kmemleak-boot.txt
echo clear > $kl
dmesg -c > $T/boot-scan.dmesg

# -- load/unload stress: CYCLES times insmod/rmmod, the contexts in turn ------
say "stress: $cycles cycles"
echo start > $R/stress.start
n=0
fails=0
while [ $n -lt "$cycles" ]; do
	c=$(nth_context $n)
	insmod $K hw=$hw context=$c || fails=$((fails + 1))
	rmmod smodem || fails=$((fails + 1))
	n=$((n + 1))
	if [ $((n % 10)) = 0 ]; then
		dmesg -c >> $T/stress.dmesg
		say "stress $n/$cycles"
	fi
done
echo done > $R/stress.end
echo "$n $fails" > $T/stress.txt
lsmod | grep -c '^smodem' > $T/stress.loaded
grep smodem /proc/interrupts > $T/stress.irq
dmesg -c >> $T/stress.dmesg

# -- guest_checks.sh's unload-read check -----------------------------------------
UNLOAD-READ
dmesg -c > /dev/null

# -- kmemleak: two scans (an object must look lost twice), after its minimum age
say "kmemleak"
sleep 6
echo scan > $kl
sleep 6
echo scan > $kl
cat $kl > $T/kmemleak.txt
dmesg -c > $T/kmemleak.dmesg
cp /proc/lockdep_stats $T/lockdep-end.txt 2>/dev/null
cp /sys/kernel/debug/debug_objects/stats $T/debug_objects.txt 2>/dev/null

cp -r $T/. $R/
say done
