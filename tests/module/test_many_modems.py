"""Several modems in one machine ("Many modems"), in one guest boot
on the instruction-counted clock (tests/module/guest/many_checks.sh).

- hw=vline devices=8 in every context but irqt (int dpc thr res oth usr):
  eight ttys, debugfs directories, stats with their own interrupts at
  rate/period, the trace's dev= 0..7 each with its own interrupts and
  processing, the kthreads (thr/res/oth) and /dev/smodem<n> (usr, one smodemd
  each) one per modem; rmmod removes them all.
- hw=ac97 with four AC'97 controllers in every context (irqt included): one
  modem per controller, each its own tty and interrupts.
- devices=/vline_pairs= values insmod refuses, with the reason; a failure
  in the fourth modem (a refused SCHED_DEADLINE admission) unwinds the three
  made before it.
- hw=vline devices=8 vline_pairs=1: the four pairs call each other at once
  (modem 2k dials, 2k+1 answers), V.22bis 2400 + V.42, CALL_BYTES out and
  echoed back, checked at both ends, in context=thr and context=usr.

Cost: 1 guest, 2.6 min of wall time (2.1 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import re
from pathlib import Path

import pytest

import guestboot
import smtrace

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "many"
N = 8
AC97S = 4
CALL_BYTES = 2048
VLINE_CONTEXTS = ["int", "dpc", "thr", "res", "oth", "usr"]
AC97_CONTEXTS = VLINE_CONTEXTS + ["irqt"]
CALL_CONTEXTS = ["thr", "usr"]
AC97_NAMES = ["ac97-0000:00:%s.0" % s for s in ("04", "08", "09", "0a")]
RATE, PERIOD = 8000, 100
KTHREADS = ("thr", "res", "oth")

# (insmod arguments, a word of the reason in dmesg)
BAD = [
    ("hw=vline devices=0", "devices must be 1..8"),
    ("hw=vline devices=9", "devices must be 1..8"),
    ("hw=vline devices=100", "devices must be 1..8"),
    ("hw=ac97 devices=2", "devices=N needs hw=vline"),
    ("hw=vline devices=3 vline_pairs=1", "even devices count"),
    ("hw=vline devices=2 vline_pairs=2", "vline_pairs must be 0 or 1"),
    ("hw=ac97 vline_pairs=1", "vline_pairs=1 needs hw=vline"),
]


def res():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT / kver)
        exe = guestboot.build_ttyat(out)
        env = {"N": str(N), "AC97S": str(AC97S), "CALL_BYTES": str(CALL_BYTES),
               "CALL_CONTEXTS": " ".join(CALL_CONTEXTS)}
        return guestboot.run_checks(
            kver, "many_checks.sh", out, audio="ac97", ac97s=AC97S,
            share="deferred", env=env, timeout_s=900,
            extra_files={"usr/bin/ttyat": str(exe),
                         "usr/bin/smodemd": str(guestboot.smodemd()),
                         "opt/smodem/smodem.ko": str(guestboot.module(kver))})
    return guestboot.once(("many", kver), boot)


def _text(name):
    return (res() / name).read_text(errors="replace")


def _all_stats(name):
    """{debugfs directory: stats dict} of one load."""
    return guestboot.stats_by_device(res() / (name + ".stats"))


def _snap(name):
    """{kind: [values]} of a snapshot (ttys, tty, misc, dbg, kthread, ...)."""
    out = {}
    for line in _text(name + ".snap").splitlines():
        k, _, v = line.partition(" ")
        out.setdefault(k, []).append(v.strip())
    return out


def _rate_ok(st):
    exp = st["window_ns"] * RATE / (st["period_samples"] * 1e9)
    return abs(st["irqs"] - exp) <= max(0.03 * exp, 2)


def _no_splat(name):
    bad = [x for x in _text(name + ".dmesg").splitlines()
           if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def _unloaded(name):
    assert _text(name + "-rmmod.rc").strip() == "0"
    snap = _snap(name + "-unloaded")
    assert snap["ttys"] == ["0"], snap
    assert snap["loaded"] == ["0"], snap
    assert not snap.get("dbg") and not snap.get("misc"), snap
    assert not snap.get("kthread") and not snap.get("irqthread"), snap


def _per_device_trace(name, ndev):
    """Each dev= of the capture has its interrupts and its processing."""
    evs = smtrace.events(res() / (name + ".dat"))
    irqs = {}
    procs = {}
    for e in evs:
        if e.name == "smodem_irq":
            irqs[e.fields["dev"]] = irqs.get(e.fields["dev"], 0) + 1
        elif e.name == "smodem_process":
            procs[e.fields["dev"]] = procs.get(e.fields["dev"], 0) + 1
    assert sorted(irqs) == list(range(ndev)), irqs
    assert sorted(procs) == list(range(ndev)), procs
    # all interrupting within the same couple of seconds: about as many each
    assert min(irqs.values()) >= 0.9 * max(irqs.values()), irqs
    return evs


@pytest.mark.parametrize("ctx", VLINE_CONTEXTS)
def test_vline_devices(ctx):
    name = "vline-" + ctx
    assert _text(name + "-insmod.rc").strip() == "0"
    snap = _snap(name + "-loaded")
    assert snap["ttys"] == [str(N)]
    assert sorted(snap["tty"]) == sorted("ttySM%d" % i for i in range(N))
    assert sorted(snap["dbg"]) == sorted("vline%d" % i for i in range(N))
    sts = _all_stats(name)
    assert sorted(sts) == sorted("vline%d" % i for i in range(N))
    for dev, st in sts.items():
        assert st["device"] == dev and st["context"] == ctx, (dev, st)
        assert st["hw"] == "vline"
        assert _rate_ok(st), (dev, st["irqs"], st["window_ns"])
        assert st["overruns"] == 0 and st["dropped"] == 0, (dev, st)
    if ctx in KTHREADS:
        want = ["smodem/%s" % ctx] + ["smodem/%s/%d" % (ctx, i) for i in range(1, N)]
        assert sorted(snap["kthread"]) == sorted(want), snap["kthread"]
    if ctx == "usr":
        assert sorted(snap["misc"]) == sorted("smodem%d" % i for i in range(N))
        for dev, st in sts.items():
            # since its daemon attached (usr_missed counts the periods
            # before that, since load): every period of the window an upcall
            assert st["usr_attached"] == 1, (dev, st)
            assert st["usr_upcalls"] >= st["irqs"] - 2, (dev, st)
    _per_device_trace(name, N)
    _unloaded(name)
    _no_splat(name)


@pytest.mark.parametrize("ctx", AC97_CONTEXTS)
def test_ac97_controllers(ctx):
    name = "ac97-" + ctx
    assert _text(name + "-insmod.rc").strip() == "0"
    snap = _snap(name + "-loaded")
    assert snap["ttys"] == [str(AC97S)]
    assert sorted(snap["dbg"]) == AC97_NAMES
    sts = _all_stats(name)
    assert sorted(sts) == AC97_NAMES
    for dev, st in sts.items():
        assert st["context"] == ctx and st["hw"] == "ac97", (dev, st)
        assert _rate_ok(st), (dev, st["irqs"], st["window_ns"])
        assert st["overruns"] == 0 and st["dma_halts"] == 0, (dev, st)
    # every controller's interrupt line is requested (they share lines)
    handlers = sum(x.count("smodem") for x in snap["intr"])
    assert handlers == AC97S, snap["intr"]
    if ctx == "irqt":
        assert len(snap["irqthread"]) == AC97S, snap
    if ctx in KTHREADS:
        assert len(set(snap["kthread"])) == AC97S, snap["kthread"]
    if ctx == "usr":
        assert len(snap["misc"]) == AC97S
        for dev, st in sts.items():
            assert st["usr_attached"] == 1 and st["usr_upcalls"] > 0, (dev, st)
    _per_device_trace(name, AC97S)
    _unloaded(name)
    _no_splat(name)


def test_admission_failure_unwinds():
    """Four 2 ms / 8 ms reservations on one CPU: the fourth is refused, insmod
    fails with EBUSY, the three modems made before it are removed again."""
    name = "vline-res-full"
    assert _text(name + "-insmod.rc").strip() == "16"
    dmesg = _text(name + ".dmesg")
    assert "vline2: /dev/ttySM2" in dmesg
    assert "modem 3 of 4 failed (-16)" in dmesg
    snap = _snap(name + "-loaded")
    assert snap["ttys"] == ["0"] and snap["loaded"] == ["0"], snap
    assert not snap.get("dbg") and not snap.get("kthread"), snap
    _no_splat(name)


@pytest.mark.parametrize("i,args,word", [(i, a, w) for i, (a, w) in enumerate(BAD)],
                         ids=[a for a, _ in BAD])
def test_bad_values_refused(i, args, word):
    rec = dict(line.split(" ", 1) for line in _text("bad-%d.txt" % i).splitlines()
               if " " in line)
    assert rec["args"] == args
    assert rec["rc"] == "22", rec
    assert rec["loaded"] == "0" and rec["ttys"] == "0", rec
    assert word in rec.get("msg", ""), rec


def _transcript(name, k):
    return _text("%s-%d.txt" % (name, k))


@pytest.mark.parametrize("ctx", CALL_CONTEXTS)
def test_calls_on_all_pairs_at_once(ctx):
    name = "call-" + ctx
    assert _text(name + "-insmod.rc").strip() == "0"
    for a in range(0, N, 2):
        caller, answerer = _transcript(name, a), _transcript(name, a + 1)
        m = re.search(r"^DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(\d+)",
                      caller, re.M)
        assert m, caller
        assert m.groups() == (str(CALL_BYTES), str(CALL_BYTES), "0", "0"), caller
        m = re.search(r"^ECHO n=(\d+) got=(\d+) bad=(\d+) back=(\d+)", answerer, re.M)
        assert m, answerer
        assert m.groups() == (str(CALL_BYTES),) * 2 + ("0", str(CALL_BYTES)), answerer
        assert "NO CARRIER" in answerer  # the caller's ATH ends the call
    sts = _all_stats(name)
    assert len(sts) == N
    for dev, st in sts.items():
        assert st["engine_connects"] == 1, (dev, st)
        assert st["engine_rate"] == 2400 and st["engine_link"] == "v42", (dev, st)
        assert st["overruns"] == 0, (dev, st)
        assert st["engine_phase"] == "on-hook", (dev, st)
    # all connected at once: every modem's connected stretch overlaps all others
    evs = smtrace.events(res() / (name + ".dat"))
    up, down = {}, {}
    for e in evs:
        if e.name != "smodem_phase":
            continue
        d, ph = e.fields["dev"], e.fields["phase"]
        if ph == "connected":
            up.setdefault(d, e.ts_ns)
        elif ph in ("hung-up", "carrier-lost") and d in up:
            down.setdefault(d, e.ts_ns)
    assert sorted(up) == list(range(N)) and sorted(down) == list(range(N)), (up, down)
    assert max(up.values()) < min(down.values()), (up, down)
    _unloaded(name)
    _no_splat(name)
