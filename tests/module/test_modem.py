"""Whole calls in virtual time: the guest's /dev/ttySM0
dials build/line/smline's answering modem (SpanDSP, V.22bis + V.42) through
QEMU's D-Bus audio on the instruction-counted clock, once per execution
context (int, dpc, thr, res, irqt, usr) in one boot of the 6.1 generic
kernel, and moves 4 KiB of random bytes out and their echo back.  Then, in
the same module load, a V.32bis call (AT+MS=V32B, through V.8) to smline's V.32bis
far modem (ours, dsp/v32bis.c, under SpanDSP's V.42): CONNECT 14400, +MCR:
V32B, 4 KiB out and their echo back; then a V.34 call (AT+MS=V34, through
V.8) to smline's V.34 far modem (ours, dsp/v34.c): +MCR: V34, CONNECT at the
rate each receiver chose (33600 on this line), 16 KiB out and their echo
back; context=oth gets those two calls alone.  thr's V.34 call dials a route whose line
worsens under it instead (WORSEN_*): +++, ATO, the noise mid-transfer, a retrain to lower
rates, the data whole, ATO's CONNECT at the new rate.

The line is 2-wire: the guest's modem hears its own signal back through
smline's hybrid (G.168 model m3, ERL 12 dB: HYBRID), 3500 to 4600 samples
after it sent it (the ring's output lead, 2048, and QEMU's D-Bus audio path,
whose length the driver cannot know and which changes with each module load). The driver hands the engine its lead, the
V.32bis start-up finds the echo further back on its first tone, and the
canceller cancels it (ERLE >= 20 dB); without it the call fails (no data).
V.34 finds the same echo in phase 2 (its own INFO0's, dsp/v34.c) and its
canceller takes it out (ERLE 42-46 dB measured). The V.22bis calls hear the
same echo (out of their band).

V.42bis is on at both ends by default: every call compresses (random
bytes: transparent mode); the TEXT_CTX call carries 16 KiB of the README both
ways instead (ratio > 1.5 each way, from the engine's stats and smline's
record); then one load dials smline's route without V.42bis (nov42bis):
AT+DS=3,1 ends in NO CARRIER, AT+DS=3,0 connects on plain V.42.

context=usr: the modem runs in smodemd (build/smodemd/
smodemd-static, `make smodemd`), attached after insmod; the same call, the
same checks.  Then its faults: a second daemon refused, the daemon killed
with SIGKILL mid-call (NO CARRIER, DCD off), the next daemon's call.

tests/module/guest/modem_checks.sh runs in the guest (with ttyat, built from
tests/module/guest/ttyat.c); smline writes one JSON record per call. SMODEM_KO
overrides the module (default build/<kver>/smodem.ko), SMODEM_TTY_KERNEL
the kernel.

Cost: 1 guest, 3.3 min of wall time (2.4 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28); the V.32bis calls add about 170 s of guest time
(7 calls of about 21 s of line time each, and the pauses between calls) and 0.8 min
of QEMU's CPU (2026-11-29, measured on a loaded machine: 587 -> 758 guest-s, 1.8 -> 2.6 min); the V.42bis calls
added 46 s of guest time (587 -> 633 guest seconds, the file alone, -n 1). The echo
canceller's longer start-up (TRN 3072 symbols where it trains) adds 1.5 s of line time
to each V.32bis call: 821 guest-s, 6.0 min of wall time and 2.7 min of QEMU's CPU for the
file alone, -n 1, beside other work at a load of about 9 (2026-11-29). The V.34 calls
(about 19 s of set-up each, V.8 included) added 223 guest-s (821 -> 1044), and the V.22bis
calls' 8 KiB became 4 KiB to pay for part of it: 4.8 min of wall time and 3.5 min of QEMU's
CPU for the file alone, -n 1, beside one other job (2026-11-29). thr's V.34 call with its escapes,
ATO and the worsened line (a retrain of about 10 s, 24 KiB more each way, partly at 26,400) lasts
51.1 s of line time against 27-29 s for int's, dpc's and res's (which neither renegotiate nor
retrain; irqt's, usr's and oth's did once in that boot, 34-48 s): 1013 guest-s, 9.5 min of wall
time and 3.1 min of QEMU's CPU for the file alone, -n 1, on the shared machine (2026-11-29).
"""
import re
import zlib
from pathlib import Path

