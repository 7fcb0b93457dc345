"""Per-device CPU placement ("On SMP guests (real clock),
per-device CPU placement"): one boot of the 6.1 generic kernel on two CPUs
(the real clock: QEMU's instruction counting boots only one), the AC'97
there too (tests/module/guest/placement_checks.sh).

cpus=C0,C1,... puts device i's interrupt on CPU Ci (hw=vline: its pinned
timer; hw=ac97: the IRQ's affinity) and its processing there too (the
kthread bound, the tasklet and the IRQ thread following the interrupt, and
in context=usr smodemd pinning the device's thread).  The kernel's own
record says where each ran: irq_cpus and proc_cpus, the CPUs that took the
device's interrupts and processed its periods since the reset.  Timing is
not judged.

Cost: 1 guest, 1.4 min of wall time (0.4 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import re

import pytest

import guestboot

OUT = guestboot.TOP / "out" / "tests" / "placement"
CPU0, CPU1, BOTH = 0x1, 0x2, 0x3


def res():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT / kver)
        return guestboot.run_checks(
            kver, "placement_checks.sh", out, audio="ac97", smp=2, clock="real",
            timeout_s=600,
            extra_files={"usr/bin/smodemd": str(guestboot.smodemd()),
                         "opt/smodem/smodem.ko": str(guestboot.module(kver))})
    return guestboot.once(("placement", kver), boot)


def _stats(name):
    assert (res() / (name + ".rc")).read_text().strip() == "0", (
        res() / (name + ".dmesg")).read_text(errors="replace")
    return guestboot.stats_by_device(res() / (name + ".stats"))


def _mask(v):
    return int(v, 16) if isinstance(v, str) else v


def _allowed(name):
    text = (res() / (name + ".allowed")).read_text()
    return dict(line.split(None, 1) for line in text.splitlines() if line.strip())


def test_two_cpus():
    assert (res() / "cpus").read_text().strip() == "2"


@pytest.mark.parametrize("ctx", ["int", "dpc", "thr", "oth"])
def test_vline_devices_on_their_cpus(ctx):
    st = _stats("place-" + ctx)
    assert sorted(st) == ["vline0", "vline1"], st
    for dev, cpu, mask in (("vline0", 0, CPU0), ("vline1", 1, CPU1)):
        s = st[dev]
        assert s["context"] == ctx and s["cpu"] == cpu, s
        assert s["periods"] > 10, s
        assert _mask(s["irq_cpus"]) == mask and _mask(s["proc_cpus"]) == mask, (dev, s)
    if ctx in ("thr", "oth"):
        assert _allowed("place-" + ctx) == {"vline0": "0", "vline1": "1"}


def test_usr_threads_pinned_per_device():
    st = _stats("usr-threads")
    al = _allowed("usr-threads")
    for dev, mask, cpu in (("vline0", CPU0, "0"), ("vline1", CPU1, "1")):
        s = st[dev]
        # (usr_missed counts the periods before the attach: timing, not judged)
        assert s["usr_attached"] == 1 and s["usr_upcalls"] > 10, s
        # the interrupt there, the period's work in the daemon's thread there
        assert _mask(s["irq_cpus"]) == mask and _mask(s["proc_cpus"]) == mask, (dev, s)
        assert al[dev] == cpu, al
    assert (res() / "usr-threads-daemon.rc").read_text().strip() == "0"


def test_usr_single_thread_pinned_when_all_agree():
    st = _stats("usr-rm")
    for dev in ("vline0", "vline1"):
        s = st[dev]
        assert _mask(s["irq_cpus"]) == CPU1 and _mask(s["proc_cpus"]) == CPU1, (dev, s)
    assert set(_allowed("usr-rm").values()) == {"1"}


def test_usr_single_thread_split_is_said():
    st = _stats("usr-split")
    assert _mask(st["vline0"]["irq_cpus"]) == CPU0 and _mask(st["vline1"]["irq_cpus"]) == CPU1, st
    assert set(_allowed("usr-split").values()) == {"0-1"}
    err = (res() / "usr-split.smodemd").read_text()
    assert "places these modems on different CPUs; the single thread is not pinned" in err, err


@pytest.mark.parametrize("ctx", ["int", "dpc", "irqt"])
def test_ac97_irq_moved(ctx):
    st = _stats("ac97-" + ctx)
    (dev, s), = st.items()
    assert s["hw"] == "ac97" and s["cpu"] == 1, s
    assert s["periods"] > 10, s
    assert _mask(s["irq_cpus"]) == CPU1 and _mask(s["proc_cpus"]) == CPU1, s


def test_unplaced_runs_anywhere():
    st = _stats("free")
    for s in st.values():
        assert s["cpu"] == -1 and _mask(s["proc_cpus"]) != 0, s
    assert set(_allowed("free").values()) == {"0-1"}


@pytest.mark.parametrize("case,why", [
    ("bad-count", "cpus= names more CPUs than there are devices"),
    ("bad-offline", r"cpus=: CPU 5 \(device 1\) is not online"),
    ("bad-res", "cpus= cannot pin context=res"),
    ("bad-neg", "cpus= takes a CPU number per device, or -1 for any"),
])
def test_bad_placement_refused(case, why):
    assert (res() / (case + ".rc")).read_text().strip() != "0"
    dm = (res() / (case + ".dmesg")).read_text(errors="replace")
    assert re.search(why, dm), dm
    assert "== vline" not in (res() / (case + ".stats")).read_text()


def test_no_splat():
    bad = [x for f in sorted(res().glob("*.dmesg"))
           for x in f.read_text(errors="replace").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad
