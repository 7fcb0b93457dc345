"""The unload-under-read check with real concurrency: the debug kernel
booted on two CPUs (real clock: QEMU's instruction counting boots only one),
a reader on CPU 1 holding the stats file open and reading it without pause
(tests/debug/statread.c) while CPU 0 unbinds the AC'97 device under it, 40
times through int, dpc, thr, res and irqt (tests/debug/smp_checks.sh).  On
one CPU the teardown never sleeps between freeing the context and removing
debugfs, so no reader lands there; on two, KASAN sees any read of what the
teardown has freed (the old order, the context stopped before debugfs went,
fails here).  Timing is not judged."""
import os

import guestboot
from smlab.guest import run_guest
from test_debug_kernel import splats

KVER = os.environ.get("SMODEM_DEBUG_KERNEL", "")
CYCLES = 40
OUT = guestboot.TOP / "out" / "tests" / "debug-smp"


def _boot():
    out = guestboot.fresh_dir(OUT / KVER)
    reader = guestboot.build_static(out, "tests/debug/statread.c")
    text = (guestboot.TOP / "tests/debug/smp_checks.sh").read_text()
    res = run_guest(KVER, "sh -s %d <<'SMODEM_EOF'\n%s\nSMODEM_EOF\n" % (CYCLES, text),
                    str(out), modules=[str(guestboot.module(KVER))],
                    extra_files={"usr/bin/statread": str(reader)},
                    audio="ac97", smp=2, clock="real",
                    timeout_s=600 * guestboot.timeout_scale(),
                    cmdline_extra="log_buf_len=4M")
    assert res.ok, "guest failed: rc=%s timed_out=%s, see %s" % (
        res.rc, res.timed_out, res.console)
    return out / "results"


def res():
    return guestboot.once(("debug-smp", KVER), _boot)


def test_two_cpus():
    assert (res() / "cpus").read_text().strip() == "2"


def test_every_cycle_unbinds_under_a_reader():
    n, fails = (res() / "cycles.txt").read_text().split()
    assert (n, fails) == (str(CYCLES), "0")
    assert (res() / "loaded").read_text().strip() == "0"
    lines = (res() / "reads.txt").read_text().splitlines()
    assert len(lines) == CYCLES, lines
    # each reader read while the device lived, and was cut off by the
    # teardown (debugfs removed: EIO), not by its own time limit
    for line in lines:
        reads, how = line.split()[:2]
        assert int(reads) > 0 and how == "error", lines


def test_no_splat():
    text = (res() / "boot.dmesg").read_text(errors="replace") + \
        (res() / "smp.dmesg").read_text(errors="replace")
    bad = splats(text)
    assert not bad, "\n".join(bad)
