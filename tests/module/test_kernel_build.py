"""The kernel code's standards: warning-free with W=1 and sparse (C=2) for
every installed kernel flavour, and checkpatch-clean (checkpatch.pl from
Debian's linux-source-6.1 tarball).

make check builds every flavour's module once, with W=1 and C=2, and keeps
the log (tools/kbuild-module): a flavour whose stamped log is of the sources
and headers here is judged from it; any other (the file run alone, sources
changed since) is built here, once for the file's tests.  The generic
flavour of each series is then built once more, in another directory, and
must give the same file (reproducible builds, test_build_reproducible).

Cost: no guest; 2 module builds (20-60 s each on the 2-core lab machine),
6 when make check's builds are not there, and checkpatch over the sources
(about 20 s, one run over every file): the second build of each series
for the reproducibility check is most of the file's time.
"""
import fcntl
import glob
import hashlib
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
    [str(p.relative_to(TOP)) for p in (TOP / "dsp/include/smdsp/private").glob("*.h")] +
    # the lab's own modules
    ["tools/netload/netload.c", "tests/module/guest/irqhog/irqhog.c"])


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


_BUILDS = {}


def _check_build(kver, tmp_path_factory):
    """(log, module) of a W=1 C=2 build of this flavour: make check's own
    when it is current, else one built here by tools/kbuild-module as make
    check would (kept for the file's other tests)."""
    if kver not in _BUILDS:
        out = tmp_path_factory.mktemp("kbuild") / "build" / kver
        subprocess.run([str(TOP / "tools/kbuild-tree"), str(TOP), str(out / "src")], check=True)
        log = _logged_build(kver, out / "src")
        if log is not None:
            print("make check's build of these sources: build/%s/check.log" % kver)
            ko = TOP / "build" / kver / "src" / "smodem.ko"
        else:
            r = subprocess.run([str(TOP / "tools/kbuild-module"), str(TOP), kver, CHECK_FLAGS,
                                str(out)], capture_output=True, text=True)
            log = r.stdout + r.stderr
            assert r.returncode == 0, log[-4000:]
            ko = out / "smodem.ko"
        _BUILDS[kver] = (log, ko)
    return _BUILDS[kver]


@pytest.mark.parametrize("kver", KVERS)
def test_w1_sparse_clean(kver, tmp_path_factory):
    out, _ = _check_build(kver, tmp_path_factory)
    bad = [line for line in out.splitlines()
           if re.search(r"\b(warning|error):", line)]
    assert not bad, "\n".join(bad)
    # sparse really ran on our files, and the build compiled and linked them all
    assert re.search(r"CHECK\s+.*driver/smodem_core\.c", out), out[-2000:]
    assert re.search(r"CC \[M\]\s+.*driver/smodem_core\.o", out), out[-2000:]
    assert re.search(r"LD \[M\]\s+.*smodem\.ko", out), out[-2000:]


def _sections(path):
    """{name: bytes} of an ELF file's sections (from readelf's offsets)."""
    table = subprocess.run(["readelf", "-SW", str(path)], check=True, capture_output=True,
                           text=True).stdout
    data = Path(path).read_bytes()
    return {m[1]: b"" if m[2] == "NOBITS" else data[int(m[3], 16):int(m[3], 16) + int(m[4], 16)]
            for m in re.finditer(r"\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)",
                                 table)}


# A generic flavour of each series: what makes a build depend on where it
# ran (pahole's parallel BTF encoding on 6.12, paths in the debug info) is the
# series' tool chain, which its rt flavour shares.
REPRO_KVERS = [k for k in KVERS if "-rt-" not in k]


@pytest.mark.parametrize("kver", REPRO_KVERS)
def test_build_reproducible(kver, tmp_path, tmp_path_factory):
    """The same sources and headers give the same smodem.ko, byte for byte,
    wherever the tree is (tools/kbuild-module: no parallel BTF encoding on
    6.12, the build directory mapped out of the debug info and __FILE__).
    The second build is in a directory whose path differs in length too,
    with W=1 only: sparse (C=2) does not touch the objects.

    Cost: one module build per series (20-40 s measured, a minute on a
    busy machine), two when make check's build of these sources is not
    there."""
    _, first = _check_build(kver, tmp_path_factory)
    out = tmp_path / "elsewhere" / "build" / kver
    r = subprocess.run([str(TOP / "tools/kbuild-module"), str(TOP), kver, "W=1", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    second = out / "smodem.ko"
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (first, second)]
    print("%s: %s %s" % (kver, digests[0], first))
    if digests[0] != digests[1]:
        a, b = _sections(first), _sections(second)
        differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
        pytest.fail("%s and %s differ in sections %s" % (first, second, ", ".join(differ)))


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


_CHECKPATCH = {}


def _checkpatch_all():
    """checkpatch over every kernel source in one run (a perl start-up per
    file was most of its time): (exit code, {path: its lines}, raw output)."""
    if not _CHECKPATCH:
        r = subprocess.run(["perl", str(_checkpatch()), "--no-tree", "--terse",
                            "--show-types", "-f"] + KERNEL_SOURCES, cwd=TOP,
                           capture_output=True, text=True)
        out = r.stdout + r.stderr
        lines = {}
        for line in out.splitlines():
            if line.startswith("total: "):   # the count after a file's findings
                continue
            path = line.split(":", 1)[0]
            lines.setdefault(path if path in KERNEL_SOURCES else None, []).append(line)
        _CHECKPATCH.update(rc=r.returncode, lines=lines, out=out)
    return _CHECKPATCH


def test_checkpatch_ran():
    """checkpatch's run itself: every line it printed names one of the
    files, and it failed only if a file has a finding."""
    cp = _checkpatch_all()
    assert None not in cp["lines"], cp["lines"].get(None)
    assert (cp["rc"] == 0) == (not cp["lines"]), cp["out"][-4000:]


@pytest.mark.parametrize("path", KERNEL_SOURCES)
def test_checkpatch_clean(path):
    # --terse prints nothing for a clean file
    found = _checkpatch_all()["lines"].get(path, [])
    assert not found, "\n".join(found)


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
