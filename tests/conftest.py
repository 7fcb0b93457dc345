"""make check's split, order and time accounting.

Two kinds of tests (`make check-fast` runs the first, `make check` both):
- fast: no guest; unit, DSP, line, lab parsers (seconds each).
- guest (marker `guest`): boots QEMU (directly, or through a tool such as
  tools/study.py), or builds the module for every kernel flavour (marker
  `kbuild`).  The files are listed here, in GUEST_FILES and KBUILD_FILES:
  one list, and a guard behind it (SMLAB_NO_GUEST=1, which check-fast sets,
  makes any guest boot fail loudly, so a guest test left out of the list
  fails check-fast instead of slowing it down).

pytest-xdist (--dist loadfile) hands whole files to its workers in the order
they were collected, and a file's guest boots take minutes: collected
alphabetically, the longest files came last and one worker ran them alone
while the other had nothing left.  The files of LONGEST go first, longest
first (the rest keep their order): worker-minutes of a make check on the
2-core lab machine, as the summary below prints them at the end of every run.

Every guest appends one line to $SMLAB_TIMES (smlab/guest.py): the summary
splits each file's time into image preparation, boot to the script, the
script's wall and guest seconds, and the host's own work around them.
"""
import json
import os
import re
import time
from collections import defaultdict
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]

LONGEST = (
    "tests/module/test_stolen_study.py",
    "tests/module/test_study.py",
    "tests/module/test_fax_contexts.py",
    "tests/module/test_modem.py",
    "tests/module/test_efax.py",
    "tests/module/test_guest_module_612.py",
    "tests/module/test_guest_module.py",
    "tests/module/test_kernel_build.py",
    "tests/module/test_stolen.py",
    "tests/module/test_virtual_time.py",
)

# Files that boot a guest (all of tests/module but the kernel builds, and
# the lab's and the installer's tests that run one).
GUEST_FILES = {
    "tests/lab/test_bench_modem.py",
    "tests/lab/test_compare.py",
    "tests/lab/test_compare_pump.py",
    "tests/lab/test_guest.py",
    "tests/lab/test_rtla.py",
    "tests/lab/test_traces.py",
    "tests/install/test_install.py",
}
KBUILD_FILES = {
    "tests/module/test_kernel_build.py",
    "tests/install/test_modinfo.py",
    "tests/install/test_make_install.py",
}
# single tests of otherwise fast files: the dsp/ sources built as kernel
# code on three header trees (W=1 + sparse, with their stack depths),
# checkpatch over the netload module (half a minute each), and modinfo of
# the built modules against smodem(4) (make check builds the modules while
# check-fast runs: they are there for the second stage)
KBUILD_TESTS = {
    "tests/dsp/test_dsp.py::test_kernel_build",
    "tests/loadbound/test_net_analysis.py::test_netload_checkpatch_clean",
    "tests/unit/test_manpages.py::test_smodem4_against_modinfo",
}

_RANK = {f: i for i, f in enumerate(LONGEST)}
_FILE_S = defaultdict(float)
_T0 = time.monotonic()


def _file(nodeid):
    return nodeid.split("::", 1)[0]


def kind(nodeid):
    """'guest', 'kbuild' or 'fast' for a test (its node id from the top)."""
    path = _file(nodeid)
    if path in KBUILD_FILES or nodeid in KBUILD_TESTS:
        return "kbuild"
    if path in GUEST_FILES or (path.startswith("tests/module/test_")
                               and path.endswith(".py")):
        return "guest"
    return "fast"


def pytest_configure(config):
    config.addinivalue_line("markers", "guest: boots a QEMU guest (make check, not check-fast)")
    config.addinivalue_line("markers", "kbuild: builds the module for every kernel flavour")
    # the controller names the file before xdist starts its workers, which
    # inherit it; a run of its own (no xdist) does the same
    if not os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("SMLAB_TIMES"):
        path = TOP / "out" / "tests" / "guest-times.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.environ["SMLAB_TIMES"] = str(path)


