"""Who may attach a daemon to context=usr's /dev/smodem<n> (issue 14):
one boot of the 6.1 generic kernel, tests/module/usr_perm_checks.sh, with
smodemd (build/smodemd/smodemd-static) run as uid 1000 by
tests/module/runas.c (no capabilities; RLIMIT_RTPRIO / RLIMIT_MEMLOCK as
systemd's LimitRTPRIO= / LimitMEMLOCK= would set them).

- usr_mode=0600 (the default): the node is root's, mode 0600; uid 1000
  gets EACCES and smodemd exits 1 saying so; root attaches.
- usr_mode=0666: uid 1000 attaches at the policy it inherits; a real-time
  policy without CAP_SYS_NICE or RLIMIT_RTPRIO fails (EPERM) with a message
  naming both, as does SCHED_DEADLINE; with RLIMIT_RTPRIO 50 --fifo 50
  works; a tiny RLIMIT_MEMLOCK makes mlockall fail, said as such.
Every refused daemon exits 1 and leaves the modem without a daemon.
SMODEM_KO overrides the module, SMODEM_TTY_KERNEL the kernel.  About 40 s.

Cost: 1 guest, 0.1 min of wall time (0.1 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
from pathlib import Path

import guestboot
import smtrace

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "usr-perm"


def run():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT / kver)
        runas = guestboot.build_static(out, "tests/module/runas.c")
        return guestboot.run_checks(
            kver, "usr_perm_checks.sh", out, audio="ac97", share="deferred",
            extra_files={"usr/bin/runas": str(runas), "usr/bin/smodemd": str(guestboot.smodemd()),
                         "opt/smodem/smodem.ko": str(guestboot.module(kver))},
            timeout_s=300)
    return guestboot.once(("usr-perm", kver), boot)


def _read(name):
    return (run() / name).read_text(errors="replace")


def _stats(name):
    return smtrace.stats(_read(name))


def test_modules_load_and_unload():
    for m in ("m600", "m666"):
        assert _read(m + "-insmod.rc").strip() == "0", m
        assert _read(m + "-rmmod.rc").strip() == "0", m
    assert _read("loaded.txt").strip() == "0"
    bad = [x for x in _read("dmesg.txt").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_device_mode_is_usr_mode():
    # ls -ln: mode, links, uid, gid
    f = _read("mode-600.txt").split()
    assert f[0] == "crw-------" and f[2:4] == ["0", "0"], f
    f = _read("mode-666.txt").split()
    assert f[0] == "crw-rw-rw-" and f[2:4] == ["0", "0"], f


def test_mode_0600_refuses_a_user():
    assert _read("u600.rc").strip() == "1"
    log = _read("u600.log")
    assert "/dev/smodem0: Permission denied" in log, log
    assert "usr_mode" in log, log
    st = _stats("u600.after")
    assert st["usr_attached"] == 0 and st["usr_attaches"] == 0, st


def test_mode_0600_root_attaches():
    assert _read("root600.rc").strip() == "0", _read("root600.log")
    st = _stats("root600.stats")
    assert st["usr_attached"] == 1 and st["usr_attaches"] == 1, st
    assert (st["policy"], st["rt_priority"]) == ("SCHED_FIFO", 50), st
    assert "Uid:\t0\t" in _read("root600.status")


def test_mode_0666_fifo_without_privilege_fails():
    assert _read("fifo666.rc").strip() == "1"
    log = _read("fifo666.log")
    assert "--fifo 50: Operation not permitted" in log, log
    assert "CAP_SYS_NICE" in log and "RLIMIT_RTPRIO" in log, log
    st = _stats("fifo666.after")
    assert st["usr_attached"] == 0, st


def test_mode_0666_deadline_without_privilege_fails():
    assert _read("dl666.rc").strip() == "1"
    log = _read("dl666.log")
    assert "--deadline: Operation not permitted" in log and "CAP_SYS_NICE" in log, log


def test_mode_0666_tiny_memlock_fails():
    assert _read("memlock666.rc").strip() == "1"
    log = _read("memlock666.log")
    assert "mlockall:" in log and "RLIMIT_MEMLOCK" in log, log


def test_mode_0666_user_attaches_at_default_policy():
    assert _read("other666.rc").strip() == "0", _read("other666.log")
    assert "attached" in _read("other666.log")
    st = _stats("other666.stats")
    assert st["usr_attached"] == 1, st
    assert st["policy"] == "SCHED_OTHER", st
    assert st["usr_upcalls"] > 0 and st["usr_bad"] == 0, st
    status = _read("other666.status")
    assert "Uid:\t1000\t1000\t1000\t1000" in status, status
    assert "CapEff:\t0000000000000000" in status, status


def test_mode_0666_user_fifo_with_rtprio_limit():
    """RLIMIT_RTPRIO is enough for SCHED_FIFO (the systemd unit's
    LimitRTPRIO=), and the default RLIMIT_MEMLOCK (8 MiB) for mlockall."""
    assert _read("rtprio666.rc").strip() == "0", _read("rtprio666.log")
    st = _stats("rtprio666.stats")
    assert st["usr_attached"] == 1, st
    assert (st["policy"], st["rt_priority"]) == ("SCHED_FIFO", 50), st
    assert "Uid:\t1000\t" in _read("rtprio666.status")
    # every daemon ran one after the other: attach count
    assert st["usr_attaches"] == 5, st
