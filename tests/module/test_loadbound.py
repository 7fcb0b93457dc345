"""The load-bound study: the load-bound probe in a guest, below and above the modem.

One boot of the 6.1 generic kernel (instruction-counted clock,
preempt=full: the study's kernel preempted its threads) runs
tests/module/guest/loadbound_checks.sh: lbprobe (tools/loadbound/probe.c) at
SCHED_FIFO 40 under context=int load_us=1840 (the study's 1.84 ms of
processing every 12.5 ms, in the interrupt), then at SCHED_FIFO 60 above
context=thr's thread (SCHED_FIFO 50).  The host analyses both traces with
tools/loadbound/loadbound.py: in the interrupt the processing is the probe's
interference, whole, every period; in a thread below the probe only the
interrupt's top half remains.

Cost: 1 guest, 0.4 min of wall time (0.3 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import importlib.util
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "loadbound"
SECONDS = 2
PRIO_INT, PRIO_THR = 40, 60
LOAD_NS = 1840_000
PERIOD_NS = 12_500_000

_spec = importlib.util.spec_from_file_location("lb_tool", TOP / "tools/loadbound/loadbound.py")
lb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lb)


def build_probe(out):
    exe = guestboot.build_static(out, "tools/loadbound/probe.c")
    return exe.rename(exe.with_name("lbprobe"))


def results():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT / kver)
        exe = build_probe(out)
        return guestboot.run_checks(
            kver, "loadbound_checks.sh", out, audio="ac97", share="deferred",
            cmdline_extra="preempt=full",
            env={"LB_SECONDS": str(SECONDS), "LB_PRIO_INT": str(PRIO_INT),
                 "LB_PRIO_THR": str(PRIO_THR)},
            extra_files={"opt/smodem/smodem.ko": str(guestboot.module(kver)),
                         "usr/bin/lbprobe": str(exe)},
            timeout_s=240)
    return guestboot.once(("loadbound", kver), boot)


def analysed(name):
    res = results()
    for f in ("err",):
        assert not (res / ("%s.%s" % (name, f))).exists(), (res / ("%s.%s" % (name, f))).read_text()
    assert (res / ("%s.rc" % name)).read_text().strip() == "0", (res / ("%s.log" % name)).read_text()
    tr = lb.read_trace(res / ("%s.txt" % name))
    grid = lb.window_grid(10_000, SECONDS * 10**9 // 2, 10)
    return tr, lb.analyse_trace(tr, grid, periodic=(LOAD_NS, PERIOD_NS))


@pytest.mark.parametrize("name", ["int", "thr"])
def test_probe_ran_at_its_priority(name):
    tr, _ = analysed(name)
    h = tr.header
    assert h["policy"] == "fifo" and int(h["prio"]) == {"int": PRIO_INT, "thr": PRIO_THR}[name], h
    assert h["truncated"] == "0" and int(h["rt_runtime_us"]) == -1, h
    assert abs(tr.duration_ns - SECONDS * 10**9) < 50_000_000, tr.duration_ns


def _stats(name):
    text = (results() / ("%s.stats" % name)).read_text()
    return dict(ln.split(None, 1) for ln in text.splitlines() if " " in ln)


def test_processing_ran_where_asked():
    """int: every period processed in the interrupt while the probe ran.
    thr: the thread at SCHED_FIFO 50 under the probe at 60 could not run
    at all while the probe spun (its one wakeup waited the whole run): above
    the thread, the probe sees none of its work because none is done."""
    si, st = _stats("int"), _stats("thr")
    assert si["context"] == "int" and int(si["periods"]) >= 0.95 * SECONDS * 1e9 / PERIOD_NS, si
    assert int(si["proc_ns_min"]) >= 0.95 * LOAD_NS and int(si["overruns"]) == 0, si
    assert st["context"] == "thr" and st["policy"] == "SCHED_FIFO" and st["rt_priority"] == "50", st
    assert int(st["wake_ns_max"]) >= 0.9 * SECONDS * 1e9, st


def test_int_bound_holds_the_processing_time():
    """In the interrupt, 1.84 ms of every 12.5 ms is taken from the probe:
    demand >= ~1.8 ms for every window of 2 ms and more, and the long-run
    load is at least 1.84/12.5."""
    _, s = analysed("int")
    g, d = np.array(s["grid_ns"]), np.array(s["demand_ns"])
    assert (d[g >= 2_000_000] >= 1_800_000).all(), list(zip(g.tolist(), d.tolist()))
    # every window up to 1.8 ms can be wholly inside the processing
    small = g <= 1_800_000
    assert (d[small] >= 0.98 * g[small]).all(), list(zip(g[small].tolist(), d[small].tolist()))
    assert s["fit"]["u"] >= 0.98 * LOAD_NS / PERIOD_NS, s["fit"]
    assert 0.9 * LOAD_NS <= s["max_gap_ns"] <= 3 * LOAD_NS, s["max_gap_ns"]


def test_thr_below_the_probe_shows_almost_none():
    """The thread's 1.84 ms never preempts a probe above it: what is left
    is the interrupt's top half and the tick, microseconds."""
    _, s = analysed("thr")
    assert s["max_gap_ns"] < 100_000, s["max_gap_ns"]
    assert s["utilisation"] < 0.02, s["utilisation"]
    g, d = np.array(s["grid_ns"]), np.array(s["demand_ns"])
    assert (d[g <= 10_000_000] < 200_000).all(), list(zip(g.tolist(), d.tolist()))


@pytest.mark.parametrize("name", ["int", "thr"])
def test_fit_lies_above_every_point(name):
    tr, s = analysed(name)
    f = s["fit"]
    hyp = lb.hyperbolic_load(f["u"], f["p_ns"], f["e_ns"], s["grid_ns"])
    load = np.array(s["load"])
    assert (hyp >= load * (1 - 1e-9)).all()
    # tight: the bound touches the trace's exact demand at one window
    # (a corner of the demand, rarely a grid point)
    w = f["touch_ns"]
    gap = (w * float(lb.hyperbolic_load(f["u"], f["p_ns"], f["e_ns"], w))
           - int(lb.demand(tr.starts, tr.lengths, [w])[0]))
    assert 0 <= gap < 1.0, "the fit touches the demand nowhere (gap %.3f ns)" % gap
    assert s["fit_above_all"]


def test_cli_on_the_guest_traces():
    """The command on both traces: table, JSON, one PNG per run."""
    res = results()
    out = OUT / "analysis"
    r = subprocess.run([str(TOP / "build/venv/bin/python"), str(TOP / "tools/loadbound/loadbound.py"),
                        "analyse", str(res / "int.txt"), str(res / "thr.txt"), "--grid-max", "1s",
                        "--periodic", "1840us,12.5ms", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    summ = json.loads((out / "summary.json").read_text())
    assert [x["name"] for x in summ["runs"]] == ["int", "thr"]
    for n in ("int", "thr"):
        assert (out / ("%s.png" % n)).stat().st_size > 10_000
    print(r.stdout)
