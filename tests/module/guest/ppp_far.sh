# Guest side of tests/module/test_ppp.py, the far end's guest (busybox sh,
# root, real clock): its second serial port (ttyS1) is smline's pty bridge,
# i.e. the far modem's data.  pppd runs there with the opposite addresses
# until the modem's pppd ends the link (LCP Terminate) or time runs out.
# Results go straight to /share/results (live share).
set -u
R=/share/results
mkdir -p $R
echo "[far] pppd on ttyS1"
cat /proc/tty/driver/serial > $R/far-serial.txt 2>&1
ls -l /dev/ppp /dev/ttyS1 > $R/far-dev.txt 2>&1
# nocrtscts: Debian's /etc/ppp/options asks for RTS/CTS, and the UART's CTS
# (QEMU's serial on a pty or a socket) is not asserted
timeout 1500 pppd /dev/ttyS1 115200 local noauth nocrtscts nodetach nolock debug \
	logfd 1 noipdefault nodefaultroute maxfail 1 lcp-echo-interval 0 \
	lcp-echo-failure 0 lcp-max-configure 200 ipcp-max-configure 100 \
	10.0.0.2:10.0.0.1 > $R/far-pppd.log 2>&1
echo $? > $R/far-pppd.rc
echo "[far] done"