import pytest

import smtrace
import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "modem"
CONTEXTS = ["int", "dpc", "thr", "res", "irqt", "usr"]
NBYTES = 4096
# the V.22bis calls name it in AT_SETUP (+MS=V22B; the factory's +MS is V.34, and these
# calls' figures are V.22bis's); the V.32bis and V.34 calls set their own +MS after it
ROUTE = "5551234=answer:v22bis,v42,echo"
# a short number, V.8 and a 1 s billing delay: the V.32bis call's set-up in about 10 s
V32_ROUTE = "8=answer:v32bis,v8,v42,echo,ansdelay=1000"
V32_BYTES = 4096
# the V.32bis call after each context's, and in these contexts alone
V32_CONTEXTS = CONTEXTS + ["oth"]
V32_ONLY = ["oth"]
# then a V.34 call (AT+MS=V34, through V.8) to smline's V.34 far modem (ours)
V34_ROUTE = "9=answer:v34,v8,v42,echo,ansdelay=1000"
V34_BYTES = 16384
# the least a V.34 call on this line may settle on: the 2-wire line at ERL 12 dB and
# QEMU's audio path, whose echo the canceller takes out, leave it over 30 dB of SNR
V34_MIN_RATE = 24000
# WORSEN_CTX's V.34 call (its own, no other context's) dials a route whose line worsens in the
# data: WORSEN_FIRST bytes out and back, +++ (OK), ATO (CONNECT again), WORSEN_BYTES out and back,
# WORSEN_AT_S s into the data phase (after the escape, during that second transfer) white noise
# of WORSEN_NOISE dBm0 at each receiver: the pumps renegotiate down or retrain, the data whole
WORSEN_CTX = "thr"
WORSEN_AT_S = 10
WORSEN_NOISE = -40
WORSEN_ROUTE = "7=answer:v34,v8,v42,echo,ansdelay=1000,worsen=%d,worsen_noise=%d" % (
    WORSEN_AT_S, WORSEN_NOISE)
WORSEN_FIRST = 8192
WORSEN_BYTES = 24576
# the same far modem without V.42bis: nothing in its XID
ROUTE_NOBIS = "5551235=answer:v22bis,v42,nov42bis,echo"
ARGS = "engine=1 phase_periods=1 ring_samples=8192"
# the guest's hybrid on smline's wire: every call of the boot hears its own echo
HYBRID = ["--hybrid", "m3", "--hybrid-erl", "12"]
# usr_faults' two calls follow the contexts' in smline's records, then bis_calls'
FAULT_CALLS = ["fault-kill", "fault-next", "fault-stall"]
BIS_CALLS = ["bis-required", "bis-optional"]
# the call that moves text instead of random bytes, and how much of the README
TEXT_CTX = "dpc"
TEXT_BYTES = 16384
BIS_BYTES = 1024


_TEXT = []


def _text():
    """The README's first TEXT_BYTES, read once: what the boot sends, whatever
    happens to the file meanwhile."""
    if not _TEXT:
        _TEXT.append((TOP / "README.md").read_bytes()[:TEXT_BYTES])
    return _TEXT[0]


