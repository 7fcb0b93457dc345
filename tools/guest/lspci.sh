#!/bin/sh
# Minimal lspci for the guest (Debian's busybox-static has no lspci applet).
# Prints "BB:DD.F CLASS: VENDOR:DEVICE (rev RR)" like `lspci -n`; there is no
# pci.ids database in the guest, so -n is implied.  -k adds the bound driver.
show_driver=0
for a in "$@"; do
	case "$a" in
	-k|-nk|-kn) show_driver=1 ;;
	esac
done
for d in /sys/bus/pci/devices/*; do
	[ -e "$d/vendor" ] || continue
	slot=${d##*/}
	slot=${slot#0000:}
	v=$(cat "$d/vendor"); v=${v#0x}
	p=$(cat "$d/device"); p=${p#0x}
	c=$(cat "$d/class"); c=${c#0x}; c=${c%??}
	r=$(cat "$d/revision" 2>/dev/null); r=${r#0x}
	if [ -n "$r" ] && [ "$r" != 00 ]; then
		echo "$slot $c: $v:$p (rev $r)"
	else
		echo "$slot $c: $v:$p"
	fi
	if [ "$show_driver" = 1 ] && [ -L "$d/driver" ]; then
		drv=$(readlink "$d/driver")
		echo "	Kernel driver in use: ${drv##*/}"
	fi
done
