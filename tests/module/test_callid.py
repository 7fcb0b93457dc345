"""A call's report belongs to the call that produced it: a command
the DTE gives while the modem is producing the previous call's last report
must get its own result, never that report.

Before the fix the tty stamped a report with the call generation current
when the modem posted it, and a command bumped that generation at once,
while the modem took the command only at its next period: a report the
modem produced in the period during which the command arrived was stamped
with the new call's generation and taken as its result.  On one CPU that
needs the DTE to run inside the modem's processing of that period, so this
test makes it: one boot of the 6.1 generic kernel with preempt=full,
engine=1 phase_periods=1 context=thr (the modem's thread at SCHED_FIFO 50)
and tests/module/guest/callid_checks.sh, where ttyat's race (SCHED_FIFO 99) aims
its command at that period on the instruction-counted clock:

  ATS7=1DT2;          smline never answers 2; OK once dialled (the ';'),
                      and the modem ends the call itself 1 s (S7) later,
                      NO ANSWER: a report of that call, produced in a
                      period exactly 8000 samples after the OK's
  ATH, ATS7=30DT9     written 1 s + d after the OK arrived, d swept in
                      SWEEP's steps across that period: OK, then BUSY
                      (9 is unobtainable: reorder tone) and nothing else

The trace (smodem_phase and smodem_process on CLOCK_MONOTONIC, ttyat's
clock) tells each attempt's case: the ATH came before that period (the
modem hung up for it: cause LOCAL), inside it (the modem reported NO ANSWER
after the command had been written: the race), or after its report.
Measured: every attempt in the race showed NO ANSWER instead of BUSY with
f429aa8's module (before the fix), none with today's.  The sweep
(SMODEM_CALLID_SWEEP="FROM_US STEP_US COUNT") must still bracket the
period if the modem's processing time changes; test_sweep_hits_the_race
says so when it no longer does.  SMODEM_KO overrides the module,
SMODEM_TTY_KERNEL the kernel.

Cost: 1 guest, 0.8 min of wall time (0.6 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import os
import re
from pathlib import Path

import guestboot
import smtrace

TOP = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("SMODEM_CALLID_OUT") or TOP / "out" / "tests" / "callid")
ARGS = "engine=1 phase_periods=1 ring_samples=8192 context=thr"
SWEEP = os.environ.get("SMODEM_CALLID_SWEEP") or "-80 20 12"
LINE = ["--route", "2=noanswer"]
EXPECTED = "\r\nOK\r\n\r\nBUSY\r\n"
# smdsp_modem_cause of the smodem_phase hung-up event
CAUSE_LOCAL, CAUSE_NO_ANSWER = 0, 3


def run():
    """The boot, once per session: (results dir, smline's records)."""
    kver = guestboot.generic_kernel()

    def boot():
        import json
        from smlab.dbusline import DbusLine
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT / kver)
        exe = guestboot.build_ttyat(out)
        calls = out / "calls.jsonl"
        line = DbusLine(LINE + ["--json", str(calls), "-v"], out)
        files = {"usr/bin/ttyat": str(exe),
                 "opt/smodem/smodem.ko": str(guestboot.module(kver))}
        results = guestboot.run_checks(
            kver, "callid_checks.sh", out, audio="ac97", line=line,
            share="deferred", env={"SMODEM_ARGS": ARGS, "SMODEM_RACE": SWEEP},
            extra_files=files, cmdline_extra="preempt=full", timeout_s=900)
        recs = []
        if calls.exists():
            recs = [json.loads(x) for x in calls.read_text().splitlines() if x.strip()]
        return results, recs
    return guestboot.once(("callid", kver), boot)


def _read(name):
    return guestboot.read_result(run(), name)


def _unesc(s):
    """Undo ttyat's print_esc: \\r \\n \\\\ \\xNN."""
    def one(m):
        c = m.group(1)
        return {"r": "\r", "n": "\n", "\\": "\\"}.get(c) or chr(int(c[1:], 16))
    return re.sub(r"\\(r|n|\\|x[0-9a-f]{2})", one, s)


def attempts():
    """ttyat's RACE lines: i, d_us, the times (ns), before, after."""
    out = []
    lines = _read("race.txt").splitlines()
    for k, line in enumerate(lines):
        if not line.startswith("RACE i=") or "d_us=" not in line:
            continue
        a = {key: int(v) for key, v in re.findall(r"(\w+)=(-?\d+)", line.split(" before=")[0])}
        a["before"] = _unesc(line.split(" before=", 1)[1])
        assert lines[k + 1].startswith("RACE after="), lines[k + 1]
        a["after"] = _unesc(lines[k + 1][len("RACE after="):])
        out.append(a)
    return out