def run():
    OUT.mkdir(parents=True, exist_ok=True)
    text = OUT / "text.txt"
    text.write_bytes(_text())
    assert text.stat().st_size == TEXT_BYTES
    return guestboot.line_results(
        "modem", "modem_checks.sh", OUT, ["--route", ROUTE, "--route", V32_ROUTE,
                                          "--route", V34_ROUTE, "--route", WORSEN_ROUTE,
                                          "--route", ROUTE_NOBIS] + HYBRID,
        env={"CONTEXTS": " ".join(CONTEXTS), "CALL_BYTES": str(NBYTES),
             "DIAL": "T5551234", "AT_SETUP": "AT\\N3+DR=1;+MS=V22B", "SMODEM_ARGS": ARGS,
             "USR_FAULTS": "1", "V32_DIAL": "T8", "V32_ONLY": " ".join(V32_ONLY),
             "V32_BYTES": str(V32_BYTES), "V34_DIAL": "T9", "V34_BYTES": str(V34_BYTES),
             "WORSEN_CTX": WORSEN_CTX, "WORSEN_DIAL": "T7", "WORSEN_FIRST": str(WORSEN_FIRST),
             "WORSEN_BYTES": str(WORSEN_BYTES),
             "TEXT_CTX": TEXT_CTX,
             "TEXT_FILE": "/opt/smodem/text.txt",
             "BIS_DIAL": "T5551235", "BIS_BYTES": str(BIS_BYTES)},
        extra_files={"usr/bin/smodemd": str(guestboot.smodemd()),
                     "opt/smodem/text.txt": str(text)},
        timeout_s=1200)


def _read(name):
    return (run()[0] / name).read_text(errors="replace")


def _record(ctx):
    recs = run()[1]
    # each context's call, then its V.32bis and V.34 calls; the pump-only contexts' calls;
    # the faults; the V.42bis refusal
    names = [n for c in CONTEXTS for n in (c, c + "-v32", c + "-v34")] + \
        [n for c in V32_ONLY for n in (c + "-v32", c + "-v34")] + FAULT_CALLS + BIS_CALLS
    assert [r["call"] for r in recs] == list(range(1, len(names) + 1)), recs
    return recs[names.index(ctx)]


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_call_connects_and_moves_data(ctx):
    assert _read(ctx + "-insmod.rc").strip() == "0"
    text = _read(ctx + ".txt")
    assert "CONNECT 2400" in text, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)
    assert m, text
    n, got, bad, writer = map(int, m.groups())
    want = TEXT_BYTES if ctx == TEXT_CTX else NBYTES
    assert (n, got, bad, writer) == (want, want, 0, 0), text
    # V.42bis agreed both ways, reported before CONNECT (+DR=1)
    assert "+DR: V42B\\r\\n" in text.split("CONNECT 2400")[0], text
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
    # V.42bis both ways at our P1/P2 (smline offers 4096/250), every byte through it
    b = r["v42bis"]
    assert (b["tx"], b["rx"], b["p1"], b["p2"]) == (True, True, 2048, 32), r
    assert b["rx_out"] == r["bytes_from_modem"] and b["tx_in"] == r["bytes_to_modem"], r


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_v42bis_stats(ctx):
    """The engine's V.42bis counters: what XID agreed and what went through
    it; the text compresses by more than 1.5 each way (at both ends), random
    bytes grow by transparent mode's escapes only."""
    st = smtrace.stats(_read(ctx + ".stats"))
    print({k: v for k, v in st.items() if k.startswith("engine_v42bis")})
    assert (st["engine_v42bis_dirs"], st["engine_v42bis_p1"], st["engine_v42bis_p2"],
            st["engine_v42bis_errors"]) == (3, 2048, 32, 0), st
    # the file, then the escape's "+++" (a modem sends it on, as Hayes's do),
    # and the echo of both
    want = (TEXT_BYTES if ctx == TEXT_CTX else NBYTES) + 3
    assert st["engine_v42bis_tx_in"] == want and st["engine_v42bis_rx_out"] == want, st
    r = _record(ctx)["v42bis"]
    # what one end compressed the other decompressed
    assert (r["rx_in"], r["rx_out"]) == (st["engine_v42bis_tx_out"], want), r
    assert (r["tx_out"], r["tx_in"]) == (st["engine_v42bis_rx_in"], want), r
    ours = st["engine_v42bis_tx_in"] / st["engine_v42bis_tx_out"]
    far = st["engine_v42bis_rx_out"] / st["engine_v42bis_rx_in"]
    print("%s: ratio ours %.3f, smline's %.3f" % (ctx, ours, far))
    if ctx == TEXT_CTX:
        assert ours > 1.5 and far > 1.5, (ours, far)
        # the text the guest had (the README's) came back, the escape's "+++" after it
        assert zlib.crc32(_text() + b"+++") == int(_record(ctx)["crc32_to_modem"], 16)
    else:
        assert 1 / 1.006 < ours <= 1 and 1 / 1.006 < far <= 1, (ours, far)


