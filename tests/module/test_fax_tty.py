"""Class 1 (T.31) fax through the kernel's per-period path, in a QEMU guest
(6.1 generic kernel, one boot): two modems wired to each other in the kernel
(hw=vline vline_pairs=1), ttySM1 answering (ATA: CED, CONNECT, a final frame
from the DTE) and ttySM0 calling (ATD: CNG, CONNECT on the answerer's flags,
the frame DLE-shielded with its FCS, DLE ETX, OK); the Class 1 commands'
answers; the fax phases in the smodem_phase trace.  A check of the wiring
(tests/module/guest/fax_checks.sh); interoperability is proven against SpanDSP in
tests/dsp/test_faxmodem.c and tests/unit/test_class1.c.

Cost: 1 guest, 0.2 min of wall time (0.2 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import re
from pathlib import Path

import smtrace
import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "fax"


def results():
    return guestboot.tty_results("fax", "fax_checks.sh", OUT)


def _read(name):
    return (results() / name).read_text(errors="replace")


def _unesc(s):
    return re.sub(r"\\(r|n|\\|x[0-9a-fA-F]{2})",
                  lambda m: {"r": "\r", "n": "\n", "\\": "\\"}.get(m.group(1)) or
                  chr(int(m.group(1)[1:], 16)), s)


def _steps(name):
    """[(sent, received)] of a ttyat transcript."""
    steps = []
    for line in _read(name).splitlines():
        if line.startswith("> "):
            steps.append([_unesc(line[2:]), ""])
        elif line.startswith("< ") and steps:
            steps[-1][1] += _unesc(line[2:])
    return steps


def _reply(name, sent):
    r = [got for s, got in _steps(name) if s in (sent, sent + "\r")]
    assert r, (sent, _read(name))
    return r[0]


OK = "\r\nOK\r\n"


def test_loaded():
    assert _read("insmod.rc").strip() == "0"
    assert _read("rmmod.rc").strip() == "0"
    bad = [line for line in _read("dmesg.txt").splitlines() if guestboot.BAD_DMESG.search(line)]
    assert not bad, bad


def test_class1_commands():
    mods = "24,48,72,73,74,96,97,98,121,122,145,146"
    assert _reply("cmds.txt", "AT+FCLASS=?") == "\r\n0,1\r\n" + OK
    assert _reply("cmds.txt", "AT+FCLASS=1") == OK
    assert _reply("cmds.txt", "AT+FCLASS?") == "\r\n1\r\n" + OK
    assert _reply("cmds.txt", "AT+FTM=?") == "\r\n%s\r\n" % mods + OK
    assert _reply("cmds.txt", "AT+FRM=?") == "\r\n%s\r\n" % mods + OK
    assert _reply("cmds.txt", "AT+FTH=?") == "\r\n3\r\n" + OK
    assert _reply("cmds.txt", "AT+FRH=?") == "\r\n3\r\n" + OK
    # the fax pump in the kernel runs them and reports OK
    assert _reply("cmds.txt", "AT+FTS=20") == OK
    assert _reply("cmds.txt", "AT+FRS=10") == OK
    assert _reply("cmds.txt", "AT+FTS=8;+FRS=5") == OK
    assert _reply("cmds.txt", "AT+FTM=95") == "\r\nERROR\r\n"
    assert _reply("cmds.txt", "AT+FCLASS=0") == OK
    assert _reply("cmds.txt", "AT+FTH=3") == "\r\nERROR\r\n"


def test_call():
    got = "".join(r for _, r in _steps("answer.txt"))
    assert "CONNECT\r\n" in got and got.rstrip().endswith("OK"), got
    call = "".join(r for _, r in _steps("call.txt"))
    assert "CONNECT\r\n" in call, call
    # the frame, its DLE doubled, two FCS octets (maybe shielded), DLE ETX, OK
    m = re.search("CONNECT\r\n\xff\x13\x80\x10\x10\xce\xf4(.+?)\x10\x03\r\nOK\r\n", call, re.S)
    assert m and len(m.group(1).replace("\x10\x10", "\x10")) == 2, repr(call)


def test_ftm_frm():
    """The caller's +FTS=50;+FTM=96 (600 octets, DLEs doubled, DLE ETX: OK);
    the answerer's +FRM=96: CONNECT, the same octets DLE-shielded, then
    whatever the carrier's end brings, DLE ETX, NO CARRIER."""
    data = "U\x10\x10x" * 200
    call = "".join(r for _, r in _steps("call.txt"))
    assert call.count("CONNECT\r\n") == 2 and call.rstrip().endswith("OK"), repr(call)
    got = "".join(r for _, r in _steps("answer.txt"))
    i = got.rfind("CONNECT\r\n")
    assert i >= 0 and got[i + 9:].startswith(data), repr(got[i:i + 80])
    assert "\x10\x03\r\nNO CARRIER\r\n" in got[i:], repr(got[-40:])


def test_fax_phases_traced():
    ev = smtrace.events(results() / "fax.dat")
    phases = [e.fields["phase"] for e in ev if e.name == "smodem_phase"]
    for want in ("fax-dialing", "fax-cng", "fax-ced", "fax-tx-hdlc", "fax-rx-hdlc", "fax-tx-silence",
                 "fax-rx-silence", "fax-idle", "fax-on-hook", "fax-tx-train", "fax-tx-data",
                 "fax-rx-train", "fax-rx-data"):
        assert want in phases, (want, phases)
    stats = _read("stats.txt")
    assert re.search(r"^engine_fax_frames_rx_good 1$", stats, re.M), stats
