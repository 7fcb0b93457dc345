# Guest side of tools/bench_modem.py and tools/demo.py (busybox sh, root):
# whole calls from /dev/ttySM0 to smline on the host (through QEMU's D-Bus
# audio on the virtual clock, or JACK in real time), each moving one file
# each way at once (full duplex) and timed from the DTE's side.
#
# Environment (set by the host):
#   STEPS        space-separated steps, run in order, each
#                  call:TAG:CTX:LOAD_US:SPIN[:IDLE[:ARGS]]
#                a module load (context CTX, load_us, and ARGS: further insmod
#                arguments, comma-separated, after SMODEM_ARGS so they win),
#                IDLE seconds on hook on an idle line (marks TAG idle-start,
#                idle-end), one call, an unload; SPIN=1 runs the study's
#                competitor meanwhile
#   SMODEM_ARGS  insmod arguments common to every step (engine=1 ...)
#   DIAL         the dial command's argument (T5551234)
#   AT_SETUP     one AT command sent before dialling (AT\N3)
#   NBYTES       bytes each way: /opt/bench/tx.bin goes out, the line's
#                bytes must equal /opt/bench/rx.bin
#   TRACE_EVENTS trace-cmd's -e options for each call (default: the phases,
#                period changes, overruns and DMA halts)
# The chat with the tty is chat.sh's (/opt/guest/chat.sh).
# Every moment that matters is a mark, "TAG EVENT UPTIME" in marks.txt and
# "SMLAB: bench TAG EVENT up=UPTIME" on the console, where the host stamps it
# with its own wall clock.  Results go to /share/results.  Every wait is
# bounded.
set -u
K=/opt/smodem/smodem.ko
D=/dev/ttySM0
T=/tmp/results
R=/share/results
mkdir -p $T $R
. /opt/guest/chat.sh

mark() {
	read -r up _ < /proc/uptime
	echo "$1 $2 $up" >> $T/marks.txt
	echo "SMLAB: bench $1 $2 up=$up" > /dev/console
}

# The engine has sent (and V.42 had acknowledged) the whole file; no
# stats: nothing to wait for.
all_sent() {
	v=$(stat_of engine_tx_bytes)
	[ "$(stat_of engine_link)" = v42 ] && v=$(stat_of engine_v42_bytes_tx)
	dirs=$(stat_of engine_v42bis_dirs)
	if [ "$(stat_of engine_link)" = v42 ] && [ -n "$dirs" ] && [ $((dirs & 1)) = 1 ]; then
		[ "$(stat_of engine_v42bis_tx_in)" -ge "$NBYTES" ] &&
			[ "$v" -ge "$(stat_of engine_v42bis_tx_out)" ]
		return
	fi
	[ -z "$v" ] || [ "$v" -ge "$NBYTES" ]
}

# One call: dial, both files at once, escape, hang up.
call_once() {
	tag=$1
	LOG=$T/$tag.txt
	: > "$LOG"
	open_port
	at ATE0
	at ATX4
	at "$AT_SETUP"
	mark "$tag" dial
	if ! at "ATD$DIAL" 60 || [ "${RESULT%% *}" != CONNECT ]; then
		echo "RESULT fail ${RESULT:-timeout}" >> "$LOG"
		mark "$tag" failed
		close_port
		return 1
	fi
	mark "$tag" connect
	# a third of the rate CONNECT names (2400 bit/s if none: 80 bytes/s)
	# at worst, for this read and the writer: a stalled V.34 call is not
	# waited for as long as a V.22bis one
	rate=$(echo "$RESULT" | sed -n 's/^CONNECT \([0-9][0-9]*\).*/\1/p')
	BPS=$(( ${rate:-2400} / 30 ))
	cat /opt/bench/tx.bin >&3 &
	wp=$!
	# plus the line's delays; the first byte marked apart, so that the
	# stream is timed from its first frame to its last, as the far end's
	# is (the tty holds what arrives meanwhile; dd reads that one byte
	# only, head a whole block)
	end=$(($(secs) + NBYTES / BPS + 20))
	timeout $((NBYTES / BPS + 20)) dd bs=1 count=1 <&3 > $T/$tag.rx 2> /dev/null
	[ -s $T/$tag.rx ] && mark "$tag" rxfirst
	left=$((end - $(secs)))
	[ $left -gt 0 ] || left=1
	timeout $left head -c $((NBYTES - 1)) <&3 >> $T/$tag.rx
	mark "$tag" rxdone
	writer_done $wp
	echo "WRITER rc=$?" >> "$LOG"
	mark "$tag" txdone
	# Until the engine has sent every byte (in I frames with V.42, all
	# of what V.42bis made of them acknowledged), then one more frame time
	# and its acknowledgement before the escape.
	n=0
	while ! all_sent && [ $n -lt 60 ]; do
		sleep 0.5
		n=$((n + 1))
	done
	sleep 2
	mark "$tag" sent
	if cmp -s $T/$tag.rx /opt/bench/rx.bin; then
		echo "DATA ok n=$NBYTES" >> "$LOG"
	else
		echo "DATA bad n=$NBYTES got=$(wc -c < $T/$tag.rx)" \
			"differing=$(cmp -l $T/$tag.rx /opt/bench/rx.bin 2>/dev/null | wc -l)" >> "$LOG"
	fi
	hang_up
	mark "$tag" hungup
	close_port
	echo "RESULT ok" >> "$LOG"
	return 0
}

