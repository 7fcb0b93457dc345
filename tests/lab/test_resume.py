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
