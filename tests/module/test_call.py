"""The data pump's modem engine behind /dev/ttySM0 (engine=1), in a QEMU
guest on the virtual clock with no telephone line (6.1 generic kernel, one
boot): the in-kernel loopback line (hw=vline) and QEMU's AC'97 with silent
input.  A dial attempt goes off hook, hears no dial tone and ends in
NO DIALTONE through the real engine; the phases are traced; with
phase_periods=1 the interrupt period is 20 samples on hook and 100 off hook.

tests/module/call_checks.sh runs in the guest with ttyat (built here from
tests/module/ttyat.c).  The real call (real clock, AC'97 on a private JACK
server, build/line/smline answering) is in tests/realtime: `make check-real`.
SMODEM_KO overrides the module (default
build/<kver>/smodem.ko, built by `make modules`), SMODEM_TTY_KERNEL the
kernel.
"""
import re
from pathlib import Path

import pytest

import smtrace
import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "call"


def results():
    """Boot once; every test reads the same results."""
    return guestboot.tty_results("call", "call_checks.sh", OUT)


def _read(name):
    return (results() / name).read_text(errors="replace").strip()


def _stats(name):
    return smtrace.stats(_read(name))


def _replies(name):
    """ttyat transcript: the received text after each '> ' step."""
    text = _read(name + ".txt")
    return text, re.findall(r"^< (.*)$", text, re.M)


def _phases(name):
    ev = smtrace.events(results() / (name + ".dat"))
    return [(e.fields["phase"], e.fields.get("arg")) for e in ev
            if e.name == "smodem_phase"]


def _changes(name):
    ev = smtrace.events(results() / (name + ".dat"))
    return [(e.fields["old"], e.fields["new"]) for e in ev
            if e.name == "smodem_period_change"]


@pytest.mark.parametrize("name", ["vline", "ac97", "fixed"])
def test_no_dialtone(name):
    assert _read(name + "-insmod.rc") == "0"
    assert _read(name + ".rc") == "0"
    text, got = _replies(name)
    # ATE0's OK, then the dial attempt: nothing but NO DIALTONE, at the end
    # of the command step's 5 s or in the 3 s read after it.
    assert len(got) >= 3, text
    call = "".join(got[1:3]).replace("\\r", "\r").replace("\\n", "\n")
    assert call == "\r\nNO DIALTONE\r\n", text
    # Back on hook, the port takes commands, no carrier.
    assert got[3].replace("\\r", "\r").replace("\\n", "\n") == "\r\nOK\r\n", text
    assert "CAR=0" in text, text


@pytest.mark.parametrize("name", ["vline", "ac97", "fixed"])
def test_phases_traced(name):
    ph = _phases(name)
    # smdsp_modem_cause: 1 is NO_DIALTONE.
    assert ph == [("off-hook", 0), ("hung-up", 1), ("on-hook", 0)], ph


def test_phase_periods():
    for name in ("vline", "ac97"):
        ch = _changes(name)
        # The first period after load moves to the on-hook 2.5 ms, the dial
        # to 12.5 ms, the hang-up back.
        assert ch[-2:] == [(20, 100), (100, 20)], (name, ch)
        after = _stats(name + "-after.stats")
        assert after["period_samples"] == 20, after
        # Ticking at 20 samples: no overrun, at least 4 interrupts per 10 ms.
        assert after["overruns"] == 0, after


def test_fixed_period_without_phase_periods():
    assert _changes("fixed") == []
    assert _stats("fixed-after.stats")["period_samples"] == 100


@pytest.mark.parametrize("name", ["vline", "ac97", "fixed"])
def test_unloads_cleanly(name):
    assert _read(name + "-rmmod.rc") == "0"
    assert _read(name + ".loaded") == "0"
    bad = [line for line in _read(name + ".dmesg").splitlines()
           if guestboot.BAD_DMESG.search(line)]
    assert not bad, bad


BAD = [("engine=2", "engine"), ("phase_periods=2", "phase_periods"),
       ("phase_periods=1", "phase_periods"), ("engine=1 rate=9600", "rate"),
       ("engine=1 phase_periods=1 ring_samples=128", "ring_samples")]


@pytest.mark.parametrize("i,args,word", [(i, a, w) for i, (a, w) in enumerate(BAD, 1)])
def test_bad_parameters_rejected(i, args, word):
    rec = dict(line.split(" ", 1) for line in _read("bad-%d.txt" % i).splitlines()
               if " " in line)
    assert rec["args"] == args
    assert rec["rc"] != "0" and rec["loaded"] == "0", rec
    assert word in rec.get("msg", ""), rec