def test_v42bis_required_refused():
    """AT+DS=3,1 against smline without V.42bis: V.42 comes up, XID agrees
    no compression, the modem hangs up: NO CARRIER, DCD off, no CONNECT."""
    assert _read("bis-insmod.rc").strip() == "0"
    text = _read("bis-required.txt")
    assert "UNTIL found=1" in text and "CONNECT" not in text, text
    assert re.findall(r"TIOCM CAR=(\d)", text) == ["0"], text
    assert "OK" in text.split("NO CARRIER", 1)[1], text
    st = smtrace.stats(_read("bis-required.stats"))
    assert st["engine_cfg_v42bis_required"] == 1 and st["engine_v42bis_dirs"] == 0, st
    assert st["engine_link"] == "v42" and st["engine_phase"] == "on-hook", st
    r = _record("bis-required")
    assert r["number"] == "5551235" and r["v42"] is True, r
    assert (r["v42bis"]["tx"], r["v42bis"]["rx"]) == (False, False), r
    assert r["bytes_to_modem"] == 0 and r["bytes_from_modem"] == 0, r


def test_v42bis_optional_plain_v42():
    """AT+DS=3,0 against the same far end: CONNECT with +DR: NONE, the data
    on plain V.42, byte exact, nothing through V.42bis at either end."""
    text = _read("bis-optional.txt")
    head = text.split("CONNECT 2400")[0]
    assert "CONNECT 2400" in text and "+DR: NONE" in head, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)
    assert m and tuple(map(int, m.groups())) == (BIS_BYTES, BIS_BYTES, 0, 0), text
    st = smtrace.stats(_read("bis-optional.stats"))
    assert st["engine_v42bis_dirs"] == 0 and st["engine_v42bis_tx_in"] == 0, st
    assert st["engine_v42"] == 1 and st["engine_tx_bytes"] >= BIS_BYTES, st
    r = _record("bis-optional")
    assert r["v42"] is True and r["crc32_from_modem"] == r["crc32_to_modem"], r
    assert (r["v42bis"]["tx"], r["v42bis"]["rx"], r["v42bis"]["tx_in"]) == (False, False, 0), r
    assert _read("bis-rmmod.rc").strip() == "0" and _read("bis.loaded").strip() == "0"
    bad = [x for x in _read("bis.dmesg").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


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


@pytest.mark.parametrize("ctx", V32_CONTEXTS)
def test_v32bis_call(ctx):
    """V.32bis at 14400 with V.42 from the tty to smline's V.32bis far modem: CONNECT 14400
    after +MCR: V32B, 4 KiB out and their echo back byte by byte, +++ and ATH; the far end's
    record and the modem's figures agree."""
    assert _read(ctx + "-insmod.rc").strip() == "0"
    assert _read(ctx + "-v32.rc").strip() == "0"
    text = _read(ctx + "-v32.txt")
    flat = text.replace("\\r\\n", " ")
    assert "+MCR: V32B" in flat and "+MRR: 14400" in flat, text
    assert "CONNECT 14400" in text and "UNTIL found=1" in text, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)
    assert m, text
    assert tuple(map(int, m.groups())) == (V32_BYTES, V32_BYTES, 0, 0), text
    assert re.search(r"\+\+\+.*OK", flat), text
    assert text.rstrip().splitlines()[-2].startswith("TIOCM CAR=0"), text
    r = _record(ctx + "-v32")
    assert r["number"] == "8" and r["result"] == "connected", r
    assert (r["modulation"], r["rate"], r["v42"], r["v8"]) == ("V.32bis", 14400, True, True), r
    assert r["bytes_from_modem"] >= V32_BYTES and r["bytes_to_modem"] >= V32_BYTES, r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    assert r["end"] == "local-hangup", r
    st = smtrace.stats(_read(ctx + "-v32.stats"))
    assert (st["engine_rate"], st["engine_modulation"], st["engine_link"], st["engine_v42"]) == \
        (14400, "v32bis", "v42", 1), st
    assert st["engine_cfg_modulations"] == "v32bis,v22bis,v22,v21" and st["engine_v8"] == 1, st
    assert st["engine_v8_status"] == "done", st
    assert st["overruns"] == 0, st
    # the line had echo, and the canceller took it out: at the lead the driver gave it or
    # further back (QEMU's audio path), never sooner
    assert (r["wire"]["hybrid"], r["wire"]["hybrid_erl_db"]) == (3, 12), r["wire"]
    print("%s: lead %d, canceller at %d, ERLE %d dB, round trip %d" % (
        ctx, st["tx_lead"], st["engine_echo_latency"], st["engine_echo_erle_db"],
        st["engine_v32_rtd"]))
    assert st["tx_lead"] <= st["engine_echo_latency"] <= 8152, st
    assert st["engine_echo_erle_db"] >= 20, st
    assert _read(ctx + "-rmmod.rc").strip() == "0"


