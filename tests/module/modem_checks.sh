# Guest side of tests/module/test_modem.py (busybox sh, root): one call per
# execution context through QEMU's D-Bus audio to smline on the host, on
# the instruction-counted clock.  For each context in $CONTEXTS: load the
# module with $SMODEM_ARGS context=<ctx>, dial $DIAL, move $CALL_BYTES
# random bytes out and the far end's echo back (checked byte by byte here,
# by CRC-32 in smline's record), escape with +++, hang up, unload; the
# phases, period changes and overruns are traced.  Raw results go to
# /share/results for the host to judge.  Every wait is bounded.

for ctx in $CONTEXTS; do
	# shellcheck disable=SC2086
	echo_call $ctx "-e smodem:smodem_phase -e smodem:smodem_period_change \
		-e smodem:smodem_overrun -e smodem:smodem_dma_halt -b 8192" \
		$SMODEM_ARGS context=$ctx
done
cp -r $T/. $R/
say "done"
