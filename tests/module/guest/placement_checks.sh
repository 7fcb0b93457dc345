# Guest side of tests/module/test_placement.py (busybox sh, root, two CPUs,
# real clock): cpus= places each device's interrupt and processing
# ("On SMP guests, per-device CPU placement").
#   place-<ctx>    hw=vline devices=2 cpus=0,1 context=<ctx>, 2 s of periods
#   usr-threads    the same in context=usr, smodemd --threads pinning each
#   usr-rm         cpus=1,1 with one smodemd thread (pinned to CPU 1), and
#   usr-split      cpus=0,1 with one thread (not pinned: it says so)
#   ac97-<ctx>     hw=ac97 cpus=1: the AC'97's IRQ moved to CPU 1
#   free           no cpus=: cpu -1, nothing pinned
#   bad-<case>     refused at insmod, with dmesg's line
# Each case: <name>.rc (insmod), <name>.stats (all_stats), <name>.allowed
# (the processing threads' Cpus_allowed_list), <name>.dmesg.
nproc > $T/cpus

allowed() {
	for d in /sys/kernel/debug/smodem/*/; do
		p=$(sed -n 's/^thread_pid //p' "$d/stats")
		[ -n "$p" ] && echo "$(basename "$d") $(sed -n 's/^Cpus_allowed_list:\t*//p' /proc/"$p"/status)"
	done > $T/$1.allowed
}

place() {
	name=$1
	shift
	say "$name"
	dmesg -c > /dev/null
	insmod $K "$@"
	echo $? > $T/$name.rc
	sleep 2
	for r in /sys/kernel/debug/smodem/*/reset; do echo 1 > "$r"; done
	sleep 2
	all_stats "$name"
	allowed "$name"
	rmmod smodem 2>/dev/null
	dmesg > $T/$name.dmesg
}

usr() {
	name=$1 opt=$2
	shift 2
	say "$name"
	dmesg -c > /dev/null
	insmod $K hw=vline devices=2 context=usr "$@"
	echo $? > $T/$name.rc
	# shellcheck disable=SC2086
	smodemd -v --fifo 50 $opt -d /dev/smodem0,/dev/smodem1 > /dev/null 2> $T/$name.smodemd &
	dpid=$!
	sleep 2
	for r in /sys/kernel/debug/smodem/*/reset; do echo 1 > "$r"; done
	sleep 2
	all_stats "$name"
	allowed "$name"
	kill -TERM "$dpid"
	reap "$dpid" 50 "$name-daemon"
	rmmod smodem
	dmesg > $T/$name.dmesg
}

for c in int dpc thr oth; do
	place "place-$c" hw=vline devices=2 cpus=0,1 context=$c
done
usr usr-threads --threads cpus=0,1
usr usr-rm "" cpus=1,1
usr usr-split "" cpus=0,1
for c in int dpc irqt; do
	place "ac97-$c" hw=ac97 cpus=1 context=$c
done
place free hw=vline devices=2 context=thr
place bad-count hw=vline devices=2 cpus=0,1,0
place bad-offline hw=vline devices=2 cpus=0,5
place bad-res hw=vline devices=2 cpus=0,1 context=res
place bad-neg hw=vline devices=2 cpus=-2
finish