@pytest.mark.parametrize("ctx", [c for c in V32_CONTEXTS if c != WORSEN_CTX])
def test_v34_call(ctx):
    """V.34 with V.42 from the tty to smline's V.34 far modem (ours) through V.8: +MCR: V34,
    CONNECT at the rate phase 2 and the MPs settle (the same at both ends, V34_MIN_RATE or
    more), 16 KiB out and their echo back byte by byte, +++ and ATH; the canceller took the
    line's echo out."""
    assert _read(ctx + "-v34.rc").strip() == "0"
    text = _read(ctx + "-v34.txt")
    flat = text.replace("\\r\\n", " ")
    m = re.search(r"CONNECT (\d+)", text)
    assert m and "+MCR: V34" in flat and "UNTIL found=1" in text, text
    rate = int(m.group(1))
    assert V34_MIN_RATE <= rate <= 33600 and rate % 2400 == 0, text
    assert "+MRR: %d" % rate in flat, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)
    assert m and tuple(map(int, m.groups())) == (V34_BYTES, V34_BYTES, 0, 0), text
    assert re.search(r"\+\+\+.*OK", flat), text
    assert text.rstrip().splitlines()[-2].startswith("TIOCM CAR=0"), text
    r = _record(ctx + "-v34")
    assert r["number"] == "9" and r["result"] == "connected", r
    assert (r["modulation"], r["v42"], r["v8"]) == ("V.34", True, True), r
    assert r["bytes_from_modem"] >= V34_BYTES and r["bytes_to_modem"] >= V34_BYTES, r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    assert r["end"] == "local-hangup", r
    st = smtrace.stats(_read(ctx + "-v34.stats"))
    assert (st["engine_rate"], st["engine_modulation"], st["engine_link"], st["engine_v42"]) == \
        (rate, "v34", "v42", 1), st
    assert st["engine_v8_status"] == "done" and st["overruns"] == 0, st
    print("%s: V.34 %d bit/s, lead %d, canceller at %d, ERLE %d dB" % (
        ctx, rate, st["tx_lead"], st["engine_echo_latency"], st["engine_echo_erle_db"]))
    assert st["engine_echo_erle_db"] >= 20, st


def _mid_call_stats(text):
    """The driver's stats as ttyat's %cat printed them after the data step,
    still in data mode: {name: [numbers or words]}."""
    m = re.search(r"^CAT \S+\n(.*?)^CAT END$", text, re.S | re.M)
    assert m, text[-3000:]
    pairs = (smtrace.stats_words(line[2:]) for line in m.group(1).splitlines()
             if line.startswith("| "))
    return {name: vals for name, vals in pairs if name}


