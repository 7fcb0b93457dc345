"""Workers without the coordinator's files (smlab/bundle.py): a Dask
scheduler and two worker processes on 127.0.0.1 started by make
lab-worker's tools/lab/worker.py with SHARED_FS=0, in a temporary
directory, their bundles cached in a SMODEM_CACHE of their own.  Fake
pieces (runner_pieces.py, no QEMU) run from the bundle: its code, its
copies of the files they name, their outputs under the worker's cache; the
record equals the local pool's; the bundle crosses once and is kept by
digest; a worker SIGKILLed mid-piece takes its piece's process with it and
loses nothing; a worker refuses a piece whose QEMU or bundle is not the one asked
for, saying why; a worker uses the coordinator's paths only where they
hold the bundle's contents; make lab-worker waits for a study's identity.
And SCHEDULER=slurm:N (dask-jobqueue): its job script, and the jobs it asks
of a stand-in sbatch and cancels.  About 30 s, no guest."""
import json
import os
import sys
from pathlib import Path

import pytest

import runner_pieces
from smlab import bundle, runner
from smlab.runner import Piece, Record

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
sys.path.insert(0, str(TOP / "tests/common"))
from apart import workers  # noqa: E402


@pytest.fixture(scope="module")
def apart(tmp_path_factory):
    """(scheduler address, client, the workers' cache)."""
    with workers(tmp_path_factory.mktemp("apart")) as w:
        yield w


def plan(tmp, n=4, **kw):
    return [Piece.make("fake", "k%d" % (i % 2), "p%02d" % i, x=i, dir=str(tmp / "w"), **kw)
            for i in range(n)]


def lines(path):
    Record(path).compact()
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def strip(recs):
    return [{k: v for k, v in x.items() if k != "host"} for x in recs]


def test_pieces_run_from_the_bundle_with_the_local_pools_figures(apart, tmp_path):
    addr, _, cache = apart
    ps = plan(tmp_path)
    local, far = tmp_path / "local.jsonl", tmp_path / "far.jsonl"
    runner.run(ps, runner_pieces.run_piece, local, "d", jobs=2, say=lambda m: None)
    said = []
    rep = runner.run(ps, runner_pieces.run_piece, far, "d", scheduler=addr, retries=0,
                     say=said.append)
    assert rep.complete, (rep.missing, said)
    got = lines(far)
    # every piece stored once, the figures the local pool's
    assert [x["key"] for x in got] == [p.key for p in ps]
    assert strip(got) == strip(lines(local))
    digests = {x["host"]["bundle"] for x in got}
    # one bundle: the kernels k0, k1 have no files here, so theirs are one content
    assert len(digests) == 1, digests
    b = cache / "bundles" / digests.pop()
    assert (b / ".complete").is_file()
    for x in got:
        h = x["host"]
        # the bundle's code, its outputs in the worker's cache, not in the
        # coordinator's directory, run outside the checkout
        assert Path(h["code"]).resolve().is_relative_to(b.resolve()), h
        assert Path(h["dir"]).is_relative_to(cache / "out"), h
        assert not Path(h["cwd"]).is_relative_to(TOP), h
    assert sorted(f.name for f in (tmp_path / "w").iterdir()) == sorted(
        ["%s.%s" % (p.key, e) for p in ps for e in ("pid", "tries")])   # the local run's only
    assert str(os.getpid()) not in {(Path(x["host"]["dir"]) / (x["key"] + ".pid")).read_text()
                                    for x in got}
    # received once (by one worker process; the other found it unpacked)
    assert [x["host"]["bundle_was"] for x in got].count("received") == 1, got
    # again: the bundle is in the cache, nothing crosses
    rep = runner.run(ps, runner_pieces.run_piece, tmp_path / "again.jsonl", "d", scheduler=addr,
                     retries=0, say=lambda m: None)
    assert rep.complete
    assert {x["host"]["bundle_was"] for x in lines(tmp_path / "again.jsonl")} == {"cached"}


