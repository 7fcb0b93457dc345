# Guest side of tests/debug/test_debug_smp.py (busybox sh, root): the
# debug kernel on two CPUs (real clock).  CYCLES times: the AC'97 device
# bound in one context (in turn), a reader on CPU 1 holding its stats file
# open and reading it without pause (statread), the device unbound from
# CPU 0 under it, the module unloaded.  The reader's reads and KASAN's
# report, if any, land in the results.
# Usage: smp_checks.sh CYCLES
set -u
cycles=${1:-40}
K=/opt/smodem/smodem.ko
D=/sys/kernel/debug/smodem
R=/share/results
T=/tmp/results
mkdir -p $R $T
say() { echo "[guest] $*"; }
CONTEXTS="int dpc thr res irqt"
nth_context() { _k=$1; set -- $CONTEXTS; shift $((_k % $#)); echo "$1"; }
# timing is not judged here; kmemleak's scans only slow the cycles down
[ -e /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak

nproc > $T/cpus
dmesg -c > $T/boot.dmesg
say "smp unload-read: $cycles cycles"
n=0
fails=0
while [ $n -lt "$cycles" ]; do
	c=$(nth_context $n)
	taskset 1 insmod $K hw=ac97 context=$c || fails=$((fails + 1))
	s=$(ls -d $D/*/stats | head -n 1)
	rm -f /tmp/ready
	taskset 2 statread "$s" 60 /tmp/ready >> $T/reads.txt &
	reader=$!
	k=0
	while [ ! -e /tmp/ready ] && [ $k -lt 5000 ]; do
		usleep 1000
		k=$((k + 1))
	done
	usleep $(((n % 10) * 700))
	pci=$(ls /sys/bus/pci/drivers/smodem/ | grep '^0000:' | head -n 1)
	taskset 1 sh -c "echo $pci > /sys/bus/pci/drivers/smodem/unbind" ||
		fails=$((fails + 1))
	wait $reader
	taskset 1 rmmod smodem || fails=$((fails + 1))
	n=$((n + 1))
done
echo "$n $fails" > $T/cycles.txt
dmesg > $T/smp.dmesg
lsmod | grep -c '^smodem' > $T/loaded
cp -r $T/. $R/
say done