# A data frame's bits at 33,600 (13 mapping frames of 8 symbols, 18 bits
# each, as tests/dsp/test_modem_v34.c's long call bounds its transmitters)
V34_FRAME_BITS = 13 * 8 * 18


@pytest.mark.parametrize("ctx", [c for c in V32_CONTEXTS if c != WORSEN_CTX])
def test_v34_call_keeps_time(ctx):
    """The driver's period (100 samples at 8 kHz) and V.34's symbols (3429
    baud: 42.86 a period) are not a whole number of each other: the pump
    keeps its symbol clock on the samples it is given, so in data mode each
    transmitter's bits are its rate times its samples, within a data frame,
    and the receiver's the far end's rate times its own, behind it by no
    more than the decoder's delay.  Read in mid-call (the stats after the
    16 KiB echo), a call's lost or doubled period would be 420 bits off."""
    st = _mid_call_stats(_read(ctx + "-v34.txt"))
    assert st["engine_v34"] == [1] and st["engine_v34_state"] == ["data"], st
    # since the data at the present rates began (a renegotiation or retrain
    # starts a new stretch: the bits before it were at other rates)
    tk = smtrace.v34_timekeeping(st)
    _, tx_at, rx_at, run_at = st["engine_v34_clock"]
    assert tk and run_at >= max(tx_at, rx_at), st
    # a stretch of the 16 KiB echo (a renegotiation late in it leaves less)
    assert tk["run_samples"] >= 800, st
    dev_tx, dev_rx = tk["tx_bits_off"], tk["rx_bits_off"]
    tx_rate, rx_rate = tk["tx_rate"], tk["rx_rate"]
    print("%s: %.1f s of data at %d/%d bit/s (renegotiations %d, retrains %d), bits against "
          "rate x time: sent %+d, received %+d" % (
              ctx, tk["run_samples"] / 8000, tx_rate, rx_rate, st["engine_v34_renegs"][0],
              st["engine_v34_retrains"][0], dev_tx, dev_rx))
    assert abs(dev_tx) <= V34_FRAME_BITS, (dev_tx, st)
    assert -2 * V34_FRAME_BITS <= dev_rx <= V34_FRAME_BITS, (dev_rx, st)
    assert st["overruns"] == [0] and st["tx_late"] == [0], st


