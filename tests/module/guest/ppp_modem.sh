# Guest side of tests/module/test_ppp.py, the modem's guest (busybox sh,
# root, instruction-counted clock): dial smline's pty route, run pppd on
# /dev/ttySM0 over the connected call (the far end's pppd runs in a second
# guest on smline's pty bridge), ping the far end across the link, end
# pppd (LCP Terminate), hang up.  Raw results go to /share/results.  Every
# wait is bounded (guest seconds: the far guest boots in wall time
# meanwhile, and an idle guest's clock runs ahead of the wall).


say "load: $SMODEM_ARGS"
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc

# ttyat dials and holds the port; pppd runs on it meanwhile
ttyat at $D ATZ ATE0 ATX4 AT+MS=V34 '%send:ATDT5551234\r' '%final:60000' \
	%ready:CONNECTED '%waitfile:/tmp/ppp.done:3000000' %sleep:1200 \
	%send:+++ '%until:OK:4000' ATH > $T/tty.txt 2>&1 &
holder=$!
if ! wait_for $T/tty.txt "READY CONNECTED" 600; then
	touch /tmp/ppp.done
	reap $holder 300 tty
	finish
fi
say "connected: pppd"
ls -l /dev/ppp > $T/ppp-dev.txt 2>&1
# passive: once its Configure-Requests go unanswered (the far guest may
# still be booting), pppd waits for the far end's instead of giving up
timeout 900 pppd $D 115200 local noauth nodetach nolock debug logfd 1 \
	noipdefault nodefaultroute maxfail 1 lcp-echo-interval 0 \
	lcp-echo-failure 0 passive 10.0.0.1:10.0.0.2 > $T/pppd.log 2>&1 &
pppd=$!
# until the link is up or pppd gave up
i=0
while ! grep -q "remote IP address" $T/pppd.log 2>/dev/null &&
	kill -0 $pppd 2>/dev/null && [ $i -lt 9000 ]; do
	sleep 0.1
	i=$((i + 1))
done
if grep -q "remote IP address" $T/pppd.log; then
	sleep 1
	ip addr show ppp0 > $T/ppp0.txt 2>&1
	say "link up: ping"
	ping -c 3 -W 10 10.0.0.2 > $T/ping.txt 2>&1
	echo $? > $T/ping.rc
fi
kill $pppd 2>/dev/null
reap $pppd 600 pppd
touch /tmp/ppp.done
reap $holder 300 tty
# the output lead and what it served (tx_late: frames played unwritten)
cat "$(dev_file stats)" > $T/stats.txt 2>&1
# let the line run on (on-hook) so that the far end hears the hang-up
sleep 3
finish
