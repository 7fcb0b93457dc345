"""Stolen time, measured from a trace: one boot of the 6.1
generic kernel with two e1000 NICs and tools/netload (tools/lab/smlab/
netload.py), the modem's processing in context=thr with the study's load,
traced 2 s with no network load and 2 s under a ping flood into the guest
(one request every 50 us, answered); tools/analysis/stolen.py splits each
activation's time into what the processing ran and what interrupts,
softirqs and other threads took.

Cost: 1 guest, 2.8 min of wall time (2.7 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import subprocess
import sys
from pathlib import Path

import pytest

import guestboot
from smlab import netload
from smlab.guest import run_guest

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "stolen"
sys.path.insert(0, str(TOP / "tools" / "analysis"))
import smtrace  # noqa: E402
import stolen  # noqa: E402


def _boot():
    kver = guestboot.generic_kernel()
    assert kver, "no 6.1 generic kernel installed: make deps"
    out = guestboot.fresh_dir(OUT)
    files = dict(netload.guest_files(kver))
    files["usr/bin/stolenpoll"] = str(guestboot.build_static(out, "tools/guest/stolenpoll.c"))
    res = run_guest(
        kver, (TOP / "tests/module/guest/stolen_checks.sh").read_text(), str(out),
        modules=[str(guestboot.module(kver))], audio="ac97", kmods=list(netload.KMODS),
        qemu_extra=netload.qemu_args(), extra_files=files, cmdline_extra="preempt=full",
        timeout_s=600 * guestboot.timeout_scale())
    r = out / "results"
    assert res.ok and not (r / "error").exists(), (
        (r / "error").read_text() if (r / "error").exists() else res.console)
    return r


def results():
    return guestboot.once("stolen", _boot)


def summary(mode):
    r = results()
    assert (r / (mode + ".rc")).read_text().strip() == "0", (r / (mode + ".log")).read_text()
    return stolen.summary(stolen.activations(stolen.load(r / (mode + ".dat"))))


def test_no_load_steals_almost_nothing():
    s = summary("none")
    # 2 s of 12.5 ms periods
    assert 150 <= s["activations"] <= 170, s["activations"]
    # the 1.84 ms of processing ran; the timer tick and the AC'97's own
    # interrupt are all that take from it
    assert s["ran_ns"] >= 0.97 * s["wall_ns"], s
    assert s["stolen_pct_of_charged"] < 1.0, s
    assert not any(k.startswith("softirq:NET_RX") for k in s["takers_ns"]), s["takers_ns"]


def test_flood_steals_receive_processing():
    s, quiet = summary("flood"), summary("none")
    takers = s["takers_ns"]
    # the NIC's interrupt and NET_RX ran inside the thread's activations,
    # charged to it (6.1 generic accounts no IRQ time): stolen
    assert any(k.startswith("irq:eth") for k in takers), takers
    assert takers.get("softirq:NET_RX", 0) > 0, takers
    assert s["stolen_ns"] > 10 * max(quiet["stolen_ns"], 1), (s["stolen_ns"], quiet["stolen_ns"])
    assert s["activations_with_stolen_time"] >= 0.9 * s["activations"], s
    # the sender (SCHED_FIFO 99) preempts the thread: another thread's time,
    # not charged to it
    assert s["charged_ns"] < s["wall_ns"], s
    assert any(k.startswith("thread:") for k in takers), takers
    # what was taken adds up: ran + stolen = charged
    assert s["ran_ns"] + s["stolen_ns"] == s["charged_ns"]


def test_tool_writes_table_and_json(tmp_path):
    r = subprocess.run([sys.executable, str(TOP / "tools/analysis/stolen.py"),
                        str(results() / "flood.dat"), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "softirq:NET_RX" in r.stdout and (tmp_path / "stolen.json").is_file()
    print(r.stdout)


# -- the module's own accounting (stolen=1) ------------------------------------

def _kernel(mode):
    return [e for e in smtrace.events(results() / (mode + ".dat")) if e.name == "smodem_stolen"]


def _stats(name):
    return smtrace.stats((results() / (name + ".stats")).read_text())


@pytest.mark.parametrize("mode", ["none", "flood"])
def test_module_accounting_agrees_with_the_trace(mode):
    """The module's probes and tools/analysis/stolen.py, on the same
    activations: what interrupts and softirqs took within 1 % (and 50 us);
    the time away (the module counts from the thread's switch-out to its
    switch-in) within 1 % of the trace's, which splits the same window
    between the threads and the interrupts it sees run in it (under the
    flood the NIC's interrupts in that window are 15-20 % of it)."""
    s = summary(mode)
    k = _kernel(mode)
    assert len(k) == s["activations"], (len(k), s["activations"])
    kirq = sum(e.fields["irq_ns"] + e.fields["softirq_ns"] for e in k)
    assert abs(kirq - s["stolen_ns"]) <= max(0.01 * s["stolen_ns"], 50_000), (kirq, s)
    away = s["wall_ns"] - s["charged_ns"]
    other = sum(e.fields["other_ns"] for e in k)
    assert abs(other - away) <= max(0.01 * away, 50_000), (other, away)
    for e in k:
        f = e.fields
        assert f["ran_ns"] + f["irq_ns"] + f["softirq_ns"] + f["other_ns"] == f["wall_ns"], f


def test_module_counters_split_by_taker():
    quiet, flood = _stats("none"), _stats("flood")
    assert quiet["stolen_softirq_net_rx_ns"] == 0, quiet
    assert flood["stolen_softirq_net_rx_ns"] > 0.9 * flood["stolen_softirq_ns"], flood
    assert flood["stolen_irq_ns"] > 10 * max(quiet["stolen_irq_ns"], 1), (flood, quiet)
    assert flood["stolen_ran_ns"] + flood["stolen_irq_ns"] + flood["stolen_softirq_ns"] + \
        flood["stolen_other_ns"] == flood["stolen_wall_ns"], flood


def _ctl(name):
    return [e.fields for e in smtrace.events(results() / (name + ".dat"))
            if e.name == "smodem_res_ctl"]


def test_feedback_controller_follows_the_study():
    """res_mode=feedback under the flood: once a 10 ms period, exactly
    C_t = C_(t-1) + G (R - P), P = C_(t-1) - stolen, G = 0.5, within the
    ceiling (twice R); the stolen time is mostly there and the runtime
    ends above R.  plain runs no controller."""
    assert (results() / "res-feedback.rc").read_text().strip() == "0"
    steps = _ctl("res-feedback")
    assert len(steps) >= 150, len(steps)
    st = _stats("res-feedback")
    for a, b in zip(steps, steps[1:]):
        req, c = b["requested_ns"], a["runtime_ns"]
        assert b["received_ns"] == max(c - b["stolen_ns"], 0), (a, b)
        x = (req - b["received_ns"]) * 500
        want = c + (abs(x) // 1000) * (1 if x >= 0 else -1)
        want = min(max(want, 2000), 5_000_000)
        assert b["runtime_ns"] == want, (a, b, want)
        assert b["saturated"] in ("no", "ceiling"), b
    assert all(s["requested_ns"] == 2_500_000 for s in steps)
    assert sum(1 for s in steps if s["stolen_ns"] > 0) >= 0.5 * len(steps), steps[:5]
    assert max(s["runtime_ns"] for s in steps) > 2_500_000
    assert st["res_refusals"] == 0 and st["res_ceiling_us"] == 5000, st
    assert _ctl("res-plain") == []
    assert _stats("res-plain")["res_mode"] == "plain"


def test_reclaim_sets_the_flag():
    st, plain = _stats("res-reclaim"), _stats("res-plain")
    assert st["res_mode"] == "reclaim" and st["policy"] == "SCHED_DEADLINE", st
    assert int(str(st["dl_flags"]), 16) & 0x02, st        # SCHED_FLAG_RECLAIM
    assert not int(str(plain["dl_flags"]), 16) & 0x02, plain
    assert _ctl("res-reclaim") == []


def test_catchup_gives_the_stolen_time_back():
    """res_mode=catchup: admitted at the ceiling (twice R), the thread stops
    itself at R of its own time a period; each period gives R plus what
    interrupts took in it (the ceiling caps it), and the thread's own time
    stays within R and the one period it may start just below R."""
    st = _stats("res-catchup")
    assert st["res_mode"] == "catchup" and st["dl_runtime_ns"] == 5_000_000, st
    steps = _ctl("res-catchup")
    assert len(steps) >= 150, len(steps)
    for s in steps:
        assert s["requested_ns"] == 2_500_000, s
        assert s["runtime_ns"] == min(2_500_000 + s["stolen_ns"], 5_000_000), s
        assert s["saturated"] == ("ceiling" if 2_500_000 + s["stolen_ns"] > 5_000_000 else "no"), s
        assert s["received_ns"] <= 2_500_000 + 3_000_000, s
    assert sum(1 for s in steps if s["stolen_ns"] > 0) >= 0.5 * len(steps)
    assert _stats("res-feedback")["dl_runtime_ns"] != 5_000_000


@pytest.mark.parametrize("res", ["plain", "feedback", "reclaim", "catchup"])
def test_unload_under_the_stream_is_clean(res):
    assert (results() / ("res-%s-rmmod.rc" % res)).read_text().strip() == "0"
    dmesg = (results() / ("res-%s.dmesg" % res)).read_text(errors="replace")
    assert not guestboot.BAD_DMESG.search(dmesg), dmesg[-3000:]
    assert int(_stats("res-" + res)["stolen_activations"]) > 100


@pytest.mark.parametrize("mode", ["none", "flood"])
def test_polling_detector_agrees_with_the_module(mode):
    """stolenpoll (SCHED_FIFO 10, 1 s, gaps from 1 us) and the module's
    accounting of the same thread (debugfs stolen_watch): what the poller
    saw taken, less its own loop step, within 10 % (or 20 us) of what the
    module counted when quiet, and under the flood no more than 3 us a gap
    above it (nor 10 % below) (hard IRQs, softirqs, other threads: the modem's thread
    at FIFO 50 among them).  The poller sees a little more under the flood:
    the interrupt entry and exit code around the handlers, which no
    tracepoint brackets (a few us a packet under QEMU).  Quiet, interrupts
    and softirqs take under 1 % of the second; under the flood, many times
    more."""
    import json
    p = json.loads((results() / (mode + ".poll")).read_text())
    poll, mod = p["poll"], p["module"]
    assert mod is not None, p
    assert 1_000_000_000 <= poll["wall_ns"] <= mod["wall_ns"], p
    excess = poll["stolen_ns"] - mod["stolen_ns"]
    if mode == "none":
        assert abs(excess) <= max(0.1 * mod["stolen_ns"], 20_000), p
    else:
        # the entry and exit code around each interrupt is the poller's
        # alone, so its excess grows with the interrupts it saw, not with
        # what the module counted: 1.8-2.1 us a gap in runs of this boot
        # (34 ms over 16683 gaps, 11.6 % of the module's figure, in one)
        assert -0.1 * mod["stolen_ns"] <= excess <= 3_000 * poll["gaps"], (excess, p)
    if mode == "none":
        assert mod["irq_ns"] + mod["softirq_ns"] < 0.01 * poll["wall_ns"], p
    else:
        quiet = json.loads((results() / "none.poll").read_text())["module"]
        assert mod["irq_ns"] + mod["softirq_ns"] > 10 * (quiet["irq_ns"] + quiet["softirq_ns"]), \
            (p, quiet)
        assert mod["net_rx_ns"] > 0, p
