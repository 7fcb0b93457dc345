"""Whole calls in virtual time (issues 4 and 5): the guest's /dev/ttySM0
dials build/line/smline's answering modem (SpanDSP, V.22bis + V.42) through
QEMU's D-Bus audio on the instruction-counted clock, once per execution
context (int, dpc, thr, res, irqt) in one boot of the 6.1 generic kernel, and
moves 8 KiB of random bytes out and their echo back.

tests/module/modem_checks.sh runs in the guest (with ttyat, built from
tests/module/ttyat.c); smline writes one JSON record per call. SMODEM_KO
overrides the module (default build/<kver>/smodem.ko), SMODEM_TTY_KERNEL
the kernel.
"""
import re
from pathlib import Path

import pytest

import smtrace
import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "modem"
CONTEXTS = ["int", "dpc", "thr", "res", "irqt"]
NBYTES = 8192
ROUTE = "5551234=answer:v22bis,v42,echo"
ARGS = "engine=1 phase_periods=1 ring_samples=8192"


def run():
    return guestboot.line_results(
        "modem", "modem_checks.sh", OUT, ["--route", ROUTE],
        env={"CONTEXTS": " ".join(CONTEXTS), "CALL_BYTES": str(NBYTES),
             "DIAL": "T5551234", "AT_SETUP": "AT\\N3", "SMODEM_ARGS": ARGS},
        timeout_s=900)


def _read(name):
    return (run()[0] / name).read_text(errors="replace")


def _record(ctx):
    recs = run()[1]
    assert len(recs) == len(CONTEXTS), recs
    return recs[CONTEXTS.index(ctx)]


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_call_connects_and_moves_data(ctx):
    assert _read(ctx + "-insmod.rc").strip() == "0"
    text = _read(ctx + ".txt")
    assert "CONNECT 2400" in text, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)
    assert m, text
    n, got, bad, writer = map(int, m.groups())
    assert (n, got, bad, writer) == (NBYTES, NBYTES, 0, 0), text
    # +++ gives OK, ATH hangs up, carrier drops
    assert re.search(r"\+\+\+.*OK", text.replace("\\r\\n", " ")), text
    assert text.rstrip().splitlines()[-2].startswith("TIOCM CAR=0"), text


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_far_end_record(ctx):
    r = _record(ctx)
    assert r["number"] == "5551234" and r["result"] == "connected", r
    assert (r["modulation"], r["rate"], r["v42"]) == ("V.22bis", 2400, True), r
    # the echo: what the modem sent came back, both ways checksummed
    assert r["bytes_from_modem"] >= NBYTES and r["bytes_to_modem"] >= NBYTES, r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    assert r["end"] == "local-hangup", r


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_phases_of_the_call(ctx):
    ev = smtrace.events(run()[0] / (ctx + ".dat"))
    phases = [e.fields["phase"] for e in ev if e.name == "smodem_phase"]
    for p in ("off-hook", "dialing", "answer-tone", "training", "connected",
              "hung-up", "on-hook"):
        assert p in phases, phases
    assert phases.index("dialing") < phases.index("connected") < phases.index("hung-up")
    changes = [(e.fields["old"], e.fields["new"]) for e in ev
               if e.name == "smodem_period_change"]
    assert (20, 100) in changes and (100, 20) in changes, changes
    st = smtrace.stats(_read(ctx + ".stats"))
    assert st["overruns"] == 0, st


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_unloads_cleanly(ctx):
    assert _read(ctx + "-rmmod.rc").strip() == "0"
    assert _read(ctx + ".loaded").strip() == "0"
    bad = [x for x in _read(ctx + ".dmesg").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_line_never_stalled():
    """Every Read of QEMU's was answered from sample counts alone (a stall
    would mean wall time leaked into the run)."""
    log = (run()[0].parent / "smline.log").read_text(errors="replace")
    m = re.search(r"closed: (\d+) ticks, (\d+) samples in, (\d+) out, (\d+) stalls", log)
    assert m, log[-2000:]
    assert int(m.group(4)) == 0, m.group(0)
    assert int(m.group(2)) > 0 and int(m.group(3)) > 0, m.group(0)
