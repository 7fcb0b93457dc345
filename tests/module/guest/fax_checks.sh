# Guest side of tests/module/test_fax_tty.py (busybox sh, root): Class 1
# (T.31) through the kernel's per-period path.  Two modems wired to each
# other in the kernel (hw=vline vline_pairs=1): ttySM1 answers (ATA: CED,
# CONNECT, a DIS-like final frame with a DLE in it), ttySM0 calls (ATD:
# CNG, CONNECT on the flags, the frame DLE-shielded, DLE ETX, OK); the
# fax phases traced.  This checks the wiring only: interoperability is
# proven against SpanDSP in tests/dsp/test_faxmodem.c and
# tests/unit/test_class1.c.  Every wait is bounded.

say "fax: load"
dmesg -c > /dev/null
insmod $K hw=vline devices=2 vline_pairs=1 engine=1
echo $? > $T/insmod.rc
trace_start -e smodem:smodem_phase -b 4096 > /dev/null 2>&1
sleep 1

say "fax: class 1 commands"
ttyat at /dev/ttySM0 ATE0 AT+FCLASS=? AT+FCLASS=1 AT+FCLASS? AT+FTM=? AT+FRM=? \
	AT+FTH=? AT+FRH=? AT+FTS=20 AT+FRS=10 'AT+FTS=8;+FRS=5' AT+FTM=95 AT+FCLASS=0 \
	AT+FTH=3 > $T/cmds.txt 2>&1
echo $? > $T/cmds.rc

say "fax: a call from ttySM0 to ttySM1"
# +FTM's data: 600 octets, every third a DLE (doubled by the DTE)
DATA=$(i=0; while [ $i -lt 200 ]; do printf 'U\\x10\\x10x'; i=$((i + 1)); done)
ttyat at /dev/ttySM1 ATE0 AT+FCLASS=1 %ready:ans '%send:ATA\r' '%until:CONNECT\r\n:20000' \
	'%send:\xff\x13\x80\x10\x10\xce\xf4\x10\x03' %final:10000 \
	'%send:AT+FRM=96\r' '%until:NO CARRIER\r\n:30000' ATH > $T/answer.txt 2>&1 &
ans=$!
wait_for $T/answer.txt READY 100 || echo "answerer not ready" > $T/answer.err
ttyat at /dev/ttySM0 ATE0 AT+FCLASS=1 ATS7=30 '%send:ATDT1\r' '%until:CONNECT\r\n:30000' \
	%final:15000 '%send:AT+FTS=50;+FTM=96\r' '%until:CONNECT\r\n:5000' \
	"%send:$DATA\\x10\\x03" %final:20000 ATH > $T/call.txt 2>&1
echo $? > $T/call.rc
reap $ans 300 answer
sleep 1
cat "$(dev_file stats)" > $T/stats.txt
trace-cmd stop
trace-cmd extract -o $T/fax.dat > /dev/null 2>&1
trace_reset > /dev/null 2>&1
rmmod smodem
echo $? > $T/rmmod.rc
finish