def classify():
    """Each attempt with the old call's end from the trace: case "early"
    (the ATH reached the modem first: it hung up, cause LOCAL), "race" (the
    modem produced NO ANSWER after the command had been written) or "late"
    (NO ANSWER before the command)."""
    ev = smtrace.events(run()[0] / "race.dat")
    ends = [e for e in ev if e.name == "smodem_phase" and e.fields["phase"] == "hung-up"]
    procs = [e for e in ev if e.name == "smodem_process"]
    out = []
    for a in attempts():
        end = next(e for e in ends if e.ts_ns > a["t_ok"])
        cause = end.fields["arg"]
        proc = next(e for e in procs if e.ts_ns >= end.ts_ns)
        a["end_ns"] = end.ts_ns
        a["period_start_ns"] = proc.ts_ns - proc.fields["elapsed_ns"]
        a["cause"] = cause
        if cause == CAUSE_LOCAL:
            a["case"] = "early"
        elif cause == CAUSE_NO_ANSWER and a["t_w1"] < end.ts_ns:
            a["case"] = "race"
        elif cause == CAUSE_NO_ANSWER:
            a["case"] = "late"
        else:
            a["case"] = "cause %s" % cause
        out.append(a)
    return out


def _show(a):
    return ("d=%+d us: %s, written %.1f us into the period where the old call "
            "ended (%s at %.1f us), got %r" % (
                a["d_us"], a["case"], (a["t_w0"] - a["period_start_ns"]) / 1e3,
                {CAUSE_LOCAL: "hang-up", CAUSE_NO_ANSWER: "NO ANSWER"}.get(
                    a["cause"], "cause %s" % a["cause"]),
                (a["end_ns"] - a["period_start_ns"]) / 1e3, a["before"] + a["after"]))


def test_guest_ran():
    assert _read("insmod.rc").strip() == "0"
    assert "(full)" in _read("preempt"), _read("preempt")
    text = _read("race.txt")
    assert re.search(r"^RT prio=99 rc=0 ", text, re.M), text[:2000]
    assert "END race" in text, text[-2000:]
    assert _read("race.rc").strip() == "0"
    n = int(SWEEP.split()[2])
    assert len(attempts()) == n, text[-3000:]
    # every old call was dialled: OK for its ';'
    assert text.count("OLD< \\r\\nOK\\r\\n") == n, text[-3000:]


def test_each_command_gets_its_own_result():
    """ATH's OK and the dial's BUSY, nothing before, nothing else: no NO
    ANSWER of the call just hung up, whenever the command came."""
    cases = classify()
    for a in cases:
        print(_show(a))
    bad = [a for a in cases if a["before"] or a["after"] != EXPECTED or not a["t_end"]]
    assert not bad, "a result not the command's own:\n" + "\n".join(_show(a) for a in bad)


def test_sweep_hits_the_race():
    """The sweep brackets the period that produced the old call's NO
    ANSWER: writes before it, after it, and at least two inside it (the
    modem preempted between taking its commands and posting its reports)."""
    cases = classify()
    got = [a["case"] for a in cases]
    detail = "\n".join(_show(a) for a in cases)
    assert all(c in ("early", "race", "late") for c in got), detail
    assert got.count("race") >= 2, "widen or move SMODEM_CALLID_SWEEP:\n" + detail
    assert "early" in got and "late" in got, "widen SMODEM_CALLID_SWEEP:\n" + detail
    # each old call ended within its S7 of the OK, at the modem's hang-up
    for a in cases:
        assert 0.99e9 < a["end_ns"] - a["t_ok"] < 1.02e9, detail


def test_line_records():
    recs = run()[1]
    n = int(SWEEP.split()[2])
    assert [r["call"] for r in recs] == list(range(1, 2 * n + 1)), recs
    for old, new in zip(recs[0::2], recs[1::2]):
        assert (old["number"], old["result"], old["end"]) == \
            ("2", "noanswer", "local-hangup"), old
        assert (new["number"], new["result"], new["end"]) == \
            ("9", "unobtainable", "local-hangup"), new


def test_no_overruns_clean_unload():
    st = smtrace.stats(_read("race.stats"))
    n = int(SWEEP.split()[2])
    assert st["overruns"] == 0 and st["dma_halts"] == 0, st
    assert st["engine_calls"] == 2 * n and st["engine_connects"] == 0, st
    assert _read("rmmod.rc").strip() == "0"
    assert _read("loaded").strip() == "0"
    bad = [x for x in _read("dmesg.txt").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_line_never_stalled():
    log = (run()[0].parent / "smline.log").read_text(errors="replace")
    m = re.search(r"closed: (\d+) ticks, (\d+) samples in, (\d+) out, (\d+) stalls", log)
    assert m, log[-2000:]
    assert int(m.group(4)) == 0, m.group(0)
