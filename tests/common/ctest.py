"""The C tests' one pytest side: build a test program (with
tests/common/check.c, the one CHECK) and run it, judging what
tests/common/check.h's t_report() prints.

    from ctest import build, run
    exe = build(tmp_path / "test_at", ["tests/unit/test_at.c", ...], cflags=[...])
    out = run(exe)              # asserts rc 0, no FAIL, checks ran, none failed
"""
import re
import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
CHECK_C = TOP / "tests/common/check.c"
CFLAGS = ["-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror"]


def build(exe, sources, cflags=(), libs=(), cc="gcc"):
    """cc CFLAGS cflags -I tests/common sources check.c libs -o exe; sources
    relative to the top (or absolute).  Returns exe."""
    srcs = [str(s if Path(s).is_absolute() else TOP / s) for s in sources]
    subprocess.run([cc] + CFLAGS + list(cflags) + ["-I", str(TOP / "tests/common")] + srcs +
                   [str(CHECK_C)] + list(libs) + ["-o", str(exe)], check=True)
    return exe


def summary(name, stdout):
    """(passed, failed) from t_report()'s line for name, or None."""
    m = re.search(r"^%s: (\d+) passed, (\d+) failed$" % re.escape(name), stdout, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


def judge(name, r, least=1):
    """A finished run r (CompletedProcess, text) of test program name:
    exit 0, no FAIL line, at least `least` checks and none failed."""
    out = r.stdout
    assert r.returncode == 0, "%s: rc %d\n%s\n%s" % (name, r.returncode, out[-4000:],
                                                     (r.stderr or "")[-4000:])
    assert "FAIL" not in out, out[-4000:]
    s = summary(name, out)
    assert s and s[0] >= least and s[1] == 0, (s, out[-4000:])
    return out


def run(exe, args=(), least=1, timeout=600, **kw):
    """Run exe args and judge it (judge()); returns its stdout."""
    r = subprocess.run([str(exe)] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=timeout, **kw)
    print(r.stdout)
    return judge(Path(exe).name, r, least)
