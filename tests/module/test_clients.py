"""The programs people dial with, from their Debian packages, unchanged, with
the configuration a user has (the default, or the one the program writes),
on the modem in the guest over the virtual line (instruction-counted clock,
smline's far modem: ours, V.34 at 33600 for each):

  - wvdial: wvdialconf probes the ports and writes /etc/wvdial.conf, the
    user fills in phone, user and password and adds Init3 = AT+MS=V34 (the
    modem's best modulation, and its factory one: 33600 to smline's V.34 far
    modem), wvdial dials and runs pppd to a
    far pppd (a second guest on smline's pty bridge), a ping crosses;
  - minicom's runscript dials on the factory profile (ATZ, no +MS in its
    init: V.34 with its automode, 33600), sends a file with zmodem (lrzsz's
    sz) to the
    far end's rz and receives one from its sz, hangs up (the far end's
    lrzsz runs on this machine, on smline's pty bridge);
  - mgetty (its package's mgetty.config and login.config, and the port line a
    user adds: init-chat with AT+MS=V34, the factory's modulation named)
    answers a V.34 call from smline at 33600;
    the far end gets the login prompt, logs in, runs a command.

Each boot is one guest; tests/module/guest/clients_*.sh run in it.
SMODEM_KO overrides the module, SMODEM_TTY_KERNEL the kernel.

Cost: 4 guests, 2.2 min of wall time (1.3 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28). wvdial and minicom at 14400 instead of 2400 (2026-11-29,
with test_ppp.py, -n 2, beside other work): 2.2 -> 2.4 worker-minutes, 209 -> 196
guest-s, 1.0 min of QEMU's CPU either way (V.32bis's longer start-up, its faster data).
wvdial and mgetty on V.34 (2026-11-29): V.8 and phase 2 add about 9 s of line time to each set-up.
minicom on the factory profile's V.34 instead of V.32bis (2026-11-30, -n 1 beside other work): 196 -> 195
guest-s, 1.0 min of QEMU's CPU either way (V.34's longer set-up, its faster zmodem transfers).
"""
import hashlib
import os
import re
import select
import subprocess
import threading
import time
import tty
from pathlib import Path

import guestboot
from guestpkg import package_files
from pppfar import ppp_call

TOP = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("SMODEM_CLIENTS_OUT") or TOP / "out" / "tests" / "clients")
ARGS = "engine=1 phase_periods=1 ring_samples=8192"


def _text(path):
    return path.read_text(errors="replace") if path.exists() else ""


# -- wvdial ------------------------------------------------------------------

def wvdial_run():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        return ppp_call(kver, OUT / kver / "wvdial", "clients_wvdial.sh",
                        "5551234", ARGS, package_files("wvdial", "ppp"),
                        early=True, mod="v34")
    return guestboot.once(("clients-wvdial", kver), boot)


def _wv(name):
    return _text(wvdial_run()[0] / name)


def test_wvdialconf_finds_the_modem():
    conf, log = _wv("wvdial.conf.generated"), _wv("wvdialconf.txt")
    print(log[-3000:])
    print(conf)
    assert _wv("wvdialconf.rc").strip() == "0", log[-2000:]
    assert re.search(r"ttySM0<\*1>: Modem Identifier: ATI -- smodem", log), log
    assert re.search(r"^Modem = /dev/ttySM0$", conf, re.M), conf
    # every probe it makes got OK: the init string has all of them
    init2 = re.search(r"^Init2 = (.*)$", conf, re.M)
    assert init2 and init2.group(1).split() == \
        ["ATQ0", "V1", "E1", "S0=0", "&C1", "&D2", "+FCLASS=0"], conf
    # it raised the DTE rate as far as the port takes it
    assert int(re.search(r"^Baud = (\d+)$", conf, re.M).group(1)) >= 115200, conf


def test_wvdial_connects_and_starts_pppd():
    log = _wv("wvdial.log")
    print(log[-4000:])
    assert "--> Modem initialized." in log, log
    assert "--> Sending: ATDT5551234" in log or "ATDT5551234" in log, log
    m = re.search(r"CONNECT (\d+)", log)
    assert m and 28800 <= int(m.group(1)) <= 33600, log
    assert "--> Starting pppd" in log, log
    assert "local  IP address 10.0.0.1" in log, log
    assert "remote IP address 10.0.0.2" in log, log
    recs = wvdial_run()[1]
    assert len(recs) >= 1 and recs[0]["result"] == "connected", recs
    assert recs[0]["v42"] is True and recs[0]["modulation"] == "V.34", recs[0]
    assert recs[0]["rate"] == int(m.group(1)), recs[0]
    assert "Init3 = AT+MS=V34" in _wv("wvdial.conf"), _wv("wvdial.conf")


