"""make compare LOAD=pump, short: one context (thr), its emulated run (2 s
of cyclictest) and its pump run (load_us=0, one call to smline's far end
through a 24 s window: on hook, dialling, the answer, training, 256 bytes
each way, hang-up), no control run, no slowed run.  Judges the record:
the call connected and moved its data, load_us was 0, every phase of the
call has its figures and they are sane (the data phase's processing above
0 and below the period), and the emulated row is the emulated load's.
Then the same pump run with a V.34 call (no emulated run): V.34's phase 2
is a phase of its own, probing, between V.8 and the training, with its
figures in the record, the table and the figure's legend.
tests/lab/test_compare_pump_unit.py has the parsing without a guest.

Cost: 3 guests; the V.22bis pair 0.4-0.5 min of QEMU's CPU, 1.2 min of wall
time at -n 2 beside another worker's guests, 2.0 min on a host loaded by
other guest runs (2026-11-29; its boots are half of it); the V.34 run
about as long again.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smlab import image

ROOT = Path(__file__).resolve().parents[2]

# the installed 6.1 generic kernel (compare.py's default)
KERNEL = image.default_kernel_name()
CTX = "thr"
PERIOD_US = 12500
# the phases every call passes through on its way to the data phase
CALL_PHASES = ("off-hook", "dialing", "waiting", "answer-tone", "training", "connected")
# a V.34 call's: V.8, then phase 2 (probing) before phases 3 and 4 (training)
V34_PHASES = ("off-hook", "dialing", "waiting", "answer-tone", "v8", "probing", "training",
              "connected")


def compare(tmp_path_factory, out, args, **extra):
    """compare.py LOAD=pump in CTX with this checkout's module: (its
    summary.json, its output, out)."""
    built = ROOT / "build" / KERNEL / "smodem.ko"
    if not built.exists():
        subprocess.run(["make", "-C", str(ROOT), "module", "KVER=" + KERNEL],
                       check=True, timeout=300)
    subprocess.run(["make", "-s", "-C", str(ROOT), "line"], check=True, timeout=600)
    module = tmp_path_factory.mktemp("ko") / "smodem.ko"
    shutil.copyfile(built, module)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PUMP_", "SLOW_", "RTLA", "PRIO", "RES_", "RING_", "PERIOD_"))
           and k not in ("MODULE_PARAMS", "GUEST_APPEND", "SMP", "HW", "RATE")}
    env.update(LOAD="pump", CONTEXTS=CTX, DURATION="2", LOAD_US="1840", KERNEL=KERNEL,
               CLOCK="virtual", ICOUNT_SHIFT="0", OUT=str(out), MODULE=str(module),
               PUMP_DURATION="24", PUMP_BYTES="256", PUMP_ONHOOK_S="1", PUMP_CALLS="1",
               SLOW_SHIFT="none")
    env.update(extra)
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "lab" / "compare.py"),
                        "--no-control"] + args, env=env, cwd=str(ROOT), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=900)
    print(p.stdout)
    assert p.returncode == 0, p.stdout[-3000:]
    return json.loads((out / "summary.json").read_text()), p.stdout, out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return compare(tmp_path_factory, ROOT / "out" / "test-compare-pump", [])


@pytest.fixture(scope="module")
def run_v34(tmp_path_factory):
    """A V.34 call with V.42 to smline's V.34 far modem; V.8 and V.34's
    start-up take longer than V.22bis's, so a longer window."""
    return compare(tmp_path_factory, ROOT / "out" / "test-compare-pump-v34", ["--no-emulated"],
                   PUMP_FAR="v34,v42", PUMP_AT="AT\\N3+MS=V34", PUMP_DURATION="36")


def test_runs(run):
    s, stdout, out = run
    assert list(s) == [CTX, CTX + "+pump"]
    for e in s.values():
        assert e["guest"]["rc"] == 0 and not e["guest"]["timed_out"]
    assert "pump-phases.png" in s[CTX]["figures"] and (out / "pump-phases.png").stat().st_size
    assert "Per phase" in (out / "summary.txt").read_text()


