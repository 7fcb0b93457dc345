"""make stolen's quick grid (tools/stolen_study.py QUICK=1): the
augmented-reservation study's Figures 3 and 4, its overhead figures and its
devices table on the 6.1 generic kernel, with the shapes that must hold:
with the stream, a plain reservation misses deadlines at 0 % over-
reservation; catchup and feedback miss fewer at every over-reservation and
reach no misses sooner; the feedback controller follows a burst and comes
back; the figures on the instruction-counted clock are the same when a boot
is run again.

Cost: 10 guests, 7.2 min of wall time (4.2 min of QEMU's CPU) on the 2-core
lab machine beside two DSP test runs, under make check's settings (2026-11-30);
at the quick grid's own lengths (2 s a point, 4 s of spinner) 5.0 min of
QEMU's CPU.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "stolen-study"
sys.path.insert(0, str(TOP / "tools"))
import stolen_study as stolen  # noqa: E402


# make stolen QUICK=1 at half its lengths: 1 s a point (50 periods of 20 ms),
# the overhead's spinner 2 s a way; the shapes below hold on those
RUN_S, SPIN_S = 1, 2


def _env(**kw):
    env = {k: v for k, v in os.environ.items()
           if k not in ("KERNELS", "WORKS", "POINTS", "RUN_S", "SPIN_S", "STREAM_NS", "DEVICES",
                        "GUEST_APPEND", "JOBS", "STOLEN_OUT", "QUICK")}
    env.update(kw)
    return env


def _run():
    out = guestboot.fresh_dir(OUT)
    r = subprocess.run([sys.executable, str(TOP / "tools/stolen_study.py"), "--force"],
                       env=_env(QUICK="1", JOBS="1", RUN_S=str(RUN_S), SPIN_S=str(SPIN_S),
                                STOLEN_OUT=str(out)), capture_output=True,
                       text=True, timeout=1800 * guestboot.timeout_scale())
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    return json.loads((out / "stolen.json").read_text()), out, r.stdout


def report():
    return guestboot.once("stolen-study", _run)


def kernel():
    rep = report()[0]
    assert len(rep["kernels"]) == 1, list(rep["kernels"])
    return next(iter(rep["kernels"].values()))


def variants():
    return kernel()["works"]["study"]["variants"]


def misses(v):
    return {p["x"]: p["miss_pct"] for p in variants()[v]["points"]}


def test_quick_grid_ran_every_variant_and_point():
    rep = report()[0]
    assert rep["meta"]["failed"] == []
    assert set(variants()) == set(stolen.VARIANTS)
    for v, vd in variants().items():
        assert [p["x"] for p in vd["points"]] == [-10, 0, 10, 20, 30], v
        for p in vd["points"]:
            assert not p["refused"], (v, p)
            # RUN_S of 20 ms periods
            assert 47.5 * RUN_S <= p["periods"] <= 52.5 * RUN_S, (v, p)


def test_idle_reservation_is_exact():
    """Line 1 of the study's Figure 3: under-reserved, most deadlines are
    missed; reserved what the work takes, none."""
    m = misses("plain-idle")
    assert m[-10] >= 50, m
    assert all(m[x] == 0 for x in (0, 10, 20, 30)), m
    assert all(p["stolen_pct"] < 1.0 for p in variants()["plain-idle"]["points"])


def test_stream_steals_from_the_reservation():
    """The stream's receive processing runs inside the reserved thread,
    charged to its budget: NET_RX and the NIC's interrupt."""
    for v in ("plain", "catchup", "feedback"):
        for p in variants()[v]["points"]:
            assert p["stolen_pct"] >= 10, (v, p)
            assert p["net_rx_ns"] > 0, (v, p)


def test_plain_misses_with_the_stream_at_zero_over_reservation():
    m = misses("plain")
    assert m[0] >= 20, m
    z = variants()["plain"]["zero_at"]
    assert z is None or z >= 10, m


def test_catchup_and_feedback_miss_fewer():
    """Over-reserved, each point on its own: fewer misses wherever plain
    misses. Reserved exactly what the work takes (x = 0) there is no slack
    for the period in which the controller reacts, and the feedback
    variant's misses there ranged from 24 % to 99 % over runs on the real
    clock (plain's 81-86 %): that point counts in the sum over x >= 0 only."""
    plain = misses("plain")
    pz = variants()["plain"]["zero_at"]
    for v in ("catchup", "feedback"):
        m = misses(v)
        for x in m:
            if x > 0:
                assert m[x] < plain[x] if plain[x] else m[x] == 0, (v, x, m, plain)
        over = [x for x in m if x >= 0]
        assert sum(m[x] for x in over) < sum(plain[x] for x in over), (v, m, plain)
        z = variants()[v]["zero_at"]
        assert z is not None and (pz is None or z < pz), (v, z, pz)


def test_catchup_defers_when_under_reserved():
    """Below what the work takes, catchup stops the thread at its runtime
    and leaves the rest for later periods: deferrals, and misses."""
    p = next(p for p in variants()["catchup"]["points"] if p["x"] == -10)
    assert p["deferrals"] > 0 and p["misses"] > 0, p
    for p in variants()["catchup"]["points"]:
        if p["x"] >= 10:
            assert p["misses"] == 0, p


def test_reclaim_takes_idle_bandwidth():
    """GRUB lets the thread run on into bandwidth nobody reserved: no
    misses at any point, under-reservation included."""
    assert all(x == 0 for x in misses("reclaim").values()), misses("reclaim")


