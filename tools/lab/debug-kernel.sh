#!/bin/bash
# The debug kernel (make check-debug): Debian's 6.1 source (linux-source-6.1,
# /usr/src/linux-source-6.1.tar.xz) built with lockdep, KASAN, kmemleak,
# DEBUG_OBJECTS, ... (tools/lab/debug-kernel.config) on top of x86_64
# defconfig + kvm_guest.config, everything built in.  Built once per machine:
#
#   $SMODEM_DEBUG_CACHE/<key>/          (default /var/cache/smodem/debug-kernel)
#     src/                    the extracted tree, built in place (the module's
#                             M= build uses it: lib/modules/<kver>/build -> it)
#     vmlinuz-<kver>, System.map-<kver>, config-<kver>
#     lib/modules/<kver>/     modules.dep, modules.builtin, build -> ../../../src
#     kver                    the kernel release (e.g. 6.1.192-smodem-debug)
#     cmdline-<kver>          what the lab adds to this kernel's command line
#     done                    present once everything above is
#
# <key> = the source package's version + the hash of the config fragment,
# so a new source or fragment builds anew and nothing under build/ is
# touched (make clean keeps it).  The directory is a "kernel root" for the lab:
# SMODEM_KERNEL_ROOT=<dir> makes smlab boot <dir>/vmlinuz-V with
# <dir>/lib/modules/V.  Resumable: each step has a stamp, and an interrupted
# build continues where make stopped.  Runs make under nice -n 10 with -j$JOBS.
#
# usage: debug-kernel.sh [build]   fetch, configure, build, install (default)
#        debug-kernel.sh dir       print the cache directory (built or not)
#        debug-kernel.sh kver      print the kernel release (needs configure)
#        debug-kernel.sh status    what is done
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
TARBALL=${SMODEM_DEBUG_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SRCPKG=linux-source-6.1
FRAG=$here/debug-kernel.config
CACHE=${SMODEM_DEBUG_CACHE:-/var/cache/smodem/debug-kernel}
JOBS=${JOBS:-2}
# what building the kernel needs beyond make/gcc (installed if missing)
BUILD_DEPS="flex bison bc libelf-dev libssl-dev xz-utils zstd cpio kmod"

log() { echo "debug-kernel: $*" >&2; }
die() { log "$*"; exit 1; }

srcver() {
	v=$(dpkg-query -W -f='${Version}' "$SRCPKG" 2>/dev/null || true)
	[ -n "$v" ] || v=$(stat -c '%s-%Y' "$TARBALL")
	echo "$v"
}

key() {
	h=$(sha256sum < "$FRAG" | cut -c1-12)
	echo "$(srcver)-$h"
}

DIR=$CACHE/$(key)
SRC=$DIR/src
MAKE_K="nice -n 10 make -C $SRC -j$JOBS"

deps() {
	missing=
	for p in $BUILD_DEPS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || die "need root to install:$missing"
	log "installing:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

extract() {
	[ -e "$DIR/.extracted" ] && return 0
	[ -f "$TARBALL" ] || die "no $TARBALL (apt-get install $SRCPKG)"
	log "extracting $TARBALL into $SRC"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -C "$SRC.tmp" --strip-components=1 -xJf "$TARBALL"
	mv "$SRC.tmp" "$SRC"
	touch "$DIR/.extracted"
}

# Every line of the fragment must have survived olddefconfig.
verify_config() {
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$SRC/.config" || {
				log "config: wanted $line, got: $(grep "^${line%%=*}=" "$SRC/.config" || echo unset)"
				bad=1
			} ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			! grep -q "^$sym=" "$SRC/.config" || {
				log "config: wanted $sym unset, got: $(grep "^$sym=" "$SRC/.config")"
				bad=1
			} ;;
		esac
	done < "$FRAG"
	return $bad
}

configure() {
	[ -e "$DIR/.configured" ] && return 0
	log "configuring: defconfig + kvm_guest.config + $(basename "$FRAG")"
	make -C "$SRC" -s defconfig
	make -C "$SRC" -s kvm_guest.config
	# the fragment wins (merge_config.sh: later fragments override)
	(cd "$SRC" && KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh -m .config "$FRAG" >/dev/null)
	make -C "$SRC" -s olddefconfig
	verify_config || die "the fragment did not apply (see above); fix $FRAG"
	# (make kernelrelease would not see CONFIG_LOCALVERSION before the build's
	# syncconfig; checked against include/config/kernel.release after it)
	echo "$(make -C "$SRC" -s kernelversion)$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$SRC/.config")" > "$DIR/kver"
	log "kernel release $(cat "$DIR/kver")"
	touch "$DIR/.configured"
}