def test_ping_crosses_wvdials_link():
    ping = _wv("ping.txt")
    print(ping)
    assert _wv("ping.rc").strip() == "0", ping
    assert re.search(r"3 packets transmitted, 3 packets received", ping), ping


def test_wvdial_ends_the_call():
    log = _wv("wvdial.log")
    assert not (wvdial_run()[0] / "wvdial.stuck").exists(), log[-2000:]
    assert "Disconnecting at" in log or "Caught signal" in log, log[-2000:]
    recs = wvdial_run()[1]
    assert len(recs) == 1, recs   # no redial
    assert recs[0]["end"] == "local-hangup", recs[0]
    assert _wv("rmmod.rc").strip() == "0"
    assert not guestboot.BAD_DMESG.search(_wv("dmesg.txt")), _wv("dmesg.txt")[-3000:]


# -- the far end on this machine, on smline's pty bridge ----------------------

class PtyFar(threading.Thread):
    """Waits for smline's pty link (made when the call is answered or
    placed), opens it raw and runs self.session(fd)."""

    def __init__(self, link, out, timeout_s=900):
        super().__init__(daemon=True)
        self.link, self.out, self.timeout_s = link, Path(out), timeout_s
        self.err = None
        self.ran = False

    def run(self):
        try:
            deadline = time.monotonic() + self.timeout_s
            while not os.path.exists(self.link):
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)
            fd = os.open(os.path.realpath(self.link), os.O_RDWR | os.O_NOCTTY)
            try:
                tty.setraw(fd)
                self.ran = True
                self.session(fd)
            finally:
                os.close(fd)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.err = e


class ZmodemFar(PtyFar):
    """lrzsz at the far end: rz takes the modem's upload, then sz sends
    down.bin; their logs go to out."""

    def session(self, fd):
        rx = self.out / "rx"
        rx.mkdir(parents=True, exist_ok=True)
        with open(self.out / "far-rz.log", "w") as log:
            r = subprocess.run(["rz", "-vv", "-b", "-y"], stdin=fd, stdout=fd,
                               stderr=log, cwd=rx, timeout=600)
        (self.out / "far-rz.rc").write_text("%d\n" % r.returncode)
        with open(self.out / "far-sz.log", "w") as log:
            r = subprocess.run(["sz", "-vv", "-b", str(self.out / "down.bin")],
                               stdin=fd, stdout=fd, stderr=log, timeout=600)
        (self.out / "far-sz.rc").write_text("%d\n" % r.returncode)


class LoginFar(PtyFar):
    """A caller at a BBS: waits for the login prompt, logs in as guest, runs
    a command, logs out.  The whole session goes to out/far-session.txt."""

    # busybox sh asks the terminal where its cursor is after a prompt
    PROMPT = rb"[$#] (\x1b\[6n)?$"
    STEPS = [(rb"login: $", b"guest\r"), (rb"Password: $", b"guest\r"),
             (PROMPT, b"echo SMODEM-$((6*7)) $(id -un)\r"),
             (rb"SMODEM-42 guest\r?\n.*" + PROMPT, b"exit\r")]

    def session(self, fd):
        seen = b""
        with open(self.out / "far-session.txt", "wb") as log:
            for pattern, reply in self.STEPS:
                deadline = time.monotonic() + 300
                while not re.search(pattern, seen, re.S):
                    if time.monotonic() > deadline:
                        return
                    r, _, _ = select.select([fd], [], [], 0.5)
                    if r:
                        try:
                            data = os.read(fd, 4096)
                        except OSError:
                            return      # the call ended
                        if not data:
                            return
                        seen += data
                        log.write(data)
                        log.flush()
                seen = b""
                os.write(fd, reply)
                log.write(b"<<" + reply + b">>")
            # until the call ends (pty closed) or a while
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                r, _, _ = select.select([fd], [], [], 0.5)
                if r:
                    try:
                        data = os.read(fd, 4096)
                    except OSError:
                        return
                    if not data:
                        return
                    log.write(data)


def _far_run(name, script, route_args, far_cls, files=None, timeout_s=900):
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        top = guestboot.fresh_dir(OUT / kver / name)
        link = top / "pty"
        far = far_cls(str(link), top)
        far.start()
        try:
            res, recs = guestboot.line_run(
                kver, script, top / "modem",
                [a.replace("LINK", str(link)) for a in route_args],
                env={"SMODEM_ARGS": ARGS}, extra_files=files,
                timeout_s=timeout_s)
        finally:
            far.join(60)
        assert far.err is None, "far end: %r" % far.err
        return res, recs, top, far
    return guestboot.once(("clients-" + name, kver), boot)


# -- minicom's runscript and zmodem --------------------------------------------

def _payload(path, n, seed):
    import random
    rnd = random.Random(seed)
    path.write_bytes(bytes(rnd.getrandbits(8) for _ in range(n)))
    return path


