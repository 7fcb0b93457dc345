"""Who may attach a daemon to context=usr's /dev/smodem<n>:
one boot of the 6.1 generic kernel, tests/module/guest/usr_perm_checks.sh, with
smodemd (build/smodemd/smodemd-static) run as uid 1000 by
tests/module/guest/runas.c (no capabilities; RLIMIT_RTPRIO / RLIMIT_MEMLOCK as
systemd's LimitRTPRIO= / LimitMEMLOCK= would set them).

- usr_mode=0600 (the default): the node is root's, mode 0600; uid 1000
  gets EACCES and smodemd exits 1 saying so; root attaches.
- usr_mode=0666: uid 1000 attaches at the policy it inherits; a real-time
  policy without CAP_SYS_NICE or RLIMIT_RTPRIO fails (EPERM) with a message
  naming both, as does SCHED_DEADLINE; with RLIMIT_RTPRIO 50 --fifo 50
  works; a tiny RLIMIT_MEMLOCK makes mlockall fail, said as such.
Every refused daemon exits 1 and leaves the modem without a daemon.

Then the weaknesses found by reading the interface's code, each a
scenario of tests/module/guest/usrhostile.c (a daemon that is its own DTE) in a
third load (context=usr engine=1 ring_samples=8192): a daemon gone after a
fax operation or with the tty's report queue full still ends the call; the
period and output lead it chose do not outlive it; a new daemon finds the
area clear and its header as the module made it; no line bytes from before
a call reach its DTE; no command carries a dial string it does not dial;
the stats file shows only the daemon's whole engine_* lines; a second
thread waiting for the device is interruptible; poll() and O_NONBLOCK WAIT
spun on do not read the hardware each time; a stalled daemon's stall work
spares the next; a daemon detached as stalled hears it from poll()
(POLLERR | POLLHUP, a sleeping poller woken), not never.
SMODEM_KO overrides the module, SMODEM_TTY_KERNEL the kernel.  About 60 s.

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
        runas = guestboot.build_static(out, "tests/module/guest/runas.c")
        hostile = guestboot.build_static(out, "tests/module/guest/usrhostile.c",
                                         incs=("driver",))
        return guestboot.run_checks(
            kver, "usr_perm_checks.sh", out, audio="ac97", share="deferred",
            extra_files={"usr/bin/runas": str(runas), "usr/bin/smodemd": str(guestboot.smodemd()),
                         "usr/bin/usrhostile": str(hostile),
                         "opt/smodem/smodem.ko": str(guestboot.module(kver))},
            timeout_s=300)
    return guestboot.once(("usr-perm", kver), boot)


def _read(name):
    return (run() / name).read_text(errors="replace")


def _stats(name):
    return smtrace.stats(_read(name))


def test_modules_load_and_unload():
    for m in ("m600", "m666", "m35"):
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


# -- found by reading the interface's code (tests/module/guest/usrhostile.c)

def _hostile(name):
    """usrhostile's result line for scenario name: {key: value}."""
    text = _read("h-%s.txt" % name)
    assert _read("h-%s.rc" % name).strip() == "0", text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    raise AssertionError(text)


def test_usr_gone_after_fax_op_ends_the_call():
    """A Class 1 call, +FTS (a command: a new call id), the daemon closes:
    NO CARRIER and DCD off all the same (its report was dropped as stale)."""
    r = _hostile("gone-fax")
    assert r["setup"] == "1111" and r["dcd_before"] == "1", r
    assert r["nocarrier"] == "1" and r["dcd_after"] == "0", r


def test_usr_gone_with_full_queue_ends_the_call():
    """A connected call, 16 reports in the daemon's last period (the tty's
    queue full, its work unable to run before the close): NO CARRIER."""
    r = _hostile("gone-full")
    assert r["setup"] == "11" and r["dcd_before"] == "1", r
    assert r["nocarrier"] == "1" and r["dcd_after"] == "0", r


def test_usr_detach_restores_period_and_lead():
    """next=8 and a lead grown by late answers do not outlive the daemon."""
    r = {k: int(v) for k, v in _hostile("restore").items()}
    # engine=1, period 100: the module's first lead, a period and a half,
    # which a detach restores (the next daemon's first period on hook fits it)
    assert r["period_before"] == 100 and r["lead_before"] == 150, r
    assert r["period_during"] == 8 and r["lead_during"] > r["lead_before"], r
    assert r["period_after"] == 100 and r["lead_after"] == 150, r


