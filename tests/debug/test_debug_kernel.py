"""smodem.ko on the debug kernel (make check-debug; tools/lab/debug-kernel.sh:
lockdep, KASAN, kmemleak, DEBUG_OBJECTS, DEBUG_LIST, atomic-sleep checks,
lockup detectors).  One boot (tests/debug/debug_checks.sh):

- the detectors are live (kmemleak's debugfs file, /proc/lockdep_stats,
  DEBUG_OBJECTS' stats, KASAN's boot line), or every test fails;
- SMODEM_DEBUG_CYCLES (default 1000) insmod/rmmod cycles, context=int, dpc,
  thr, res in turn;
- tests/module/guest/guest_checks.sh's unload-read check (the stats file read
  while the device goes away; taken from that file at run time);
- kmemleak scanned twice after everything is unloaded;

and nothing in dmesg, from boot to the end, is a splat.  Needs
SMODEM_DEBUG_KERNEL (the debug kernel's release; this directory is not
collected without it), SMODEM_KERNEL_ROOT (where the lab finds it) and
build/<release>/smodem.ko (SMODEM_KO overrides).  SMODEM_TIMEOUT_SCALE
multiplies the guest's timeout."""
import os
import re
from pathlib import Path

import pytest

import guestboot
from smlab.guest import run_guest

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "debug"
KVER = os.environ.get("SMODEM_DEBUG_KERNEL", "")
CYCLES = int(os.environ.get("SMODEM_DEBUG_CYCLES") or 1000)
# Wall seconds on the normal kernel are about a tenth of this (see README).
TIMEOUT_S = 1800

# What a debug kernel prints when it finds something.  One line is enough.
SPLAT = re.compile(
    r"WARNING:|\bBUG[: ]|Oops|Call Trace|general protection|"
    r"possible circular|inconsistent lock state|possible recursive locking|"
    r"suspicious RCU usage|DEBUG_LOCKS_WARN_ON|lockdep is turned off|"
    r"KASAN|UBSAN|unreferenced object|suspected memory leak|"
    r"sleeping function called from invalid context|scheduling while atomic|"
    r"ODEBUG: (?!selftest passed)|list_(add|del) corruption|refcount_t|"
    r"soft lockup|hard LOCKUP|blocked for more than|detected stalls|"
    r"workqueue lockup|use-after-free|double-free|out-of-bounds")
# Lines of a healthy boot that the pattern would otherwise catch.
BENIGN = re.compile(r"KernelAddressSanitizer initialized|"
                    r"kmemleak: Kernel memory leak detector initialized|"
                    r"RCU callback double-/use-after-free debug is enabled")


def splats(text):
    return [x for x in text.splitlines() if SPLAT.search(x) and not BENIGN.search(x)]


def unload_read_check():
    """guest_checks.sh's preamble (variables, helpers) and its unload-read
    check, cut out of the file by their own lines."""
    text = (TOP / "tests/module/guest/guest_checks.sh").read_text()
    pre_end = text.index("# One context under observation")
    start = text.index('say "unload-read"')
    last = "lsmod | grep -c '^smodem' > $T/unload-read.loaded\n"
    end = text.index(last, start) + len(last)
    return text[:pre_end], text[start:end]


def script():
    pre, check = unload_read_check()
    body = (TOP / "tests/debug/debug_checks.sh").read_text()
    assert "\nUNLOAD-READ\n" in body
    body = body.replace("\nUNLOAD-READ\n", "\n" + check)
    return ((TOP / "tests/module/guest/guestlib.sh").read_text() + pre +
            "\n" + body)


def _boot():
    assert KVER, "SMODEM_DEBUG_KERNEL: the debug kernel's release"
    out = guestboot.fresh_dir(OUT / KVER)
    ko = guestboot.module(KVER)
    text = script()
    timeout = TIMEOUT_S * guestboot.timeout_scale()
    res = run_guest(KVER, "sh -s ac97 %d <<'SMODEM_EOF'\n%s\nSMODEM_EOF\n" % (CYCLES, text),
                    str(out), modules=[str(ko)], audio="ac97", timeout_s=timeout,
                    cmdline_extra="log_buf_len=4M")
    assert res.ok, "guest failed: rc=%s timed_out=%s, see %s" % (
        res.rc, res.timed_out, res.console)
    r = out / "results"
    st, en = r / "stress.start", r / "stress.end"
    stress_s = en.stat().st_mtime - st.stat().st_mtime
    (r / "wall.txt").write_text("boot %.1f\nscript %.1f\nstress %.1f\n" % (
        res.boot_s or 0, res.script_s or 0, stress_s))
    print("debug kernel: booted in %.1f s, script %.1f s, %d cycles %.1f s wall"
          % (res.boot_s or 0, res.script_s or 0, CYCLES, stress_s))
    return r


