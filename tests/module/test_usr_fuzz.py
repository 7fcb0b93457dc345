"""Hostile daemons for context=usr ("A hostile daemon"): one
boot of the 6.1 generic kernel (tests/module/guest/usr_fuzz_checks.sh) running
tests/module/guest/usrfuzz.c as uid 1000 (tests/module/guest/runas.c, no
capabilities) against the module loaded with usr_mode=0666.

- hw=vline devices=2 vline_pairs=1: FUZZ_DAEMONS daemons race for both
  devices for FUZZ_SECONDS (fields out of range, the area scribbled from a
  second thread during DONE, ioctls out of order, bad mappings, mremap and
  munmap mid-period, fork with the mapping, close during WAIT, stalls,
  exits, SIGKILL and SIGSTOP at random), one DTE per tty typing commands,
  +++ and data; then a well-behaved smodemd serves both modems and modem 0
  calls modem 1 (V.22bis + V.42, CALL_BYTES out and echoed back); then
  smodemd is stopped (SIGSTOP) past the stall limit, both modems detach it,
  and once continued its poll() on both says so and it exits by itself.
- the AC'97 alone, several daemons racing for its one device; then smodemd
  attaches and serves.
No module parameter takes a write at run time, root's or the user's.
The vline fuzz is traced (smodem_phase): every phase the kernel took from
a daemon's PHASE reports is one a modem traces, with an argument it gives.

Judged: the fuzzer's own checks held (the kernel refused every wrong
mapping and ioctl with its errno; the DTE read no byte past what DONE may
take, and no more line bytes than offered), no process stuck, every
per-reason rejection counter (usr_bad_*) moved and usr_bad is their sum,
the stall detector detached the stopped daemons, nothing in dmesg from
smlab.checks' BAD_DMESG, the module unloads, and the call after the fuzz is
clean.  SMODEM_USR_FUZZ_SEED (default 1; "random": from the clock, printed)
and SMODEM_USR_FUZZ_SECONDS (default 20; the AC'97's half of it) make a
longer or another run; tests/debug/test_debug_usr_fuzz.py runs the long
form on the debug kernel.

Cost: 1 guest, 0.9-1.4 min of wall time (0.3 min of QEMU's CPU) on the 2-core lab
machine beside another guest (2026-11-29).
"""
import os
import re
import time
from pathlib import Path

import guestboot
import smtrace

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "usr-fuzz"
CALL_BYTES = 1024
BAD_REASONS = ("tx_used", "rx_len", "nrep", "type", "result", "rate", "next", "phase")
# The smodem_phase event's phases and the arguments a modem gives each
# (driver/smodem_call.h; rates as a CONNECT's, causes enum
# smdsp_modem_cause, kinds enum smdsp_anstone_kind, T.31's modulations).
RATES = {300, 600, 1200, 2400, 4800, 7200, 9600, 12000, 14400}
FAX_MODS = {0, 3, 24, 48, 72, 73, 74, 96, 97, 98, 121, 122, 145, 146}
PHASE_ARGS = dict(
    [(p, {0}) for p in ("on-hook", "off-hook", "dialing", "waiting", "v8", "probing",
                        "training", "retrain", "carrier-lost")] +
    [("connected", RATES), ("hung-up", set(range(7))), ("answer-tone", set(range(5)))] +
    [("fax-" + p, FAX_MODS) for p in (
        "on-hook", "idle", "dialing", "cng", "ced", "tx-hdlc", "rx-hdlc", "tx-train",
        "tx-data", "rx-train", "rx-data", "tx-silence", "rx-silence")])


