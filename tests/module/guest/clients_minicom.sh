# Guest side of tests/module/test_clients.py's minicom call (busybox sh,
# root, instruction-counted clock): minicom's runscript, as minicom runs it
# (its input and output the modem), dials, sends /opt/clients/up.bin with
# zmodem (lrzsz's sz) to the far end's rz, receives the far end's file
# with rz, escapes to command mode and hangs up.  Its init names no
# modulation: ATZ's factory profile (+MS=V34) dials.  The port is set up as
# minicom sets it (raw, 115200, RTS/CTS); CLOCAL so that the open does not
# wait for a carrier, as minicom opens it non-blocking.

say "load: $SMODEM_ARGS"
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc
# ModemManager's probes of a new port (mm-port-probe: AT, capabilities,
# vendor and product, GSM and vendor-specific ones) come first, as on a
# desktop that runs it; the call after them must be as any other.
ttyat at $D AT AT AT AT+GCAP ATI AT+CGMI AT+GMI AT+CGMM AT+GMM AT+CGMR \
	AT+GMR AT+CGSN AT+GSN 'AT+CPIN?' 'AT%IPSYS?' 'AT+XACT=?' 'AT^SCFG?' \
	ATE0 ATV1 > $T/mm-probe.txt 2>&1
echo $? > $T/mm-probe.rc
mkdir -p /tmp/rx
stty -F $D 115200 raw -echo crtscts clocal
cat > /tmp/call.runscript <<'SCRIPT'
verbose on
timeout 900
send "ATZ"
expect {
	"OK"
	timeout 10 goto fail
}
send "ATE0 V1 X4 &C1 &D2"
expect {
	"OK"
	timeout 10 goto fail
}
send "ATDT5551235"
expect {
	"CONNECT"
	timeout 120 goto fail
}
print "[runscript] connected: zmodem upload"
! sz -vv -b /opt/clients/up.bin 2>/tmp/results/sz.log
if $? != 0 goto fail
print "[runscript] sent"
! rz -vv -b 2>/tmp/results/rz.log
if $? != 0 goto fail
print "[runscript] received"
sleep 2
send "+++\c"
expect {
	"OK"
	timeout 10 goto fail
}
send "ATH0"
expect {
	"OK"
	timeout 10 goto fail
}
print "[runscript] hung up"
exit 0
fail:
print "[runscript] failed"
exit 1
SCRIPT
cd /tmp/rx || exit 1
timeout 1200 runscript /tmp/call.runscript < $D > $D 2> $T/runscript.log
echo $? > $T/runscript.rc
cd /
sha256sum /tmp/rx/* > $T/received.sha256 2>&1
ls -l /tmp/rx > $T/received.ls 2>&1
sleep 3
rmmod smodem
echo $? > $T/rmmod.rc
finish
