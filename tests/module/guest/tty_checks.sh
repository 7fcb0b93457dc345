# Guest side of tests/module/test_tty.py (busybox sh, root): drives
# /dev/ttySM0 with /usr/bin/ttyat and leaves raw transcripts in
# /share/results for the host to judge.  Every background job is bounded.

say "load"
dmesg -c >/dev/null
insmod $K hw=ac97 engine=0
echo $? > $T/insmod.rc
ls -l $D > $T/node.txt 2>&1
ls /sys/class/tty/ttySM0 > /dev/null 2>&1 && echo yes > $T/sysfs.txt
dmesg | grep smodem > $T/load.dmesg

say "commands"
ttyat at $D AT ATI ATI0 ATI1 ATI2 ATI3 ATI4 ATI10 ATE0 AT ATV0 AT ATS7? ATX9 ATV1 \
	ATS7=200 ATS7? ATS7=300 ATS7? ATS12=0 ATS12=256 AT+MS? AT+MS=V22 AT+MS? \
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

say "calls over the line (smline through QEMU's D-Bus audio)"
dmesg -c >/dev/null
insmod $K hw=ac97 engine=1 ring_samples=8192
echo $? > $T/insmod-line.rc
# ATX0 reports a busy line as NO CARRIER; ';' dials and stays in command
# mode; AT&D2: dropping DTR hangs up a connected call.  The line sees an
# on-hook only after 300 ms of open loop: 1.5 s between calls.  Every
# call names V.22bis, smline's far end's (the factory's +MS is V.34).
ttyat at $D ATE0 AT+MS=V22B %tiocm ATD7 '%expect:15000' '%sleep:1500' ATX0 ATD7 \
	'%expect:15000' '%sleep:1500' ATX4 'ATDT5551234;' ATH '%sleep:1500' \
	ATD5551234 '%expect:30000' %tiocm %icount '%dtr:0' '%expect:1000' '%dtr:1' \
	AT %tiocm > $T/line.txt 2>&1
# The far end hangs up; with CLOCAL the port gets NO CARRIER and stays usable.
ttyat at -c $D ATE0 AT+MS=V22B ATD9 '%expect:30000' '%expect:15000' AT %tiocm \
	> $T/hup-clocal.txt 2>&1
# Closing during a call hangs it up; the next session starts idle.
ttyat at $D ATE0 AT+MS=V22B ATD5551234 '%expect:30000' > $T/close-call-1.txt 2>&1
ttyat at $D ATE0 %tiocm AT ATO > $T/close-call-2.txt 2>&1
rmmod smodem
echo $? > $T/rmmod-line.rc
dmesg > $T/line.dmesg

cp -r $T/. $R/
say done
