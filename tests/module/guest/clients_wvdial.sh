# Guest side of tests/module/test_clients.py's wvdial call (busybox sh,
# root, instruction-counted clock): Debian's wvdial as a user sets it up,
# i.e. wvdialconf finds the modem and writes /etc/wvdial.conf, the user
# fills in the three lines it leaves commented (phone, user, password)
# and adds an init string naming the modem's best modulation (AT+MS=V34,
# the factory's too: an Init3 with +MS proved to reach the call),
# `wvdial` dials, starts pppd, and a ping crosses to the far end's pppd
# (a second guest on smline's pty bridge).  Then wvdial is stopped as a
# user stops it (SIGINT: pppd ends the link, wvdial hangs up).

mkdir -p /var/lock /var/run /run
say "load: $SMODEM_ARGS"
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc

timeout 300 wvdialconf > $T/wvdialconf.txt 2>&1
echo $? > $T/wvdialconf.rc
cp /etc/wvdial.conf $T/wvdial.conf.generated 2>/dev/null
sed -i -e 's/^; Phone = .*/Phone = 5551234/' \
	-e 's/^; Username = .*/Username = guest/' \
	-e 's/^; Password = .*/Password = guest/' /etc/wvdial.conf
# wvdialconf writes one section, [Dialer Defaults]: the line goes there
echo "Init3 = AT+MS=V34" >> /etc/wvdial.conf
cp /etc/wvdial.conf $T/wvdial.conf

wvdial > $T/wvdial.log 2>&1 &
wv=$!
# until pppd has the link up, or wvdial gave up (guest seconds)
i=0
while ! grep -q "remote IP address\|secondary DNS\|primary   DNS" $T/wvdial.log 2>/dev/null &&
	kill -0 $wv 2>/dev/null && [ $i -lt 6000 ]; do
	sleep 0.1
	i=$((i + 1))
done
if grep -q "remote IP address" $T/wvdial.log; then
	sleep 1
	ip addr show ppp0 > $T/ppp0.txt 2>&1
	say "link up: ping"
	ping -c 3 -w 60 10.0.0.2 > $T/ping.txt 2>&1
	echo $? > $T/ping.rc
fi
kill -INT $wv 2>/dev/null
reap $wv 600 wvdial
# the line runs on, on-hook, so that the far end hears the hang-up
sleep 3
rmmod smodem
echo $? > $T/rmmod.rc
finish
