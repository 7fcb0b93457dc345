"""The kernel code's standards: warning-free with W=1 and sparse (C=2) for
every installed kernel flavour, and checkpatch-clean (checkpatch.pl from
Debian's linux-source-6.1 tarball).

make check builds every flavour's module once, with W=1 and C=2, and keeps
the log (tools/kbuild-module): a flavour whose stamped log is of the sources
and headers here is judged from it; any other (the file run alone, sources
changed since) is built here.

Cost: no guest; 4 module builds (about 1 min each) when make check's logs
are not there, else checkpatch over the sources (about 20 s).
"""
import fcntl
import glob
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
KVERS = sorted(Path(p).parent.name for p in glob.glob("/lib/modules/*/build"))
KERNEL_SOURCES = sorted(
    [str(p.relative_to(TOP)) for d in ("driver", "contexts", "sched")
     for p in (TOP / d).glob("*.[ch]")] +
    [str(p.relative_to(TOP)) for p in (TOP / "dsp").glob("*.c")] +
    [str(p.relative_to(TOP)) for p in (TOP / "dsp/include/smdsp").glob("*.h")] +
    # the lab's own modules
    ["tools/netload/netload.c", "tests/module/irqhog/irqhog.c"])


def test_flavours_installed():
    """make deps installs the headers of 6.1 and 6.12, generic and rt."""
    for series in (r"6\.1\.", r"6\.12\."):
        assert any(re.match(series + r".*-amd64$", k) and "-rt-" not in k for k in KVERS), series
        assert any(re.match(series + r".*-rt-amd64$", k) for k in KVERS), series


CHECK_FLAGS = "W=1 C=2"


def _logged_build(kver, src):
    """make check's own build of this flavour (tools/kbuild-module with
    W=1 C=2, a whole build, its log kept) when it was of these very sources
    and headers: the same compiler output this test would get."""
    out = TOP / "build" / kver
    stamp = out / "check.stamp"
    if not (stamp.exists() and (out / "src" / "smodem.ko").exists()):
        return None
    digest = subprocess.run([str(TOP / "tools/kbuild-digest"), kver, str(src)], check=True,
                            capture_output=True, text=True).stdout.strip()
    if stamp.read_text().strip() != CHECK_FLAGS + " " + digest:
        return None
    return (out / "check.log").read_text()


@pytest.mark.parametrize("kver", KVERS)
def test_w1_sparse_clean(kver, tmp_path):
    src = tmp_path / "src"
    subprocess.run([str(TOP / "tools/kbuild-tree"), str(TOP), str(src)], check=True)
    out = _logged_build(kver, src)
    if out is None:
        r = subprocess.run(["make", "-C", "/lib/modules/%s/build" % kver, "M=%s" % src]
                           + CHECK_FLAGS.split() + ["modules"], capture_output=True, text=True)
        out = r.stdout + r.stderr
        assert r.returncode == 0, out[-4000:]
        assert (src / "smodem.ko").exists()
    else:
        print("make check's build of these sources: build/%s/check.log" % kver)
    bad = [line for line in out.splitlines()
           if re.search(r"\b(warning|error):", line)]
    assert not bad, "\n".join(bad)
    # sparse really ran on our files, and the build compiled and linked them all
    assert re.search(r"CHECK\s+.*driver/smodem_core\.c", out), out[-2000:]
    assert re.search(r"CC \[M\]\s+.*driver/smodem_core\.o", out), out[-2000:]
    assert re.search(r"LD \[M\]\s+.*smodem\.ko", out), out[-2000:]


def _checkpatch(name="checkpatch.pl"):
    dest = TOP / "build" / "checkpatch"
    script = dest / "scripts" / name
    dest.mkdir(parents=True, exist_ok=True)
    # test files on other xdist workers may want it at the same moment
    with open(dest / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (dest / ".done").exists():
            members = ["scripts/checkpatch.pl", "scripts/spelling.txt",
                       "scripts/const_structs.checkpatch", "scripts/kernel-doc"]
            with tarfile.open("/usr/src/linux-source-6.1.tar.xz") as t:
                for m in t.getmembers():
                    rel = m.name.split("/", 1)[-1]
                    if rel in members:
                        m.name = rel
                        t.extract(m, dest)
            (dest / ".done").write_text("")
    return script


@pytest.mark.parametrize("path", KERNEL_SOURCES)
def test_checkpatch_clean(path):
    r = subprocess.run(["perl", str(_checkpatch()), "--no-tree", "--terse",
                        "--show-types", "-f", path], cwd=TOP,
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0 and not re.search(r"\b(ERROR|WARNING)\b", out), out


def test_kernel_doc_of_the_ops():
    """The ops a new backend, context or modem implements are documented
    in kernel-doc, and kernel-doc itself finds nothing missing or wrong."""
    docs = [p for p in KERNEL_SOURCES if "/**" in (TOP / p).read_text()]
    for ops in ("struct smodem_backend_ops", "struct smodem_ctx_ops",
                "struct smodem_modem_ops"):
        assert any(" * " + ops + " - " in (TOP / p).read_text() for p in docs), ops
    r = subprocess.run(["perl", str(_checkpatch("kernel-doc")), "-none", "-Werror"] +
                       docs, cwd=TOP, capture_output=True, text=True)
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr


def test_no_floating_point_in_kernel_code():
    """No float/double anywhere the module compiles (kernel paths)."""
    offenders = []
    for path in KERNEL_SOURCES:
        text = (TOP / path).read_text()
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
        if re.search(r"\b(float|double)\b", text):
            offenders.append(path)
    assert not offenders
