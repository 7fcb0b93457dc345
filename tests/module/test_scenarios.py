"""The working modem's call scenarios, in virtual time: one boot of the 6.1
generic kernel, the module loaded once (engine=1 phase_periods=1
ring_samples=8192), ten calls in a row between the guest's /dev/ttySM0 and
build/line/smline through QEMU's D-Bus audio on the instruction-counted
clock (the same calls on every run):

  1 incoming call, auto-answered on the second ring (ATS0=2): RING on the
    tty, RI seen by TIOCMIWAIT/TIOCMGET/TIOCGICOUNT, data both ways
  2 incoming call answered with ATA, data both ways
  3 V.21 (AT+MS=V21): CONNECT 300, 300 bytes echoed intact; then the far
    end hangs up: with CLOCAL off the session gets SIGHUP and EOF
  4 V.22 (AT+MS=V22): CONNECT 1200, 300 bytes echoed intact; then the far
    end hangs up: NO CARRIER, DCD down in TIOCMGET and TIOCGICOUNT
  5 V.8 (AT+A8E=1,1) into V.22bis + V.42 (the far end's record: v8 true);
    +++ with guard time, ATO back on line, data still crosses, +++ and
    ATH from command mode (the far end's record: end=local-hangup)
  6 a busy number dialled the moment call 5's ATH said OK: BUSY, its own
    result, not a late report of the call just hung up
  7 BUSY, 8 an unobtainable number (reorder tone: BUSY), 9 NO ANSWER
    (ATS7=8), 10 NO DIALTONE (smline --no-dialtone-calls 10: the line is
    unplugged for that call only)

Calls 1, 2 and 5 (and 6 after it) name V.22bis (AT+MS=V22B), smline's far ends'; 7-10 dial on the
factory profile (ATZ: V.34 with its automode, through V.8): the same results at the same times.

tests/module/guest/scenario_checks.sh runs in the guest with ttyat (built here
from tests/module/guest/ttyat.c); smline writes one JSON record per call; the
phases are traced (smtrace).  Flow control, the unload during a call and
pppd are in test_scenarios_data.py.  SMODEM_KO overrides the module,
SMODEM_TTY_KERNEL the kernel.

Cost: 1 guest, 0.9 min of wall time (0.7 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import os
import re
from pathlib import Path

import pytest

import guestboot
import smtrace

TOP = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("SMODEM_SCENARIOS_OUT") or TOP / "out" / "tests" / "scenarios")
ARGS = "engine=1 phase_periods=1 ring_samples=8192"
LINE = ["--incoming", "4=v22bis,v42,echo,from=5550100",
        "--incoming", "5=v22bis,v42,echo,from=5550200",
        "--route", "5550300=answer:v21,echo,hangup=16",
        "--route", "5551200=answer:v22,echo,hangup=7",
        "--route", "5552400=answer:v22bis,v8,v42,echo",
        "--route", "5550001=busy",
        "--route", "5550002=noanswer",
        "--no-dialtone-calls", "10"]
# the guest's calls in order, as smline numbers them
CALLS = ["in-auto", "in-ata", "v21", "v22", "v8", "redial", "busy",
         "unobtainable", "noanswer", "nodialtone"]


def run():
    return guestboot.line_results("scenarios", "scenario_checks.sh", OUT, LINE,
                                  env={"SMODEM_ARGS": ARGS}, timeout_s=600)


def _res():
    return run()[0]


def _read(name):
    return guestboot.read_result(run(), name)


def record(name):
    return guestboot.call_record(run(), CALLS, name)


def stats(name):
    return smtrace.stats(_read(name + ".stats"))


def _unesc(s):
    """Undo ttyat's print_esc: \\r \\n \\\\ \\xNN."""
    def one(m):
        c = m.group(1)
        return {"r": "\r", "n": "\n", "\\": "\\"}.get(c) or chr(int(c[1:], 16))
    return re.sub(r"\\(r|n|\\|x[0-9a-f]{2})", one, s)


