"""smodem.ko in a QEMU guest (Debian's own kernels, virtual clock).

One boot per kernel and backend runs tests/module/guest/guest_checks.sh, which
leaves raw results in the share; the tests below judge them.  Kernels: 6.1
generic and 6.1 PREEMPT_RT; test_guest_module_612.py runs the same tests on
6.12 generic and 6.12 PREEMPT_RT (all four must be installed: `make deps`).

Cost: 4 guests, 4.3 min of wall time (4.2 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import os
import re
from pathlib import Path

import pytest

import guestboot
import smtrace
from smlab import kmod
from smlab.image import debian_kernels

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "module"
RATE, PERIOD, RING = 8000, 100, 512
# Shapes, not nanoseconds: every assertion here is a count, a context, a
# rate in guest time or a bound of a period or more, so the guest runs on
# a virtual CPU four times slower (-icount shift=2: 4 ns an instruction),
# which needs a quarter of the host's instructions for each guest second
# spent polling a clock (the boot's APIC timer calibration, 216 ms of
# guest time at shift 0) or looping for a time (the stats readers).
ICOUNT_SHIFT = 2
# A boot here loads the module about 60 times.  With ACPI's interrupt
# routing every AC'97 probe and removal runs the PCI link's AML methods
# (about 150 ms of guest time and most of a host second per insmod/rmmod
# under TCG); the BIOS's routing table gives the device its line without
# them.  Nothing judged here depends on which line that is.
CMDLINE = "acpi=noirq"
# The load/unload cycles and the teardowns under a stats reader go twice
# round the contexts (each context torn down both ways), not 50 and 40
# times: each insmod is 0.2-0.4 s of QEMU's CPU, so those were a third of
# a boot's; the debug kernel's stress (tests/debug) keeps its counts.
ROUNDS = 2
# the contexts guest_checks.sh goes round in its cycles: not oth (a load
# there would wait behind the shell), and those the kernel and backend have
CYCLE_CONTEXTS = ("int", "dpc", "thr", "res", "usr", "irqt", "bhw")
EXPECTED_IRQS_10S = 10 * RATE // PERIOD


def expected_irqs(st):
    """Interrupts due in the stats' own window (window_ns: since the reset,
    to the read), at its period: a slower kernel's shell lengthens the
    guest's `sleep N` window, not the interrupts' spacing."""
    return st["window_ns"] * RATE / (st["period_samples"] * 1e9)


def rate_ok(st):
    exp = expected_irqs(st)
    return abs(st["irqs"] - exp) <= 0.03 * exp

# (insmod arguments, expected errno, a word the dmesg line must contain)
BAD_PARAMS = [
    ("context=foo", 22, "context"),
    ("hw=isa", 22, "hw"),
    ("context=irqt hw=vline", 22, "hw=ac97"),
    ("context=thr prio=0", 22, "prio"),
    ("context=thr prio=100", 22, "prio"),
    ("context=res res_runtime_us=9000", 22, "res_runtime_us"),
    ("context=res res_deadline_us=9000", 22, "res_deadline_us"),
    ("period_samples=300", 22, "period_samples"),
    ("period_samples=7", 22, "period_samples"),
    ("ring_samples=32", 22, "ring_samples"),
    ("rate=44100", 22, "rate"),
    ("load_us=200000", 22, "load_us"),
    ("context=int load_us=12500", 22, "load_us"),
    ("context=res res_runtime_us=7900 res_period_us=8000", 16, "admission"),
    ("context=res res_mode=catch", 22, "res_mode"),
    ("context=res res_mode=catchup res_ceiling_us=1000", 22, "res_ceiling_us"),
    ("context=thr res_mode=feedback", 22, "needs context=res"),
    ("context=res res_mode=feedback res_gain_pm=0", 22, "res_gain_pm"),
    ("context=res res_mode=feedback res_gain_pm=1500", 22, "res_gain_pm"),
    ("context=res res_mode=feedback res_ceiling_us=1000", 22, "res_ceiling_us"),
    ("context=res res_mode=feedback res_ceiling_us=9000", 22, "res_ceiling_us"),
    ("context=dpc stolen=1", 22, "stolen=1"),
]


def kernels(series="6.1"):
    """The generic and the PREEMPT_RT flavour of one of Debian's kernel
    series (6.1: 6.1.0-N-amd64, 6.12: 6.12.M+debN-amd64), those installed."""
    return debian_kernels((series,))


KERNELS = kernels("6.1")


def test_all_four_kernels_installed():
    """make deps installs Debian's 6.1 and 6.12 kernels, each generic and
    PREEMPT_RT: this file boots the 6.1 ones, test_guest_module_612.py the
    6.12 ones."""
    have = {s: kernels(s) for s in ("6.1", "6.12")}
    assert all(len(k) == 2 for k in have.values()), (
        "need the generic and rt kernels of 6.1 and 6.12: make deps (have %s)" % have)


def _boot(kver, hw):
    out = guestboot.fresh_dir(OUT / kver / hw)
    (out / "bad-params.txt").write_text(
        "".join(a + "\n" for a, _, _ in BAD_PARAMS))
    mods = [str(TOP / "build" / kver / "smodem.ko")]
    if hw == "ac97":
        mods.append(str(kmod.build(kver, TOP / "tests/module/guest/irqhog/irqhog.c")))
    return guestboot.run_checks(
        kver, "guest_checks.sh", out, args=hw, modules=mods,
        audio="ac97" if hw == "ac97" else "none", timeout_s=900,
        icount_shift=ICOUNT_SHIFT, cmdline_extra=CMDLINE, env={"ROUNDS": str(ROUNDS)})


def rounds(kver, hw):
    """guest_checks.sh's teardowns in its cycles and under a reader."""
    return ROUNDS * sum(refusal(kver, hw, c) is None for c in CYCLE_CONTEXTS)