def minicom_run():
    OUT.mkdir(parents=True, exist_ok=True)
    up = _payload(OUT / "up.bin", 6000, 11)
    files = package_files("minicom", "lrzsz")
    files["opt/clients/up.bin"] = str(up)

    class Far(ZmodemFar):
        def session(self, fd):
            _payload(self.out / "down.bin", 5000, 12)
            super().session(fd)
    return _far_run("minicom", "clients_minicom.sh",
                    ["--route", "5551235=answer:v34,v42,pty=LINK"], Far, files)


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_modemmanagers_probes_get_answers():
    res = minicom_run()[0]
    probe = _text(res / "mm-probe.txt")
    print(probe)
    assert _text(res / "mm-probe.rc").strip() == "0", probe
    # a POTS modem: identification answered, GSM and vendor probes ERROR
    assert "+GCAP: +FCLASS,+MS,+ES,+DS" in probe, probe
    assert probe.count("ERROR") == 8, probe
    assert probe.count("OK") >= 11, probe


def test_runscript_dials_and_hangs_up():
    res, recs, top, far = minicom_run()
    log = _text(res / "runscript.log")
    print(log[-3000:])
    assert _text(res / "runscript.rc").strip() == "0", log[-2000:]
    for step in ("CONNECT", "[runscript] sent", "[runscript] received",
                 "[runscript] hung up"):
        assert step in log, log[-2000:]
    assert len(recs) == 1 and recs[0]["result"] == "connected", recs
    assert recs[0]["v42"] is True and recs[0]["end"] == "local-hangup", recs[0]
    # the factory profile (ATZ, no +MS): V.34 through V.8, the rate the line allows
    print("minicom:", recs[0]["modulation"], recs[0]["rate"])
    assert recs[0]["modulation"] == "V.34" and 28800 <= recs[0]["rate"] <= 33600, recs[0]


def test_zmodem_upload_arrives_intact():
    res, recs, top, far = minicom_run()
    print(_text(res / "sz.log")[-1500:])
    print(_text(top / "far-rz.log")[-1500:])
    got = top / "rx" / "up.bin"
    assert got.exists(), _text(top / "far-rz.log")
    assert _sha(got) == _sha(OUT / "up.bin")
    assert _text(top / "far-rz.rc").strip() == "0"


def test_zmodem_download_arrives_intact():
    res, recs, top, far = minicom_run()
    print(_text(res / "rz.log")[-1500:])
    print(_text(top / "far-sz.log")[-1500:])
    want = _sha(top / "down.bin")
    assert re.search(r"^%s\s+/tmp/rx/down.bin$" % want, _text(res / "received.sha256"),
                     re.M), _text(res / "received.sha256")
    assert _text(top / "far-sz.rc").strip() == "0"
    assert _text(res / "rmmod.rc").strip() == "0"
    assert not guestboot.BAD_DMESG.search(_text(res / "dmesg.txt"))


# -- mgetty answering --------------------------------------------------------

def mgetty_run():
    files = package_files("mgetty", rename={"/usr/share/mgetty/templates/etc":
                                            "/etc/mgetty"})
    return _far_run("mgetty", "clients_mgetty.sh",
                    ["--incoming", "25=v34,v42,from=5550100,pty=LINK"],
                    LoginFar, files)


def test_mgetty_answers_and_runs_login():
    res, recs, top, far = mgetty_run()
    log = _text(res / "mgetty.log")
    print(log[-4000:])
    assert len(recs) == 1 and recs[0]["direction"] == "incoming", recs
    assert recs[0]["result"] == "connected" and recs[0]["v42"] is True, recs[0]
    assert recs[0]["modulation"] == "V.34" and 28800 <= recs[0]["rate"] <= 33600, recs[0]
    assert re.search(r"CONNECT", log), log[-2000:]
    assert 'init-chat "" \\dATQ0V1H0 OK AT+MS=V34 OK' in _text(res / "mgetty.config")


def test_caller_logs_in_and_runs_a_command():
    res, recs, top, far = mgetty_run()
    sess = _text(top / "far-session.txt")
    print(sess[-3000:])
    assert far.ran, "no pty from smline"
    assert re.search(r"login: ", sess), sess
    assert "SMODEM-42 guest" in sess.replace("<<echo SMODEM-$((6*7)) $(id -un)\r>>", ""), sess


def test_mgetty_session_ends_cleanly():
    res, recs, top, far = mgetty_run()
    assert not (res / "mgetty.stuck").exists(), _text(res / "mgetty.log")[-2000:]
    assert recs[0]["end"] in ("remote-hangup", "local-hangup", "carrier-lost"), recs[0]
    assert _text(res / "rmmod.rc").strip() == "0"
    assert not guestboot.BAD_DMESG.search(_text(res / "dmesg.txt"))