def test_v34_escape_ato_and_worse_line():
    """WORSEN_CTX's V.34 call: CONNECT, WORSEN_FIRST bytes out and their echo back, +++ (OK, DCD
    still on), ATO (CONNECT again at the call's rate), WORSEN_BYTES out and back during which
    smline's line worsens (worsen=: WORSEN_NOISE dBm0 of white noise at both receivers,
    WORSEN_AT_S s into the data phase, mid-transfer): both transfers byte for byte, the rates
    after the event below those before it (smline's record: the far modem's view as the line
    worsened and at the end; the engine's stats agree) with a renegotiation or retrain counted
    after it, the call still up (DCD on, the engine connected) at the second +++; ATO then
    gives CONNECT at the rate the call has now (driver/at.c keeps a retrain's rate), +++, ATH."""
    ctx = WORSEN_CTX
    assert _read(ctx + "-v34.rc").strip() == "0"
    text = _read(ctx + "-v34.txt")
    flat = text.replace("\\r\\n", " ")
    m = re.search(r"CONNECT (\d+)", text)
    assert m and "+MCR: V34" in flat, text
    rate = int(m.group(1))
    assert V34_MIN_RATE <= rate <= 33600 and rate % 2400 == 0, text
    data = [tuple(map(int, d)) for d in
            re.findall(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)]
    assert data == [(WORSEN_FIRST, WORSEN_FIRST, 0, 0), (WORSEN_BYTES, WORSEN_BYTES, 0, 0)], text
    # CONNECT, then each +++'s OK
    assert re.findall(r"UNTIL found=(\d)", text) == ["1", "1", "1", "1"], text
    # ATO's CONNECT: the call's rate, then (after the line worsened) the rate it has now
    ato = [int(x) for x in re.findall(r"> ATO\\r\n< \\r\\nCONNECT (\d+)\\r\\n\n", text)]
    assert len(ato) == 2 and ato[0] == rate, text
    # DCD: connected, after the first escape, after the second (the call up), after ATH
    assert re.findall(r"TIOCM CAR=(\d)", text) == ["1", "1", "1", "0"], text
    assert "WAITFILE" in text and "found=1" in text.split("WAITFILE")[1], text
    r = _record(ctx + "-v34")
    assert r["number"] == "7" and r["result"] == "connected", r
    assert (r["modulation"], r["v42"], r["v8"], r["end"]) == ("V.34", True, True, "local-hangup"), r
    # both files and the three escapes' +++ (sent on, as a Hayes modem does), echoed whole
    sent = WORSEN_FIRST + WORSEN_BYTES + 3 * 3
    assert r["bytes_from_modem"] == r["bytes_to_modem"] == sent, r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    w, v = r["worsen"], r["v34"]
    assert (w["at_s"], w["noise_dbm0"], w["loss_db"]) == (WORSEN_AT_S, WORSEN_NOISE, 0), w
    # on the line's clock, within smline's block of the time asked for
    due = r["data_sample"] + WORSEN_AT_S * 8000
    assert due <= w["sample"] < due + 80, (w, r["data_sample"])
    # mid-transfer: the first file and its escape through, the second under way
    assert WORSEN_FIRST + 3 < w["bytes_from_modem"] < WORSEN_FIRST + 3 + WORSEN_BYTES, w
    before, after = (w["rate_tx"], w["rate_rx"]), (v["rate_tx"], v["rate_rx"])
    print("%s: V.34 CONNECT %d; far modem's rates (to the modem, from it) %s as the line worsened "
          "%.2f s into the data (%d bytes back), %s at the end; renegotiations %d -> %d, retrains "
          "%d -> %d" % (ctx, rate, before, WORSEN_AT_S, w["bytes_from_modem"], after,
                        w["v34_renegs"], v["renegs"], w["v34_retrains"], v["retrains"]))
    assert all(a <= b for a, b in zip(after, before)) and after != before, (before, after)
    assert v["renegs"] + v["retrains"] > w["v34_renegs"] + w["v34_retrains"], (w, v)
    # before ATH: the engine connected at the rates the far end ended with
    up = smtrace.stats(_read(ctx + "-v34-up.stats"))
    print({k: up[k] for k in up if k.startswith(("engine_v34_", "engine_tx_rate",
                                                  "engine_rx_rate", "engine_retrains"))})
    assert up["engine_phase"] == "connected" and up["engine_modulation"] == "v34", up
    assert (up["engine_rx_rate"], up["engine_tx_rate"]) == after, (up, after)
    assert up["engine_v34_renegs"] + up["engine_v34_retrains"] >= 1, up
    assert up["engine_v42"] == 1 and up["overruns"] == 0, up
    assert ato[1] == up["engine_rx_rate"] < rate, (ato, up)
    # the canceller's ERLE is its last training's: the retrain's, measured against the noise
    st = smtrace.stats(_read(ctx + "-v34.stats"))
    print("%s: ATO after the event: CONNECT %d; ERLE %d dB" % (ctx, ato[1], st["engine_echo_erle_db"]))
    assert st["engine_phase"] == "on-hook" and st["overruns"] == 0, st


def test_usr_ran_in_the_daemon():
    """context=usr's call went through smodemd's upcalls, at the policy it
    was given, every one answered."""
    st = smtrace.stats(_read("usr.stats"))
    assert st["exec"] == "usr" and st["usr_attached"] == 1, st
    assert st["policy"] == "SCHED_FIFO" and st["rt_priority"] == 50, st
    assert st["usr_upcalls"] > 1000 and st["usr_bad"] == 0, st
    assert st["periods"] > 1000 and st["overruns"] == 0, st
    assert "attached (attach 1)" in _read("usr-smodemd.log")
    # the modem's own lines, as smodemd's modem renders them (the same
    # smodem_modem.c as in the kernel): what the call did
    assert st["engine_calls"] == 1 and st["engine_connects"] == 1, st
    assert (st["engine_role"], st["engine_rate"], st["engine_link"],
            st["engine_v42"]) == ("dial", 2400, "v42", 1), st
    assert st["engine_tx_bytes"] >= NBYTES and st["engine_rx_bytes"] >= NBYTES, st
    assert st["engine_phase"] == "on-hook", st