@pytest.fixture(scope="module")
def res():
    return guestboot.once(("debug", KVER), _boot)


def _read(res, name):
    return (res / name).read_text(errors="replace")


def test_kernel_config_has_the_detectors():
    root = os.environ.get("SMODEM_KERNEL_ROOT", "").split(":")[0]
    cfg = Path(root) / ("config-" + KVER)
    assert cfg.is_file(), cfg
    have = set(cfg.read_text().splitlines())
    for opt in ("PROVE_LOCKING", "KASAN", "KASAN_GENERIC", "DEBUG_KMEMLEAK",
                "DEBUG_KMEMLEAK_AUTO_SCAN", "DEBUG_ATOMIC_SLEEP", "DEBUG_OBJECTS",
                "DEBUG_OBJECTS_TIMERS", "DEBUG_OBJECTS_WORK", "DEBUG_OBJECTS_RCU_HEAD",
                "DEBUG_LIST", "DEBUG_SPINLOCK", "DEBUG_MUTEXES", "PROVE_RCU",
                "SOFTLOCKUP_DETECTOR", "HARDLOCKUP_DETECTOR", "DETECT_HUNG_TASK",
                "EVENT_TRACING", "DEBUG_FS", "PREEMPT_DYNAMIC"):
        assert "CONFIG_%s=y" % opt in have, opt


def test_detectors_live(res):
    det = dict(x.split(None, 1) for x in _read(res, "detectors.txt").splitlines())
    assert det.get("kmemleak") == "yes", det
    assert det.get("kmemleak-scan-rc") == "0", det
    assert det.get("lockdep_stats") == "yes", det
    assert det.get("debug_objects") == "yes", det
    assert det.get("kasan") == "1", det
    assert det.get("tracing") == "yes", det
    # lockdep still validating at the end: a splat switches it off
    for name in ("lockdep-start.txt", "lockdep-end.txt"):
        m = re.search(r"debug_locks:\s+(\d+)", _read(res, name))
        assert m and m.group(1) == "1", (name, m and m.group(0))


def test_boot_is_clean(res):
    """Without the module: the debug kernel itself finds nothing (else
    nothing below would mean much)."""
    assert not splats(_read(res, "boot.dmesg") + _read(res, "boot-scan.dmesg"))


def test_load_unload_stress(res):
    n, fails = _read(res, "stress.txt").split()
    assert (int(n), int(fails)) == (CYCLES, 0)
    assert _read(res, "stress.loaded").strip() == "0"
    assert _read(res, "stress.irq").strip() == ""
    bad = splats(_read(res, "stress.dmesg"))
    assert not bad, "\n".join(bad)


def test_unload_while_reading_stats(res):
    n, fails = _read(res, "unload-read.txt").split()
    assert (int(n), int(fails)) == (40, 0)
    reads = [int(x) for x in _read(res, "unload-read.reads").split()]
    assert len(reads) == 40 and min(reads) > 0, reads
    assert _read(res, "unload-read.how").split().count("unbind") == 20
    assert _read(res, "unload-read.loaded").strip() == "0"
    bad = splats(_read(res, "unload-read.dmesg"))
    assert not bad, "\n".join(bad)


def assert_no_new_leak(res):
    """kmemleak-boot.txt (what boot left: reported, not judged) and
    kmemleak.txt (after two scans at the end: must be empty) in res."""
    boot = _read(res, "kmemleak-boot.txt")
    if boot.strip():
        print("kmemleak at boot (the kernel's, set aside):\n" + boot[:4000])
    leaks = _read(res, "kmemleak.txt")
    assert not leaks.strip(), leaks[:8000]


def test_no_leak(res):
    """kmemleak, after everything: nothing unreferenced since the boot's
    own objects were set aside."""
    assert_no_new_leak(res)
    assert not splats(_read(res, "kmemleak.dmesg"))
