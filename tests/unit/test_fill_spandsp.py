"""What SpanDSP's V.22bis receiver makes of a growing output lead
(tests/unit/test_fill_spandsp.c): filled by our transmitter, nothing; left
as holes, lost data and carrier drops.  Built with the dsp tests' SpanDSP
endpoints, under AddressSanitizer and UBSan."""
import pathlib
import re
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests/common"))
import ctest  # noqa: E402


def test_fill_against_spandsp(tmp_path):
    exe = ctest.build(
        tmp_path / "test_fill_spandsp",
        ["tests/unit/test_fill_spandsp.c"] +
        sorted(str(p) for p in (TOP / "tests/dsp/common").glob("*.c")) +
        ["tools/line/resample.c", "tools/line/echopath.c"] + sorted(str(p) for p in (TOP / "dsp").glob("*.c")),
        ["-O2", "-Wno-deprecated-declarations", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", "-I", str(TOP / "dsp/include"),
         "-I", str(TOP / "tests/dsp/common"), "-I", str(TOP / "tools/line")],
        ["-lspandsp", "-lliquid", "-lm"])
    out = ctest.run(exe, least=9, timeout=300)
    assert ctest.summary("test_fill_spandsp", out) == (9, 0), out
    cases = re.findall(r"(\d+)-sample growths: filled 4096/4096 intact \(junk 0, "
                       r"0 carrier drops", out)
    assert cases == ["40", "160", "320"], out
