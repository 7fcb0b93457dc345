# Guest side of tests/module/test_scenarios_data.py (busybox sh, root): three
# calls through QEMU's D-Bus audio to smline on the host, on the
# instruction-counted clock, numbered as smline records them:
#   1 flow control: V.22bis + V.42, a writer faster than the line and a
#     reader that stalls long enough to fill every buffer on the way
#   2 pppd on /dev/ttySM0 over a connected call (what reaches the far end
#     is saved by smline and judged on the host)
#   3 unloading during a connected call: rmmod is refused while the port
#     is open and the call goes on; the device is unbound under the call
#     (the session is hung up), then rmmod succeeds; loading the module
#     again lets the line run on so that the far end sees the end.
# Each names V.22bis (+MS=V22B), smline's far end's, not the factory's V.34:
# the calls' times and the flow control's figures are V.22bis's.
# Raw results go to /share/results for the host to judge.  Every wait is
# bounded.

stats() {
	sleep 1
	cat "$(dev_file stats)" > $T/$1.stats
}

say "load: $SMODEM_ARGS"
dmesg -c > /dev/null
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/insmod.rc
trace_start -e smodem:smodem_phase -e smodem:smodem_overrun \
	-e smodem:smodem_dma_halt -b 4096 > /dev/null 2>&1
# what loading itself counted (the calls' figures start from zero)
cat "$(dev_file stats)" > $T/load.stats
echo 1 > "$(dev_file reset)"

# 1: 16 KiB out as fast as the tty takes them; the reader sleeps 50 s
# (about 14 KiB of echo at 2400 bit/s: more than the line discipline, the
# port's and the engine's buffers hold, so V.42 must hold the far end)
say "flow control"
ttyat at $D ATZ ATE0 ATX4 'AT\N3' AT+MS=V22B '%send:ATDT5552400\r' '%final:40000' \
	%icount '%data:16384:50000' %icount %sleep:1200 %send:+++ \
	'%until:OK:4000' ATH %tiocm > $T/flow.txt 2>&1
stats flow

# 2: ttyat dials and holds the port; pppd runs on it meanwhile
say "pppd"
ttyat at $D ATZ ATE0 ATX4 AT+MS=V22B '%send:ATDT5557000\r' '%final:40000' \
	%ready:CONNECTED '%waitfile:/tmp/ppp.done:60000' %sleep:1200 \
	%send:+++ '%until:OK:4000' ATH > $T/ppp-tty.txt 2>&1 &
holder=$!
if wait_for $T/ppp-tty.txt "READY CONNECTED" 600; then
	ls -l /dev/ppp > $T/ppp-dev.txt 2>&1
	timeout 40 pppd $D 115200 local noauth nodetach nolock debug logfd 1 \
		noipdefault nodefaultroute maxfail 1 lcp-restart 1 \
		lcp-max-configure 4 10.64.0.2:10.64.0.1 > $T/pppd.log 2>&1
	echo $? > $T/pppd.rc
fi
touch /tmp/ppp.done
reap $holder 300 ppp-tty
stats ppp

# 3: rmmod during a connected call
say "unload during a call"
ttyat at -c -h $D ATZ ATE0 ATX4 AT+MS=V22B '%send:ATDT5552400\r' '%final:40000' \
	'%data:512' %ready:CALL '%waitfile:/tmp/rm.go:30000' '%data:512' \
	%ready:AGAIN '%hupwait:30000' > $T/rm.txt 2>&1 &
holder=$!
if wait_for $T/rm.txt "READY CALL" 600; then
	rmmod smodem 2> $T/rmmod-busy.err
	echo $? > $T/rmmod-busy.rc
	loaded > $T/rmmod-busy.loaded
	touch /tmp/rm.go
	wait_for $T/rm.txt "READY AGAIN" 300
	cat "$(dev_file stats)" > $T/rm-connected.stats
fi
trace-cmd stop
trace-cmd extract -o $T/phases.dat > /dev/null 2>&1
trace_reset > /dev/null 2>&1
pci=$(ls /sys/bus/pci/drivers/smodem/ | grep '^0000:' | head -1)
echo "$pci" > $T/unbind.dev
echo "$pci" > /sys/bus/pci/drivers/smodem/unbind
echo $? > $T/unbind.rc
reap $holder 100 rm
# the last close releases the module asynchronously: retry briefly
i=0
rc=1
while [ $i -lt 20 ]; do
	rmmod smodem 2> $T/rmmod.err && { rc=0; break; }
	sleep 0.1
	i=$((i + 1))
done
echo $rc > $T/rmmod.rc
loaded > $T/rmmod.loaded
dmesg > $T/rm.dmesg
# The line (on QEMU's virtual clock) only runs while the AC'97 does: load
# the module again so that the far end hears the line go quiet.
dmesg -c > /dev/null
# shellcheck disable=SC2086
insmod $K $SMODEM_ARGS
echo $? > $T/reload.rc
sleep 3
rmmod smodem
echo $? > $T/reload-rmmod.rc
loaded > $T/loaded
dmesg > $T/reload.dmesg
cp -r $T/. $R/
say "done"
