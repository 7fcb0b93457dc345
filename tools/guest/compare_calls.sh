# Guest side of make compare LOAD=pump (tools/lab/smlab/compare.py), busybox
# sh, root: calls from /dev/ttySM0 to smline's far end, one after another,
# while cyclictest measures, so that the 1 ms task meets the real data pump
# (load_us=0) in every phase of a call: on hook, dialling, waiting for the
# answer, training, data both ways, hang-up.  Started in the background
# before cyclictest; it starts no call once $O/stop exists, and finishes the
# call it is in (every wait bounded), so that the module can be unloaded.
#
# Usage: compare_calls.sh OUTDIR.  Environment (set by the host):
#   DIAL       the dial command's argument (T5551234)
#   AT_SETUP   one AT command sent before dialling (AT\N3), or empty
#   NBYTES     bytes each way per call: /opt/pump/tx.bin goes out, what
#              comes back must equal /opt/pump/rx.bin
#   ONHOOK_S   seconds on hook before the first call and between calls
#   MAX_CALLS  calls at most (0: no limit but the stop)
# Writes OUTDIR/marks.txt ("TAG EVENT UPTIME": dial, connect, rxdone,
# hungup, failed), OUTDIR/callN.txt (the DTE's transcript, ending with
# "RESULT ok" or "RESULT fail ...", and "DATA ok" or "DATA bad ...").  The chat
# with the tty is chat.sh's (/opt/guest/chat.sh).
set -u
O=$1
D=/dev/ttySM0
. /opt/guest/chat.sh

mark() {
	read -r up _ < /proc/uptime
	echo "$1 $2 $up" >> "$O/marks.txt"
}

call_once() {
	tag=$1
	LOG=$O/$tag.txt
	: > "$LOG"
	open_port
	at ATE0
	at ATX4
	[ -n "$AT_SETUP" ] && at "$AT_SETUP"
	mark "$tag" dial
	if ! at "ATD$DIAL" 90 || [ "${RESULT%% *}" != CONNECT ]; then
		echo "RESULT fail ${RESULT:-timeout}" >> "$LOG"
		mark "$tag" failed
		at ATH 5
		close_port
		return 1
	fi
	echo "CONNECTED $RESULT" >> "$LOG"
	mark "$tag" connect
	cat /opt/pump/tx.bin >&3 &
	wp=$!
	# a third of V.22bis's 2400 bit/s at worst, plus the line's delays
	timeout $((NBYTES / 80 + 20)) head -c "$NBYTES" <&3 > "$O/$tag.rx"
	mark "$tag" rxdone
	writer_done $wp
	# until the engine has sent every byte, then one frame time more
	key=engine_tx_bytes
	[ "$(stat_of engine_link)" = v42 ] && key=engine_v42_bytes_tx
	n=0
	while [ "$(stat_of $key)" != "" ] && [ "$(stat_of $key)" -lt "$NBYTES" ] &&
	      [ $n -lt 60 ]; do
		sleep 0.5
		n=$((n + 1))
	done
	sleep 1
	if cmp -s "$O/$tag.rx" /opt/pump/rx.bin; then
		echo "DATA ok n=$NBYTES" >> "$LOG"
	else
		echo "DATA bad n=$NBYTES got=$(wc -c < "$O/$tag.rx")" >> "$LOG"
	fi
	rm -f "$O/$tag.rx"
	hang_up
	mark "$tag" hungup
	close_port
	echo "RESULT ok" >> "$LOG"
	return 0
}

i=0
sleep "$ONHOOK_S"
while [ ! -e "$O/stop" ] && { [ "$MAX_CALLS" = 0 ] || [ $i -lt "$MAX_CALLS" ]; }; do
	i=$((i + 1))
	call_once call$i
	sleep "$ONHOOK_S"
done
echo "$i" > "$O/ncalls"
