# The DTE's side of a call on the guest's tty, for busybox sh: sourced by
# modem_calls.sh (make bench-modem, make demo, make study) and compare_calls.sh
# (make compare LOAD=pump), which the host ships with it as
# /opt/guest/chat.sh.  The caller sets D (the tty) and LOG (the transcript:
# "> " what was sent, "< " what came back, "! " a wait that timed out); the
# port is fd 3 from open_port to close_port.  Every wait is bounded, so that
# a dead line ends the call instead of the guest's run.

CR=$(printf '\r')

secs() { read -r up _ < /proc/uptime; echo "${up%.*}"; }
# the first modem's debugfs file $1
dev_file() { for f in /sys/kernel/debug/smodem/*/"$1"; do echo "$f"; return; done; }
# a counter of the first modem's stats; empty when there is no such modem
stat_of() { grep "^$1 " "$(dev_file stats)" 2>/dev/null | cut -d' ' -f2; }

# Read lines from the port until one matches the extended regex $2 or $1
# seconds pass; the line goes to RESULT.
wait_for() {
	end=$(( $(secs) + $1 ))
	RESULT=
	while [ "$(secs)" -lt $end ]; do
		if IFS= read -r -t 2 line <&3; then
			line=${line%"$CR"}
			[ -n "$line" ] || continue
			# a line of data mode garbage is cut short
			echo "< $(echo "$line" | cut -c1-100)" >> "$LOG"
			if echo "$line" | grep -Eq "$2"; then
				RESULT=$line
				return 0
			fi
		fi
	done
	echo "! timeout ($1 s) waiting for $2" >> "$LOG"
	return 1
}

# An AT command and its final result code, within $2 seconds (5).
at() {
	echo "> $1" >> "$LOG"
	printf '%s\r' "$1" >&3
	wait_for "${2:-5}" '^(OK|ERROR|NO CARRIER|BUSY|NO DIALTONE|NO ANSWER|CONNECT)'
}

open_port() {
	# CLOCAL: the open must not wait for carrier (the termios stays with
	# the port between opens); raw, no echo
	stty -F "$D" 115200 raw -echo clocal >> "$LOG" 2>&1
	exec 3<>"$D"
}

close_port() { exec 3>&-; }

# The writer $1 is done when the tty took the last of NBYTES; a dead line
# leaves it blocked in write(): bounded (BPS bytes a second, the caller's
# third of the line's rate, default a third of V.22bis's 2400 bit/s, and
# 20 s), then killed.  Returns the writer's status.
writer_done() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt $((NBYTES * 2 / ${BPS:-80} + 40)) ]; do
		sleep 0.5
		n=$((n + 1))
	done
	kill "$1" 2>/dev/null
	wait "$1"
}

# Back to command mode and on hook: guard time, +++, guard time, ATH.
hang_up() {
	sleep 1.2
	echo "> +++" >> "$LOG"
	printf '+++' >&3
	wait_for 4 '^OK'
	at ATH 5
}
