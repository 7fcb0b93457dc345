#!/bin/sh
# /init of the smlab guest (busybox sh, PID 1).
# The base initramfs holds busybox, the tools and the 9p modules; a small
# per-run archive appended by the host adds /etc/smlab/{run.conf,script.sh,
# kmods.run} and /opt/smodem/*.ko.  Lines starting with "SMLAB:" on the
# console are read by the host harness (smlab/guest.py): keep their format.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp

say() {
	read -r up _ < /proc/uptime
	echo "SMLAB: $* up=$up" > /dev/console
}

finish() {
	# $1 = exit code to report; never returns
	sync
	say "SMLAB-RC=$1"
	poweroff -f
	sleep 5
	echo o > /proc/sysrq-trigger
}

SMLAB_SHARE=live
SMLAB_SHARE_TAG=share
[ -r /etc/smlab/run.conf ] && . /etc/smlab/run.conf

say "phase init"

load_list() {
	[ -r "$1" ] || return 0
	while read -r ko; do
		[ -n "$ko" ] || continue
		insmod "$ko" || say "insmod-failed $ko"
	done < "$1"
}
load_list /etc/smlab/kmods.base

mount_host() {
	mkdir -p "$1"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none \
		"$SMLAB_SHARE_TAG" "$1"
}

mkdir -p /share
if [ "$SMLAB_SHARE" = deferred ]; then
	# No 9p traffic until the script is done: host I/O completes at
	# host-dependent points of guest time and would break icount determinism.
	mount -t tmpfs -o mode=0755 tmpfs /share
else
	if ! mount_host /share; then
		say "share-mount-failed"
		finish 255
	fi
fi

load_list /etc/smlab/kmods.run

cd /share || finish 255
say "phase script-start"
# Through a FIFO rather than a pipeline so that background jobs the script
# leaves behind cannot keep the log open and block the end of the run.
mkfifo /tmp/.smlab-log
# Once (a make check under load), creating the log on the live 9p share
# failed with ENOENT while the share took other files before and after:
# the log is made first, a few times over a second if need be, and said.
n=0
until : >> /share/guest.log 2>/dev/null || [ "$n" -ge 10 ]; do
	n=$((n + 1))
	sleep 0.1
done
[ "$n" = 0 ] || say "log-create-retried $n"
tee -a /share/guest.log < /tmp/.smlab-log &
teepid=$!
sh /etc/smlab/script.sh < /dev/null > /tmp/.smlab-log 2>&1
rc=$?
for p in /proc/[0-9]*; do
	pid=${p#/proc/}
	[ "$pid" = 1 ] || [ "$pid" = "$teepid" ] || kill -9 "$pid" 2>/dev/null
done
wait "$teepid"
say "phase script-end rc=$rc"
cd /

dmesg > /share/dmesg.log 2>/dev/null
echo "$rc" > /share/guest.rc
if [ "$SMLAB_SHARE" = deferred ]; then
	if mount_host /mnt/host; then
		say "phase copy-out"
		# guest.rc last: the host treats it as the completion mark
		rm -f /share/guest.rc
		cp -a /share/. /mnt/host/ || say "copy-out-failed"
		sync
		echo "$rc" > /mnt/host/guest.rc
		umount /mnt/host
	else
		say "share-mount-failed"
	fi
fi
finish "$rc"
