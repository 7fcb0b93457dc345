"""The working modem under load and at its edges, in virtual time: one boot
of the 6.1 generic kernel (engine=1 phase_periods=1 ring_samples=8192),
three calls to build/line/smline through QEMU's D-Bus audio on the
instruction-counted clock:

  1 flow control over a real call (V.22bis + V.42, the far end echoes):
    16 KiB written as fast as the tty takes them while the reader stalls
    for 50 s, more than every buffer between the line and the reader holds;
    no byte is lost or changed, the writer was held (CTS), the modem's
    V.42 told the far end to wait (RNR, counted by smline's monitor)
  2 pppd (Debian's, with the guest kernel's ppp_async) on /dev/ttySM0 over
    a connected call: its LCP Configure-Requests reach the far end intact
    (HDLC-like framing and FCS checked on the bytes smline saved).  pppd
    at both ends and a ping across: test_ppp.py (the far pppd in a second
    guest: our hosts have no kernel PPP)
  3 unloading during a connected call: rmmod is refused while the call's
    port is open and the call goes on; unbinding the device hangs the
    session up (SIGHUP, EOF); then rmmod returns 0, the module is gone,
    no warning in dmesg, and the far end's record ends the call

tests/module/guest/scenario_data_checks.sh runs in the guest.  The rest of the
scenarios are in test_scenarios.py.  SMODEM_KO overrides the module,
SMODEM_TTY_KERNEL the kernel.

Cost: 1 guest, 1.0 min of wall time (0.7 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import os
import re
import struct
from pathlib import Path

import guestboot
import smtrace
from guestpkg import package_files

TOP = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("SMODEM_SCENARIOS_DATA_OUT") or
           TOP / "out" / "tests" / "scenarios-data")
ARGS = "engine=1 phase_periods=1 ring_samples=8192"
CALLS = ["flow", "ppp", "rm"]
FLOW_N = 16384


def run():
    """Boot once (guestboot.line_run with the guest kernel's ppp_async and
    pppd added); every test reads the same results."""
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = OUT / kver
        return guestboot.line_run(
            kver, "scenario_data_checks.sh", out,
            ["--route", "5552400=answer:v22bis,v42,echo",
             "--route", "5557000=answer:v22bis,v42,save=%s" % (out / "ppp-from-guest.bin")],
            env={"SMODEM_ARGS": ARGS}, extra_files=package_files("ppp"),
            kmods=["ppp_async"], timeout_s=600)
    return guestboot.once(("scenarios-data", kver), boot)


def _res():
    return run()[0]


def _read(name):
    return guestboot.read_result(run(), name)


def record(name):
    return guestboot.call_record(run(), CALLS, name)


def stats(name):
    return smtrace.stats(_read(name + ".stats"))


def fields(line):
    return {k: int(v) if re.fullmatch(r"-?\d+", v) else v
            for k, v in re.findall(r"(\w+)=(\S+)", line)}


def lines(name, prefix):
    return [fields(x) for x in _read(name + ".txt").splitlines() if x.startswith(prefix)]


# -- 1: flow control ------------------------------------------------------------

def test_flow_control_loses_nothing():
    text = _read("flow.txt")
    assert "\\r\\nCONNECT 2400\\r\\n" in text, text
    d = lines("flow", "DATA")
    assert len(d) == 1, text
    d = d[0]
    print(d)
    # every byte back, in order, unchanged; the writer never failed
    assert (d["n"], d["got"], d["bad"], d["writer"]) == (FLOW_N, FLOW_N, 0, 0), d
    # the writer outran the line: the port dropped CTS (blocking the
    # writer) and raised it again, more than once
    assert d["cts_changes"] >= 2, d
    assert d["overrun"] == 0, d
    # the stall outlasted the buffers: the modem's V.42 receiver pushed
    # back (RNR, or frames refused and asked for again with REJ)
    r = record("flow")
    assert r["rnr_received"] + r["rej_received"] >= 1, r
    st = stats("flow")
    assert (st["engine_rate"], st["engine_v42"]) == (2400, 1), st
    assert st["engine_rx_overruns"] == 0 and st["engine_framing_errors"] == 0, st
    assert st["engine_tx_bytes"] >= FLOW_N and st["engine_rx_bytes"] >= FLOW_N, st


def test_flow_control_held_the_far_end():
    """The stall outlasted every buffer: the modem's V.42 receiver went
    busy and said so (RNR), and the far end's data waited; nothing had to
    be sent again for lack of room."""
    r = record("flow")
    print({k: r[k] for k in ("rnr_received", "retransmissions", "rej_received",
                             "bytes_to_modem", "bytes_from_modem")})
    assert r["result"] == "connected" and r["v42"] is True, r
    assert r["rnr_received"] >= 1, r
    assert r["bytes_from_modem"] >= FLOW_N and r["bytes_to_modem"] >= FLOW_N, r
    assert r["crc32_from_modem"] == r["crc32_to_modem"], r
    # what the far receiver made of the silence after the hang-up is apart (fcs_loop_open);
    # at most one frame the line spoiled before it
    print(r["errors"])
    assert r["errors"]["fcs"] <= 1 and r["errors"]["carrier_drops"] == 0, r
    assert r["end"] == "local-hangup", r


# -- 2: pppd ---------------------------------------------------------------------

def _fcs16(data):
    fcs = 0xFFFF
    for b in data:
        fcs ^= b
        for _ in range(8):
            fcs = (fcs >> 1) ^ 0x8408 if fcs & 1 else fcs >> 1
    return fcs


def ppp_frames(raw):
    """PPP in HDLC-like framing (RFC 1662): frames between flags, escapes
    undone, (frame, FCS good)."""
    out = []
    for chunk in raw.split(b"\x7e"):
        if not chunk:
            continue
        f, esc = bytearray(), False
        for b in chunk:
            if esc:
                f.append(b ^ 0x20)
                esc = False
            elif b == 0x7d:
                esc = True
            else:
                f.append(b)
        if len(f) >= 4:
            out.append((bytes(f[:-2]), _fcs16(f) == 0xF0B8))
    return out


def test_pppd_lcp_reaches_far_end():
    assert "/dev/ppp" in _read("ppp-dev.txt"), _read("ppp-dev.txt")
    log = _read("pppd.log")
    print(log[-3000:])
    sent = re.findall(r"sent \[LCP ConfReq id=(0x[0-9a-f]+) (.*?)\]", log)
    assert len(sent) >= 3, log
    assert "timeout sending Config-Requests" in log, log
    raw = (_res().parent / "ppp-from-guest.bin").read_bytes()
    frames = ppp_frames(raw)
    good = [f for f, ok in frames if ok]
    assert good and all(ok for _, ok in frames), frames
    confreq = []
    for f in good:
        if f[:2] == b"\xff\x03":
            f = f[2:]
        proto, code, ident, length = struct.unpack(">HBBH", f[:6])
        if proto == 0xC021 and code == 1:
            assert length == len(f) - 2, f.hex()
            confreq.append((ident, f[6:]))
    # every Configure-Request pppd says it sent arrived, options and all
    assert [i for i, _ in confreq] == [int(i, 16) for i, _ in sent], (confreq, sent)
    magic = re.search(r"<magic (0x[0-9a-f]+)>", sent[0][1]).group(1)
    assert struct.pack(">BBI", 5, 6, int(magic, 16)) in confreq[0][1], confreq[0]
    r = record("ppp")
    assert r["result"] == "connected" and r["v42"] is True, r
    assert r["bytes_from_modem"] == len(raw), (r, len(raw))


# -- 3: unloading during a call -------------------------------------------------------

def test_rmmod_refused_while_call_up():
    assert _read("insmod.rc").strip() == "0"
    assert _read("rmmod-busy.rc").strip() != "0"
    assert _read("rmmod-busy.loaded").strip() == "1"
    # busybox rmmod: EAGAIN ("Resource temporarily unavailable") for a
    # module in use
    assert "smodem" in _read("rmmod-busy.err"), _read("rmmod-busy.err")
    d = lines("rm", "DATA")
    assert len(d) == 2, _read("rm.txt")
    for x in d:            # data before and after the refused rmmod
        assert (x["n"], x["got"], x["bad"], x["writer"]) == (512, 512, 0, 0), x
    st = stats("rm-connected")
    assert (st["engine_phase"], st["engine_rate"]) == ("connected", 2400), st


def test_unbind_hangs_up_and_rmmod_succeeds():
    assert _read("unbind.rc").strip() == "0"
    assert _read("unbind.dev").startswith("0000:")
    assert not (_res() / "rm.stuck").exists()
    hup = lines("rm", "HUP")
    assert hup and hup[0]["ended"] == 1 and hup[0]["sighup"] >= 1, _read("rm.txt")
    assert _read("rmmod.rc").strip() == "0"
    assert _read("rmmod.loaded").strip() == "0"
    for name in ("rm.dmesg", "reload.dmesg"):
        bad = [x for x in _read(name).splitlines() if guestboot.BAD_DMESG.search(x)]
        assert not bad, (name, bad)
    assert _read("reload.rc").strip() == "0"
    assert _read("reload-rmmod.rc").strip() == "0" and _read("loaded").strip() == "0"


def test_far_end_sees_the_call_end():
    r = record("rm")
    print(r["end"], [e["event"] for e in r["events"]][-4:])
    assert r["result"] == "connected", r
    assert r["end"] in ("local-hangup", "remote-hangup"), r
    assert r["bytes_from_modem"] >= 1024 and r["crc32_from_modem"] == r["crc32_to_modem"], r


# -- the whole run -----------------------------------------------------------------------

def test_phases_and_no_overruns():
    ev = smtrace.events(_res() / "phases.dat")
    assert not [e for e in ev if e.name in ("smodem_overrun", "smodem_dma_halt")]
    phases = [e.fields["phase"] for e in ev if e.name == "smodem_phase"]
    assert phases.count("connected") == 3, phases
    for name in ("flow", "ppp"):
        assert stats(name)["overruns"] == 0


def test_line_never_stalled():
    log = (_res().parent / "smline.log").read_text(errors="replace")
    m = re.search(r"closed: (\d+) ticks, (\d+) samples in, (\d+) out, (\d+) stalls", log)
    assert m, log[-2000:]
    assert int(m.group(4)) == 0, m.group(0)
