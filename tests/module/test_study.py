"""make study QUICK=1 (tools/study.py): the soft-modem study's reduced grid
on the 6.1 generic kernel, virtual clock, and the shapes that must hold:
INT, DPC (and RES: a deadline reservation outranks every fixed priority)
delay the 1 ms task by about the processing time, THR at SCHED_FIFO and
the IRQ thread do not; calls in INT, THR and RES 2/8 move their bytes; the SCHED_OTHER thread at nice 19 loses its call to
the spinner with the buffers overrunning; 400 interrupts per second on hook
and 80 from dialling on; the reservation cells agree with the model except
where the report explains why.  Then a small grid again with JOBS=1 gives
the same figures, and a second run of the quick grid runs nothing.  The
real V.34 pump's call (THR, no emulated load) connects on V.34, moves its
bytes, costs the CPU of a real pump and stands beside the emulated row.  The
record (smlab.runner's, record.jsonl): a sorted line per piece, its figures
apart from the host's wall times and paths; a piece whose line is lost runs
alone; --report-only draws the figures as recorded, under whatever digests.
The small grid through a Dask scheduler whose two workers share no paths
with this checkout runs from a bundle and gives the quick grid's figures.

Cost: 20 guests (the quick grid's 15, the small grid's 2 at JOBS=1 and 2
through the scheduler, one piece run again from the record); the quick
grid's V.34 pump call is 36 s of guest time, 19 s of wall time alone; the
file took 6.1 min of wall time (1.8 min of QEMU's CPU), 15.6 min beside a
two-guest study run (2026-11-29).  Before
the pump call, 19 guests: 3.9-5.0 min of
wall time (3.0 min of QEMU's CPU) alone on the 2-core lab machine without
the scheduler's (2026-11-29), 7.9 min (3.4 min of QEMU's CPU) with them in a
busier session, of which the scheduler's two guests 49 s; 16 guests took 7.6
min (4.9 min of QEMU's CPU) in make check (2026-11-28).
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools"))
import study  # noqa: E402
from smlab.image import default_kernel_name  # noqa: E402

# Debian's present 6.1 generic ABI (make deps installs it)
KERNEL = default_kernel_name()

PY = str(TOP / "build/venv/bin/python")


def run(*args, timeout=3000):
    r = subprocess.run([PY, str(TOP / "tools/study.py")] + list(args), capture_output=True,
                       text=True, timeout=timeout, cwd=str(TOP))
    print(r.stdout[-4000:], r.stderr[-3000:])
    return r


# -- no boot --------------------------------------------------------------------------
def test_bh_wq_and_rt_from_the_release():
    assert not study.has_bh_wq("6.1.0-56-amd64") and study.has_bh_wq("6.12.117+deb12-amd64")
    assert study.is_rt("6.1.0-56-rt-amd64") and not study.is_rt("6.12.117+deb12-amd64")


def test_phase_table_weights_by_time():
    t = study.phase_table([{"phase": "a", "dur_s": 1.0, "irqs_per_s": 400, "cpu_pct": 1.0},
                           {"phase": "b", "dur_s": 3.0, "irqs_per_s": 80, "cpu_pct": 2.0},
                           {"phase": "a", "dur_s": 3.0, "irqs_per_s": 80, "cpu_pct": 3.0}])
    assert t["a"] == {"dur_s": 4.0, "irqs_per_s": 160.0, "cpu_pct": 2.5}
    assert t["b"]["irqs_per_s"] == 80.0


def test_loghist_bins():
    h = study._loghist([1_000, 1_100, 1_840_000, 1_850_000])
    assert h == {"1.0": 2, "1778.279": 2}


def test_host_fields_apart():
    figs, host = study.host_apart({"ok": True, "boot": {"wall_s": 9.5, "out": "/x", "rc": 0},
                                   "params": {"module": "/m", "load_us": 1}, "call_wall_s": 3.0,
                                   "guest": {"kvm": False, "timed_out": False},
                                   "phases": [{"t_s": 1, "wall_s": 2}]})
    assert figs == {"ok": True, "boot": {"rc": 0}, "params": {"load_us": 1},
                    "guest": {"timed_out": False}, "phases": [{"t_s": 1}]}
    assert host == {"boot.wall_s": 9.5, "boot.out": "/x", "params.module": "/m", "call_wall_s": 3.0,
                    "guest.kvm": False, "phases.0.wall_s": 2}


def _quick_args(out, **kw):
    import argparse
    a = dict(out=str(out), guest_append="", contexts=study.QUICK_CONTEXTS, parts=study.PARTS,
             duration=2, quick=True, nbytes=1024, versions=study.QUICK_VERSIONS, tries=1,
             cells=[(1, 16), (4, 17)], resmap_bytes=1024, pump_bytes=1024,
             pump_versions=study.QUICK_PUMP_VERSIONS)
    a.update(kw)
    return argparse.Namespace(**a)


def test_the_plan_as_pieces(tmp_path):
    """The quick grid's pieces: plain data (a Dask worker gets them
    pickled), one key each, the comparisons and the first calls first."""
    import pickle
    k = KERNEL
    ps = study.plan(_quick_args(tmp_path), [k])
    assert len(ps) == 15 and len({p.key for p in ps}) == 15
    assert [p.kind for p in ps[:7]] == ["compare"] * 6 + ["phase"]
    assert ps[-1].key == k + ":resmap:1/16" and ps[0].key == k + ":compare:control"
    assert pickle.loads(pickle.dumps(ps)) == ps
    t = next(p for p in ps if p.kind == "transfer")
    assert t.get("out") == str(tmp_path / k) and t.get("args") == ()
    assert [p.key for p in ps if p.kind == "pump"] == [k + ":pump:THR#0"]
    pu = next(p for p in ps if p.kind == "pump")
    assert pu.get("mod") == "v34" and pu.get("args") == ("prio=50",) and pu.get("nbytes") == 1024


def test_the_pump_part_plans_the_transfer_s_versions_and_tries(tmp_path):
    """Full grid: every version the kernel has, TRIES each, the bytes
    scaled; first tries before further ones; STUDY_PARTS without pump
    plans none."""
    k = KERNEL
    names = [v[0] for v in study.VERSIONS]
    a = _quick_args(tmp_path, parts=["pump"], quick=False, versions=names, pump_versions=names,
                    tries=3, pump_bytes=study.PUMP_SCALE * 10240)
    ps = study.plan(a, [k])
    assert {p.kind for p in ps} == {"pump"}
    assert len(ps) == 3 * (len(names) - 1)     # no BHW before 6.9
    assert all(p.get("nbytes") == 143360 and p.get("mod") == "v34" for p in ps)
    assert [p.get("try_") for p in ps[:len(names) - 1]] == [0] * (len(names) - 1)
    assert len(study.plan(a, ["6.12.117+deb12-amd64"])) == 3 * len(names)
    assert not [p for p in study.plan(_quick_args(tmp_path, parts=["transfer"]), [k]) if p.kind == "pump"]


def _call(ok, transfer_s, connect, overruns=0, cpu=14.0):
    return {"ok": ok, "transfer_s": transfer_s, "connect": connect, "overruns": overruns,
            "why": None if ok else "line: failed", "setup_s": 19.0, "stats": {"dropped": 0},
            "figures_trace": {"pending": {"summary": {"max": 50}, "hist": {"4": 10}},
                              "phases": [{"phase": "connected", "dur_s": 2.0, "irqs_per_s": 80,
                                          "cpu_pct": cpu}]}}


def test_pump_rows_beside_the_emulated_ones(tmp_path):
    """A version's tries as a row: mean and sd over the calls that moved
    their bytes, CONNECT's rates counted, the emulated row beside it."""
    k = KERNEL
    res = {"transfer": {"THR#0": _call(True, 36.0, "CONNECT 2400"), "THR#1": _call(True, 38.0, None)},
           "pump": {"THR#0": _call(True, 43.0, "CONNECT 33600"), "THR#1": _call(True, 45.0, "CONNECT 31200"),
                    "THR#2": _call(False, None, "CONNECT 33600/ARQ", overruns=3),
                    "THR#10": _call(False, None, None),
                    "RES 1/8#0": _call(False, None, None)}}
    a = _quick_args(tmp_path, versions=["THR", "RES 1/8"], pump_versions=["THR", "RES 1/8", "BHW"])
    s = study.summarise(k, res, a)
    thr = next(t for t in s["pump"] if t["version"] == "THR")
    assert (thr["ok"], thr["tries"], thr["mean_s"], thr["sd_s"]) == (2, 4, 44.0, 1.0)
    assert thr["connect"] == {"33600": 2, "31200": 1} and thr["overruns"] == 3
    assert thr["emulated"] == {"tries": 2, "ok": 2, "mean_s": 37.0, "sd_s": 1.0}
    assert thr["failures"] == ["line: failed", "line: failed"]
    low = next(t for t in s["pump"] if t["version"] == "RES 1/8")
    assert low["ok"] == 0 and low["mean_s"] is None and low["emulated"] is None and low["connect"] == {}
    assert "connect" not in s["transfer"][0]
    md = "\n".join(study.pump_markdown(s["pump"]))
    assert "| THR | 2/4 | 44.00 | 1.00 | 33600 x2, 31200 x1 | 14.0 % | 3 | 50 | 2/2 | 37.00 | 1.00 |" in md
    assert "| RES 1/8 | 0/1 | - | - | none |" in md