def test_emulated_row(run):
    """The emulated run as LOAD=emulated makes it: load_us=1840, no call,
    1.84 ms of processing per period."""
    e = run[0][CTX]
    assert e["load"] == "emulated" and "pump" not in e
    assert e["module_args"] == "context=%s hw=ac97 load_us=1840" % CTX
    assert e["params"]["load_us"] == 1840 and e["params"]["duration_s"] == 2
    assert not any(k.startswith(("pump_", "slow_")) for k in e["params"])
    assert e["stats"]["load_us"] == 1840
    pr = e["trace"]["process_elapsed_ns"]
    assert 1_840_000 <= pr["avg"] < 1_950_000, pr
    assert e["trace"]["overruns"] == 0


def test_pump_call(run):
    e = run[0][CTX + "+pump"]
    assert e["load"] == "pump" and e["context"] == CTX
    assert "load_us=0" in e["module_args"].split()
    assert e["stats"]["load_us"] == 0
    assert e["params"]["duration_s"] == 24
    calls = e["pump"]["calls"]
    assert len(calls) == 1, calls
    c = calls[0]
    assert c["connect"] and c["connect"].startswith("CONNECT"), c
    assert c["line_result"] == "connected" and c["data_ok"] and c["expect_ok"], c
    assert c["in_window"], c
    assert e["trace"]["overruns"] == 0


def test_pump_phases(run):
    e = run[0][CTX + "+pump"]
    ph = e["pump"]["phases"]
    for name in ("on-hook",) + CALL_PHASES:
        assert name in ph, (name, sorted(ph))
    for name, x in ph.items():
        assert x["periods"] > 0
        assert 0 < x["min_us"] <= x["p50_us"] <= x["p99_us"] <= x["max_us"] < PERIOD_US, (name, x)
        assert x["min_us"] <= x["avg_us"] <= x["max_us"]
        assert sum(x["hist_us"].values()) == x["periods"]
    # every processing run is in one phase
    assert sum(x["periods"] for x in ph.values()) == e["trace"]["irqs"]
    d = ph["connected"]
    assert 0 < d["avg_us"] < PERIOD_US and d["periods"] >= 80
    # the real pump costs more in the call than on hook, far less than the emulation
    assert d["avg_us"] > ph["on-hook"]["avg_us"]
    emu = run[0][CTX]["trace"]["process_elapsed_ns"]["avg"] / 1000.0
    assert d["avg_us"] < emu
    # the call's phases came in order, once
    seq = [n for _, n in e["pump"]["sequence"]]
    firsts = [seq.index(n) for n in CALL_PHASES]
    assert firsts == sorted(firsts), seq
    table = (run[2] / "summary.txt").read_text()
    assert "%s+pump" % CTX in table and "data (connected)" in table and "1840 (max 3300)" in table


def test_pump_v34_probing(run_v34):
    """V.34's phase 2 has its own row: probing, between V.8 and the
    training, each once; its processing is the line probing's (a DFT of
    every 20 ms of L1/L2, then the analysis) and costs something in every
    period, less than the period."""
    s, stdout, out = run_v34
    assert list(s) == [CTX + "+pump"]
    e = s[CTX + "+pump"]
    c = e["pump"]["calls"]
    assert len(c) == 1 and c[0]["connect"] and c[0]["data_ok"] and c[0]["expect_ok"], c
    ph = e["pump"]["phases"]
    # the answer tone heard is ANSam: V.8 from the same period on, no period of its own
    for name in ("on-hook",) + tuple(n for n in V34_PHASES if n != "answer-tone"):
        assert name in ph, (name, sorted(ph))
    seq = [n for _, n in e["pump"]["sequence"]]
    firsts = [seq.index(n) for n in V34_PHASES]
    assert firsts == sorted(firsts), seq
    i = seq.index("probing")
    assert seq[i - 1:i + 3] == ["v8", "probing", "training", "connected"], seq
    assert seq.count("probing") == 1 and seq.count("training") == 1, seq
    p = ph["probing"]
    # phase 2 is INFO0, tones A and B, L1 and L2 (at least 160 + 550 ms), INFO1:
    # well over a second of 12.5 ms periods
    assert p["periods"] >= 80, p
    assert 0 < p["min_us"] <= p["p50_us"] <= p["p99_us"] <= p["max_us"] < PERIOD_US, p
    assert sum(p["hist_us"].values()) == p["periods"]
    assert sum(x["periods"] for x in ph.values()) == e["trace"]["irqs"]
    table = (out / "summary.txt").read_text()
    assert "probing (V.34 phase 2)" in table, table
