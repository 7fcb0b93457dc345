# Guest side of tests/module/test_clients.py's mgetty call (busybox sh,
# root, instruction-counted clock): Debian's mgetty, with the mgetty.config
# and login.config its package installs, on /dev/ttySM0 as init would run
# it; smline calls in, mgetty answers and runs login; the far end (on this
# machine, on smline's pty bridge) logs in as "guest", runs a command and
# logs out.  mgetty ends with the session, as it does under init.

mkdir -p /var/log/mgetty /var/lock /var/run /run /var/spool/fax/incoming
touch /var/run/utmp /var/log/wtmp
grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root::0:0:root:/root:/bin/sh' >> /etc/passwd
echo "guest:$(mkpasswd -m sha512 guest):1000:1000:Guest:/tmp:/bin/sh" >> /etc/passwd
grep -q '^root:' /etc/group 2>/dev/null || echo 'root:x:0:' >> /etc/group
echo 'guest:x:1000:' >> /etc/group
echo 'dialout:x:20:' >> /etc/group
say "load: $SMODEM_ARGS"
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc
# as the package's maintainer script installs them, and the port line a
# user adds: mgetty's own init, and +MS=V34 named (the factory's, so that
# an init-chat's +MS is proved to reach the answer)
printf 'port ttySM0\n  init-chat "" \\dATQ0V1H0 OK AT+MS=V34 OK\n' >> /etc/mgetty/mgetty.config
chmod 600 /etc/mgetty/*
cp /etc/mgetty/mgetty.config /etc/mgetty/login.config $T/ 2>/dev/null

timeout 600 /sbin/mgetty ttySM0 > $T/mgetty.out 2>&1 &
reap $! 3000 mgetty
cat /var/log/mgetty/* > $T/mgetty.log 2>/dev/null
sleep 3
rmmod smodem
echo $? > $T/rmmod.rc
finish