build() {
	[ -e "$DIR/.built" ] && return 0
	log "building $(cat "$DIR/kver") with -j$JOBS (nice 10); log: $DIR/build.log"
	start=$(date +%s)
	# progress: one line per 200 objects compiled, everything in build.log
	$MAKE_K bzImage modules 2>&1 | tee -a "$DIR/build.log" |
		awk '/^  CC /{n++; if (n % 200 == 0) { printf "debug-kernel: %d objects compiled\n", n; fflush() } }
		     / [Ee]rror[: ]/{print; fflush()}' >&2 ||
		die "build failed, see $DIR/build.log; re-run to continue"
	[ "$(cat "$SRC/include/config/kernel.release")" = "$(cat "$DIR/kver")" ] ||
		die "built $(cat "$SRC/include/config/kernel.release"), expected $(cat "$DIR/kver")"
	log "built in $(( $(date +%s) - start )) s"
	touch "$DIR/.built"
}

install_root() {
	[ -e "$DIR/done" ] && return 0
	kver=$(cat "$DIR/kver")
	log "installing into $DIR"
	rm -rf "$DIR/lib"
	make -C "$SRC" -s modules_install INSTALL_MOD_PATH="$DIR" DEPMOD=/sbin/depmod
	[ -f "$DIR/lib/modules/$kver/modules.dep" ] || die "no modules.dep after modules_install"
	[ -f "$DIR/lib/modules/$kver/modules.builtin" ] || die "no modules.builtin after modules_install"
	for m in virtio_pci 9pnet_virtio 9p ppp_async; do
		grep -q "/$m.ko\$" "$DIR/lib/modules/$kver/modules.builtin" ||
			die "$m is not built in"
	done
	rm -f "$DIR/lib/modules/$kver/build" "$DIR/lib/modules/$kver/source"
	ln -s ../../../src "$DIR/lib/modules/$kver/build"
	cp "$SRC/arch/x86/boot/bzImage" "$DIR/vmlinuz-$kver"
	cp "$SRC/System.map" "$DIR/System.map-$kver"
	cp "$SRC/.config" "$DIR/config-$kver"
	touch "$DIR/done"
	log "done: $DIR (kernel $kver)"
}

# Written on every build (cached or not): how the lab boots this kernel,
# not part of the cache key.  acpi=noirq: here ACPICA's evaluation of
# QEMU's \_SB.PCI0._PRT (a 128-pass While loop) never finishes before its
# 30 s AML loop timeout (AE_AML_LOOP_TIMEOUT; Debian's 6.1 evaluates it in
# milliseconds on the same machine), and it is evaluated each time a PCI
# interrupt is routed: 30 s of guest time at boot and in every insmod.
# The PIIX IRQ router (PCI->APIC transform) routes the same INTx instead.
# preempt=full: kmemleak's automatic scan (first 60 s after boot, then every
# 10 min) is a kernel thread that voluntary preemption lets hold the CPU for
# hundreds of milliseconds; it made the first blind dial of test_call.py
# 387 ms late and cost test_tty.py a call.  Fully preemptible, the modem's
# SCHED_FIFO thread preempts it as it would any normal task (both pass).
boot_args() {
	echo "acpi=noirq preempt=full" > "$DIR/cmdline-$(cat "$DIR/kver")"
}

case ${1:-build} in
dir) echo "$DIR" ;;
kver) [ -f "$DIR/kver" ] || die "not configured yet: $0 build"; cat "$DIR/kver" ;;
status)
	echo "dir $DIR"
	for s in .extracted .configured .built done; do
		[ -e "$DIR/$s" ] && echo "$s yes" || echo "$s no"
	done ;;
build)
	[ -e "$DIR/done" ] && { boot_args; log "cached: $DIR ($(cat "$DIR/kver"))"; exit 0; }
	mkdir -p "$DIR"
	# one build at a time per cache directory
	exec 9> "$DIR/.lock"
	flock 9
	deps
	extract
	configure
	build
	install_root
	boot_args ;;
*) die "usage: $0 [build|dir|kver|status]" ;;
esac
