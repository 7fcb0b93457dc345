# netload.sh: guest side of the lab's repeatable network load,
# sourced by a guest script (busybox sh, root) that was booted with
# tools/lab/smlab/netload.py's QEMU arguments (two e1000 NICs on one QEMU
# hub) and files (/opt/netload/netload.ko).
#
#   netload_setup            both NICs up, no IPv6: the sender NIC (NL_TX)
#                            without an address, the receiver (NL_RX)
#                            10.77.0.2/24; replies to 10.77.0.1 go to a MAC
#                            nobody has (no receive cost on the sender's NIC)
#   netload_start MODE [insmod args]
#       none             nothing
#       flood            ICMP echo request every NL_PERIOD_NS (10000) to NL_RX,
#                        answered
#       flood-noreply    the same, icmp_echo_ignore_all=1: not answered
#       sink             the same frames to a MAC nobody has: the receiving
#                        NIC drops them in hardware, only the sender's cost
#   netload_stop             rmmod, counters to $1 (a file)
set -u
NL_TX_MAC=52:54:00:4e:4c:01
NL_RX_MAC=52:54:00:4e:4c:02
NL_NOBODY=52:54:00:4e:4c:99
NL_PERIOD_NS=${NL_PERIOD_NS:-10000}
netload_if() {
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	echo "netload: no NIC with address $1" >&2
	return 1
}
netload_setup() {
	echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
	echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
	NL_TX=$(netload_if $NL_TX_MAC) || return 1
	NL_RX=$(netload_if $NL_RX_MAC) || return 1
	ip link set "$NL_TX" up && ip link set "$NL_RX" up &&
	ip addr add 10.77.0.2/24 dev "$NL_RX" &&
	arp -i "$NL_RX" -s 10.77.0.1 $NL_NOBODY || return 1
	# the e1000's link comes up from its watchdog: wait for it
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ "$(cat /sys/class/net/"$NL_TX"/operstate)" = up ] &&
		[ "$(cat /sys/class/net/"$NL_RX"/operstate)" = up ] && return 0
		sleep 0.2
	done
	echo "netload: links not up" >&2
	return 1
}
netload_start() {
	mode=$1
	shift
	case $mode in
	none) [ $# -eq 0 ] && return 0; dst=$NL_NOBODY; per=0 ;;
	flood) echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_all; dst=$NL_RX_MAC; per=$NL_PERIOD_NS ;;
	flood-noreply) echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all; dst=$NL_RX_MAC; per=$NL_PERIOD_NS ;;
	sink) dst=$NL_NOBODY; per=$NL_PERIOD_NS ;;
	*) echo "netload: unknown mode $mode" >&2; return 1 ;;
	esac
	# "none" with arguments: the heartbeat alone (hb_period_ns=...)
	[ "$mode" = none ] && dst=$NL_RX_MAC
	# shellcheck disable=SC2068
	insmod /opt/netload/netload.ko ifname="$NL_TX" dst_mac=$dst period_ns=$per $@
}
netload_counters() {
	for p in sent hb_sent xmit_errors late; do
		echo "$p $(cat /sys/module/netload/parameters/$p 2>/dev/null || echo 0)"
	done
	for s in rx_packets rx_dropped rx_missed_errors rx_fifo_errors tx_packets; do
		echo "rx_$s $(cat /sys/class/net/"$NL_RX"/statistics/$s)"
		echo "tx_$s $(cat /sys/class/net/"$NL_TX"/statistics/$s)"
	done
	awk '/^Icmp:/ { if (!h) { split($0, k); h = 1 } else { split($0, v); for (i = 2; i <= NF; i++) print "icmp_" k[i], v[i] } }' /proc/net/snmp
	awk '/^Udp:/ { if (!h) { split($0, k); h = 1 } else { split($0, v); for (i = 2; i <= NF; i++) print "udp_" k[i], v[i] } }' /proc/net/snmp
}
netload_stop() {
	netload_counters > "$1"
	[ -d /sys/module/netload ] && rmmod netload
	return 0
}
