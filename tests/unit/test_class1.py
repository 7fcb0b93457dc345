"""Builds and runs the Class 1 (T.31) stack in user space (tests/unit/test_class1.c):
the AT interpreter (driver/at.c, driver/at_class1.c), the DCE's DTE side (dsp/faxdte.c) and the fax
pump (dsp/faxmodem.c) against SpanDSP on the line, under AddressSanitizer and UBSan."""
import pathlib
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests/common"))
import ctest  # noqa: E402


def test_class1_stack(tmp_path):
    exe = ctest.build(
        tmp_path / "test_class1",
        ["tests/unit/test_class1.c", "driver/at.c", "driver/at_class1.c"] + sorted(str(p) for p in (TOP / "dsp").glob("*.c")),
        ["-O2", "-Wno-deprecated-declarations", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver"),
         "-I", str(TOP / "dsp/include")], ["-lspandsp", "-lm"])
    out = ctest.run(exe, least=15, timeout=300)
    for what in ("+FTH=3:", "+FRH=3:", "abort of +FRH=3: OK", "+FTS=8;+FTM=96:", "+FRM=96:"):
        assert what in out, what