def settings():
    seed = os.environ.get("SMODEM_USR_FUZZ_SEED") or "1"
    if seed == "random":
        seed = str(int(time.time() * 1000) & 0xffffffff)
    secs = int(os.environ.get("SMODEM_USR_FUZZ_SECONDS") or 20)
    return {"FUZZ_SEED": seed, "FUZZ_SECONDS": str(secs),
            "AC97_SECONDS": str(max(secs // 2, 1)),
            "FUZZ_DAEMONS": os.environ.get("SMODEM_USR_FUZZ_DAEMONS") or "4",
            "FUZZ_SKIP": os.environ.get("SMODEM_USR_FUZZ_SKIP") or "0",
            "CALL_BYTES": str(CALL_BYTES)}


def boot_fuzz(kver, out_dir, timeout_s=300, **kw):
    """Run usr_fuzz_checks.sh on kver (tests/debug reuses it); results dir."""
    env = settings()
    print("usrfuzz: seed %s, %s s" % (env["FUZZ_SEED"], env["FUZZ_SECONDS"]))
    out = guestboot.fresh_dir(out_dir)
    files = {"usr/bin/runas": str(guestboot.build_static(out, "tests/module/guest/runas.c")),
             "usr/bin/usrfuzz": str(guestboot.build_static(
                 out, "tests/module/guest/usrfuzz.c", incs=("driver",))),
             "usr/bin/ttyat": str(guestboot.build_ttyat(out)),
             "usr/bin/smodemd": str(guestboot.smodemd()),
             "opt/smodem/smodem.ko": str(guestboot.module(kver))}
    timeout_s += 3 * int(env["FUZZ_SECONDS"])
    return guestboot.run_checks(kver, "usr_fuzz_checks.sh", out, env=env,
                                audio="ac97", share="deferred", extra_files=files,
                                timeout_s=timeout_s, **kw)


def res():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        return boot_fuzz(kver, OUT / kver)
    return guestboot.once(("usr-fuzz", kver), boot)


# -- the judgements, shared with tests/debug/test_debug_usr_fuzz.py ---------

def text(r, name):
    return (r / name).read_text(errors="replace")


def totals(r, phase):
    """usrfuzz's last key=value line and its per-device lines."""
    out = text(r, phase + ".txt")
    tot, devs = None, {}
    for line in out.splitlines():
        if line.startswith("usrfuzz: episodes="):
            tot = {k: int(v) for k, v in (x.split("=") for x in line.split()[1:])}
        m = re.match(r"usrfuzz: (/dev/smodem\d+): (.*)", line)
        if m:
            devs[m.group(1)] = {k: int(v) for k, v in
                                (x.split("=") for x in m.group(2).split())}
    assert tot is not None, out[-3000:]
    return out, tot, devs


def check_fuzzer(r, phase, ndev):
    out, tot, devs = totals(r, phase)
    assert not (r / (phase + ".stuck")).exists(), text(r, phase + ".stacks")
    assert re.search(r"^usrfuzz: seed \d+ .* skip 0x0 uid 1000$", out, re.M), out[:500]
    assert "VIOLATION" not in out and tot["violations"] == 0, \
        [x for x in out.splitlines() if "VIOLATION" in x][:20]
    assert text(r, phase + ".rc").strip() == "0", out[-3000:]
    assert out.rstrip().splitlines()[-1].startswith("usrfuzz: ok"), out[-500:]
    # it did what it says, enough of it: half the periods its devices had
    # at 12.5 ms (killed, stopped, stalled and EBUSY daemons miss some)
    secs = float(re.search(r"^usrfuzz: seed \d+ seconds ([\d.]+) ", out, re.M).group(1))
    assert tot["periods"] > 0.5 * secs * ndev * 80 and tot["episodes"] > 10, tot
    # the frequent ones (the rest - forks, faults, munmaps, exits - are
    # rarer: printed, judged by the totals of a long run)
    for k in ("bad_fields", "races", "misuse", "mmaps_refused", "polls",
              "close_in_wait", "killed", "opens", "busy"):
        assert tot[k] > 0, (k, tot)
    assert len(devs) == ndev, devs
    return tot, devs


def check_line_bytes(devs, flowed=True):
    """Nothing past DONE's offer reached a DTE, and (flowed) line bytes
    did: the check is not empty."""
    for dev, t in devs.items():
        assert t["past_offer"] == 0, (dev, t)
        assert t["dte_offered"] <= t["offered"], (dev, t)
        assert t["dte_cmds"] > 0, (dev, t)
    if flowed:
        assert sum(t["dte_offered"] for t in devs.values()) > 0, devs


def check_rejections(r, name, every_reason=True):
    """Each device's usr_bad is the sum of its reasons; every reason moved
    (every_reason) or some did."""
    sts = guestboot.stats_by_device(r / (name + ".stats"))
    assert sts, name
    total = {k: 0 for k in BAD_REASONS}
    for dev, st in sts.items():
        assert st["context"] == "usr" and st["usr_attached"] == 0, (dev, st)
        assert st["usr_bad"] == sum(st["usr_bad_" + k] for k in BAD_REASONS), st
        for k in BAD_REASONS:
            total[k] += st["usr_bad_" + k]
        assert st["usr_attaches"] > 5 and st["usr_detaches"] > 0, (dev, st)
    if every_reason:
        assert all(v > 0 for v in total.values()), total
    assert sum(total.values()) > 0, total
    return sts


def check_phases(r):
    """Every smodem_phase event of the vline fuzz is a phase and argument a
    modem traces (the daemons' others refused: usr_bad_phase), and the
    daemons' valid reports were traced: the check is not empty."""
    ev = [e for e in smtrace.events(r / "vline-phase.dat") if e.name == "smodem_phase"]
    bad = [e.fields for e in ev
           if e.fields.get("arg") not in PHASE_ARGS.get(e.fields.get("phase"), ())]
    assert not bad, (len(bad), bad[:20])
    # the kernel's own are on-hook and hung-up (a daemon gone mid-call)
    seen = {e.fields["phase"] for e in ev}
    assert len(seen) > 10, seen
    return ev


def check_dmesg(r, name):
    bad = [x for x in text(r, name).splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def check_unload(r, phase):
    assert text(r, phase + "-insmod.rc").strip() == "0"
    assert text(r, phase + "-rmmod.rc").strip() == "0"
    assert text(r, phase + ".loaded").strip() == "0"


def check_clean_call(r):
    assert text(r, "vline-attached.rc").strip() == "0", text(r, "vline-smodemd.log")
    caller, answerer = text(r, "vline-call-0.txt"), text(r, "vline-call-1.txt")
    m = re.search(r"^DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(\d+)", caller, re.M)
    assert m and m.groups() == (str(CALL_BYTES), str(CALL_BYTES), "0", "0"), caller
    m = re.search(r"^ECHO n=(\d+) got=(\d+) bad=(\d+) back=(\d+)", answerer, re.M)
    assert m and m.groups() == (str(CALL_BYTES),) * 2 + ("0", str(CALL_BYTES)), answerer
    sts = guestboot.stats_by_device(r / "vline-call.stats")
    st0 = guestboot.stats_by_device(r / "vline-start.stats")
    for dev, st in sts.items():
        assert st["usr_attached"] == 1, (dev, st)
        assert st["engine_connects"] == 1 and st["engine_rate"] == 2400, (dev, st)
        assert st["usr_bad"] == st0[dev]["usr_bad"], (dev, st, st0[dev])
        assert st["usr_stalls"] == st0[dev]["usr_stalls"], (dev, st)
        # what the fuzz's daemons chose did not outlive them
        assert st["period_samples"] == 100, (dev, st)
    check_smodemd_detached(r)


def check_smodemd_detached(r):
    """smodemd (one thread polling both modems) stopped 2.5 s: each modem
    detached it as stalled, and continued, it heard so from poll() and
    exited with the error (before, poll() slept for ever: stuck)."""
    log = text(r, "vline-smodemd.log")
    assert not (r / "vline-smodemd.stuck").exists(), log
    assert text(r, "vline-smodemd.rc").strip() == "1", log
    assert log.count("(detached: this daemon stopped answering)") == 2, log
    sts = guestboot.stats_by_device(r / "vline-stopped.stats")
    st0 = guestboot.stats_by_device(r / "vline-call.stats")
    assert len(sts) == 2, sts
    for dev, st in sts.items():
        assert st["usr_attached"] == 0, (dev, st)
        assert st["usr_stalls"] == st0[dev]["usr_stalls"] + 1, (dev, st, st0[dev])


def check_vline_served(r):
    """smodemd after the fuzz: attached to both, served them through the
    call's stretch without a refused field (the call itself is
    check_clean_call's: on the real clock of a loaded host a starved vCPU
    garbles it, fuzz or none)."""
    assert text(r, "vline-attached.rc").strip() == "0", text(r, "vline-smodemd.log")
    sts = guestboot.stats_by_device(r / "vline-call.stats")
    st0 = guestboot.stats_by_device(r / "vline-start.stats")
    assert len(sts) == 2, sts
    for dev, st in sts.items():
        assert st["usr_attached"] == 1 and st["engine_calls"] == 1, (dev, st)
        assert st["usr_upcalls"] > st0[dev]["usr_upcalls"] + 1000, (dev, st)
        assert st["usr_bad"] == st0[dev]["usr_bad"], (dev, st, st0[dev])
        assert st0[dev]["period_samples"] == 100, (dev, st0[dev])
    check_smodemd_detached(r)


def check_ac97_served(r):
    assert text(r, "ac97-attached.rc").strip() == "0", text(r, "ac97-smodemd.log")
    st = smtrace.stats(text(r, "ac97-served.stats"))
    assert st["usr_attached"] == 1 and st["usr_upcalls"] > 0, st
    assert text(r, "ac97-smodemd.rc").strip() == "0", text(r, "ac97-smodemd.log")


# -- make check's short form ----------------------------------------------

def test_vline_fuzzer_checks_held():
    tot, devs = check_fuzzer(res(), "vline", 2)
    print("vline:", tot)
    check_line_bytes(devs)


def test_vline_rejections_counted():
    sts = check_rejections(res(), "vline-fuzz")
    # daemons stopped longer than a stall were detached as stalled
    assert sum(st["usr_stalls"] for st in sts.values()) > 0, sts


def test_vline_phases_checked():
    ev = check_phases(res())
    print("vline: %d phases traced" % len(ev))


def test_parameters_not_writable_at_run_time():
    """Every module parameter refuses a write once loaded, root's too (no
    store method), so none skips the load-time checks (usr_mode among
    them: widening it would hand out /dev/smodem<n>)."""
    lines = text(res(), "vline-params.txt").split("\n")
    rows = [x.split() for x in lines if x]
    names = {r[0] for r in rows}
    assert {"usr_mode", "context", "engine", "ring_samples", "cpus"} <= names, rows
    for name, root_rc, user_rc, same, mode in rows:
        assert root_rc != "0" and user_rc != "0", (name, root_rc, user_rc)
        assert same == "same" and mode == "-r--r--r--", (name, same, mode)


def test_vline_no_splat_and_unloads():
    check_dmesg(res(), "vline.dmesg")
    check_unload(res(), "vline")


def test_vline_clean_call_after_the_fuzz():
    check_clean_call(res())


def test_ac97_one_device_raced():
    r = res()
    tot, devs = check_fuzzer(r, "ac97", 1)
    print("ac97:", tot)
    # 10 s with one DTE may see no call connect: the vlines' 20 s must
    check_line_bytes(devs, flowed=False)
    check_rejections(r, "ac97-fuzz", every_reason=False)
    check_dmesg(r, "ac97.dmesg")
    check_unload(r, "ac97")
    check_ac97_served(r)
