"""Builds and runs the Class 1 (T.31) stack in user space (tests/unit/test_class1.c):
the AT interpreter (driver/at.c), the DCE's DTE side (dsp/faxdte.c) and the fax
pump (dsp/faxmodem.c) against SpanDSP on the line, under AddressSanitizer and UBSan."""
import pathlib
import re
import subprocess

TOP = pathlib.Path(__file__).resolve().parents[2]


def test_class1_stack(tmp_path):
    exe = tmp_path / "test_class1"
    subprocess.run(
        ["gcc", "-std=gnu11", "-O2", "-g", "-Wall", "-Wextra", "-Werror",
         "-Wno-deprecated-declarations",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver"),
         "-I", str(TOP / "dsp/include"), str(TOP / "tests/unit/test_class1.c"),
         str(TOP / "driver/at.c"),
         *sorted(str(p) for p in (TOP / "dsp").glob("*.c")),
         "-lspandsp", "-lm", "-o", str(exe)],
        check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m and int(m.group(1)) >= 15 and m.group(2) == "0", r.stdout
    for what in ("+FTH=3:", "+FRH=3:", "abort of +FRH=3: OK", "+FTS=8;+FTM=96:", "+FRM=96:"):
        assert what in r.stdout, what