def pytest_collection_modifyitems(session, config, items):
    for it in items:
        k = kind(it.nodeid)
        if k != "fast":
            it.add_marker(getattr(pytest.mark, k))
    # a stable sort: a file's tests keep their order, and every worker of a
    # run collects the same list (xdist checks that)
    items.sort(key=lambda it: _RANK.get(_file(it.nodeid), len(LONGEST)))


def pytest_runtest_logreport(report):
    _FILE_S[_file(report.nodeid)] += report.duration


def _time_records():
    path = os.environ.get("SMLAB_TIMES")
    if not path or not os.path.exists(path):
        return []
    out = []
    for line in Path(path).read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _guest_times():
    """{file: {guests, prep_s, boot_s, script_s, guest_script_s, wall_s,
    qemu_cpu_s}} from $SMLAB_TIMES (seconds)."""
    out = defaultdict(lambda: defaultdict(float))
    for r in _time_records():
        f = out[_file(r.get("test") or "?")]
        f["guests"] += 1
        for k in ("prep_s", "boot_s", "script_s", "guest_script_s", "wall_s", "qemu_cpu_s"):
            f[k] += r.get(k) or 0.0
    return out


def pytest_terminal_summary(terminalreporter):
    if not _FILE_S:
        return
    tr = terminalreporter
    g = _guest_times()
    tr.section("time per file (minutes; guest-s: guest seconds of the scripts)")
    # total: the file's tests (setup + call + teardown) on their worker;
    # prep/boot/script: the guests' wall time before QEMU, to the script,
    # in it; qemu-cpu: the CPU time QEMU itself used (wall time on a shared
    # host is the noisier figure); host: total less the guests' wall time
    # (builds, analysis, trace-cmd report, tools' own work)
    tr.write_line("%6s %6s %6s %6s %6s %8s %8s %6s  %s" % (
        "total", "guests", "prep", "boot", "script", "guest-s", "qemu-cpu", "host", "file"))
    top = sorted(_FILE_S.items(), key=lambda kv: -kv[1])[:15]
    for f, s in top:
        t = g.get(f, {})
        host = s - t.get("wall_s", 0.0)
        tr.write_line("%6.1f %6d %6.1f %6.1f %6.1f %8.0f %8.1f %6.1f  %s" % (
            s / 60, t.get("guests", 0), t.get("prep_s", 0) / 60, t.get("boot_s", 0) / 60,
            t.get("script_s", 0) / 60, t.get("guest_script_s", 0), t.get("qemu_cpu_s", 0) / 60,
            host / 60, f))
    tr.write_line("%6.1f  all %d files, %d guests (%.1f min of QEMU CPU); wall time %.1f min" % (
        sum(_FILE_S.values()) / 60, len(_FILE_S),
        sum(int(v.get("guests", 0)) for v in g.values()),
        sum(v.get("qemu_cpu_s", 0) for v in g.values()) / 60, (time.monotonic() - _T0) / 60))
    _section_summary(tr)


def _section_summary(tr, n=15):
    """The scripts' costliest steps over the run (their "[guest] ..." progress
    lines; smlab/guest.py): QEMU's CPU is what a shorter step would save."""
    secs = defaultdict(lambda: [0, 0.0, 0.0])
    for r in _time_records():
        for s in r.get("sections") or []:
            # steps that differ in their numbers only (a point, a size) add up
            k = (_file(r.get("test") or "?"), re.sub(r"-?\d+(\.\d+)?", "#", s["section"]))
            secs[k][0] += 1
            secs[k][1] += s.get("cpu_s") or 0.0
            secs[k][2] += s.get("wall_s") or 0.0
    if not secs:
        return
    tr.section("costliest guest steps (QEMU CPU, minutes; from the scripts' progress lines)")
    tr.write_line("%8s %6s %5s  %s" % ("qemu-cpu", "wall", "times", "file: step"))
    for (f, name), (k, cpu, wall) in sorted(secs.items(), key=lambda kv: -kv[1][1])[:n]:
        tr.write_line("%8.2f %6.2f %5d  %s: %s" % (cpu / 60, wall / 60, k, f, name))