def test_the_digest_follows_a_piece_s_own_settings(tmp_path):
    k = KERNEL
    if not (TOP / "build" / k / "smodem.ko").is_file():
        pytest.skip("make module")
    dig = study.Digests()
    one = {p.key: dig(p) for p in study.plan(_quick_args(tmp_path), [k])}
    two = {p.key: dig(p) for p in study.plan(_quick_args(tmp_path / "elsewhere", duration=3), [k])}
    assert [x for x in one if one[x] != two[x]] == [x for x in one if ":compare:" in x]
    # the pump part's own: its bytes move its pieces alone, and its call is not the transfer's
    three = {p.key: dig(p) for p in study.plan(_quick_args(tmp_path, pump_bytes=2048), [k])}
    assert [x for x in one if one[x] != three[x]] == [k + ":pump:THR#0"]
    assert one[k + ":pump:THR#0"] != one[k + ":transfer:THR#0"]


@pytest.mark.parametrize("args, msg", [
    (["--versions", "THR-9"], "unknown version"), (["--contexts", "xyz"], "unknown context"),
    (["--cells", "9/3"], "0 < X < Y"), (["--kernels", "5.0-nope"], "not installed"),
    (["--parts", "compare bogus"], "--parts")])
def test_bad_options_refused_in_one_line(tmp_path, args, msg):
    r = run("--quick", "1", "--out", str(tmp_path), *args, timeout=60)
    assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr


