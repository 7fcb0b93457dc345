"""The data pump's modem engine behind /dev/ttySM0 (engine=1), in a QEMU
guest on the virtual clock with no telephone line (6.1 generic kernel, one
boot): the in-kernel loopback line (hw=vline) and QEMU's AC'97 with silent
input.  A dial attempt goes off hook, hears no dial tone and ends in
NO DIALTONE through the real engine; the phases are traced; with
phase_periods=1 the interrupt period is 20 samples on hook and 100 off hook.

tests/module/guest/call_checks.sh runs in the guest with ttyat (built here from
tests/module/guest/ttyat.c).  The real call (real clock, AC'97 on a private JACK
server, build/line/smline answering) is in tests/realtime: `make check-real`.
SMODEM_KO overrides the module (default
build/<kver>/smodem.ko, built by `make modules`), SMODEM_TTY_KERNEL the
kernel.

Cost: 1 guest, 0.4 min of wall time (0.4 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
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
       ("engine=0 phase_periods=1", "phase_periods"), ("engine=1 rate=9600", "rate"),
       ("engine=1 phase_periods=1 ring_samples=128", "ring_samples"),
       ("rate=9600", "rate")]


@pytest.mark.parametrize("i,args,word", [(i, a, w) for i, (a, w) in enumerate(BAD, 1)])
def test_bad_parameters_rejected(i, args, word):
    rec = dict(line.split(" ", 1) for line in _read("bad-%d.txt" % i).splitlines()
               if " " in line)
    assert rec["args"] == args
    assert rec["rc"] != "0" and rec["loaded"] == "0", rec
    assert word in rec.get("msg", ""), rec


# -- the AT settings reach the engine (one load, four calls) -------------------

def _flag_phases():
    """[(phase, arg, seconds)] of the flags load, in order."""
    ev = smtrace.events(results() / "flags.dat")
    return [(e.fields["phase"], e.fields.get("arg"), e.ts_ns / 1e9)
            for e in ev if e.name == "smodem_phase"]


def _calls():
    """The flags load's phases cut into calls, each from its off-hook (or
    answer-tone) to its on-hook."""
    calls, cur = [], None
    for p, arg, ts in _flag_phases():
        if p in ("off-hook", "answer-tone") and cur is None:
            cur = []
        if cur is not None:
            cur.append((p, arg, ts))
            if p == "on-hook":
                calls.append(cur)
                cur = None
    return calls


def test_flags_loaded_and_unloaded():
    assert _read("flags-insmod.rc") == "0"
    assert _read("flags-rmmod.rc") == "0" and _read("flags.loaded") == "0"
    bad = [line for line in _read("flags.dmesg").splitlines()
           if guestboot.BAD_DMESG.search(line)]
    assert not bad, bad


def test_engine_stats_v8_lapm_required():
    st = _stats("flags-1.stats")
    print({k: v for k, v in st.items() if k.startswith("engine_")})
    assert st["engine_calls"] == 1 and st["engine_connects"] == 0
    assert st["engine_role"] == "dial" and st["engine_phase"] == "on-hook"
    assert (st["engine_cfg_v8"], st["engine_cfg_v42"],
            st["engine_cfg_v42_required"], st["engine_cfg_blind"]) == (1, 1, 1, 1)
    assert st["engine_cfg_modulations"] == "v22bis,v22,v21"
    # Never connected: no rate, no link, nothing moved, V.8 never started.
    assert (st["engine_rate"], st["engine_modulation"], st["engine_link"]) == \
        (0, "none", "none")
    assert (st["engine_v42"], st["engine_v42_status"]) == (0, "none")
    assert (st["engine_v8"], st["engine_v8_status"]) == (0, "none")
    for k in ("engine_tx_bytes", "engine_rx_bytes", "engine_retrains",
              "engine_carrier_losses", "engine_v42_frames_tx",
              "engine_v42_retransmissions", "engine_v42_crc_errors"):
        assert st[k] == 0, k


def test_engine_stats_plain_and_default():
    st = _stats("flags-2.stats")
    assert st["engine_calls"] == 2 and st["engine_role"] == "dial"
    assert (st["engine_cfg_v8"], st["engine_cfg_v42"],
            st["engine_cfg_v42_required"]) == (0, 0, 0)
    # ATZ: \N3, V.42 if the peer has it; +MS=V34 with its automode, through V.8 though
    # +A8E is off (V.34 starts no other way), every fallback down to V.21.
    st = _stats("flags-3.stats")
    assert st["engine_calls"] == 3 and st["engine_phase"] == "on-hook"
    assert (st["engine_cfg_v8"], st["engine_cfg_v42"],
            st["engine_cfg_v42_required"], st["engine_cfg_blind"]) == (1, 1, 0, 1)
    assert st["engine_cfg_modulations"] == "v34,v32bis,v32,v22bis,v22,v21"


def test_engine_stats_answer_v8():
    st = _stats("flags-4.stats")
    assert st["engine_calls"] == 4 and st["engine_role"] == "answer"
    # +ES=1,0,5: the answerer asks for LAPM only (the originator's 1 does
    # not count when answering); +A8E=0,5: V.8 answering, and it ran.
    assert (st["engine_cfg_v8"], st["engine_cfg_v42"],
            st["engine_cfg_v42_required"]) == (1, 1, 1)
    assert st["engine_v8"] == 1 and st["engine_v8_status"] != "none"
    assert st["engine_cfg_blind"] == 0


def test_dial_pauses_and_wait_timed():
    calls = _calls()
    assert len(calls) == 4, _flag_phases()
    for i, s8 in ((0, 1), (1, 3)):
        c = calls[i]
        assert [(p, a) for p, a, _ in c] == \
            [("off-hook", 0), ("dialing", 0), ("hung-up", 1), ("on-hook", 0)], c
        blind = c[1][2] - c[0][2]
        # '1' (70 ms tone, 70 ms gap), S8 seconds, '2', then 'W' waits 5 s
        # for a dial tone (a silent line: NO_DIALTONE, cause 1).
        dialing = c[2][2] - c[1][2]
        want = 0.14 + s8 + 0.14 + 5.0
        print("S8=%d: blind %.3f s, dialing %.3f s (want %.3f)" % (s8, blind, dialing, want))
        assert abs(blind - 2.0) < 0.03, c
        assert abs(dialing - want) < 0.05, c
    # X1 says NO CARRIER for it.
    for name in ("flags-1", "flags-2"):
        text, got = _replies(name)
        assert "NO CARRIER" in "".join(got) and "NO DIALTONE" not in text, text
    # The factory settings' blind call: dialed and waiting when aborted.
    assert [p for p, _, _ in calls[2]] == \
        ["off-hook", "dialing", "waiting", "hung-up", "on-hook"], calls[2]
    assert [p for p, _, _ in calls[3]][0] == "answer-tone", calls[3]


def test_tx_lead_growth_filled():
    """The AC'97's output engine reads ahead of its input (the vline does
    not): each growth of the output lead is counted by the engine, and
    every frame it opened was filled by the transmitter or already played."""
    for name in ("vline", "ac97", "fixed"):
        st = _stats(name + "-after.stats")
        print(name, {k: st[k] for k in ("tx_lead", "tx_skew_max", "tx_late",
                                        "engine_tx_gaps", "engine_tx_gap_filled",
                                        "engine_tx_gap_late")})
        # The engine's lead starts at a period and a half (ring_samples=512).
        grown = st["tx_lead"] - 150
        assert st["engine_tx_gap_filled"] + st["engine_tx_gap_late"] == grown, st
        assert (st["engine_tx_gaps"] > 0) == (grown > 0), st
        if name == "ac97":
            assert st["tx_skew_max"] > 0 and grown > 0, st
        else:
            assert st["tx_skew_max"] == 0 and st["tx_late"] == 0, st
