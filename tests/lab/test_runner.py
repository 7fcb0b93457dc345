"""smlab.runner, the one runner of the studies' pieces: the local pool and
Dask (a LocalCluster of two worker processes), with pieces that need no
QEMU (runner_pieces.py): each piece stored once, failures retried then
reported missing and never stored, a killed worker's piece run again,
a killed coordinator's run resumed, torn record lines ignored."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import runner_pieces
from smlab import runner
from smlab.runner import Piece, Record

HERE = Path(__file__).resolve().parent


def plan(tmp, n=6, **kw):
    return [Piece.make("fake", "k%d" % (i % 2), "p%02d" % i, x=i, dir=str(tmp / "w"), **kw)
            for i in range(n)]


def expected(pieces):
    return {p.key: runner_pieces.figures(p) for p in pieces}


def lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def test_local_pool_stores_each_piece_once(tmp_path):
    ps = plan(tmp_path)
    rec = tmp_path / "rec.jsonl"
    rep = runner.run(ps, runner_pieces.run_piece, rec, "d1", jobs=3, say=lambda m: None)
    assert rep.complete and sorted(rep.ran) == sorted(p.key for p in ps)
    assert rep.figures == expected(ps)
    got = lines(rec)
    assert sorted(x["key"] for x in got) == sorted(p.key for p in ps)
    for x in got:
        # host-dependent fields apart from the figures
        assert "hostname" in x["host"] and "piece_wall_s" in x["host"]
        assert "hostname" not in x["figures"] and x["digest"] == "d1" and x["schema"] == 1
    # again: nothing runs, everything is reused
    rep2 = runner.run(ps, runner_pieces.run_piece, rec, "d1", jobs=3, say=lambda m: None)
    assert rep2.ran == [] and sorted(rep2.reused) == sorted(p.key for p in ps)
    assert rep2.figures == rep.figures
    assert all((tmp_path / "w" / (p.key + ".tries")).read_text() == "x" for p in ps)


def test_other_settings_run_again_with_the_reason(tmp_path):
    ps = plan(tmp_path, n=2)
    rec = tmp_path / "rec.jsonl"
    runner.run(ps, runner_pieces.run_piece, rec, "d1", say=lambda m: None)
    said = []
    rep = runner.run(ps, runner_pieces.run_piece, rec, "d2", say=said.append)
    assert sorted(rep.ran) == ["p00", "p01"]
    assert any("recorded under other settings" in m for m in said), said
    runner.Record(rec).compact()
    assert [x["digest"] for x in lines(rec)] == ["d2", "d2"]


@pytest.mark.parametrize("fail", ["raise", "timeout", "error"])
def test_failures_retried_then_missing_never_stored(tmp_path, fail):
    ps = plan(tmp_path, n=3)
    bad = Piece.make("fake", "k0", "bad", x=9, dir=str(tmp_path / "w"), fail=fail)
    rec = tmp_path / "rec.jsonl"
    said = []
    rep = runner.run(ps + [bad], runner_pieces.run_piece, rec, "d", jobs=2, retries=2,
                     say=said.append)
    assert not rep.complete and list(rep.missing) == ["bad"]
    assert rep.attempts["bad"] == 3
    assert (tmp_path / "w" / "bad.tries").read_text() == "xxx"
    assert "bad" not in [x["key"] for x in lines(rec)]
    assert "bad" not in rep.figures
    assert any("bad failed" in m and "missing" in m for m in said), said
    # the next run tries it again (nothing was stored for it)
    rep2 = runner.run(ps + [bad], runner_pieces.run_piece, rec, "d", retries=0,
                      say=lambda m: None)
    assert rep2.ran == [] and list(rep2.missing) == ["bad"]


def test_a_piece_that_fails_once_is_stored_on_its_retry(tmp_path):
    p = Piece.make("fake", "k0", "flaky", x=3, dir=str(tmp_path / "w"), fail="once")
    rep = runner.run([p], runner_pieces.run_piece, tmp_path / "r.jsonl", "d", retries=1,
                     say=lambda m: None)
    assert rep.complete and rep.figures["flaky"]["square"] == 9 and rep.attempts["flaky"] == 2


def test_torn_last_line_ignored_and_run_again(tmp_path):
    ps = plan(tmp_path, n=3)
    rec = tmp_path / "rec.jsonl"
    runner.run(ps, runner_pieces.run_piece, rec, "d", say=lambda m: None)
    text = rec.read_text().splitlines()
    # the last line cut in half, as a killed writer would leave it
    rec.write_text("\n".join(text[:-1]) + "\n" + text[-1][: len(text[-1]) // 2])
    lost = json.loads(text[-1])["key"]
    said = []
    rep = runner.run(ps, runner_pieces.run_piece, rec, "d", say=said.append)
    assert rep.ran == [lost] and rep.complete
    assert any("torn" in m for m in said), said
    # the new line did not glue onto the torn one
    r = Record(rec)
    assert r.torn == 1 and sorted(r.lines) == sorted(p.key for p in ps)


def test_progress_counts_only_pieces_run_in_this_run(tmp_path):
    ps = plan(tmp_path, n=4, sleep_s=0.05)
    rec = tmp_path / "rec.jsonl"
    runner.run(ps[:2], runner_pieces.run_piece, rec, "d", say=lambda m: None)
    said = []
    runner.run(ps, runner_pieces.run_piece, rec, "d", jobs=1, say=said.append)
    assert said[0].startswith("[runner] 2/4 done (2 reused), 2 running, 0 left"), said
    assert said[-1].startswith("[runner] 4/4 done (2 reused), 0 running, 0 left, 0 failed"), said
    # the estimate comes from this run's two pieces, not from the reused ones
    assert "min left" in said[-2], said


def test_tick_while_pieces_run(tmp_path):
    ps = plan(tmp_path, n=2, sleep_s=0.5)
    ticks = []
    rep = runner.run(ps, runner_pieces.run_piece, tmp_path / "r.jsonl", "d", jobs=2,
                     say=lambda m: None, tick=lambda running: ticks.append(
                         sorted(p.key for p in running)), tick_s=0.1)
    assert rep.complete and ticks and ticks[0] == ["p00", "p01"], ticks


def test_coordinator_killed_then_resumed(tmp_path):
    """SIGKILL the coordinator mid-run: a restart runs only what is missing."""
    rec = tmp_path / "rec.jsonl"
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import runner_pieces
        from pathlib import Path
        from smlab import runner
        ps = [runner.Piece.make("fake", "k", "p%%02d" %% i, x=i, dir=%r, sleep_s=0.3)
              for i in range(8)]
        runner.run(ps, runner_pieces.run_piece, %r, "d", jobs=1, say=lambda m: None)
    """ % (str(HERE), str(tmp_path / "w"), str(rec)))
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if rec.exists() and len(rec.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = set(Record(rec).lines)
    assert 3 <= len(done_before) < 8, done_before
    ps = [Piece.make("fake", "k", "p%02d" % i, x=i, dir=str(tmp_path / "w"), sleep_s=0.3)
          for i in range(8)]
    rep = runner.run(ps, runner_pieces.run_piece, rec, "d", jobs=2, say=lambda m: None)
    assert set(rep.ran) == {p.key for p in ps} - done_before
    assert rep.figures == expected(ps)


@pytest.fixture(scope="module")
def cluster():
    import distributed
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None, silence_logs=40)
    client = distributed.Client(c)
    yield client
    client.close()
    c.close()