# The timekeeping figures every SAMPLE_S seconds (30) of the call: whether
# a long call keeps its time (the pump's bits against its rate times its
# samples, the output lead, late frames), as "T UPTIME" and the stats' lines.
sample_stats() {
	while :; do
		read -r up _ < /proc/uptime
		echo "T $up"
		grep -E '^(tx_lead|tx_late|overruns|engine_tx_rate|engine_rx_rate|engine_v34_state|engine_v34_clock|engine_v34_bits|engine_v34_mse_db10|engine_v34_renegs|engine_v34_retrains|engine_v42_retransmissions) ' \
			"$(dev_file stats)"
		sleep "${SAMPLE_S:-30}"
	done > $T/$1.samples 2>&1
}

step_call() {
	tag=$1 ctx=$2 load=$3 spin=$4 idle=${5:-0}
	args=$(echo "${6:-}" | tr , ' ')
	sp=
	dmesg -c > /dev/null
	if [ "$spin" = 1 ]; then
		spin &
		sp=$!
	fi
	# shellcheck disable=SC2086
	insmod $K $SMODEM_ARGS context=$ctx load_us=$load $args
	echo $? > $T/$tag-insmod.rc
	# context=usr: the modem is smodemd, at thr's priority
	dp=
	if [ "$ctx" = usr ]; then
		smodemd --fifo 50 -d /dev/smodem0 2> $T/$tag.smodemd &
		dp=$!
	fi
	# shellcheck disable=SC2086
	trace-cmd start -q ${TRACE_EVENTS:--e smodem:smodem_phase -e smodem:smodem_period_change \
		-e smodem:smodem_overrun -e smodem:smodem_dma_halt} -b 8192 \
		> /dev/null 2>&1
	sleep 1
	if [ "$idle" -gt 0 ]; then
		mark "$tag" idle-start
		sleep "$idle"
		mark "$tag" idle-end
	fi
	echo 1 > "$(dev_file reset)"
	sample_stats "$tag" &
	sm=$!
	call_once "$tag"
	echo $? > $T/$tag.rc
	kill "$sm" 2> /dev/null
	wait "$sm" 2> /dev/null
	sleep 1
	cat "$(dev_file stats)" > $T/$tag.stats
	trace-cmd stop
	trace-cmd extract -o $T/$tag.dat > /dev/null 2>&1
	trace-cmd reset > /dev/null 2>&1
	if [ -n "$dp" ]; then
		kill -TERM "$dp"
		wait "$dp"
		echo $? > $T/$tag-smodemd.rc
	fi
	rmmod smodem
	echo $? > $T/$tag-rmmod.rc
	[ -n "$sp" ] && kill "$sp" && wait "$sp" 2>/dev/null
	dmesg > $T/$tag.dmesg
	# the line goes idle between calls
	sleep 2
}

for s in $STEPS; do
	IFS=: read -r kind a b c d e f <<EOF
$s
EOF
	case $kind in
	call) step_call "$a" "$b" "$c" "$d" "$e" "$f" ;;
	*) echo "unknown step $s" ;;
	esac
done
cp -r $T/. $R/
echo "[guest] done"