def test_feedback_follows_a_burst():
    """Figure 4: the stolen time rises for about a second, the runtime the
    controller asks for rises with it, and both come back down."""
    b = kernel()["burst"]
    ps = b["periods"]
    r = ps[0]["requested_ns"]
    hot = [i for i, p in enumerate(ps) if p["stolen_ns"] > 0.05 * r]
    assert hot, [p["stolen_ns"] for p in ps]
    # 1 s of 20 ms periods, not every one of them hot: a period's stolen
    # time is what the controller read at its end, and the stream's receive
    # work caught across that boundary is charged to the next period (a 0
    # beside a 44 where its neighbours have 22; a run had 3 such in 45,
    # another none).  The frames cross QEMU's network layer between the two
    # NICs, which runs on the host's time: on a loaded host (likely) the first
    # or last of the burst come late and coalesced (a run beside other guests had
    # 42 hot periods from 62 to 103)
    span = range(hot[0], hot[-1] + 1)
    assert 38 <= len(span) <= 56, hot
    assert len(hot) >= 0.8 * len(span), (len(hot), len(span), hot)
    assert sum(ps[i]["stolen_ns"] for i in span) / len(span) >= 0.1 * r, \
        [round(100 * ps[i]["stolen_ns"] / r, 1) for i in span]
    assert hot[0] >= 10 and hot[-1] <= len(ps) - 20, (hot[0], hot[-1], len(ps))
    assert max(ps[i]["runtime_ns"] for i in hot) >= 1.1 * r
    assert all(abs(p["runtime_ns"] - r) <= 0.01 * r for p in ps[hot[-1] + 10:])
    assert all(p["runtime_ns"] <= 2 * r for p in ps)
    # the misses the figure marks are the module's, counted the same way
    assert sum(p["misses"] for p in ps) >= b["deadline_misses"]


def test_overhead_is_small_and_measured():
    o = kernel()["overhead"]
    assert set(o) == set(stolen.OVERHEAD_WAYS)
    assert o["base"]["lost_pct"] == 0
    for w in ("plain", "catchup", "feedback", "reclaim"):
        assert 0 <= o[w]["lost_pct"] < 0.1, (w, o[w])
    # the accounting's probes cost something on every interrupt and switch
    assert o["plain"]["lost_pct"] > 0, o


def test_devices_table():
    k = kernel()
    d = k["devices"]
    assert set(d) == {"none", "nic", "ide", "scsi", "ide-pio"}, list(d)
    for src, row in d.items():
        assert 0 <= row["stolen_pct"] <= 100, (src, row)
        assert row["activations"] > 0, (src, row)
    disks = " ".join(k["disks"])
    assert "0000:00:01.1" in disks and "0000:00:%s.0" % stolen.SCSI_PCI in disks, disks
    # libata's dma=0 puts the IDE disk in PIO mode
    assert "DMA" in k["xfer_modes"]["dma"] and "PIO" in k["xfer_modes"]["pio"], k["xfer_modes"]
    # the readers kept the disks busy.  The guest runs on the real clock here,
    # so the count follows the host's load (a loaded CI host gave 899 for the
    # DMA IDE disk in 2 s); an idle disk, or readers that failed, give next
    # to none
    irqs = k["disk_interrupts"]
    least = 50 * report()[0]["meta"]["run_s"]
    assert min(irqs["dma"]["ide"], irqs["dma"]["scsi"], irqs["pio"]["ide"]) > least, (least, irqs)


def test_repeatable_on_the_virtual_clock():
    """One boot of the grid run again: the same misses, stolen time and
    counters to the nanosecond."""
    rep = report()[0]
    m = rep["meta"]
    t = {"kernel": m["kernels"][0], "work": "study", "job": "sweep", "variant": "plain",
         "points": m["points"]}
    a = argparse.Namespace(stream_ns=m["stream_ns"], run_s=m["run_s"], spin_s=m["spin_s"],
                           guest_append=m["guest_append"])
    piece, = stolen.plan([t], a, guestboot.fresh_dir(OUT.parent / "stolen-study-again"))
    again = stolen.run_piece(piece)
    assert again["points"] == variants()["plain"]["points"]


def test_report_files():
    rep, out, stdout = report()
    k = rep["meta"]["kernels"][0]
    assert (out / ("fig3-%s-study.png" % k)).stat().st_size > 10000
    assert (out / ("fig4-%s.png" % k)).stat().st_size > 10000
    md = (out / "stolen.md").read_text()
    assert "| plain + stream |" not in md and "| plain |" in md and "no misses from" in md
    assert md in stdout


@pytest.mark.parametrize("env,msg", [
    ({"POINTS": "-10 x"}, "whole percents"),
    ({"POINTS": "200"}, "-50..100"),
    ({"KERNELS": "9.9.9-nope"}, "not installed"),
    ({"WORKS": "dsl"}, "one of study, modem"),
    ({"STREAM_NS": "5"}, "STREAM_NS"),
])
def test_bad_settings_are_refused(env, msg, tmp_path):
    r = subprocess.run([sys.executable, str(TOP / "tools/stolen_study.py")],
                       env=_env(STOLEN_OUT=str(tmp_path), **env), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert msg in r.stderr, r.stderr
    assert not (tmp_path / "stolen.json").exists()
