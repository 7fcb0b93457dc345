# Guest side of tests/module/test_tty.py (busybox sh, root): drives
# /dev/ttySM0 with /usr/bin/ttyat and leaves raw transcripts in
# /share/results for the host to judge.  Every background job is bounded.
set -u
K=/opt/smodem/smodem.ko
R=/share/results
T=/tmp/results
D=/dev/ttySM0
mkdir -p $R $T

say() { echo "[guest] $*"; }
loaded() { lsmod | grep -c '^smodem'; }
# Wait until file $1 contains $2, at most $3 tenths of a second.
wait_for() {
	i=0
	while [ $i -lt "$3" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

say "load"
dmesg -c >/dev/null
insmod $K hw=ac97
echo $? > $T/insmod.rc
ls -l $D > $T/node.txt 2>&1
ls /sys/class/tty/ttySM0 > /dev/null 2>&1 && echo yes > $T/sysfs.txt
dmesg | grep smodem > $T/load.dmesg

say "commands"
ttyat at $D AT ATI ATI0 ATI1 ATI2 ATI3 ATI4 ATE0 AT ATV0 AT ATS7? ATX9 ATV1 \
	ATS7=200 ATS7? ATS7=300 ATS7? ATS12=0 ATS12=256 AT+MS=V22 AT+MS? \
	AT+MS=V99 'AT\N0' 'AT\N9' AT+ES=3,0,2 ATX3 AT%Q ATS7? A/ '%big:4096' AT \
	'%random:8192:7' '%raw:\r' AT %tiocm ATD5551234 ATA ATO ATH 'AT&V' ATZ \
	AT > $T/basic.txt 2>&1
echo $? > $T/basic.rc

say "modem-control lines"
ttyat miwait $D > $T/miwait.txt 2>&1
ttyat blockopen $D > $T/blockopen.txt 2>&1

say "open/close cycles"
dmesg -c > $T/before-cycles.dmesg
ttyat cycles $D 20 > $T/cycles.txt 2>&1
dmesg > $T/cycles.dmesg

say "unload with the port open"
ttyat at -c $D ATE0 AT %ready %miwait:RNG,CD,DSR '%hupwait:60000' \
	> $T/hold.txt 2>&1 &
holder=$!
wait_for $T/hold.txt READY 100 || echo "holder not ready" > $T/hold.err
rmmod smodem 2> $T/rmmod-open.err
echo $? > $T/rmmod-open.rc
loaded > $T/rmmod-open.loaded
# The port still answers while the module stays.
ttyat at $D ATE0 AT > $T/after-refused.txt 2>&1
# Hot-unplug: unbind the PCI device under the open port.
pci=$(ls /sys/bus/pci/drivers/smodem/ | grep '^0000:' | head -1)
echo "$pci" > $T/unbind.dev
echo "$pci" > /sys/bus/pci/drivers/smodem/unbind
echo $? > $T/unbind.rc
i=0
while kill -0 $holder 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -0 $holder 2>/dev/null && { echo "holder stuck" > $T/hold.err; kill -9 $holder; }
wait $holder
echo $? > $T/hold.rc
[ -e $D ] && echo present > $T/node-after-unbind.txt
# The last close releases the module asynchronously: retry briefly.
i=0
rc=1
while [ $i -lt 20 ]; do
	rmmod smodem 2>/dev/null && { rc=0; break; }
	sleep 0.1
	i=$((i + 1))
done
echo $rc > $T/rmmod-after.rc
loaded > $T/rmmod-after.loaded
dmesg > $T/unplug.dmesg

say "data mode with the loopback engine"
dmesg -c >/dev/null
insmod $K hw=ac97 tty_loopback=4000
echo $? > $T/insmod-loop.rc
ttyat at $D ATE0 %tiocm ATD5551234 %tiocm %icount '%data:16384' %icount \
	'%data:16384:5000' \
	'%sleep:1200' '%send:+++' '%expect:2500' ATS7? ATO '%raw:hello' \
	'%sleep:1200' '%send:+++' '%expect:2500' ATH %tiocm ATD7 ATD6 ATD8 \
	ATX0 ATD7 ATX4 'ATDT1;' ATH ATD1 '%dtr:0' '%expect:500' '%dtr:1' AT \
	%tiocm > $T/loop.txt 2>&1
# Incoming calls: RING, RI, ATA, then auto-answer on the second ring.
ttyat at $D ATE0 ATD4 %miwait:RNG '%expect:500' %tiocm ATA %icount \
	'%dtr:0' '%expect:300' '%dtr:1' ATS0=2 ATD4 '%expect:6000' %tiocm \
	'%dtr:0' '%expect:300' > $T/ring.txt 2>&1
# Carrier loss with CLOCAL off: SIGHUP to the session, EOF to readers.
ttyat at -c -h $D ATE0 ATD9 '%hupwait:10000' > $T/hup.txt 2>&1
# With CLOCAL on the port stays usable.
ttyat at -c $D ATE0 ATD9 '%expect:4000' AT %tiocm > $T/hup-clocal.txt 2>&1
# Closing during a call hangs it up; the next session starts idle.
ttyat at $D ATE0 ATD1 > $T/close-call-1.txt 2>&1
ttyat at $D ATE0 %tiocm AT ATO > $T/close-call-2.txt 2>&1
rmmod smodem
echo $? > $T/rmmod-loop.rc
dmesg > $T/loop.dmesg

cp -r $T/. $R/
say done