def test_usr_second_daemon_refused():
    assert _read("fault-insmod.rc").strip() == "0"
    assert _read("fault-second.rc").strip() == "2", _read("fault-second.log")
    assert "Device or resource busy" in _read("fault-second.log")


def test_usr_daemon_killed_mid_call():
    """SIGKILL while connected: NO CARRIER at the tty, DCD off, the tty
    still answers; the kernel is left with no daemon and nothing pending."""
    assert _read("fault-killed").strip() == "killed"
    assert _read("fault-d1.rc").strip() == "137"
    text = _read("fault-kill.txt")
    assert "CONNECT 2400" in text, text
    assert re.search(r"UNTIL found=1", text.split("READY connected")[1]), text
    after = text.split("READY connected")[1]
    assert "NO CARRIER" in after, text
    tiocm = re.findall(r"TIOCM CAR=(\d)", text)
    assert tiocm == ["1", "0"], text
    # the tty answers on: the AT after it
    assert "OK" in after.split("NO CARRIER", 1)[1], text
    st = smtrace.stats(_read("fault-killed.stats"))
    assert st["usr_attached"] == 0 and st["usr_detaches"] == 1, st
    assert st["overruns"] == 0 and st["usr_bad"] == 0, st
    r = _record("fault-kill")
    # the line saw our hook open: a hang-up from our side
    assert r["result"] == "connected" and r["end"] == "local-hangup", r


def test_usr_next_daemon_next_call():
    text = _read("fault-next.txt")
    assert "CONNECT 2400" in text, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(-?\d+)", text)
    assert m and tuple(map(int, m.groups())) == (NBYTES, NBYTES, 0, 0), text
    assert text.rstrip().splitlines()[-2].startswith("TIOCM CAR=0"), text
    st = smtrace.stats(_read("fault-next.stats"))
    assert st["usr_attached"] == 1 and st["usr_attaches"] == 2, st
    r = _record("fault-next")
    assert (r["modulation"], r["rate"], r["v42"]) == ("V.22bis", 2400, True), r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    assert r["end"] == "local-hangup", r
    assert _read("fault-rmmod.rc").strip() == "0"
    assert _read("fault.loaded").strip() == "0"
    bad = [x for x in _read("fault.dmesg").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_usr_stalled_daemon_detached():
    """SIGSTOP while connected: the ring overruns (counted), the daemon is
    detached after 2 s: NO CARRIER, DCD off; continued, it gets EPIPE and
    exits 1; the next daemon attaches, the tty answers throughout."""
    assert _read("fault-stopped").strip() == "stopped"
    text = _read("fault-stall.txt")
    after = text.split("READY connected")[1]
    assert "CONNECT 2400" in text and "NO CARRIER" in after, text
    assert re.findall(r"TIOCM CAR=(\d)", text) == ["1", "0"], text
    assert "OK" in after.split("NO CARRIER", 1)[1], text
    st = smtrace.stats(_read("fault-stalled.stats"))
    assert st["usr_attached"] == 0 and st["usr_stalls"] == 1, st
    assert st["overruns"] >= 1, st
    assert _read("fault-d2.rc").strip() == "1"
    assert "stopped answering" in _read("fault-d2-smodemd.log")
    r = _record("fault-stall")
    assert r["result"] == "connected" and r["end"] == "local-hangup", r
    st = smtrace.stats(_read("fault-d3.stats"))
    assert st["usr_attached"] == 1 and st["usr_attaches"] == 3, st
    assert "OK" in _read("fault-d3.txt")


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
