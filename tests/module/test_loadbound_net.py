"""The load-bound study's experiments 2 and 3 reduced: network receive processing under
the load-bound probe, repeatable on the instruction-counted clock.

Two boots of the 6.1 generic kernel, side by side, with the same inputs
(tools/loadbound/net_experiment.py's boot: two e1000 NICs on one QEMU hub,
tools/netload/netload.ko sending from one to the other, heartbeat every 10
ms): lbprobe at SCHED_FIFO 40 for 1 s with no load and under a ping flood
(one request every 50 us, answered: at 10 us the in-guest sender alone
saturates the CPU), then lbtasks (tau1 2 ms / 10 ms reading the heartbeat,
tau2 1 ms and 9 ms) for 0.3 s each.  The two boots must give the same gap
traces, counters and task results, byte for byte; the flood's bound must lie
well above the no-load one at small windows; the fits above every point.
The two boots run as the tool runs them: pieces of smlab.runner (run_piece
boots and analyses, the record keeps the figures).

Cost: 2 guests, 2.7 min of wall time (1.8 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import guestboot
from smlab import runner

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "loadbound_net"
SECONDS = 1
sys.path.insert(0, str(TOP / "tools" / "lab"))
_spec = importlib.util.spec_from_file_location("lb_net", TOP / "tools/loadbound/net_experiment.py")
nx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nx)
lb = nx.lb
MODES = ("none", "flood")
FILES = ("probe.txt", "counters.txt", "counters-start.txt", "tasks.txt")
FLOOD_NS = 50_000


def run():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT)
        a = SimpleNamespace(out=str(out), timeout=600 * guestboot.timeout_scale(),
                            prio=40, duration=SECONDS, duration3=SECONDS, guest_append="preempt=full",
                            osnoise=True)
        bins = {"lbprobe": nx.build_static(TOP / "tools/loadbound/probe.c", out / "bin" / "lbprobe"),
                "lbtasks": nx.build_static(TOP / "tools/loadbound/tasks.c", out / "bin" / "lbtasks")}
        st = nx.boot_settings(a, "exp2", kver, "default", MODES, tasks="2000 1000,9000 10000 0.3 30 20",
                              period_ns=FLOOD_NS, hb_ns=10_000_000)
        pieces = nx.plan([("boot1", st), ("boot2", st)], a, {k: str(v) for k, v in bins.items()})
        rep = runner.run(pieces, nx.run_piece, out / "record.jsonl", nx.settings, jobs=2, retries=0)
        assert rep.complete, rep.missing
        return [out / "runs" / p.key / "results" for p in pieces], [rep.figures[p.key] for p in pieces]
    return guestboot.once(("loadbound_net", kver), boot)


def boots():
    return run()[0]


def analysed(mode, i=0):
    d = boots()[i] / mode
    assert (d / "probe.rc").read_text().strip() == "0", (d / "probe.log").read_text()
    tr = lb.read_trace(d / "probe.txt")
    return tr, lb.analyse_trace(tr, lb.window_grid(10_000, SECONDS * 10**9 // 2, 10))


@pytest.mark.parametrize("mode", MODES)
def test_repeatable(mode):
    """Same inputs, same run: the gap trace (every gap's start and length in
    ns), the NICs' and the stack's counters and the tasks' results of the two
    boots are identical."""
    a, b = boots()
    for f in FILES:
        ta, tb = (a / mode / f).read_text(), (b / mode / f).read_text()
        assert ta == tb, "%s/%s differs between two boots of the same inputs" % (mode, f)
    tr, _ = analysed(mode)
    assert tr.n > (10_000 if mode == "flood" else 10), tr.n


def test_figures_recorded_alike():
    """run_piece's analysis of the two boots, as the record holds it: every
    load measured, the same figures but for the run's own paths."""
    figs = run()[1]
    assert [s["mode"] for s in figs[0]["modes"]] == list(MODES)

    def own(f):
        return [{k: v for k, v in s.items() if k != "trace"} for s in f["modes"]]
    assert own(figs[0]) == own(figs[1])