def boot(kver, hw):
    """One boot per kernel and backend, shared by every test that needs it."""
    return guestboot.once((kver, hw), lambda: _boot(kver, hw))


AC97 = [pytest.param(k, id=k) for k in KERNELS]
BOTH = [pytest.param(k, hw, id="%s-%s" % (k, hw))
        for k in KERNELS for hw in ("ac97", "vline")]


def _stats(res, name):
    return smtrace.stats((res / (name + ".stats")).read_text())


def refusal(kver, hw, ctx):
    """The insmod reason a context is refused with on this kernel and
    backend, or None: irqt threads an interrupt line (the AC'97's), bhw
    needs BH workqueues (6.9+: Kbuild probes the headers for them)."""
    if ctx == "irqt" and hw != "ac97":
        return "context=irqt needs an interrupt line: hw=ac97"
    major, minor = (int(x) for x in re.match(r"(\d+)\.(\d+)", kver).groups())
    if ctx == "bhw" and (major, minor) < (6, 9):
        return "context=bhw needs BH workqueues (system_bh_wq, Linux 6.9+)"
    return None


# Every context= the module has; refusal() says where one is refused.
CONTEXTS = ["int", "dpc", "thr", "res", "oth", "irqt", "bhw", "usr"]


def check_usr_without_daemon(st, ev):
    """context=usr with no smodemd attached (the daemon's own tests are
    test_modem.py's): the interrupts go on at their pace, each period is
    counted as missed and none processed, the input position stays
    current (no overrun), nothing is written, the line stays on hook."""
    assert st["exec"] == "usr" and st["usr_attached"] == 0
    assert st["usr_device"] == "/dev/smodem0"
    assert st["usr_attaches"] == 0 and st["usr_upcalls"] == 0
    assert st["periods"] == 0 and st["runs"] == 0
    # missed since load, the stats' window (reset 1 s after it) inside
    assert st["usr_missed"] >= st["irqs"] - 2, st
    assert st["overruns"] == 0 and st["dropped"] == 0 and st["tx_late"] == 0
    assert st["pending_max"] == 0
    irqs = [e for e in ev if e.name == "smodem_irq"]
    assert len(irqs) >= EXPECTED_IRQS_10S * 0.97
    # never a period's worth pending at an interrupt: skipped as it came
    assert all(e.fields["pending"] < 2 * PERIOD for e in irqs)
    assert not [e for e in ev if e.name in ("smodem_process", "smodem_overrun",
                                             "smodem_thread_wakeup")]
    assert any(e.name == "smodem_isr_exit" for e in ev)