def test_usr_open_clears_the_area():
    r = _hostile("clear")
    assert int(r["bytes"]) > 16384 and r["nonzero"] == "0", r


def test_usr_open_restores_the_header():
    """A daemon wrote over the area's header (magic, size, offsets) and
    closed: the next daemon finds the module's own (usrfuzz found it: the
    next daemon read a size of 956812289)."""
    r = _hostile("header")
    assert r["same"] == "1", r
    assert r["magic"] == "0x31554d53", r


def test_usr_no_line_bytes_from_before_the_call():
    """Bytes the modem sent with no call, and in the period during which the
    DTE dialled (the command not yet taken), are the old call's: after the
    new call's CONNECT the DTE reads only that call's bytes."""
    r = _hostile("stale")
    assert r["setup"] == "11" and r["fresh"] == "1", r
    assert r["stale1"] == "0" and r["stale2"] == "0", r


def test_usr_commands_carry_no_stale_dial_string():
    """ATD5551234567, ATD12, ATH: the second call's number has no tail of
    the first, the hang-up no number; a period without a command has an
    all-zero one."""
    r = _hostile("dial")
    assert r["setup"] == "1111" and r["calls"] == "2", r
    assert r["numbers"] == "5551234567,12" and int(r["hangups"]) >= 1, r
    assert r["leaks"] == "0", r


def test_usr_stats_file_takes_only_engine_lines():
    r = _hostile("stats")
    assert r["overruns"] == "1" and r["usr_bad"] == "1", r
    assert r["hostile"] == "1" and r["good"] == "1", r
    assert r["ctl"] == "0" and r["tail"] == "0", r


def test_usr_second_thread_waits_interruptibly():
    """One thread in a 512 ms WAIT, another's WAIT waits for the device: in
    S, not D, and a signal ends it at once (EINTR, no SA_RESTART)."""
    r = _hostile("intr")
    assert r["state"] == "S", r
    assert r["errno"] == "EINTR" and float(r["latency_ms"]) < 100, r


def test_usr_poll_and_nonblock_wait_throttled():
    """poll() and O_NONBLOCK WAIT spun on for 0.5 s each: the hardware
    position (ac97_position) is read a few times a period, not per call."""
    r = {k: int(v) for k, v in _hostile("throttle").items()}
    assert r["polls"] > 1000 and r["nonblock"] > 1000, r
    assert r["poll_periods"] > 10 and r["nonblock_periods"] > 10, r
    assert r["poll_hits"] <= 5 * r["poll_periods"] + 50, r
    assert r["nonblock_hits"] <= 5 * r["nonblock_periods"] + 50, r


def test_usr_stall_work_spares_the_next_daemon():
    """A daemon stalls past SMODEM_USR_STALL_MS and closes before its stall
    work runs; the one attached next serves on (no EPIPE, no stall)."""
    r = _hostile("gen")
    assert r["ok"] == "40" and r["epipe"] == "0", r
    st = _stats("h-gen.stats")
    assert st["usr_stalls"] == 0 and st["usr_attached"] == 0, st


def test_usr_revoked_daemon_poll_says_so():
    """A daemon stops calling for 3 s (detached as stalled after 2 s) while
    another of its threads polls for errors only: that poller wakes at the
    detach with POLLERR | POLLHUP (it slept its whole 6 s before: nothing
    woke it, and poll() found no error), a poll() for POLLIN afterwards
    answers the same at once (it slept its 2 s), and WAIT says EPIPE,
    blocking or not."""
    r = _hostile("revoke")
    err_hup = 0x8 | 0x10
    assert r["poller_rc"] == "1" and int(r["poller_revents"], 16) == err_hup, r
    # woken by the detach: the stall limit (2 s) after its last DONE, plus
    # the interrupt that notices and the work that detaches
    assert 1500 < float(r["poller_ms"]) < 3000, r
    assert r["poll_rc"] == "1" and int(r["poll_revents"], 16) == err_hup, r
    assert float(r["poll_ms"]) < 100, r
    assert r["wait"] == "EPIPE" and r["nonblock_wait"] == "EPIPE", r
    assert r["stalls"] == "1", r
