"""pppd at both ends of a modem call, and a ping across it.

The host here has no kernel PPP (no /dev/ppp, modules cannot be loaded), so
the far end's pppd runs in a second guest.  Two guests of the 6.1 generic
kernel, each with its ppp_async and Debian's pppd:

  - the modem's guest (guestboot.line_run: instruction-counted clock, AC'97
    joined to build/line/smline through QEMU's D-Bus audio) dials
    5551234 with AT+MS=V34 in its chat (V.34 at the rate the line allows:
    33600 here), answered by smline's far modem (V.34 + V.42, ours) whose
    data is bridged to a host pty (route word
    pty=LINK); pppd on /dev/ttySM0,
    10.0.0.1:10.0.0.2, then `ping -c 3 10.0.0.2`;
  - the far guest (real clock), started once smline has made the pty (at
    answer time), has it as its second serial port (QEMU -chardev tty on
    the pty's slave, ttyS1 in the guest); pppd there, 10.0.0.2:10.0.0.1.

tests/module/guest/ppp_modem.sh and ppp_far.sh run in the guests.
SMODEM_KO overrides the module, SMODEM_TTY_KERNEL the kernel.

Cost: 2 guests, 0.6 min of wall time (0.4 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28). At 14400 instead of 2400 (2026-11-29, with
test_clients.py, -n 2, beside other work): 0.8 -> 0.9 worker-minutes, 39 -> 45 guest-s. V.34
(2026-11-29): V.8 and phase 2 make the set-up about 9 s longer.
"""
import os
import re
from pathlib import Path

import guestboot
from guestpkg import package_files
from pppfar import ppp_call

TOP = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("SMODEM_PPP_OUT") or TOP / "out" / "tests" / "ppp")
ARGS = "engine=1 phase_periods=1 ring_samples=8192"


def run():
    """Both guests once; every test reads the same results."""
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        top = OUT / kver
        res, recs, far_results, far = ppp_call(
            kver, top, "ppp_modem.sh", "5551234", ARGS, package_files("ppp"), mod="v34")
        assert far.res is not None, "far guest never started (no pty from smline)"
        return res, recs, far_results, far.res
    return guestboot.once(("ppp", kver), boot)


def _read(name):
    p = run()[0] / name
    return p.read_text(errors="replace") if p.exists() else ""


def _far(name):
    p = run()[2] / name
    return p.read_text(errors="replace") if p.exists() else ""


def test_call_connected_with_v42():
    recs = run()[1]
    assert len(recs) == 1, recs
    r = recs[0]
    assert r["result"] == "connected" and r["v42"] is True, r
    assert r["modulation"] == "V.34" and 28800 <= r["rate"] <= 33600, r
    assert "\\r\\nCONNECT %d\\r\\n" % r["rate"] in _read("tty.txt"), _read("tty.txt")


def test_far_guest_ran_pppd_on_the_pty():
    far = run()[3]
    print(far.log()[-2000:])
    assert far.ok, (far.rc, far.timed_out, far.console)
    assert "ttyS1" in _far("far-dev.txt") and "/dev/ppp" in _far("far-dev.txt"), \
        _far("far-dev.txt")


def test_pppd_negotiates_both_ends():
    log, far = _read("pppd.log"), _far("far-pppd.log")
    print(log[-3000:])
    print(far[-3000:])
    assert "local  IP address 10.0.0.1" in log and "remote IP address 10.0.0.2" in log, log
    assert "local  IP address 10.0.0.2" in far and "remote IP address 10.0.0.1" in far, far
    # both ends saw each other's LCP and IPCP acknowledged
    assert re.search(r"rcvd \[LCP ConfAck", log) and re.search(r"rcvd \[LCP ConfAck", far)
    assert re.search(r"rcvd \[IPCP ConfAck", log) and re.search(r"rcvd \[IPCP ConfAck", far)
    assert "10.0.0.1" in _read("ppp0.txt") and "10.0.0.2" in _read("ppp0.txt"), \
        _read("ppp0.txt")


def test_ping_crosses_the_link():
    ping = _read("ping.txt")
    print(ping)
    assert _read("ping.rc").strip() == "0", ping
    replies = re.findall(r"bytes from 10\.0\.0\.2: seq=(\d+)", ping)
    assert len(replies) == 3, ping
    assert re.search(r"3 packets transmitted, 3 packets received, 0% packet loss", ping), ping


def test_link_ends_cleanly():
    log, far = _read("pppd.log"), _far("far-pppd.log")
    # the modem's pppd ended the link (SIGTERM: LCP Terminate-Request),
    # the far pppd acknowledged and exited by itself
    assert "sent [LCP TermReq" in log, log[-2000:]
    assert "rcvd [LCP TermReq" in far, far[-2000:]
    assert _far("far-pppd.rc").strip() != "", far[-2000:]
    assert not Path(run()[0] / "pppd.stuck").exists()
    r = run()[1][0]
    assert r["end"] == "local-hangup", r
    # smline's V.34 far end has no carrier detector: it decodes the silence after the
    # modem's hang-up until the exchange ends the call, 0-2 bad frames counted apart
    # (fcs_loop_open); at most one frame the line spoiled before it
    print(r["errors"])
    assert r["errors"]["fcs"] <= 1 and r["errors"]["carrier_drops"] == 0, r
