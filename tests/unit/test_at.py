"""Builds and runs the user-space tests of the AT command interpreter
(driver/at.c) under AddressSanitizer and UBSan, fuzz included."""
import pathlib
import re
import subprocess

TOP = pathlib.Path(__file__).resolve().parents[2]


def _build(tmp_path):
    exe = tmp_path / "test_at"
    subprocess.run(
        ["gcc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver"),
         str(TOP / "tests/unit/test_at.c"), str(TOP / "driver/at.c"),
         "-o", str(exe)],
        check=True)
    return exe


def _run(exe, *args):
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True,
                       text=True, timeout=300)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m, r.stdout
    assert int(m.group(1)) > 400 and m.group(2) == "0"
    return r.stdout


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
