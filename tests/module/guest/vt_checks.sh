# Guest side of tests/module/test_virtual_time.py (busybox sh, root): two
# calls through QEMU's D-Bus audio to smline, on the instruction-counted
# clock, every smodem tracepoint recorded:
#   ok       context=thr, $CALL_BYTES echoed
#   starved  context=res with a reservation far too small for load_us
#            ($STARVE_ARGS): the call must degrade, the kernel stay healthy
# The host runs this twice and compares.  Raw results go to /share/results.

# shellcheck disable=SC2086
echo_call ok "-e smodem -b 16384" $SMODEM_ARGS context=thr
# The starved call gets BUSY or a garbled line: its data step waits 30 s of
# guest time, not the default 120, for bytes that do not come (its guest is
# busy with the load throughout, so that wait was most of the file's time).
CALL_STEP="%data:$CALL_BYTES:0:30000"
# shellcheck disable=SC2086
echo_call starved "-e smodem -b 16384" $SMODEM_ARGS $STARVE_ARGS
unset CALL_STEP
cp -r $T/. $R/
say "done"
