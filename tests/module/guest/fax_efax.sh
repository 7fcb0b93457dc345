# Guest side of tests/module/test_efax.py and the fax rows of the context
# comparison (busybox sh, root, instruction-counted clock): efax (Debian's
# package, unchanged) drives /dev/ttySM0 in Class 1, with the command lines
# of efax's own `fax` script (its efax.rc defaults: INIT, SPKR, RESET), to
# smline's SpanDSP fax terminal on the host.
#
# Environment (set by the host):
#   FAX_STEPS    space-separated steps, run in order, each
#                  send:TAG:CTX:LOAD:BR:NUMBER   efax dials NUMBER and sends
#                                               /opt/fax/page.tif
#                  recv:TAG:CTX:LOAD:BR          efax waits for a call
#                                               (fax answer: S0=1, -w)
#                                               and keeps the pages in
#                                               $T/TAG.NNN
#                a module load with context CTX; LOAD=1 adds the study's
#                load (load_us=1840, the spinning competitor, cyclictest's
#                1 ms SCHED_FIFO task) and, for res, a reservation of
#                2.1 ms in 2.5 ms; BR is efax's bit-rate capability
#                (5: 14400 V.17, 3: 9600 V.29, 1: 4800 V.27ter)
#   SMODEM_ARGS  insmod arguments common to every step
#   FAX_HDR      efax's page header (-h), empty for none
# Per step: TAG.log (efax's log), TAG.rc, TAG.dat (the smodem_phase
# trace), TAG.stats, TAG-insmod.rc, TAG-rmmod.rc, TAG.dmesg.  Every wait
# is bounded (efax's own timeouts, and timeout(1) around it).

FAXDIR=/opt/fax
INIT="-iZ -i&FE&D2S7=120 -i&C0"
SPKR="-iM1L0"
RESET="-kZ"

fax_step() {
	kind=$1 tag=$2 ctx=$3 load=$4 br=$5 num=${6:-}
	sp= cy=
	dmesg -c > /dev/null
	lu=0 rsv=
	if [ "$load" = 1 ]; then
		lu=1840
		# on hook the modem's periods are 2.5 ms (ring detection), so
		# the load costs 74 % of the CPU there: a reservation must hold
		# that much, or the ring overruns while the call comes in and
		# the call lives by luck (the default 2 ms in 8 does)
		[ "$ctx" = res ] && rsv="res_runtime_us=2100 res_period_us=2500"
		spin &
		sp=$!
		cyclictest -m -p 95 -i 1000 -q -D 600 > $T/$tag.cyclictest 2>&1 &
		cy=$!
	fi
	# shellcheck disable=SC2086
	insmod $K $SMODEM_ARGS context=$ctx load_us=$lu $rsv
	echo $? > $T/$tag-insmod.rc
	[ "$ctx" = usr ] && smodemd_start "$tag"
	trace_start -e smodem:smodem_phase -e smodem:smodem_overrun -b 8192 \
		> /dev/null 2>&1
	sleep 1
	caps="1,$br,0,2,0,0,0,0"
	say "fax: $kind $tag context=$ctx load=$load caps=$caps"
	# efax's log (errors, warnings, progress, negotiation, commands); the
	# receiver is the `fax answer` daemon's line: the modem answers (S0=1),
	# efax waits for its CONNECT
	if [ "$kind" = send ]; then
		set -- -h "$FAX_HDR" -t "T$num" $FAXDIR/page.*
	else
		set -- -jS0=1 -w -r $T/$tag
	fi
	# shellcheck disable=SC2086
	timeout 600 efax -v ewinc -d $D -o1 -c "$caps" -l "+1 555 0100" $INIT $SPKR \
		$RESET "$@" > $T/$tag.log 2>&1
	echo $? > $T/$tag.rc
	call_stats_trace $tag
	smodemd_stop
	rmmod smodem
	echo $? > $T/$tag-rmmod.rc
	[ -n "$cy" ] && kill -INT "$cy" && wait "$cy" 2>/dev/null
	[ -n "$sp" ] && kill "$sp" && wait "$sp" 2>/dev/null
	dmesg > $T/$tag.dmesg
	# the line goes idle between calls
	sleep 2
}

for s in $FAX_STEPS; do
	IFS=: read -r kind a b c d e <<EOF
$s
EOF
	case $kind in
	send|recv) fax_step "$kind" "$a" "$b" "$c" "$d" "$e" ;;
	*) echo "unknown step $s" > $T/bad-step ;;
	esac
done
finish
