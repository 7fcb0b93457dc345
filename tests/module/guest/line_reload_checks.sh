# Guest side of tests/module/test_line_reload.py (busybox sh, root): one
# call attempt to the busy number 7 after the first load and after each of
# $RELOADS module reloads within this one boot.  smline's events (off-hook,
# the first DTMF digit) give the line's round trip per attempt; the host
# judges.  Every step is bounded.
RELOADS=${1:-5}
n=0
while [ $n -le "$RELOADS" ]; do
	say "load $n"
	dmesg -c > /dev/null
	insmod $K hw=ac97 engine=1 ring_samples=8192
	echo $? > $T/insmod-$n.rc
	sleep 1
	ttyat at $D ATE0 ATX4 AT+MS=V22B ATD7 '%final:15000' ATH > $T/call-$n.txt 2>&1
	echo $? > $T/call-$n.rc
	rmmod smodem
	echo $? > $T/rmmod-$n.rc
	dmesg > $T/load-$n.dmesg
	# the line sees the on-hook after 300 ms of open loop
	sleep 2
	n=$((n + 1))
done
cp -r $T/. $R/
say done
