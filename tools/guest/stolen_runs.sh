# Guest side of tools/stolen_study.py (make stolen), busybox sh, root,
# booted with tools/lab/smlab/netload.py's NICs.  The reserved work is the
# modem's processing in context=res: LOAD_US of it every PERIOD_SAMPLES
# interrupt period, the reservation RES_PERIOD_US long.  Every boot first
# measures what one period of that work costs on the idle machine (the
# requested runtime R, the same in every boot of one work: the clock
# counts instructions), then does its JOB:
#   sweep     for each over-reservation X % in POINTS: the reservation made
#             R (1 + X/100) in VARIANT's way (plain, catchup, feedback or
#             reclaim), with the network stream when STREAM=1, RUN_S
#             seconds; the module's stats (deadline_misses, stolen_*) kept
#   burst     feedback at R, traced with 1 s quiet, a 1 s burst of the
#             stream, 1 s quiet (the study's Figure 4)
#   overhead  no stream, R + 30 %: spin runs SPIN_S seconds beside the
#             reservation kept each way; its iterations are the CPU left
#   devices   the reservation with room to spare (90 % of its period),
#             RUN_S seconds beside each of SOURCES: nothing, the stream,
#             readers of the IDE disk, of the SCSI disk (O_DIRECT, 1 MiB);
#             the IDE disk in PIO mode when booted with libata.dma=0
# The stream: tools/netload's ICMP flood, one request every STREAM_NS, sent
# from the hrtimer softirq (softirq=1) so that its receive processing lands
# inside the reserved thread as a wire's would.
set -u
R=/share/results
mkdir -p $R /tmp/sr
. /opt/netload/netload.sh
fail() { echo "$*" > $R/error; exit 1; }
stats() { for f in /sys/kernel/debug/smodem/*/stats; do cat "$f"; return; done; }
reset() { for f in /sys/kernel/debug/smodem/*/reset; do echo 1 > "$f"; return; done; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
WORKARGS="hw=ac97 context=res load_us=$LOAD_US period_samples=$PERIOD_SAMPLES res_period_us=$RES_PERIOD_US"
load() {
	dmesg -c > /dev/null
	# shellcheck disable=SC2086
	insmod /opt/smodem/smodem.ko $WORKARGS "$@" || { dmesg > /tmp/sr/insmod.dmesg; return 1; }
	sleep 0.5
}
unload() { rmmod smodem || fail "rmmod smodem: $?"; }
# the disk on the IDE controller (00:01.1) or the SCSI HBA (DISK_SCSI_PCI)
disk_of() {
	case $1 in ide) want=0000:00:01.1 ;; scsi) want=0000:00:$DISK_SCSI_PCI.0 ;; esac
	for b in /sys/block/sd*; do
		case $(readlink -f "$b") in */$want/*) echo "${b##*/}"; return 0 ;; esac
	done
	return 1
}
netload_setup || fail "netload_setup failed"
# libata is a module in these kernels, loaded before the script without
# arguments: ATA_DMA=0 loads it again with dma=0 (PIO for every ATA disk)
if [ "${ATA_DMA:-1}" = 0 ]; then
	# the list's entries: lib/modules/smlab-run/NN-<name>.ko, from /
	ko() { echo "/$(grep -- "-$1\.ko\$" /etc/smlab/kmods.run | head -n 1)"; }
	rmmod ata_piix libata || fail "rmmod ata_piix libata"
	insmod "$(ko libata)" dma=0 && insmod "$(ko ata_piix)" || fail "libata dma=0"
	for i in 1 2 3 4 5 6 7 8 9 10; do disk_of ide > /dev/null && break; sleep 1; done
fi
# the IDE disk's (ata1, master) transfer mode: XFER_MW_DMA_2, or PIO
cat /sys/class/ata_device/dev1.0/xfer_mode > $R/xfer_mode 2> /dev/null