@pytest.mark.parametrize("ctx", CONTEXTS)
@pytest.mark.parametrize("kver,hw", BOTH)
def test_context(kver, hw, ctx):
    res = boot(kver, hw)
    name = "ctx-" + ctx
    why = refusal(kver, hw, ctx)
    if why:
        err = res / (name + ".err")
        assert err.exists(), "context=%s loaded, expected: %s" % (ctx, why)
        assert why in err.read_text(), err.read_text()
        return
    assert not (res / (name + ".err")).exists(), (res / (name + ".err")).read_text()
    st = _stats(res, name)
    assert st["context"] == ctx and st["hw"] == hw

    # The interrupt rate: 10 s of periods within 3 %.
    assert st["window_ns"] >= 10e9 and rate_ok(st), (st["irqs"], st["window_ns"])
    if ctx == "usr":
        check_usr_without_daemon(st, smtrace.events(res / (name + ".dat")))
        return
    assert st["periods"] >= st["irqs"] - 2
    # No load: nothing lost, and never a period's worth left pending.
    assert st["overruns"] == 0 and st["dropped"] == 0
    if ctx == "oth" and kver == os.environ.get("SMODEM_DEBUG_KERNEL"):
        # The fair class has no guarantee, and a debug kernel is never
        # idle: its own kernel work (KASAN, lockdep, object tracking make
        # work items milliseconds long) shares the CPU with oth at nice 0,
        # which then wakes up to 8 ms late (tx_late 1-11 measured).  What
        # holds there: nothing lost, never half the ring pending.
        print("oth on the debug kernel: pending_max %d, tx_late %d"
              % (st["pending_max"], st["tx_late"]))
        assert st["pending_max"] < RING // 2, st["pending_max"]
    else:
        assert st["pending_max"] < PERIOD, st["pending_max"]
        assert st["tx_late"] == 0

    ev = smtrace.events(res / (name + ".dat"))
    irqs = [e for e in ev if e.name == "smodem_irq"]
    procs = [e for e in ev if e.name == "smodem_process"]
    assert len(irqs) >= EXPECTED_IRQS_10S * 0.97 and len(procs) >= len(irqs) - 2
    # Interrupt spacing from the trace's own clock: one period each.
    gaps = [b.ts_ns - a.ts_ns for a, b in zip(irqs, irqs[1:])]
    mean_gap = sum(gaps) / len(gaps)
    assert abs(mean_gap - 12.5e6) <= 0.03 * 12.5e6, mean_gap
    for e in procs:
        assert e.fields["samples"] == PERIOD
        assert e.fields["pending"] < PERIOD
    # The processing ran where the context says it runs.
    f = procs[len(procs) // 2].fields
    if ctx == "int":
        # an interrupt that came while a softirq ran shows both ("H")
        assert all("hardirq" in e.fields["exec"].split("|") and "h" in e.flags.lower()
                   for e in procs)
        assert st["exec"] == "hardirq"
    elif ctx in ("dpc", "bhw"):
        assert all(e.fields["exec"] == "softirq" and "h" not in e.flags
                   for e in procs)
        assert st["exec"] == {"dpc": "tasklet", "bhw": "bh_work"}[ctx]
        assert any(e.name == "smodem_dpc_entry" for e in ev)
        assert any(e.name == "smodem_dpc_exit" for e in ev)
    elif ctx == "thr":
        assert all(e.fields["exec"] == "task" and e.fields["policy"] == "fifo"
                   and e.fields["prio"] == 50 for e in procs)
        assert st["policy"] == "SCHED_FIFO" and st["rt_priority"] == 50
        # trace-cmd shortens comm: "smodem/thr" may read "smodem/t"
        assert all(e.comm.startswith("smodem/") for e in procs)
    elif ctx == "irqt":
        # the IRQ core's thread, at what it gives every IRQ thread
        assert all(e.fields["exec"] == "task" and e.fields["policy"] == "fifo"
                   and e.fields["prio"] == 50 for e in procs), f
        assert st["exec"] == "irq_thread"
        assert st["policy"] == "SCHED_FIFO" and st["rt_priority"] == 50
        assert all(e.comm.startswith("irq/") for e in procs), procs[0].comm
    elif ctx == "oth":
        assert all(e.fields["exec"] == "task" and e.fields["policy"] == "other"
                   for e in procs), f
        assert st["policy"] == "SCHED_OTHER" and st["nice"] == 0
    else:
        assert all(e.fields["exec"] == "task" and e.fields["policy"] == "deadline"
                   for e in procs), f
        assert st["policy"] == "SCHED_DEADLINE"
        assert st["dl_runtime_ns"] == 2_000_000
        assert st["dl_deadline_ns"] == 8_000_000
        assert st["dl_period_ns"] == 8_000_000
    if ctx in ("thr", "res", "oth", "irqt"):
        wakes = [e for e in ev if e.name == "smodem_thread_wakeup"]
        assert len(wakes) >= len(irqs) * 0.9
        assert any(e.name == "smodem_thread_done" for e in ev)
    assert any(e.name == "smodem_isr_exit" for e in ev)


@pytest.mark.parametrize("kver,hw", BOTH)
def test_trace_parses(kver, hw):
    """Every smodem event in every capture parses with trace-cmd."""
    res = boot(kver, hw)
    for dat in sorted(res.glob("ctx-*.dat")):
        text = smtrace.report_text(dat)
        assert "FAILED TO PARSE" not in text
        assert "smodem_irq" in text


@pytest.mark.parametrize("kver", AC97)
def test_no_device(kver):
    """Booted without an AC'97 controller, hw=ac97 refuses with ENODEV."""
    res = boot(kver, "vline")
    assert (res / "nodev.rc").read_text().strip() == "19"       # ENODEV
    assert "8086:2415" in (res / "nodev.msg").read_text()
    assert (res / "nodev.loaded").read_text().strip() == "0"


@pytest.mark.parametrize("kver", AC97)
def test_irq_line_busy(kver):
    """The AC'97's interrupt line held by another driver (irqhog, without
    IRQF_SHARED): insmod fails with EBUSY, says why, leaves nothing, and
    never stops the hardware it could not start; freed, the module loads."""
    res = boot(kver, "ac97")
    # the probes see a normal load and unload: one start, one stop
    assert (res / "irqbusy-ok.starts").read_text().strip() == "1"
    assert (res / "irqbusy-ok.stops").read_text().strip() == "1"
    assert re.fullmatch(r"\d+", (res / "irqbusy.irq").read_text().strip())
    assert (res / "irqbusy-hog.rc").read_text().strip() == "0"
    assert (res / "irqbusy.rc").read_text().strip() == "16"       # EBUSY
    rec = dict(line.split(" ", 1) for line in
               (res / "irqbusy.txt").read_text().splitlines())
    assert "cannot get IRQ" in rec["msg"], rec
    # busybox's insmod tries finit_module, then init_module: two probes
    tries = rec["msg"].count("cannot get IRQ")
    assert rec["starts"] == str(tries) and rec["stops"] == "0", rec
    assert rec["loaded"] == "0" and rec["ttys"] == "0", rec
    assert rec["debugfs"] == "0" and rec["threads"] == "0", rec
    assert (res / "irqbusy-after.rc").read_text().strip() == "0"


@pytest.mark.parametrize("kver", AC97)
def test_starved_thread_overruns_and_recovers(kver):
    res = boot(kver, "ac97")
    during = _stats(res, "hog-during")
    after = _stats(res, "hog-after")
    # 3 s without the CPU: the ring (64 ms) wraps many times.
    assert during["overruns"] >= 1 and during["dropped"] > RING
    assert during["pending_irq_max"] >= RING
    # Once the hog is gone the thread keeps up again.
    assert after["overruns"] == 0 and after["dropped"] == 0
    assert after["pending_max"] < PERIOD
    assert after["periods"] >= 2 * RATE // PERIOD * 0.97


@pytest.mark.parametrize("kver", AC97)
def test_time_shared_thread_loses_to_a_spinner(kver):
    """The study's THR-8: processing at a time-sharing priority (here the
    fair class at nice 19) beside a program that never blocks misses its
    periods; at nice 0, or SCHED_FIFO at priority 1, it does not."""
    res = boot(kver, "ac97")
    n19, n0, p1 = (_stats(res, "spin-" + n) for n in ("oth-n19", "oth-n0", "thr-p1"))
    print({k: (s["overruns"], s["dropped"], s["pending_max"]) for k, s in
           (("nice 19", n19), ("nice 0", n0), ("fifo 1", p1))})
    assert n19["policy"] == "SCHED_OTHER" and n19["nice"] == 19
    assert n19["overruns"] >= 1 and n19["dropped"] > 0
    for st in (n0, p1):
        assert st["overruns"] == 0 and st["dropped"] == 0, st
        assert st["pending_max"] < RING, st


@pytest.mark.parametrize("kver", AC97)
def test_dma_halt_detected_and_recovered(kver):
    res = boot(kver, "ac97")
    during = _stats(res, "halt-during")
    after = _stats(res, "halt-after")
    assert during["dma_halts"] >= 1
    ev = smtrace.events(res / "halt.dat")
    assert any(e.name == "smodem_dma_halt" and e.fields["chan"] == "pi" for e in ev)
    # The engine runs again at its rate, nothing more lost.
    assert after["period_samples"] == PERIOD and rate_ok(after), (after["irqs"], after["window_ns"])
    assert after["dma_halts"] == 0 and after["overruns"] == 0


@pytest.mark.parametrize("kver", AC97)
def test_period_change(kver):
    res = boot(kver, "ac97")
    p20 = _stats(res, "period-20")
    p100 = _stats(res, "period-100")
    assert p20["period_samples"] == 20 and p100["period_samples"] == 100
    assert rate_ok(p20), (p20["irqs"], p20["window_ns"])
    assert rate_ok(p100), (p100["irqs"], p100["window_ns"])
    assert p20["overruns"] == 0 and p100["overruns"] == 0
    ev = smtrace.events(res / "period.dat")
    changes = [(e.fields["old"], e.fields["new"]) for e in ev
               if e.name == "smodem_period_change"]
    assert changes == [(100, 20), (20, 100)]


# debugfs writes that must fail: (file, value, the errno's words)
BAD_WRITES = [
    ("period", "abc", "Invalid argument"), ("period", "0", "Invalid argument"),
    ("period", "-5", "Invalid argument"), ("period", "20x", "Invalid argument"),
    ("period", "4294967296", "out of range"), ("period", "1000000", "Invalid argument"),
    ("period", " ", "Invalid argument"),
    ("reset", "x", "Invalid argument"), ("reset", "0", "Invalid argument"),
    ("reset", "2", "Invalid argument"), ("reset", "-1", "Invalid argument"),
    ("inject_irq_stall_ms", "1001", "Invalid argument"),
    ("inject_irq_stall_ms", "abc", "Invalid argument"),
    ("inject_irq_stall_ms", "-1", "Invalid argument"),
    ("stolen_watch", "abc", "Invalid argument"), ("stolen_watch", "0", "Invalid argument"),
    ("stolen_watch", "2147483647", "No such process"),
    ("stolen_watch", "-2147483647", "No such process"),
    ("stolen_watch", "99999999999", "out of range"),
]


@pytest.mark.parametrize("kver", AC97)
def test_debugfs_writes_checked(kver):
    """Every debugfs file that takes writes refuses a bad value with its
    errno and keeps its state: the period stays 100, no task is watched."""
    res = boot(kver, "ac97")
    got = [tuple(line.split("|", 3)) for line in
           (res / "dbgw.txt").read_text().splitlines() if line]
    assert [(f, v) for f, v, _, _ in got] == [(f, v) for f, v, _ in BAD_WRITES], got
    for (f, v, rc, msg), (_, _, words) in zip(got, BAD_WRITES):
        assert rc != "0" and words in msg, (f, v, rc, msg)
    assert (res / "dbgw.period").read_text().strip() == "100"
    assert (res / "dbgw.watch").read_text().strip() == ""


@pytest.mark.parametrize("kver", AC97)
def test_bad_parameters_rejected(kver):
    res = boot(kver, "ac97")
    for i, (args, errno, word) in enumerate(BAD_PARAMS, 1):
        rec = dict(line.split(" ", 1) for line in
                   (res / ("bad-%d.txt" % i)).read_text().splitlines()
                   if " " in line)
        assert rec["args"] == args
        assert rec["rc"] == str(errno), (args, rec)
        assert rec["loaded"] == "0", args
        assert word in rec.get("msg", ""), (args, rec.get("msg"))


@pytest.mark.parametrize("kver", AC97)
def test_load_unload_cycles(kver):
    res = boot(kver, "ac97")
    n, fails = (res / "cycles.txt").read_text().split()
    assert (int(n), int(fails)) == (rounds(kver, "ac97"), 0)
    dmesg = (res / "cycles.dmesg").read_text()
    bad = [line for line in dmesg.splitlines()
           if re.search(r"WARNING|BUG|Oops|leak|Call Trace|refcount|irq \d+: nobody", line)]
    assert not bad, bad
    assert (res / "cycles.loaded").read_text().strip() == "0"
    assert (res / "cycles.irq").read_text().strip() == ""


@pytest.mark.parametrize("kver,hw", BOTH)
def test_unload_while_reading_stats(kver, hw):
    """The device torn down while a reader loops over its stats file, twice
    round every context (an AC'97 device unbound every other time, each
    context once each way, the module staying; else rmmod between two
    reads): every teardown succeeds, every reader read the file and
    stopped, and the kernel says nothing bad (a debug kernel's KASAN is what
    would turn a read after free into a splat)."""
    res = boot(kver, hw)
    n, fails = (res / "unload-read.txt").read_text().split()
    want = rounds(kver, hw)
    assert (int(n), int(fails)) == (want, 0)
    reads = [int(x) for x in (res / "unload-read.reads").read_text().split()]
    assert len(reads) == want and min(reads) > 0, reads
    how = (res / "unload-read.how").read_text().split()
    assert how.count("unbind") == (want // 2 if hw == "ac97" else 0), how
    bad = [line for line in (res / "unload-read.dmesg").read_text().splitlines()
           if guestboot.BAD_DMESG.search(line)]
    assert not bad, bad
    assert (res / "unload-read.loaded").read_text().strip() == "0"