class Transcript:
    """ttyat's output: steps ("> " what was sent or done) with what came
    back ("< ") and the record lines (TIOCM, DATA, UNTIL, ...) under them."""

    def __init__(self, name):
        self.text = _read(name + ".txt")
        self.steps = []
        for line in self.text.splitlines():
            if line.startswith("> "):
                self.steps.append({"sent": _unesc(line[2:]), "got": None, "rec": []})
            elif line.startswith("< ") and self.steps and self.steps[-1]["got"] is None:
                self.steps[-1]["got"] = _unesc(line[2:])
            elif self.steps:
                self.steps[-1]["rec"].append(line)
            else:
                self.steps.append({"sent": None, "got": None, "rec": [line]})

    def step(self, sent, nth=0):
        hits = [s for s in self.steps if s["sent"] in (sent, sent + "\r")]
        assert len(hits) > nth, (sent, self.text)
        return hits[nth]

    def got(self, sent, nth=0):
        return self.step(sent, nth)["got"]

    def records(self, prefix):
        return [fields(r) for s in self.steps for r in s["rec"] if r.startswith(prefix)]

    def record(self, prefix, nth=0):
        recs = self.records(prefix)
        assert len(recs) > nth, (prefix, self.text)
        return recs[nth]


def fields(line):
    return {k: int(v) if re.fullmatch(r"-?\d+", v) else v
            for k, v in re.findall(r"(\w+)=(\S+)", line)}


def data_ok(rec, n):
    assert (rec["n"], rec["got"], rec["bad"], rec["writer"]) == (n, n, 0, 0), rec


def far_echo_ok(r, n):
    """The far end's record: what the modem sent it came back, whole."""
    assert r["result"] == "connected", r
    assert r["bytes_from_modem"] >= n and r["bytes_to_modem"] >= n, r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    # what the far receiver made of the silence after the hang-up is apart (*_loop_open);
    # at most one frame the line spoiled before it
    assert r["errors"]["framing"] == 0 and r["errors"]["fcs"] <= 1, r


def phases():
    return [(e.fields["phase"], e.fields.get("arg"), e.ts_ns)
            for e in smtrace.events(_res() / "phases.dat") if e.name == "smodem_phase"]


# -- 1, 2: incoming calls -----------------------------------------------------

def test_incoming_auto_answer_ring_and_ri():
    t = Transcript("in-auto")
    # TIOCMIWAIT on RNG returns with the first ring, RI is up meanwhile
    mi = t.record("MIWAIT")
    assert (mi["rc"], mi["errno"]) == (0, 0), mi
    first = t.record("TIOCM", 0)
    assert first["RNG"] == 1 and first["CAR"] == 0, first
    # two rings (each RING on the tty), then the answer on the second
    got = t.got("(until CONNECT, at most 40000 ms)")
    assert got == "\r\nRING\r\n" * 2 + "\r\nCONNECT 2400\r\n", repr(got)
    assert t.record("UNTIL")["found"] == 1
    # RI went up and down twice (four changes), DCD came up once: RNG=0,
    # CAR=1 after the answer
    ic0, ic1 = t.record("ICOUNT", 0), t.record("ICOUNT", 1)
    assert (ic0["rng"], ic1["rng"], ic0["dcd"], ic1["dcd"]) == (1, 4, 0, 1), (ic0, ic1)
    up = t.record("TIOCM", 1)
    assert (up["RNG"], up["CAR"]) == (0, 1), up
    data_ok(t.record("DATA"), 256)
    assert t.got("ATH") == "\r\nOK\r\n"
    assert t.record("TIOCM", 2)["CAR"] == 0
    r = record("in-auto")
    assert (r["direction"], r["number"], r["rings"]) == ("incoming", "5550100", 2), r
    assert (r["modulation"], r["rate"], r["v42"]) == ("V.22bis", 2400, True), r
    far_echo_ok(r, 256)
    assert r["end"] == "local-hangup", r
    st = stats("in-auto")
    assert (st["engine_role"], st["engine_rate"], st["engine_v42"]) == ("answer", 2400, 1), st


def test_incoming_answered_with_ata():
    t = Transcript("in-ata")
    assert "RING" in t.got("(until RING, at most 20000 ms)")
    assert t.got("(final result, at most 40000 ms)") == "\r\nCONNECT 2400\r\n"
    data_ok(t.record("DATA"), 256)
    assert t.got("ATH") == "\r\nOK\r\n"
    assert t.record("TIOCM")["CAR"] == 0
    r = record("in-ata")
    assert (r["direction"], r["number"]) == ("incoming", "5550200"), r
    assert 1 <= r["rings"] <= 3, r
    far_echo_ok(r, 256)
    assert r["end"] == "local-hangup", r


# -- 3, 4: V.21 and V.22, ended by the far end --------------------------------