def _alive(pid):
    """Running, not a zombie its new parent has not reaped yet."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_worker_killed_mid_piece_loses_nothing(apart, tmp_path):
    """SIGKILL the worker process whose child runs a piece from its bundle:
    the child goes with it, the piece runs again on a worker, and is
    stored once with its figures."""
    import signal
    import threading
    import time
    addr, _, cache = apart
    ps = plan(tmp_path, n=3, sleep_s=2.0)
    w = cache / "out" / ("abs" + str(tmp_path / "w"))
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("rep", runner.run(
        ps, runner_pieces.run_piece, tmp_path / "r.jsonl", "d", scheduler=addr, retries=0,
        say=lambda m: None)))
    t.start()
    deadline = time.monotonic() + 60
    victim = None
    while victim is None and time.monotonic() < deadline:
        pids = sorted(w.glob("*.pid")) if w.is_dir() else []
        if pids:
            victim = (pids[0].stem, int(pids[0].read_text()))
        time.sleep(0.05)
    assert victim, "no piece started"
    with open("/proc/%d/stat" % victim[1]) as f:
        worker = int(f.read().rsplit(")", 1)[1].split()[1])
    os.kill(worker, signal.SIGKILL)
    # the child goes at once, not when its 2 s of work would have ended
    gone = time.monotonic() + 1.0
    while _alive(victim[1]) and time.monotonic() < gone:
        time.sleep(0.02)
    assert not _alive(victim[1]), "the piece's process outlived its worker"
    t.join(180)
    rep = out["rep"]
    assert rep.complete, rep.missing
    assert rep.figures == {p.key: runner_pieces.figures(p) for p in ps}
    assert len((w / (victim[0] + ".tries")).read_text()) >= 2
    assert [x["key"] for x in lines(tmp_path / "r.jsonl")] == [p.key for p in ps]


def test_a_named_file_travels_in_the_bundle(apart, tmp_path):
    """A file a piece names (here outside the checkout) is the bundle's
    copy on the worker: the piece reads it there."""
    addr, _, cache = apart
    f = tmp_path / "input.txt"
    f.write_text("42\n")
    p = Piece.make("fake", "k9", "named", x=2, dir=str(tmp_path / "w"), read=str(f))
    rep = runner.run([p], runner_pieces.run_piece, tmp_path / "r.jsonl", "d", scheduler=addr,
                     retries=0, say=lambda m: None)
    assert rep.complete, rep.missing
    assert rep.figures["named"] == dict(runner_pieces.figures(p), read="42\n")
    where = lines(tmp_path / "r.jsonl")[0]["host"]["read"]
    assert Path(where).is_relative_to(cache / "bundles") and where.endswith(str(f)), where


def test_a_worker_refuses_another_qemu(apart, tmp_path, monkeypatch):
    addr, _, _ = apart
    monkeypatch.setattr(bundle, "qemu_digest", lambda: "f" * 64)
    ps = plan(tmp_path, n=2)
    rep = runner.run(ps, runner_pieces.run_piece, tmp_path / "r.jsonl", "d", scheduler=addr,
                     retries=1, say=lambda m: None)
    assert sorted(rep.missing) == ["p00", "p01"] and rep.attempts == {"p00": 2, "p01": 2}
    for why in rep.missing.values():
        assert "refused by" in why and "QEMU is not the coordinator's" in why, why
    assert not (tmp_path / "r.jsonl").exists() or not Record(tmp_path / "r.jsonl").lines
    assert not (tmp_path / "w").exists()


def test_a_worker_refuses_a_bundle_that_is_not_the_one_asked_for(apart, tmp_path, monkeypatch):
    addr, _, cache = apart
    f = tmp_path / "input.txt"
    f.write_text("the coordinator's\n")
    real = bundle.Bundle.tar

    def tampered(self):
        data = real(self)
        return data.replace(b"the coordinator's\n", b"somebody else's\n")
    monkeypatch.setattr(bundle.Bundle, "tar", tampered)
    p = Piece.make("fake", "k0", "tampered", x=1, dir=str(tmp_path / "w"), read=str(f))
    rep = runner.run([p], runner_pieces.run_piece, tmp_path / "r.jsonl", "d", scheduler=addr,
                     retries=0, say=lambda m: None)
    why = rep.missing.get("tampered", "")
    assert "the bundle received is not" in why and "input.txt" in why, rep
    assert not list((cache / "bundles").glob("*.tmp*"))


def test_moved_paths():
    ref = bundle.Ref(digest="d" * 64, manifest=(), top="/co/top", named=(
        ("/co/top/build/k/smodem.ko", "build/k/smodem.ko"), ("/data/x", "abs/data/x")),
        module="m", module_dir="tools", qemu=None)
    p = Piece.make("s", "k", "a", module="/co/top/build/k/smodem.ko", x="/data/x",
                   out="/co/top/out/study", elsewhere="/tmp/o", null="/dev/null", word="full")
    q = bundle.moved(p, ref, Path("/b"))
    out = bundle.cache_root() / "out"
    assert q.get("module") == "/b/build/k/smodem.ko" and q.get("x") == "/b/abs/data/x"
    assert q.get("out") == str(out / "out/study") and q.get("elsewhere") == str(out / "abs/tmp/o")
    assert q.get("null") == "/dev/null" and q.get("word") == "full"


def test_slurm_job_script():
    """SCHEDULER=slurm:N: each Slurm job is a node's JOBS lab workers, one
    thread each, in the checkout with the tools on PYTHONPATH."""
    from smlab import slurm
    with pytest.raises(ValueError):
        slurm.parse("slurm")
    assert slurm.parse("slurm:3") == 3
    c = slurm.cluster(4, walltime="02:00:00")
    try:
        s = c.job_script()
    finally:
        c.close()
    assert "#SBATCH --cpus-per-task=4" in s and "#SBATCH -t 02:00:00" in s, s
    assert "#SBATCH --mem=8G" in s and "#SBATCH -J smodem-lab" in s, s
    assert "cd %s" % TOP in s and "%s/tools" % TOP in s, s
    assert sys.executable in s and "--nworkers 4" in s and "--nthreads 1" in s, s


def test_shared_only_where_the_coordinator_s_files_are(tmp_path, monkeypatch):
    """A worker uses the coordinator's paths only where they hold the
    bundle's contents, and not when told it shares nothing."""
    f = tmp_path / "input.txt"
    f.write_text("one\n")
    p = Piece.make("fake", "k0", "a", x=1, read=str(f), dir=str(tmp_path / "w"))
    ref = bundle.Bundle("k0", [p], runner_pieces.run_piece).ref
    monkeypatch.delenv("SMLAB_NO_SHARED_FS", raising=False)
    assert bundle.shared(ref)
    monkeypatch.setenv("SMLAB_NO_SHARED_FS", "1")
    assert not bundle.shared(ref)
    monkeypatch.delenv("SMLAB_NO_SHARED_FS")
    f.write_text("two\n")     # another machine's file at the same path
    assert not bundle.shared(ref)
    # the bundle: the file, the code, the piece's module, nothing of a kernel k0 has not
    rels = {rel for rel, _, _ in ref.manifest}
    assert "abs" + str(f) in rels and "tools/lab/smlab/bundle.py" in rels
    assert "tests/lab/runner_pieces.py" in rels and ref.module_dir == "tests/lab"
    assert not any(r.startswith("kernel/") for r in rels)


