"""make loadbound-modem and make loadbound-net on smlab.runner, with a fake
guest (smlab.guest.run_guest writing synthetic results): a boot whose guest
fails is tried again once, then reported missing (FAILED in the table, exit
status 1) and never recorded; the next run boots only what is missing, one
after that boots nothing and writes the same report; a changed module runs
again only the boots that carry it.  And a Dask worker finds each tool's
run_piece by its module's name."""
import importlib.util
import json
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools" / "loadbound"))


def load(name):
    spec = importlib.util.spec_from_file_location(name, TOP / "tools" / "loadbound" / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def trace(path, gap_ns, every_ns, seconds=2, prio=40):
    n = int(seconds * 1e9) // every_ns
    head = {"loop_ns": "50", "threshold_ns": "200", "duration_ns": str(int(seconds * 1e9)),
            "cpu": "0", "prio": str(prio), "policy": "fifo", "kernel": "fake", "gaps": str(n)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# lbprobe 1\n" + "".join("# %s %s\n" % kv for kv in head.items())
                    + "".join("%d %d\n" % (1000 + i * every_ns, gap_ns) for i in range(n)))


class FakeGuest:
    """run_guest's stand-in: results as write(results dir, env) makes them;
    the boots named in fail fail."""

    def __init__(self, write):
        self.write, self.fail, self.boots = write, set(), []
        self.lock = threading.Lock()

    def __call__(self, kver, script, out, env=None, **kw):
        name = Path(out).name
        with self.lock:
            self.boots.append(name)
        if name in self.fail:
            return SimpleNamespace(ok=False, rc=1, timed_out=False, console=Path(out) / "console.log")
        self.write(Path(out) / "results", env)
        return SimpleNamespace(ok=True, rc=0, timed_out=False, console=Path(out) / "console.log")


def fake_exe(out, *src):
    """build_probe(out) or build_static(src, exe) (built once, as it)."""
    exe = Path(out) if src else Path(out) / "lbprobe"
    exe.parent.mkdir(parents=True, exist_ok=True)
    if not exe.exists():
        exe.write_bytes(b"\x7fELF fake")
    return exe


@pytest.fixture
def guest(monkeypatch):
    import smlab.guest
    monkeypatch.delenv("FORCE", raising=False)
    monkeypatch.delenv("SCHEDULER", raising=False)

    def install(write):
        g = FakeGuest(write)
        monkeypatch.setattr(smlab.guest, "run_guest", g)
        return g
    return install


def outputs(out):
    summ = json.loads((out / "summary.json").read_text())
    summ.pop("wall_s")
    return summ, (out / "table.md").read_text()


def test_modem_experiment(tmp_path, monkeypatch, guest):
    exp = load("experiment")
    monkeypatch.setattr(exp, "available_kernels", lambda: ["kA"])
    monkeypatch.setattr(exp, "TOP", tmp_path)
    monkeypatch.setattr(exp, "build_probe", fake_exe)
    ko = tmp_path / "build" / "kA" / "smodem.ko"
    ko.parent.mkdir(parents=True)
    ko.write_bytes(b"module 1")

    def write(res, env):
        if env["LB_CONTEXT"] == "control":
            trace(res / "probe.txt", 5_000, 4_000_000)
        else:
            trace(res / "probe.txt", 1_840_000 if env["LB_CONTEXT"] == "int" else 20_000, 12_500_000)
            (res / "stats.txt").write_text("proc_ns_avg 1840000\nexec %s\nperiods 160\noverruns 0\n"
                                           % env["LB_CONTEXT"])
    g = guest(write)
    out = tmp_path / "out"
    args = ["--kernels", "kA", "--contexts", "int thr", "--duration", "2", "--jobs", "2",
            "--no-osnoise", "--out", str(out)]
    g.fail = {"kA-thr"}
    assert exp.main(args) == 1
    assert sorted(g.boots) == ["kA-control", "kA-int", "kA-thr", "kA-thr"]
    rec = [json.loads(x) for x in (out / "record.jsonl").read_text().splitlines()]
    assert sorted(x["key"] for x in rec) == ["kA-control", "kA-int"]
    assert all(x["host"]["wall_s"] >= 0 and "wall_s" not in x["figures"] for x in rec)
    summ, tab = outputs(out)
    assert [r["name"] for r in summ["runs"]] == ["kA-control", "kA-int"]
    assert [f["context"] for f in summ["failed"]] == ["kA-thr"]
    assert "\nFAILED:\n- kA kA-thr: PieceFailed: kA thr: guest failed" in tab

    g.fail, g.boots = set(), []
    assert exp.main(args) == 0
    assert g.boots == ["kA-thr"]
    summ, tab = outputs(out)
    assert [r["name"] for r in summ["runs"]] == ["kA-control", "kA-int", "kA-thr"]
    assert summ["failed"] == [] and "FAILED" not in tab
    # the study's subtraction against the control run, the periodic bound beside
    assert summ["runs"][1]["driver"]["baseline"] == "kA-control"
    assert summ["runs"][1]["periodic"] == {"e_ns": 1840000, "p_ns": 12500000,
                                           "demand_ns": summ["runs"][1]["periodic"]["demand_ns"]}
    assert "| kA-int | 1840.0 | int | 160 | 0 |" in tab
    assert all((out / ("%s.png" % n)).stat().st_size > 10_000 for n in ("kA-control", "kA-int", "kA-thr"))

    g.boots = []
    assert exp.main(args) == 0
    assert g.boots == []
    assert outputs(out) == (summ, tab)

    ko.write_bytes(b"module 2")
    assert exp.main(args) == 0
    assert sorted(g.boots) == ["kA-int", "kA-thr"]


def test_net_experiment(tmp_path, monkeypatch, guest):
    nx = load("net_experiment")
    import smlab.netload
    gen, rt = "6.1.0-9-amd64", "6.1.0-9-rt-amd64"
    monkeypatch.setattr(nx, "available_kernels", lambda: [gen, rt])
    monkeypatch.setattr(nx, "kernel_tracers", lambda k: {})
    monkeypatch.setattr(nx, "build_static", lambda src, exe: fake_exe(exe, src))
    monkeypatch.setattr(smlab.netload, "guest_files", lambda k: {})
    # the plots as empty files: test_modem_experiment draws real ones

    def touch(data, png, **kw):
        Path(png).write_bytes(b"")
    for mod, name in ((nx.lb, "plot"), (nx, "plot_exp2"), (nx, "plot_exp3")):
        monkeypatch.setattr(mod, name, touch)
    gaps = {"none": (3_000, 10_000_000), "flood": (30_000, 100_000),
            "flood-noreply": (25_000, 100_000), "sink": (10_000, 100_000)}

    def write(res, env):
        res.mkdir(parents=True)
        (res / "dmesg.txt").write_text("")
        (res / "irq.txt").write_text("irq/11-eth1 fifo 50\n")
        for mode in env["NL_MODES"].split():
            trace(res / mode / "probe.txt", *gaps[mode], seconds=float(env["LB_SECONDS"]))
            (res / mode / "counters-start.txt").write_text("sent 0\n")
            (res / mode / "counters.txt").write_text("sent 100\nicmp_InEchos 90\n")
        if env["LB_TASKS"]:
            (res / "flood" / "tasks.txt").write_text(
                "# lbtasks 1\n# period_us 10000\n"
                + "".join("e2_us %s jobs1 100 missed1 0 jobs2 100 missed2 %d hb_sent 100 "
                          "hb_received 100 hb_lost 0\n" % (e, 0 if e == "1000" else 100)
                          for e in env["LB_TASKS"].split()[1].split(",")))
    g = guest(write)
    out = tmp_path / "net"
    args = ["--flood2-ns", "50000", "--configs", "vanilla rt-high", "--tau2-us", "1000,9000",
            "--duration", "2", "--duration3", "2", "--jobs", "2", "--out", str(out)]
    boots = ["exp2-%s-f50us" % gen, "exp2-%s-f50us" % rt, "exp3-vanilla", "exp3-rt-high"]
    g.fail = {"exp3-rt-high"}
    assert nx.main(args) == 1
    assert sorted(g.boots) == sorted(boots + ["exp3-rt-high"])
    rec = [json.loads(x)["key"] for x in (out / "record.jsonl").read_text().splitlines()]
    assert sorted(rec) == sorted(boots[:3])
    summ, tab = outputs(out)
    assert [c["config"] for c in summ["exp3"]] == ["vanilla"]
    assert [f["boot"] for f in summ["failed"]] == ["exp3-rt-high"]
    assert "FAILED:\n- exp3-rt-high: PieceFailed: exp3-rt-high: guest failed" in tab

    g.fail, g.boots = set(), []
    assert nx.main(args) == 0
    assert g.boots == ["exp3-rt-high"]
    summ, tab = outputs(out)
    assert [c["config"] for c in summ["exp3"]] == ["vanilla", "rt-high"]
    assert [s["name"] for s in summ["exp2"][:4]] == ["net-%s-f50us-%s" % (gen, m) for m in nx.EXP2_MODES]
    # the flood less the sender alone, in the same boot
    assert summ["exp2"][1]["driver"]["baseline"] == "net-%s-f50us-sink" % gen
    assert summ["exp3"][0]["first_miss_u2"] == 0.9 and summ["exp3"][0]["wall_s"] >= 0
    assert (out / "net-exp3.png").exists() and (out / "net-exp2-f50us.png").exists()

    g.boots = []
    assert nx.main(args) == 0
    assert g.boots == []
    assert outputs(out) == (summ, tab)


def test_run_piece_goes_to_a_worker_by_name():
    """A Dask worker (make lab-worker) imports each tool's run_piece by its
    module's name from smlab.runner.WORKER_PATH: the tools run as scripts
    hand it over by that name, not as __main__'s."""
    import os
    import pickle
    import subprocess
    from smlab import runner
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(TOP / d) for d in runner.WORKER_PATH))
    code = ("import pickle, sys; fs = [pickle.loads(bytes.fromhex(x)) for x in sys.argv[1:]]; "
            "print(' '.join(f.__module__ for f in fs))")
    mods = {}
    for name in ("experiment", "net_experiment", "bench_modem"):
        mods[name] = __import__(name)
        assert "import %s\n    sys.exit(%s.main())" % (name, name) in Path(mods[name].__file__).read_text()
    r = subprocess.run([sys.executable, "-c", code] + [pickle.dumps(m.run_piece).hex() for m in mods.values()],
                       env=env, cwd="/", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == list(mods)
