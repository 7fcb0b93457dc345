"""Builds and runs the user-space tests of the AT command interpreter
(driver/at.c, its fax Class 1 in driver/at_class1.c) under AddressSanitizer
and UBSan, fuzz included."""
import pathlib
import re
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests/common"))
import ctest  # noqa: E402


def _build(tmp_path):
    return ctest.build(tmp_path / "test_at", ["tests/unit/test_at.c", "driver/at.c", "driver/at_class1.c"],
                       ["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                        "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver")])


def _run(exe, *args):
    return ctest.run(exe, args, least=400, timeout=300)


def test_at_interpreter(tmp_path):
    out = _run(_build(tmp_path), 5000, 12345)
    m = re.search(r"fuzz: 5000 lines, seed 12345: (\d+) in data mode, "
                  r"(\d+) escapes, (\d+) with OK, (\d+) dials", out)
    assert m, out
    # The fuzz reached every mode it is meant to exercise.
    assert all(int(g) > 0 for g in m.groups()), out
    m = re.search(r"fuzz: (\d+) in a fax mode", out)
    assert m and int(m.group(1)) > 0, out


def test_at_fuzz_more_seeds(tmp_path):
    exe = _build(tmp_path)
    for seed in (1, 0xdeadbeef, 424242):
        _run(exe, 3000, seed)
