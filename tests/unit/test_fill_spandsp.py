"""What SpanDSP's V.22bis receiver makes of a growing output lead
(tests/unit/test_fill_spandsp.c): filled by our transmitter, nothing; left
as holes, lost data and carrier drops.  Built with the dsp tests' SpanDSP
endpoints, under AddressSanitizer and UBSan."""
import pathlib
import re
import subprocess

TOP = pathlib.Path(__file__).resolve().parents[2]


def test_fill_against_spandsp(tmp_path):
    exe = tmp_path / "test_fill_spandsp"
    subprocess.run(
        ["gcc", "-std=gnu11", "-O2", "-g", "-Wall", "-Wextra", "-Werror",
         "-Wno-deprecated-declarations",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-I", str(TOP / "dsp/include"), "-I", str(TOP / "tests/dsp/common"),
         "-I", str(TOP / "tools/line"),
         str(TOP / "tests/unit/test_fill_spandsp.c"),
         *sorted(str(p) for p in (TOP / "tests/dsp/common").glob("*.c")),
         str(TOP / "tools/line/resample.c"),
         *sorted(str(p) for p in (TOP / "dsp").glob("*.c")),
         "-lspandsp", "-lliquid", "-lm", "-o", str(exe)],
        check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m and int(m.group(1)) == 9 and m.group(2) == "0", r.stdout
    cases = re.findall(r"(\d+)-sample growths: filled 4096/4096 intact \(junk 0, "
                       r"0 carrier drops", r.stdout)
    assert cases == ["40", "160", "320"], r.stdout
