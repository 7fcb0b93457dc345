"""tools/loadbound: the analysis on synthetic gap traces with
known answers, its bad-input handling, and the probe built and run here."""
import importlib.util
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

TOP = Path(__file__).resolve().parents[2]
TOOL = TOP / "tools/loadbound/loadbound.py"
PY = str(TOP / "build/venv/bin/python")

_spec = importlib.util.spec_from_file_location("lb_tool", TOOL)
lb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lb)


def write_trace(path, gaps, duration_ns, fmt="text", header=None):
    head = {"loop_ns": "50", "threshold_ns": "200", "duration_ns": str(duration_ns), "cpu": "0",
            "prio": "40", "policy": "fifo", "kernel": "synthetic", "gaps": str(len(gaps))}
    head.update(header or {})
    htext = "# lbprobe 1\n" + "".join("# %s %s\n" % kv for kv in head.items())
    if fmt == "text":
        Path(path).write_text(htext + "".join("%d %d\n" % g for g in gaps))
    else:
        import struct
        hb = htext.encode()
        Path(path).write_bytes(b"LBPROBE1" + struct.pack("<I", len(hb)) + hb +
                               b"".join(struct.pack("<qq", *g) for g in gaps))
    return path


def periodic_gaps(e, p, k, phase=0):
    return [(phase + i * p, e) for i in range(k)]


# ---------------------------------------------------------------- demand

@pytest.mark.parametrize("e,p,phase", [(1_840_000, 12_500_000, 0), (37_000, 1_000_007, 123_456),
                                       (250_000, 1_000_000, 999_999), (3, 10, 5)])
