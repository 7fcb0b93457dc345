"""A repeatable network load for lab guests.

Two e1000 NICs in one QEMU, joined by a QEMU hub (no host networking, nothing
from outside the guest: on the instruction-counted clock every run is the same
run), and tools/netload/netload.ko, an hrtimer-paced kernel thread at
SCHED_FIFO 99 that sends ICMP echo requests (and UDP heartbeats) from one NIC
to the other.  The guest side is tools/netload/netload.sh (netload_setup,
netload_start MODE, netload_stop).

    from smlab import netload
    run_guest(kver, script, out, kmods=netload.KMODS,
              qemu_extra=netload.qemu_args(),
              extra_files=netload.guest_files(kver), ...)

and in the script: `. /opt/netload/netload.sh; netload_setup; netload_start
flood; ...; netload_stop /tmp/counters.txt`.
"""
from . import kmod
from .image import ROOT

SRC = ROOT / "tools" / "netload"
KMODS = ("e1000",)
TX_MAC = "52:54:00:4e:4c:01"
RX_MAC = "52:54:00:4e:4c:02"
# after the 9p share (0x3) and the AC'97 (0x4)
PCI_TX, PCI_RX = "0x5", "0x6"
MODES = ("none", "flood", "flood-noreply", "sink")


def qemu_args(hub=0):
    """The two NICs on QEMU hub `hub`: the sender's (TX_MAC), the receiver's
    (RX_MAC)."""
    out = []
    for i, (mac, pci) in enumerate(((TX_MAC, PCI_TX), (RX_MAC, PCI_RX))):
        out += ["-netdev", "hubport,id=nl%d,hubid=%d" % (i, hub),
                "-device", "e1000,netdev=nl%d,mac=%s,addr=%s" % (i, mac, pci)]
    return out


def module(kver):
    """build/<kver>/netload/netload.ko, built against kver's headers if missing
    or older than its source."""
    return kmod.build(kver, SRC / "netload.c")


def guest_files(kver):
    """{guest path: host path}: the module for kver and the guest script."""
    return {"opt/netload/netload.ko": str(module(kver)),
            "opt/netload/netload.sh": str(SRC / "netload.sh")}