def test_lab_worker_waits_for_a_study_then_checks_it():
    """make lab-worker WAIT_S=...: a worker started before any study has
    published its identity waits for one (and refuses without waiting)."""
    import subprocess
    import time
    import distributed
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                  host="127.0.0.1", dashboard_address=":0") as c, \
            distributed.Client(c) as cl:
        cmd = [sys.executable, str(TOP / "tools/lab/worker.py"), "--check-only", "--scheduler",
               c.scheduler_address, "--no-shared-fs"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "no lab identity" in r.stderr, r.stderr
        p = subprocess.Popen(cmd + ["--wait", "60"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        assert p.poll() is None
        # SHARED_FS=0: the kernels are the bundles', not checked here
        runner.publish(cl, dict(runner.lab_identity(), **{"kernel nowhere-1.0": "0" * 64}))
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert "waiting up to 60 s" in out and "has this machine's lab identity" in out, out


def test_slurm_scheduler_asks_slurm_for_the_jobs(tmp_path, monkeypatch):
    """SCHEDULER=slurm:2 JOBS=3: the coordinator's scheduler asks sbatch for
    two jobs of three lab workers each (a stand-in sbatch keeps what it was
    given), and cancels them when the run ends."""
    from smlab import slurm
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "sbatch").write_text('#!/bin/sh\ncp "$1" %s/job-$$.sh\necho "Submitted batch job $$"\n'
                                 % tmp_path)
    (bin_ / "scancel").write_text('#!/bin/sh\necho "$@" >> %s/cancelled\n' % tmp_path)
    for f in bin_.iterdir():
        f.chmod(0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (bin_, os.environ["PATH"]))
    cl = slurm.client("slurm:2", 3)
    port = cl.scheduler.address.rsplit(":", 1)[1]
    try:
        import time
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("job-*.sh"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        cl.close()
        cl._smlab_cluster.close()
    jobs = sorted(tmp_path.glob("job-*.sh"))
    assert len(jobs) == 2, jobs
    for j in jobs:
        s = j.read_text()
        assert "--nworkers 3" in s and "--nthreads 1" in s and "#SBATCH --mem=6G" in s, s
        # the workers connect to the coordinator's own scheduler
        assert ":%s " % port in s, s
    assert sorted((tmp_path / "cancelled").read_text().split()) == sorted(
        j.stem.split("-")[1] for j in jobs)