# -- the quick grid -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from smlab.guest import default_kernel
    k = default_kernel()
    assert k, "no 6.1 generic kernel installed: make deps"
    for f in (TOP / "build" / k / "smodem.ko", TOP / "build/line/smline"):
        assert f.is_file(), "%s missing: make module line" % f
    out = tmp_path_factory.mktemp("study")
    r = run("--quick", "1", "--kernels", k, "--jobs", "2", "--out", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads((out / "report.json").read_text())
    return out, k, rep, rep["kernels"][k], r.stdout


def _cmp(s, ctx):
    return next(r for r in s["compare"] if r["context"] == ctx)


def _tr(s, ver):
    return next(t for t in s["transfer"] if t["version"] == ver)


def test_report_and_figures(quick):
    out, k, rep, s, stdout = quick
    md = (out / "report.md").read_text()
    for head in ("Figs 2, 4, 8", "Figs 1 and 3", "Tables 1 and 2", "real V.34 pump", "Table 3, Fig 17"):
        assert head in md
    for png in rep["meta"]["figures"]:
        assert (out / png).stat().st_size > 10_000, png
    assert len(rep["meta"]["figures"]) == 5
    n = rep["meta"]["pieces"]
    assert "min left" in stdout and "[runner] %d/%d done (0 reused)" % (n, n) in stdout


def test_the_record(quick):
    """One line per piece, sorted by key; the figures hold nothing of the
    host (wall times, paths), the host entry holds it."""
    out, k, rep, _, _ = quick
    lines = [json.loads(x) for x in (out / "record.jsonl").read_text().splitlines()]
    assert len(lines) == rep["meta"]["pieces"] == 15
    assert [x["key"] for x in lines] == sorted(x["key"] for x in lines)
    for x in lines:
        assert set(x) == {"schema", "key", "kind", "kernel", "digest", "figures", "host"}
        assert x["kernel"] == k and x["key"].startswith("%s:%s:" % (k, x["kind"]))
        text = json.dumps(x["figures"])
        assert "wall_s" not in text and str(out) not in text, x["key"]
        assert x["host"]["piece_wall_s"] > 0
        assert x["host"].get("boot.wall_s") or x["host"].get("guest.wall_s"), x["key"]


def test_the_1ms_task(quick):
    _, _, _, s, _ = quick
    assert _cmp(s, "control")["cyc_max_us"] < 100
    for ctx in ("int", "dpc", "res"):
        r = _cmp(s, ctx)
        assert r["cyc_max_us"] > 0.8 * study.LOAD_US and r["missed_periods"] > 0, r
    for ctx in ("thr", "irqt"):
        r = _cmp(s, ctx)
        assert r["cyc_max_us"] < 100 and r["missed_periods"] == 0, r
    # the processing costs the study's 1.84 ms wherever it runs
    assert _cmp(s, "int")["isr_us"]["avg"] > 1800
    assert _cmp(s, "dpc")["dpc_us"]["avg"] > 1800 and _cmp(s, "dpc")["isr_us"]["avg"] < 20
    assert _cmp(s, "thr")["thread_us"]["avg"] > 1800 and _cmp(s, "thr")["latency_us"]["avg"] < 50
    for ctx in ("int", "dpc", "thr", "res", "irqt"):
        assert _cmp(s, ctx)["pending_max"] < 64 and not _cmp(s, ctx)["overruns"], ctx
    assert _cmp(s, "bhw")["refused"]


def test_phases(quick):
    _, _, _, s, _ = quick
    pc = s["phase_call"]
    assert pc["ok"], pc
    ph = pc["phases"]
    assert abs(ph["on-hook"]["irqs_per_s"] - 400) < 20, ph
    for name in ("dialing", "waiting", "connected"):
        assert abs(ph[name]["irqs_per_s"] - 80) < 2, (name, ph)
        assert ph[name]["cpu_pct"] < 5, (name, ph)
    thr = _tr(s, "THR")["phases_loaded"]
    assert 14 < thr["connected"]["cpu_pct"] < 17, thr


def test_transfer_table(quick):
    _, _, _, s, _ = quick
    for ver in ("INT", "THR", "RES 2/8"):
        t = _tr(s, ver)
        assert t["ok"] == t["tries"] == 1 and t["overruns"] == 0, t
    t8 = _tr(s, "THR-8")
    assert t8["ok"] == 0 and t8["overruns"] > 0 and t8["pending_max"] > 512, t8
    low = _tr(s, "RES 1/8")
    assert low["ok"] == 0 and low["failures"][0], low
    assert _tr(s, "BHW")["refused"]


def test_the_real_v34_pump(quick):
    """THR's call with the real pump: V.34 at a V.34 rate, the bytes both
    ways, no emulated load, the pump's own CPU in the data phase (the
    study's emulation was 14.7 %, V.22bis's pump costs under 1 %), and the
    transfer table's THR row beside it."""
    out, k, _, s, _ = quick
    t = next(t for t in s["pump"] if t["version"] == "THR")
    assert t["ok"] == t["tries"] == 1 and t["overruns"] == 0 and t["nbytes"] == [1024], t
    assert len(t["connect"]) == 1 and 14400 < int(next(iter(t["connect"]))) <= 33600, t
    assert 5 < t["phases_loaded"]["connected"]["cpu_pct"] < 30, t
    emu = _tr(s, "THR")
    assert t["emulated"] == {x: emu[x] for x in ("tries", "ok", "mean_s", "sd_s")}
    assert [x["version"] for x in s["pump"]] == ["THR"]
    line = next(json.loads(x) for x in (out / "record.jsonl").read_text().splitlines()
                if json.loads(x)["key"] == k + ":pump:THR#0")
    f = line["figures"]
    assert f["load_us"] == 0 and f["spin"] and f["record"]["modulation"] == "V.34", f["record"]
    assert f["stats"]["load_us"] == 0 and f["stats"]["context"] == "thr"


def test_reservation_cells(quick):
    _, _, _, s, _ = quick
    cells = {(r["x_ms"], r["y_ms"]): r for r in s["resmap"]}
    assert set(cells) == {(1, 16), (4, 17)}
    assert not cells[(1, 16)]["works"] and not cells[(1, 16)]["model"]
    assert cells[(4, 17)]["works"] and not cells[(4, 17)]["model"]
    for r in cells.values():
        assert (r["works"] == r["model"]) or r["explained"], r


@pytest.fixture(scope="module")
def small(quick, tmp_path_factory):
    """The small grid again, one guest at a time, keeping a record."""
    _, k, _, _, _ = quick
    out, rec = tmp_path_factory.mktemp("small"), tmp_path_factory.mktemp("record")
    r = run("--quick", "1", "--kernels", k, "--jobs", "1", "--parts", "compare", "--contexts", "int",
            "--out", str(out), "--record", str(rec))
    assert r.returncode == 0
    return out, rec, k


def test_jobs_do_not_change_the_figures(quick, small):
    _, _, _, s, _ = quick
    out, _, k = small
    again = json.loads((out / "report.json").read_text())["kernels"][k]
    a = study.figures_only([_cmp(s, "control"), _cmp(s, "int")])
    b = study.figures_only(again["compare"])
    assert a == b


def test_a_run_goes_on_from_the_record(small, tmp_path):
    """A checkout with no raw files takes the record's pieces whose settings
    match, runs nothing for them, and reports what the first run did; a
    piece missing from the record is named, not drawn, by --report-only."""
    out, rec, k = small
    assert not (out / "record.jsonl").exists()
    lines = (rec / "record.jsonl").read_text().splitlines()
    assert [json.loads(x)["key"] for x in lines] == [k + ":compare:control", k + ":compare:int"]
    args = ["--quick", "1", "--kernels", k, "--parts", "compare", "--contexts", "int", "--record", str(rec)]
    r = run(*args, "--out", str(tmp_path / "fresh"), timeout=300)
    assert r.returncode == 0 and "[runner] 2/2 done (2 reused)" in r.stdout and "study: ran " not in r.stdout
    first = json.loads((out / "report.json").read_text())["kernels"]
    again = json.loads((tmp_path / "fresh" / "report.json").read_text())["kernels"]
    assert study.figures_only(again) == study.figures_only(first)
    try:
        (rec / "record.jsonl").write_text(lines[0] + "\n")
        r = run(*args, "--out", str(tmp_path / "other"), "--report-only", timeout=300)
        assert r.returncode == 0 and "1 of 2 pieces not done yet" in r.stdout
        assert "%s compare int (not recorded)" % k in r.stdout and "Partial report" in r.stdout
    finally:
        (rec / "record.jsonl").write_text("\n".join(lines) + "\n")


def test_report_only_draws_the_figures_as_recorded(quick, tmp_path):
    """A record made by other builds (every digest differs from this
    checkout's): --report-only runs nothing and draws its figures."""
    out, k, rep, _, _ = quick
    (tmp_path / "rec").mkdir()
    lines = [json.loads(x) for x in (out / "record.jsonl").read_text().splitlines()]
    for x in lines:
        x["digest"] = "0" * 64
    (tmp_path / "rec" / "record.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = run("--quick", "1", "--kernels", k, "--report-only", "--record", str(tmp_path / "rec"),
            "--out", str(tmp_path / "out"), timeout=300)
    assert r.returncode == 0 and "[runner]" not in r.stdout and "not done yet" not in r.stdout
    assert "15 of 15 recorded pieces were recorded under other settings" in r.stdout
    again = json.loads((tmp_path / "out" / "report.json").read_text())
    assert study.figures_only(again["kernels"]) == study.figures_only(rep["kernels"])
    assert not (tmp_path / "out" / "record.jsonl").exists()


def test_finished_pieces_are_not_run_again(quick):
    """A second run runs nothing and leaves the record as it was; with one
    line deleted, a run runs that piece alone, and its figures are the
    first run's."""
    out, k, rep, _, _ = quick
    record = out / "record.jsonl"
    before = record.read_text()
    r = run("--quick", "1", "--kernels", k, "--jobs", "2", "--out", str(out), timeout=300)
    assert r.returncode == 0
    n = rep["meta"]["pieces"]
    assert "[runner] %d/%d done (%d reused)" % (n, n, n) in r.stdout and "study: ran " not in r.stdout
    assert record.read_text() == before
    again = json.loads((out / "report.json").read_text())
    assert study.figures_only(again["kernels"]) == study.figures_only(rep["kernels"])
    lost = k + ":compare:control"
    record.write_text("".join(x + "\n" for x in before.splitlines() if json.loads(x)["key"] != lost))
    r = run("--quick", "1", "--kernels", k, "--jobs", "2", "--out", str(out), timeout=600)
    assert r.returncode == 0
    assert "[runner] %d/%d done (%d reused)" % (n, n, n - 1) in r.stdout
    assert r.stdout.count("study: ran ") == 1 and "study: ran %s" % lost in r.stdout
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    assert [x["key"] for x in lines] == sorted(json.loads(x)["key"] for x in before.splitlines())
    old = {json.loads(x)["key"]: json.loads(x) for x in before.splitlines()}
    assert all(x == old[x["key"]] for x in lines if x["key"] != lost)
    assert next(x for x in lines if x["key"] == lost)["digest"] == old[lost]["digest"]
    again = json.loads((out / "report.json").read_text())
    assert study.figures_only(again["kernels"]) == study.figures_only(rep["kernels"])


def test_a_scheduler_s_workers_without_this_checkout_give_the_local_pool_s_figures(
        quick, tmp_path):
    """SCHEDULER= with a scheduler and two lab workers on 127.0.0.1 that
    share no paths with this checkout (SHARED_FS=0, tests/common/apart.py):
    the small grid's two pieces run from the kernel's bundle (received once,
    by one worker process), each stored once, with the local pool's
    figures and settings digests (the quick grid's lines of those pieces)."""
    sys.path.insert(0, str(TOP / "tests/common"))
    from apart import workers
    out, k, _, _, _ = quick
    mine = {x["key"]: x for x in map(json.loads, (out / "record.jsonl").read_text().splitlines())}
    with workers(tmp_path / "apart") as (addr, _, cache):
        r = run("--quick", "1", "--kernels", k, "--parts", "compare", "--contexts", "int",
                "--scheduler", addr, "--out", str(tmp_path / "far"), timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [json.loads(x) for x in (tmp_path / "far" / "record.jsonl").read_text().splitlines()]
    assert [x["key"] for x in lines] == [k + ":compare:control", k + ":compare:int"]
    assert r.stdout.count("study: ran ") == 2
    for x in lines:
        assert x["figures"] == mine[x["key"]]["figures"], x["key"]
        assert x["digest"] == mine[x["key"]]["digest"], x["key"]
        # from the bundle, its raw files in the workers' cache, not here
        assert (cache / "bundles" / x["host"]["bundle"] / ".complete").is_file()
    assert sorted(x["host"]["bundle_was"] for x in lines) == ["cached", "received"]
    assert list((cache / "out").rglob("trace.dat")) and not (tmp_path / "far" / k).exists()