def test_dask_gives_the_local_pools_record(tmp_path, cluster):
    ps = plan(tmp_path, n=6)
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    runner.run(ps, runner_pieces.run_piece, local, "d", jobs=2, say=lambda m: None)
    rep = runner.run(ps, runner_pieces.run_piece, dask, "d", scheduler=cluster,
                     say=lambda m: None)
    assert rep.complete
    Record(local).compact()
    Record(dask).compact()
    strip = [{k: v for k, v in x.items() if k != "host"} for x in lines(local)]
    assert strip == [{k: v for k, v in x.items() if k != "host"} for x in lines(dask)]
    # the worker processes ran them, not this one
    pids = {(tmp_path / "w" / (p.key + ".pid")).read_text() for p in ps}
    assert str(os.getpid()) not in pids, pids
    assert cluster.get_metadata(runner.LAB_KEY)["commit"]


def test_dask_worker_killed_mid_piece_runs_it_elsewhere(tmp_path, cluster):
    ps = plan(tmp_path, n=4, sleep_s=2.0)
    w = tmp_path / "w"
    rec = tmp_path / "rec.jsonl"
    import threading
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("rep", runner.run(
        ps, runner_pieces.run_piece, rec, "d", scheduler=cluster, retries=0,
        say=lambda m: None)))
    t.start()
    # the first piece to start: SIGKILL the worker process running it
    deadline = time.monotonic() + 30
    victim = None
    while victim is None and time.monotonic() < deadline:
        pids = sorted(w.glob("*.pid"))
        if pids:
            victim = (pids[0].stem, int(pids[0].read_text()))
        time.sleep(0.05)
    assert victim, "no piece started"
    os.kill(victim[1], signal.SIGKILL)
    t.join(120)
    rep = out["rep"]
    # the scheduler gave the piece to another worker (or the nanny's new
    # one): stored once, with the same figures, though retries=0
    assert rep.complete, rep.missing
    assert rep.figures == expected(ps)
    assert len((w / (victim[0] + ".tries")).read_text()) >= 2
    assert sorted(x["key"] for x in lines(rec)) == sorted(p.key for p in ps)


def test_worker_identity_check():
    me = runner.lab_identity()
    assert runner.mismatch(me, dict(me)) is None
    other = dict(me, commit="0" * 40)
    why = runner.mismatch(me, other)
    assert why and why.startswith("commit: here"), why
    assert "no lab identity" in runner.mismatch(me, None)


def test_lab_worker_joins_only_with_the_coordinators_identity(cluster):
    addr = cluster.scheduler.address
    me = runner.lab_identity()
    cmd = [sys.executable, str(HERE.parents[1] / "tools/lab/worker.py"), "--check-only",
           "--scheduler", addr]
    runner.publish(cluster, me)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    runner.publish(cluster, dict(me, qemu="f" * 64))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "not joining" in r.stderr and "qemu" in r.stderr, r.stderr
    runner.publish(cluster, me)


def test_piece_is_plain_data():
    p = Piece.make("study", "6.1", "a", points=[1, 2], x=1)
    assert p.settings == (("points", (1, 2)), ("x", 1))
    assert hash(p) == hash(Piece.make("study", "6.1", "a", x=1, points=[1, 2]))
    assert p.as_dict() == {"kind": "study", "kernel": "6.1", "key": "a",
                           "settings": {"points": (1, 2), "x": 1}}
    with pytest.raises(TypeError):
        Piece.make("study", "6.1", "b", f=object())
    with pytest.raises(ValueError):
        runner.run([p, p], runner_pieces.run_piece, "/nonexistent/r.jsonl", "d")
