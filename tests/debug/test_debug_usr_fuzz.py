"""tests/module/test_usr_fuzz.py's long form on the debug kernel (make
check-debug): the same guest script (usr_fuzz_checks.sh: hostile daemons
as uid 1000 on two vline modems and on the AC'97, then a well-behaved
smodemd's call), on two CPUs and the real clock, so that the racer thread
scribbles the shared area while DONE reads it on the other CPU, under
KASAN, lockdep, DEBUG_OBJECTS and kmemleak.  SMODEM_USR_FUZZ_SECONDS
(default 300: 5 min on the vlines, 2.5 on the AC'97), SMODEM_USR_FUZZ_SEED
(default 35), SMODEM_USR_FUZZ_DAEMONS (default 6).  Judged as the short
form (test_usr_fuzz.py's checks; smodemd serving afterwards instead of the
call's bytes), plus every detector's splat from boot to the end and
kmemleak's two scans after the module is gone."""
import os

import guestboot
import test_usr_fuzz as tuf
from test_debug_kernel import assert_no_new_leak, splats

KVER = os.environ.get("SMODEM_DEBUG_KERNEL", "")
OUT = guestboot.TOP / "out" / "tests" / "debug-usr-fuzz"


def res():
    def boot():
        os.environ.setdefault("SMODEM_USR_FUZZ_SECONDS", "300")
        os.environ.setdefault("SMODEM_USR_FUZZ_SEED", "35")
        os.environ.setdefault("SMODEM_USR_FUZZ_DAEMONS", "6")
        return tuf.boot_fuzz(KVER, OUT / KVER, timeout_s=900, smp=2,
                             clock="real", cmdline_extra="log_buf_len=4M")
    return guestboot.once(("debug-usr-fuzz", KVER), boot)


def test_two_cpus():
    assert tuf.text(res(), "cpus.txt").strip() == "2"


def test_vline_fuzz():
    r = res()
    tot, devs = tuf.check_fuzzer(r, "vline", 2)
    print("vline:", tot)
    tuf.check_line_bytes(devs)
    tuf.check_rejections(r, "vline-fuzz")
    tuf.check_phases(r)
    tuf.check_unload(r, "vline")


def test_vline_served_after_the_fuzz():
    """The clean call is the short form's (virtual clock): on the real
    clock of this loaded 2-core host a starved vCPU garbled the call even
    after 2 s of fuzz (smodemd's handlers up to 20 ms, overruns, V.21 at
    300 bit/s); here smodemd must attach, serve and place the call."""
    tuf.check_vline_served(res())


def test_ac97_fuzz():
    r = res()
    tot, devs = tuf.check_fuzzer(r, "ac97", 1)
    print("ac97:", tot)
    tuf.check_line_bytes(devs)
    tuf.check_rejections(r, "ac97-fuzz")
    tuf.check_unload(r, "ac97")
    tuf.check_ac97_served(r)


def test_no_splat():
    text = "".join(tuf.text(res(), n) for n in ("vline.dmesg", "ac97.dmesg", "dmesg.txt"))
    bad = splats(text)
    assert not bad, "\n".join(bad[:50])


def test_no_leak():
    assert_no_new_leak(res())
