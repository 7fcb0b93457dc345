#!/bin/sh
# Builds dsp/*.c as a throw-away kernel module against each installed Debian
# header tree (W=1, sparse if installed) with -fcallgraph-info=su, and merges
# the deepest per-buffer stack chain of the first one into a JSON file.
# Usage: dsp/tools/kstack.sh OUTDIR JSON   (from the repository top)
# KSTACK_KERNELS: the header trees to build against (default: every
# /lib/modules/*/build in version order, so the 6.1 generic first).  make check names one: the
# module's own W=1 C=2 build on every flavour compiles the same dsp/*.c, so
# only the stack analysis is this script's there.
set -e
top=$(pwd)
case $1 in
/*) out=$1 ;;
*) out=$top/$1 ;;
esac
json=$2
rc=0
rm -rf "$out"
mkdir -p "$out/dsp"
cp dsp/*.c "$out/dsp/"
cp -r dsp/include "$out/dsp/"
cat > "$out/Kbuild" <<'KB'
DSP_SRCS := $(notdir $(wildcard $(src)/dsp/*.c))
obj-m := smdsp_check.o
smdsp_check-y := stub.o $(addprefix dsp/,$(DSP_SRCS:.c=.o))
ccflags-y := -I$(src)/dsp/include -fstack-usage -fcallgraph-info=su
KB
cat > "$out/stub.c" <<'ST'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dsp/ build check");
ST
first=
kernels=${KSTACK_KERNELS:-$(cd /lib/modules && ls -d -- */build 2>/dev/null |
	sed 's#/build$##' | sort -V)}
for v in $kernels; do
	[ -d /lib/modules/$v/build ] || continue
	c=0
	command -v sparse >/dev/null && c=1
	echo "== kernel $v (W=1, C=$c)"
	make -s -C /lib/modules/$v/build M="$out" clean >/dev/null 2>&1 || true
	if ! make -s -C /lib/modules/$v/build M="$out" W=1 C=$c modules >"$out/build-$v.log" 2>&1; then
		cat "$out/build-$v.log"
		rc=1
	fi
	grep -v -e 'Skipping BTF' "$out/build-$v.log" | grep -i -e warning -e error && rc=1
	if [ -z "$first" ]; then
		first=$v
		/usr/bin/python3 dsp/tools/stack_depth.py --json "$json" --key kernel_stack \
			--what "kernel $v module build" "$out/dsp"
	fi
done
exit $rc
