"""make check's order and its per-file times.

pytest-xdist (--dist loadfile) hands whole files to its workers in the order
they were collected, and a file's guest boots take minutes: collected
alphabetically, the longest files (tests/module/test_st*) came last and one
worker ran them alone for minutes while the other had nothing left.  The
files of LONGEST go first, longest first (the rest keep their order): the
worker-minutes of a make check on the 2-core lab machine (2026-11-27), as
the summary below prints them at the end of every run."""
from collections import defaultdict

LONGEST = (
    "tests/module/test_guest_module_612.py",  # 11.7
    "tests/module/test_stolen_study.py",  # 11.7
    "tests/module/test_fax_contexts.py",  # 10.6
    "tests/module/test_guest_module.py",  # 10.5
    "tests/module/test_study.py",  # 7.3
    "tests/module/test_modem.py",  # 6.7
    "tests/module/test_efax.py",  # 6.2
    "tests/module/test_kernel_build.py",  # 5.4
    "tests/module/test_stolen.py",  # 5.4
)
_RANK = {f: i for i, f in enumerate(LONGEST)}
_FILE_S = defaultdict(float)


def _file(nodeid):
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(session, config, items):
    # a stable sort: a file's tests keep their order, and every worker of a
    # run collects the same list (xdist checks that)
    items.sort(key=lambda it: _RANK.get(_file(it.nodeid), len(LONGEST)))


def pytest_runtest_logreport(report):
    _FILE_S[_file(report.nodeid)] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _FILE_S:
        return
    tr = terminalreporter
    tr.section("time per file (setup + call + teardown, minutes)")
    top = sorted(_FILE_S.items(), key=lambda kv: -kv[1])[:15]
    for f, s in top:
        tr.write_line("%6.1f  %s" % (s / 60, f))
    tr.write_line("%6.1f  all %d files" % (sum(_FILE_S.values()) / 60, len(_FILE_S)))