def test_v21_300():
    t = Transcript("v21")
    assert t.got("(final result, at most 40000 ms)") == "\r\nCONNECT 300\r\n"
    assert t.record("TIOCM", 0)["CAR"] == 1
    data_ok(t.record("DATA"), 300)
    r = record("v21")
    assert (r["number"], r["modulation"], r["rate"], r["v42"]) == \
        ("5550300", "V.21", 300, False), r
    far_echo_ok(r, 300)
    st = stats("v21")
    assert (st["engine_rate"], st["engine_link"], st["engine_cfg_modulations"]) == \
        (300, "async", "v21"), st


def test_v22_1200():
    t = Transcript("v22")
    assert t.got("(final result, at most 40000 ms)") == "\r\nCONNECT 1200\r\n"
    data_ok(t.record("DATA"), 300)
    r = record("v22")
    assert (r["number"], r["modulation"], r["rate"], r["v42"]) == \
        ("5551200", "V.22", 1200, False), r
    far_echo_ok(r, 300)
    st = stats("v22")
    # +MS=V22 with automode: V.22 or below
    assert (st["engine_rate"], st["engine_link"], st["engine_cfg_modulations"]) == \
        (1200, "async", "v22,v21"), st


def test_remote_hangup_no_carrier_dcd_drops():
    """The V.22 call: the far end hangs up 7 s into the data phase."""
    t = Transcript("v22")
    assert t.record("UNTIL")["found"] == 1
    assert t.got("(until NO CARRIER, at most 20000 ms)").endswith("\r\nNO CARRIER\r\n")
    up, down = t.record("TIOCM", 0), t.record("TIOCM", 1)
    assert (up["CAR"], down["CAR"]) == (1, 0), (up, down)
    ic0, ic1 = t.record("ICOUNT", 0), t.record("ICOUNT", 1)
    assert ic1["dcd"] == ic0["dcd"] + 1, (ic0, ic1)
    assert t.got("AT") == "\r\nOK\r\n"       # back in command mode
    r = record("v22")
    assert r["end"] == "remote-hangup", r
    assert any("far end hangs up" in e["event"] for e in r["events"]), r["events"]
    assert stats("v22")["engine_carrier_losses"] >= 1


def test_remote_hangup_sighup():
    """The V.21 call, CLOCAL off, ttyat the session leader: the far end's
    hang-up hangs the tty up (SIGHUP, EOF); reopened, DCD is down."""
    t = Transcript("v21")
    hup = t.record("HUP")
    assert hup["ended"] == 1 and hup["sighup"] >= 1, hup
    assert t.record("TIOCM", 1)["CAR"] == 0
    assert t.record("END")["sighup"] >= 1
    r = record("v21")
    assert r["end"] == "remote-hangup", r
    # the data phase had 16 s before the far end left: the hang-up is
    # the far end's, seen within the carrier-loss time (S10) and a bit
    ev = [e for e in r["events"] if "far end hangs up" in e["event"]]
    assert ev and r["end_sample"] - ev[0]["t"] < 4 * 8000, r["events"]


# -- 5: V.8, escape and return -------------------------------------------------

def test_v8_negotiated():
    t = Transcript("v8")
    assert t.got("(final result, at most 40000 ms)") == "\r\nCONNECT 2400\r\n"
    r = record("v8")
    assert (r["number"], r["v8"], r["modulation"], r["rate"], r["v42"]) == \
        ("5552400", True, "V.22bis", 2400, True), r
    assert any("V.8" in e["event"] or "v8" in e["event"].lower() for e in r["events"]), \
        r["events"]
    # read after call 6 (the redial, same session): V.8 still configured;
    # V.42 is in the far end's record above
    st = stats("v8")
    assert (st["engine_cfg_v8"], st["engine_v8"]) == (1, 1), st
    assert st["engine_v8_status"] not in ("none", "failed"), st


def test_escape_ato_ath():
    t = Transcript("v8")
    data_ok(t.record("DATA", 0), 512)
    # +++ after a second of silence: OK, command mode, the call still up
    assert t.got("(until OK, at most 4000 ms)", 0).endswith("\r\nOK\r\n")
    assert t.got("AT") == "\r\nOK\r\n"
    assert t.got("ATO") == "\r\nCONNECT 2400\r\n"
    data_ok(t.record("DATA", 1), 512)
    assert t.got("(until OK, at most 4000 ms)", 1).endswith("\r\nOK\r\n")
    assert t.got("ATH") == "\r\nOK\r\n"
    assert t.record("TIOCM")["CAR"] == 0
    r = record("v8")
    far_echo_ok(r, 1024)
    assert r["end"] == "local-hangup", r
    assert r["errors"]["carrier_drops"] == 0 and r["errors"]["retrains"] == 0, r


