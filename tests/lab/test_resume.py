"""smlab.resume: a kept piece of work comes back only with its settings."""
from smlab import resume


def test_kept_result_comes_back_with_the_same_settings(tmp_path):
    stamp = tmp_path / "d" / "piece.json"
    st = {"kernel": "k", "args": ("res_runtime_us=2000", "res_period_us=8000"), "n": 3}
    assert resume.reuse(stamp, st) is None
    resume.keep(stamp, st, {"ok": True})
    # a tuple is stored as a list: still the same settings (make study's
    # transfer calls were run again for it)
    assert resume.reuse(stamp, st) == {"ok": True}
    assert resume.reuse(stamp, dict(st, args=list(st["args"]))) == {"ok": True}
    assert resume.reuse(stamp, dict(st, n=4)) is None
    assert resume.reuse(stamp, st, force=True) is None


def test_file_digest(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"abc")
    assert resume.file_digest(f) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_failed_results_are_never_kept(tmp_path):
    """A piece whose call raised (study.py's {"error"}) or whose guest timed
    out must run again, not come back as if it were a result."""
    stamp = tmp_path / "piece.json"
    st = {"n": 1}
    resume.keep(stamp, st, {"ok": True})
    assert not resume.keep(stamp, st, {"error": "RuntimeError: no trace"})
    assert not stamp.exists() and resume.reuse(stamp, st) is None
    assert not resume.keep(stamp, st, {"timed_out": True, "x": 1})
    assert resume.reuse(stamp, st) is None
    # a stamp written before this rule, with an error inside: not reused
    stamp.write_text('{"settings": {"n": 1}, "result": {"error": "x"}}\n')
    assert resume.reuse(stamp, st) is None


def test_half_written_stamp_counts_as_not_done(tmp_path):
    stamp = tmp_path / "piece.json"
    st = {"n": 1}
    resume.keep(stamp, st, {"ok": True, "rows": list(range(100))})
    stamp.write_text(stamp.read_text()[:40])
    assert resume.reuse(stamp, st) is None
    # and writing is atomic: no temporary file is left beside the stamp
    assert resume.keep(stamp, st, {"ok": True})
    assert [p.name for p in tmp_path.iterdir()] == ["piece.json"]