def test_periodic_interferer_gives_the_refined_bound(e, p, phase):
    """Gaps of exactly e every p: the max interference in a window delta is
    j e + min(e, delta - j p), j = floor(delta/p) (a window starting at a
    gap start), at every grid point."""
    k = 400
    starts = np.array([g[0] for g in periodic_gaps(e, p, k, phase)])
    lengths = np.full(k, e)
    run = phase + k * p
    grid = lb.window_grid(max(1, p // 50), run // 3, 20)
    grid = np.unique(np.concatenate((grid, [p - 1, p, p + 1, e, e + 1, 2 * p + e, 2 * p + e - 1])))
    grid = grid[(grid > 0) & (grid <= run // 3)]
    got = lb.demand(starts, lengths, grid)
    want = lb.periodic_demand(e, p, grid)
    bad = [(int(d), int(a), int(b)) for d, a, b in zip(grid, got, want) if a != b]
    assert not bad, bad[:10]


def test_demand_matches_bruteforce_on_random_traces():
    rng = np.random.default_rng(13)
    for trial in range(40):
        n = int(rng.integers(1, 40))
        lengths = rng.integers(1, 5000, n)
        spaces = rng.integers(0 if trial % 3 else 1, 20000, n)
        starts = np.cumsum(spaces + np.concatenate(([0], lengths[:-1])))
        end = int(starts[-1] + lengths[-1])
        deltas = np.unique(np.concatenate((rng.integers(1, end + 1, 15), [1, end])))
        got = lb.demand(starts, lengths, deltas)
        want = lb.demand_bruteforce(starts.tolist(), lengths.tolist(), deltas.tolist())
        assert (got == want).all(), (trial, starts.tolist(), lengths.tolist(),
                                      [(int(d), int(a), int(b)) for d, a, b in zip(deltas, got, want) if a != b])


def test_demand_is_exact_not_sampled():
    """Two gaps whose best window is anchored at neither a grid point nor
    0: 30 in [1000, 1030) and 50 in [1040, 1090); windows of 60 hold at most
    20 + 40... the best is [1030, 1090): 50, or [1010, 1070): 20+30=50,
    and of 90: all 80."""
    s, l = np.array([1000, 1040]), np.array([30, 50])
    assert lb.demand(s, l, [60, 89, 90, 10])[[0, 2, 3]].tolist() == [50, 80, 10]
    assert lb.demand(s, l, [89])[0] == 79


def test_empty_trace_has_no_demand():
    assert lb.demand([], [], [10, 100]).tolist() == [0, 0]


def test_staircase_and_grid():
    st = lb.staircase([0.5, 0.9, 0.2, 0.3, 0.1])
    assert st.tolist() == [0.9, 0.9, 0.3, 0.3, 0.1]
    g = lb.window_grid(10_000, 10**9, 10)
    assert g[0] == 10_000 and g[-1] == 10**9 and len(g) == 51
    for d in (10**5, 10**6, 10**7, 10**8):
        assert d in g
    assert (np.diff(g) > 0).all()


def test_hour_of_gaps_in_seconds():
    """1.2 million gaps over an hour (a 250 Hz tick plus the modem's 80 Hz
    interrupt), the full grid: seconds, not minutes (generous on a shared
    2-core machine)."""
    rng = np.random.default_rng(1)
    n = 1_200_000
    lengths = rng.integers(500, 20_000, n)
    spaces = rng.integers(100, 5_800_000, n)
    starts = np.cumsum(spaces + np.concatenate(([0], lengths[:-1])))
    assert starts[-1] > 3000e9
    grid = lb.window_grid(10_000, 10**9, 10)
    t = time.monotonic()
    lb.demand(starts, lengths, grid)
    took = time.monotonic() - t
    print("demand of %d gaps, %d windows: %.2f s" % (n, len(grid), took))
    assert took < 60, took


# ---------------------------------------------------------------- fit

@pytest.mark.parametrize("u,p", [(0.1472, 12_500_000), (0.02, 1_000_000), (0.5, 40_000)])
def test_fit_of_a_known_hyperbola_returns_it(u, p):
    e = u * p
    grid = lb.window_grid(10_000, 10**11, 10).astype(float)
    pts = lb.hyperbolic_load(u, p, e, grid)
    f = lb.fit_hyperbola(grid, pts)
    assert f["u"] == pytest.approx(u, rel=2e-3)
    assert f["p_ns"] == pytest.approx(p, rel=1e-2)
    assert f["e_ns"] == pytest.approx(e, rel=1e-2)


def test_fit_lies_above_and_touches():
    """Points on a hyperbola and a cloud below it: the fit lies on or above
    every point and touches one; with points lower in the cloud only, the
    period is smaller."""
    rng = np.random.default_rng(7)
    grid = lb.window_grid(10_000, 10**9, 10).astype(float)
    top = lb.hyperbolic_load(0.1, 5e6, 5e5, grid)
    load = top * rng.uniform(0.3, 1.0, len(grid))
    load[-1] = top[-1]
    load[17] = top[17]
    f = lb.fit_hyperbola(grid, load)
    h = lb.hyperbolic_load(f["u"], f["p_ns"], f["e_ns"], grid)
    assert (h >= load).all()
    assert np.isclose(h, load, rtol=1e-9).any()
    assert f["e_ns"] == pytest.approx(f["u"] * f["p_ns"])
    assert f["p_ns"] <= 5e6 * 1.0001


def test_fit_of_the_periodic_interferer_covers_its_refined_bound():
    e, p = 1_840_000, 12_500_000
    grid = lb.window_grid(10_000, 10**9, 10)
    load = lb.periodic_load(e, p, grid)
    f = lb.fit_hyperbola(grid, load)
    assert f["u"] == pytest.approx(e / p, rel=0.02)
    assert (lb.hyperbolic_load(f["u"], f["p_ns"], f["e_ns"], grid) >= load * (1 - 1e-12)).all()


def test_fit_degenerate_cases():
    g = np.array([1e4, 1e5, 1e6])
    assert lb.fit_hyperbola(g, [0, 0, 0])["u"] == 0
    assert lb.fit_hyperbola(g, [1, 1, 1])["u"] == 1
    f = lb.fit_hyperbola(g, [0.2, 0.2, 0.2])
    assert f["u"] == pytest.approx(0.2) and f["p_ns"] == pytest.approx(0)


# ---------------------------------------------------------------- schedulability

def test_schedulability_hand_worked():
    """Bound u=0.2, p=10 ms, e=2 ms above both tasks.
    A (e 1, p=d 5 ms, prio 20): 0.2 (1 + 8/5) = 0.52; 1/5 + 0.52 = 0.72:
      admitted, largest e = 5 (1 - 0.52) = 2.4 ms.
    B (e 4, p=d 20 ms, prio 10): bound 0.2 (1 + 8/20) = 0.28, A refined at
      20 ms: (4 x 1 + min(1, 0)) / 20 = 0.2; 4/20 + 0.48 = 0.68: admitted,
      largest e = 20 (1 - 0.48) = 10.4 ms.
    C (e 12, p=d 20 ms, prio 10) instead of B: 0.6 + 0.48 = 1.08: refused."""
    b = [lb.Bound("drv", 0.2, 10e6, 2e6)]
    A = lb.Task("A", 1e6, 5e6, 5e6, 20)
    B = lb.Task("B", 4e6, 20e6, 20e6, 10)
    C = lb.Task("C", 12e6, 20e6, 20e6, 10)
    r = {x["task"]: x for x in lb.schedulability([A, B], b)}
    assert r["A"]["total"] == pytest.approx(0.72) and r["A"]["admitted"]
    assert r["A"]["max_e_us"] == pytest.approx(2400)
    assert r["B"]["load_above"] == pytest.approx(0.48) and r["B"]["total"] == pytest.approx(0.68)
    assert r["B"]["admitted"] and r["B"]["max_e_us"] == pytest.approx(10400)
    r = {x["task"]: x for x in lb.schedulability([A, C], b)}
    assert r["C"]["total"] == pytest.approx(1.08) and not r["C"]["admitted"]
    assert r["C"]["max_e_us"] == pytest.approx(10400)
    # a bound measured at priority 15 is above B, not above A
    r = {x["task"]: x for x in lb.schedulability([A, B], [lb.Bound("drv", 0.2, 10e6, 2e6, 15)])}
    assert r["A"]["load_above"] == 0 and r["B"]["load_above"] == pytest.approx(0.48)


def test_sched_cli(tmp_path):
    tasks = tmp_path / "tasks.csv"
    tasks.write_text("name,e,p,d,prio\nA,1000,5000,5000,20\nC,12000,20000,20000,10\n")
    r = run_tool("sched", str(tasks), "--bound", "0.2,10ms,2ms", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    js = json.loads((tmp_path / "o/sched.json").read_text())
    assert [t["admitted"] for t in js["tasks"]] == [True, False]
    assert "| C |" in r.stdout and "NO" in r.stdout


# ---------------------------------------------------------------- the command

def run_tool(*args):
    return subprocess.run([PY, str(TOOL)] + list(args), capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, LOADBOUND_DEBUG=""))


def test_help():
    r = run_tool("--help")
    assert r.returncode == 0 and "analyse" in r.stdout and "sched" in r.stdout
    r = run_tool("analyse", "--help")
    assert r.returncode == 0 and "--grid-max" in r.stdout


@pytest.mark.parametrize("fmt", ["text", "bin"])
def test_analyse_cli_periodic(tmp_path, fmt):
    e, p = 1_840_000, 12_500_000
    tr = write_trace(tmp_path / ("per.%s" % fmt), periodic_gaps(e, p, 200), 200 * p, fmt)
    r = run_tool("analyse", str(tr), "--grid-max", "1s", "--periodic", "1840us,12.5ms",
                 "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o/summary.json").read_text())["runs"][0]
    assert s["demand_ns"] == s["periodic"]["demand_ns"]
    assert s["fit"]["u"] == pytest.approx(e / p, rel=0.02) and s["fit_above_all"]
    assert (tmp_path / "o/per.png").stat().st_size > 10_000
    assert "| per |" in (tmp_path / "o/table.md").read_text()


def test_baseline_subtraction_recovers_the_driver(tmp_path):
    """The study's subtractive step on a known mix: a tick (5 us every 4 ms)
    alone as the baseline, the tick plus a driver (1 ms every 10 ms) as the
    run.  Window by window the difference lies between the driver's own
    demand less the tick's and the driver's own demand; its fit has the
    driver's utilisation and lies above every point; the CLI writes it."""
    tick = periodic_gaps(5_000, 4_000_000, 500, phase=1_000)
    drv = periodic_gaps(1_000_000, 10_000_000, 200, phase=2_500_000)
    run = 2 * 10**9
    both = sorted(tick + drv)
    assert all(a[0] + a[1] <= b[0] for a, b in zip(both, both[1:]))
    base = write_trace(tmp_path / "idle.txt", tick, run)
    mix = write_trace(tmp_path / "mix.txt", both, run)
    grid = lb.window_grid(10_000, run // 2, 10)
    sb = lb.analyse_trace(lb.read_trace(base), grid)
    sm = lb.analyse_trace(lb.read_trace(mix), grid)
    lb.subtract_baseline(sm, sb)
    dv = sm["driver"]
    own = lb.periodic_demand(1_000_000, 10_000_000, grid)
    got = np.array(dv["demand_ns"])
    assert (got <= own).all() and (got >= own - np.array(sb["demand_ns"])).all()
    assert dv["fit"]["u"] == pytest.approx(0.1, rel=0.02) and dv["fit_above_all"]
    assert sm["fit"]["u"] > dv["fit"]["u"]
    r = run_tool("analyse", str(mix), "--baseline", str(base), "--grid-max", "1s", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    out = json.loads((tmp_path / "o/summary.json").read_text())["runs"][0]
    assert out["driver"]["baseline"] == "baseline-idle"
    assert "the driver's own" in (tmp_path / "o/table.md").read_text()
    other = dict(sb, grid_ns=sb["grid_ns"][:-1])
    with pytest.raises(lb.LoadBoundError, match="different window grids"):
        lb.subtract_baseline(sm, other)


def _bad_cases(tmp):
    (tmp / "garbage").write_text("hello world\n1 2\n")
    (tmp / "empty").write_text("")
    write_trace(tmp / "zero", [], 0)
    write_trace(tmp / "short", [(100, 50)], 500_000_000)
    write_trace(tmp / "overlap", [(100, 50), (120, 10)], 10**9)
    write_trace(tmp / "neg", [(100, -5)], 10**9)
    write_trace(tmp / "bin", [(100, 50), (300, 10)], 10**9, "bin")
    (tmp / "trunc").write_bytes((tmp / "bin").read_bytes()[:-3])
    Path(tmp / "badrow").write_text("# lbprobe 1\n# duration_ns 1000000000\n100 x\n")
    (tmp / "tasks.json").write_text(json.dumps([{"name": "T", "e": 6000, "p": 10000, "d": 5000,
                                                 "prio": 10}]))
    (tmp / "ok.json").write_text(json.dumps({"tasks": [{"e": 1000, "p": 10000, "prio": 10}]}))
    return [
        (["analyse", str(tmp / "missing.txt")], "cannot read trace"),
        (["analyse", str(tmp / "garbage")], "not a trace"),
        (["analyse", str(tmp / "bin"), "--baseline", str(tmp / "garbage")], "not a trace"),
        (["analyse", str(tmp / "empty")], "empty run"),
        (["analyse", str(tmp / "zero")], "empty run"),
        (["analyse", str(tmp / "short")], "the run lasted"),
        (["analyse", str(tmp / "overlap")], "sorted and disjoint"),
        (["analyse", str(tmp / "neg")], "length -5"),
        (["analyse", str(tmp / "trunc")], "truncated"),
        (["analyse", str(tmp / "badrow")], "not 'start_ns length_ns'"),
        (["analyse", str(tmp / "bin"), "--grid-min", "1s", "--grid-max", "1ms"], "not below"),
        (["analyse", str(tmp / "bin"), "--grid-max", "soon"], "bad time"),
        (["sched", str(tmp / "tasks.json"), "--bound", "0.1,10ms,1ms"], "e (6000 us) > d (5000 us)"),
        (["sched", str(tmp / "missing.json"), "--bound", "0.1,10ms,1ms"], "cannot read tasks"),
        (["sched", str(tmp / "ok.json")], "no interference bounds"),
        (["sched", str(tmp / "ok.json"), "--bound", "2,10ms,1ms"], "u must be within"),
        (["sched", str(tmp / "garbage"), "--bound", "0.1,10ms,1ms"], "has no e"),
    ]


def test_bad_input_one_line_and_exit_1(tmp_path):
    for args, msg in _bad_cases(tmp_path):
        r = run_tool(*args, "--out", str(tmp_path / "o"))
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        err = r.stderr.strip()
        assert "Traceback" not in err and len(err.splitlines()) == 1, (args, err)
        assert err.startswith("loadbound: error: ") and msg in err, (args, err)


def test_usage_error_exit_2():
    r = run_tool("analyse")
    assert r.returncode == 2 and "Traceback" not in r.stderr


# ---------------------------------------------------------------- osnoise

OSNOISE = """# lbosnoise 1
# cpu 0
# prio 40
# policy fifo
# threshold_ns 1000
# kernel 6.1.0-56-rt-amd64
# tracer: osnoise
#
           <...>-250     [000] .....   101.000000: tracing_mark_write: lbosnoise start
     osnoise/0-201     [000] d.h..   101.000100: irq_noise: local_timer:236 start 101.000095123 duration 4000 ns
     osnoise/0-201     [000] .....   101.000110: sample_threshold: start 101.000095000 duration 5912 ns interference 1
     osnoise/0-201     [000] .....   101.500000: sample_threshold: start 101.499000000 duration 1000000 ns interference 2
     osnoise/0-201     [000] .....   102.500000: sample_threshold: start 102.500000000 duration 10 ns interference 1
           <...>-250     [000] .....   102.000000: tracing_mark_write: lbosnoise stop
"""


def test_osnoise_trace_is_read(tmp_path):
    p = tmp_path / "os.txt"
    p.write_text(OSNOISE)
    tr = lb.read_trace(p)
    assert tr.kind == "osnoise" and tr.duration_ns == 10**9
    assert tr.starts.tolist() == [95_000, 499_000_000] and tr.lengths.tolist() == [5912, 1_000_000]
    s = lb.analyse_trace(tr, lb.window_grid(10_000, 10**9, 10))
    assert s["demand_ns"][-1] == 1_005_912


def test_osnoise_without_markers_is_refused(tmp_path):
    p = tmp_path / "os.txt"
    p.write_text("\n".join(x for x in OSNOISE.splitlines() if "lbosnoise stop" not in x))
    r = run_tool("analyse", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 1 and "markers" in r.stderr


# ---------------------------------------------------------------- the probe

@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("probe") / "lbprobe"
    r = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe),
                        str(TOP / "tools/loadbound/probe.c")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.parametrize("fmt", ["text", "bin"])
def test_probe_runs_here_and_is_analysed(probe, tmp_path, fmt):
    """0.5 s at SCHED_OTHER (--other: no real-time rights needed, nothing
    hogs a CPU of this shared machine): a trace the analysis reads."""
    out = tmp_path / "run.lbp"
    cpu = min(os.sched_getaffinity(0))
    r = subprocess.run([str(probe), "--other", "-c", str(cpu), "-d", "0.5", "-f", fmt, "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    tr = lb.read_trace(out)
    h = tr.header
    assert h["policy"] == "other" and h["cpu"] == str(cpu) and h["kernel"] == os.uname().release
    assert float(h["loop_ns"]) > 0 and int(h["threshold_ns"]) > float(h["loop_ns"])
    assert 0.5e9 <= tr.duration_ns < 5e9
    assert int(h["interference_ns"]) == int(tr.lengths.sum())
    s = lb.analyse_trace(tr, lb.window_grid(10_000, 250_000_000, 10))
    assert s["fit_above_all"] and len(s["demand_ns"]) == len(s["grid_ns"])
    assert all(a <= b for a, b in zip(s["demand_ns"], s["demand_ns"][1:]))


def _as_nobody(args, memlock=None):
    """args run as uid 65534 without capabilities, RLIMIT_RTPRIO 0 and, if
    given, a lower RLIMIT_MEMLOCK (as root; otherwise we are already
    unprivileged and only the limits are set)."""
    import resource
    pre = ["prlimit", "--rtprio=0:0"]
    if memlock is not None:
        hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)[1]
        if hard != resource.RLIM_INFINITY:
            memlock = min(memlock, hard)
        pre.append("--memlock=%d:%d" % (memlock, memlock))
    if os.geteuid() == 0:
        pre += ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all"]
    return subprocess.run(pre + args, capture_output=True, text=True, timeout=60)


def test_probe_refuses_without_its_priority(probe, tmp_path):
    probe.chmod(0o755)
    probe.parent.chmod(0o755)
    r = _as_nobody([str(probe), "-p", "40", "-d", "0.1", "-n", "64", "-o", "/dev/null"])
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "refusing to run: cannot get SCHED_FIFO priority 40" in r.stderr, r.stderr


def test_probe_refuses_without_locked_memory(probe):
    probe.chmod(0o755)
    r = _as_nobody([str(probe), "-p", "40", "-d", "0.1", "-n", "10000000", "-o", "/dev/null"], 1 << 16)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "refusing to run: cannot lock memory" in r.stderr, r.stderr


def test_probe_usage_errors(probe):
    for args in (["-p", "0", "-o", "x"], ["-d", "-1", "-o", "x"], ["-f", "xml", "-o", "x"], []):
        r = subprocess.run([str(probe)] + args, capture_output=True, text=True, timeout=10)
        assert r.returncode == 1, (args, r.stderr)