def test_dial_right_after_hangup():
    t = Transcript("v8")
    assert t.got("ATH") == "\r\nOK\r\n"
    # the next final result is the new call's: no NO CARRIER, no CONNECT
    assert t.got("(final result, at most 30000 ms)") == "\r\nBUSY\r\n", t.text
    assert t.got("AT", 1) == "\r\nOK\r\n", t.text
    assert record("v8")["end"] == "local-hangup", record("v8")
    r = record("redial")
    assert (r["number"], r["result"]) == ("5550001", "busy"), r


# -- 7-10: call progress -------------------------------------------------------

@pytest.mark.parametrize("name,code,result,route", [
    ("busy", "BUSY", "busy", "busy"),
    ("unobtainable", "BUSY", "unobtainable", None),
    ("noanswer", "NO ANSWER", "noanswer", "noanswer"),
    ("nodialtone", "NO DIALTONE", "nodialtone", None),
])
def test_call_progress(name, code, result, route):
    t = Transcript(name)
    assert t.got("(final result, at most 30000 ms)") == "\r\n%s\r\n" % code, t.text
    assert t.record("FINAL")["found"] == 1
    assert t.got("AT") == "\r\nOK\r\n"       # on hook, commands again
    r = record(name)
    assert r["result"] == result and r["route"] == route, r
    assert "modulation" not in r, r          # never answered
    st = stats(name)
    assert (st["engine_phase"], st["engine_connects"]) == ("on-hook", 5), st


def test_no_answer_after_s7():
    """ATS7=8: the engine gives up 8 s after dialling, during ringback."""
    ph = phases()
    calls = _calls(ph)
    c = calls[CALLS.index("noanswer")]
    names = [p for p, _, _ in c]
    assert names[:3] == ["off-hook", "dialing", "waiting"], c
    wait = [ts for p, _, ts in c if p == "waiting"][0]
    end = [ts for p, _, ts in c if p == "hung-up"][0]
    print("waiting -> hung-up: %.2f s" % ((end - wait) / 1e9))
    assert 6.0 < (end - wait) / 1e9 < 9.5, c


def test_no_dialtone_only_for_that_call():
    # the calls before it found a dial tone on the same line
    for name in CALLS[2:8]:
        assert record(name)["result"] != "nodialtone", record(name)
    c = _calls(phases())[CALLS.index("nodialtone")]
    # smdsp_modem_cause 1: NO_DIALTONE, 5 s after off-hook
    assert [(p, a) for p, a, _ in c] == [("off-hook", 0), ("hung-up", 1), ("on-hook", 0)], c
    assert 4.9 < (c[1][2] - c[0][2]) / 1e9 < 5.2, c


def _calls(ph):
    """The phases cut into calls: from off-hook (or ring/answer) to on-hook."""
    calls, cur = [], None
    for p, a, ts in ph:
        if cur is None and p == "on-hook":
            continue
        if cur is None:
            cur = []
        cur.append((p, a, ts))
        if p == "on-hook":
            calls.append(cur)
            cur = None
    return calls


# -- the whole run -------------------------------------------------------------

def test_phases_and_no_overruns():
    calls = _calls(phases())
    assert len(calls) == len(CALLS), calls
    for name in ("in-auto", "in-ata", "v21", "v22", "v8"):
        names = [p for p, _, _ in calls[CALLS.index(name)]]
        assert "connected" in names and names[-2:] == ["hung-up", "on-hook"], (name, names)
    ev = smtrace.events(_res() / "phases.dat")
    assert not [e for e in ev if e.name in ("smodem_overrun", "smodem_dma_halt")]
    st = stats("nodialtone")
    assert st["overruns"] == 0 and st["dma_halts"] == 0, st
    assert st["engine_calls"] == len(CALLS) and st["engine_connects"] == 5, st


def test_unloads_cleanly():
    assert _read("insmod.rc").strip() == "0"
    assert _read("rmmod.rc").strip() == "0"
    assert _read("loaded").strip() == "0"
    bad = [x for x in _read("dmesg.txt").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_line_never_stalled():
    log = (_res().parent / "smline.log").read_text(errors="replace")
    m = re.search(r"closed: (\d+) ticks, (\d+) samples in, (\d+) out, (\d+) stalls", log)
    assert m, log[-2000:]
    assert int(m.group(4)) == 0, m.group(0)