def test_flood_was_received_and_answered():
    c = nx.counter_delta(nx.read_counters(boots()[0] / "flood" / "counters-start.txt"),
                         nx.read_counters(boots()[0] / "flood" / "counters.txt"))
    # one request every 50 us for over a second (probe, then tasks); on the
    # generic kernel NET_RX is handed to ksoftirqd under load, which the
    # SCHED_FIFO probe starves: the NIC's ring fills and requests are lost
    # (measured: 46346 sent, 20583 answered), what arrives is answered: both
    # snapshots are taken under the flood, so a request or two received but
    # not yet answered at either of them separates the two counts
    assert c["sent"] >= 20_000 and c["xmit_errors"] <= c["sent"] // 100, c
    assert c["icmp_InEchos"] >= 0.3 * c["sent"], c
    assert abs(c["icmp_OutEchoReps"] - c["icmp_InEchos"]) <= 4, c
    n = nx.counter_delta(nx.read_counters(boots()[0] / "none" / "counters-start.txt"),
                         nx.read_counters(boots()[0] / "none" / "counters.txt"))
    assert n["sent"] == 0 and n["icmp_InEchos"] == 0 and n["hb_sent"] >= 100, n


def test_flood_bound_well_above_no_load():
    """The flood takes all of any window up to 30 us from the probe (the
    sender, the NIC's interrupt and NET_RX softirq run above any task on
    the generic kernel), more than no load from 100 us on, three times as
    much from 1 ms on and five times from 10 ms on; with no load only the
    tick and the heartbeat (one burst of about 41 us every 10 ms: send,
    interrupts, UDP receive).  At 1 ms that burst is most of no load's
    46 us and the flood's share of one 1 ms window varies with the host
    (4.85 times in one CI run), hence the smaller factor there."""
    _, f = analysed("flood")
    _, n = analysed("none")
    g = np.array(f["grid_ns"])
    df, dn = np.array(f["demand_ns"]), np.array(n["demand_ns"])
    tiny, mid, big = g <= 30_000, (g >= 100_000) & (g < 1_000_000), g >= 1_000_000
    huge = g >= 10_000_000
    assert (df[tiny] >= 0.9 * g[tiny]).all(), list(zip(g[tiny].tolist(), df[tiny].tolist()))
    assert (df[mid] > dn[mid]).all(), (df[mid].tolist(), dn[mid].tolist())
    assert (df[big] >= 3 * dn[big]).all(), (df[big].tolist(), dn[big].tolist())
    assert (df[huge] >= 5 * dn[huge]).all(), (df[huge].tolist(), dn[huge].tolist())
    assert f["utilisation"] > 0.1 and n["utilisation"] < 0.02, (f["utilisation"], n["utilisation"])
    assert f["fit"]["u"] > 10 * n["fit"]["u"], (f["fit"], n["fit"])


@pytest.mark.parametrize("mode", MODES)
def test_fit_lies_above_every_point(mode):
    _, s = analysed(mode)
    fit = s["fit"]
    hyp = lb.hyperbolic_load(fit["u"], fit["p_ns"], fit["e_ns"], s["grid_ns"])
    assert (hyp >= np.array(s["load"]) * (1 - 1e-9)).all()
    assert s["fit_above_all"]


def test_tasks_without_load():
    """No flood: tau2 = 1 ms meets every deadline and every heartbeat is
    read; tau2 = 9 ms beside tau1's 2 ms (110 %) misses every one."""
    _, rows = nx.read_tasks_result(boots()[0] / "none" / "tasks.txt")
    lo, hi = rows
    assert lo["missed2"] == 0 and lo["missed1"] == 0 and lo["jobs2"] >= 29, lo
    assert lo["hb_sent"] >= 25 and lo["hb_lost"] == 0, lo
    assert hi["miss2_pct"] == 100 and hi["missed1"] == 0, hi


def test_tasks_under_the_flood():
    """The flood runs above both tasks on the generic kernel: tau2 = 9 ms
    misses every deadline, and the prediction with the fitted bound admits
    no tau2 that large."""
    _, rows = nx.read_tasks_result(boots()[0] / "flood" / "tasks.txt")
    _, f = analysed("flood")
    assert rows[1]["miss2_pct"] == 100, rows[1]
    assert nx.predict(f["fit"], 40)["max_e2_us"] < 9000