# R: the most one activation took on the idle machine with room to spare
load res_runtime_us=$((RES_PERIOD_US * 9 / 10)) stolen=1 || fail "calibration insmod failed"
reset
sleep 2
stats > $R/calibration.stats
unload
max=$(stat_of thr_ns_max $R/calibration.stats)
[ -n "$max" ] && [ "$max" -gt 0 ] || fail "calibration: no activations"
# up to the next 10 us
REQ=$(( (max + 9999) / 10000 * 10 ))
echo "$REQ" > $R/requested_us
echo "[guest] requested runtime R = $REQ us"

runtime_at() { echo $(( REQ * (1000 + $1 * 10) / 1000 )); }

case $JOB in
sweep)
	for x in $POINTS; do
		rt=$(runtime_at "$x")
		echo "[guest] $VARIANT stream=$STREAM at $x %: runtime $rt us"
		load res_runtime_us="$rt" res_mode="$VARIANT" stolen=1 ||
			{ echo "refused" > $R/point_$x.stats; continue; }
		if [ "$STREAM" = 1 ]; then
			netload_start flood softirq=1 period_ns="$STREAM_NS" ||
				fail "netload failed"
		fi
		sleep 0.5
		reset
		sleep "$RUN_S"
		stats > $R/point_$x.stats
		[ "$STREAM" = 1 ] && netload_stop $R/point_$x.counters
		unload
	done
	;;
burst)
	load res_runtime_us="$REQ" res_mode=feedback || fail "burst insmod failed"
	trace-cmd record -q -b 8192 -o /tmp/sr/burst.dat -e smodem:smodem_res_ctl \
		-e smodem:smodem_irq -e smodem:smodem_stolen sleep 5 > /tmp/sr/burst.log 2>&1 &
	tc=$!
	# trace-cmd takes about a second to start recording
	sleep 1.5
	reset
	# quiet 1 s, the stream 1 s, quiet again
	netload_start flood softirq=1 period_ns="$STREAM_NS" delay_ms=1000 duration_ms=1000 ||
		fail "netload failed"
	sleep 3
	stats > $R/burst.stats
	wait $tc || fail "trace-cmd record: $(tail -3 /tmp/sr/burst.log)"
	netload_stop $R/burst.counters
	unload
	cp /tmp/sr/burst.dat $R/
	;;
overhead)
	rt=$(runtime_at 30)
	for v in base plain catchup feedback reclaim; do
		if [ $v = base ]; then
			load res_runtime_us="$rt" || fail "overhead insmod failed"
		else
			load res_runtime_us="$rt" res_mode=$v stolen=1 || fail "overhead insmod failed"
		fi
		reset
		spin "$SPIN_S" > $R/overhead_$v.spin || fail "spin failed"
		stats > $R/overhead_$v.stats
		unload
	done
	;;
devices)
	# the study's section 5: the reserved thread with room to spare beside
	# each source in turn; SOURCES from none, nic, ide, scsi
	for src in $SOURCES; do
		echo "[guest] devices: $src"
		load res_runtime_us=$((RES_PERIOD_US * 9 / 10)) stolen=1 || fail "devices insmod failed"
		case $src in
		none) ;;
		nic) netload_start flood softirq=1 period_ns="$STREAM_NS" || fail "netload failed" ;;
		ide|scsi)
			dev=$(disk_of "$src") || fail "no $src disk"
			echo "$src /dev/$dev $(readlink -f /sys/block/$dev)" >> $R/disks
			# two readers, 1 MiB at a time: requests queued behind the
			# one in flight, started from its completion
			( while :; do dd if=/dev/$dev of=/dev/null bs=1M iflag=direct 2> /dev/null; done ) &
			reader=$!
			( while :; do dd if=/dev/$dev of=/dev/null bs=1M iflag=direct skip=32 2> /dev/null; done ) &
			reader="$reader $!"
			;;
		esac
		sleep 0.5
		reset
		sleep "$RUN_S"
		stats > $R/dev_$src.stats
		case $src in
		nic) netload_stop $R/dev_nic.counters ;;
		ide|scsi)
			# shellcheck disable=SC2086
			kill $reader; killall dd; wait
			cat /proc/interrupts > $R/dev_$src.interrupts
			;;
		esac
		unload
	done
	;;
*)
	fail "unknown JOB $JOB"
	;;
esac
echo "[guest] done"
