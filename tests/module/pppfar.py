"""The far end's pppd for the PPP tests of tests/module: a second guest
of the same kernel, real clock, whose second serial port is smline's pty
bridge of the far modem's data (route word pty=LINK), running
tests/module/guest/ppp_far.sh (pppd, 10.0.0.2:10.0.0.1) until the modem's end
terminates the link.

By default the far guest boots once the pty is there (at answer time).
early=True boots it at once on a socket that a relay joins to the pty when
the call comes: for clients whose pppd gives up after its own default
number of Configure-Requests (wvdial's: 10, 3 s apart), which the far guest's
boot during the call would outlast."""
import os
import select
import socket
import threading
import time
import tty
from pathlib import Path

from guestpkg import package_files
import guestboot
from smlab.guest import run_guest

TOP = Path(__file__).resolve().parents[2]


class FarGuest(threading.Thread):
    """Waits for smline's pty link, then boots the far guest on it."""

    def __init__(self, kver, link, out, timeout_s, early=False):
        super().__init__(daemon=True)
        self.kver, self.link, self.out, self.timeout_s = kver, link, out, timeout_s
        self.early = early
        self.relayed = 0
        self.stop = threading.Event()
        self.res = None
        self.err = None
        self.started_at = None

    def _wait_link(self):
        deadline = time.monotonic() + self.timeout_s
        while not os.path.exists(self.link):
            if self.stop.is_set() or time.monotonic() > deadline:
                return None
            time.sleep(0.1)
        return os.path.realpath(self.link)

    def _boot(self, chardev):
        self.started_at = time.monotonic()
        text = (TOP / "tests/module/guest/ppp_far.sh").read_text()
        self.res = run_guest(
            self.kver, "sh -s <<'SMODEM_EOF'\n%s\nSMODEM_EOF\n" % text,
            str(self.out), clock="real", audio="none", share="live",
            kmods=["ppp_async"], extra_files=package_files("ppp"),
            cmdline_extra="8250.nr_uarts=2",
            qemu_extra=["-chardev", chardev,
                        "-device", "isa-serial,chardev=pp"],
            timeout_s=1500)

    def _relay(self, sock_path):
        """The far guest's serial socket joined to the pty of each call."""
        try:
            while not self.stop.is_set():
                pts = self._wait_link()
                if not pts:
                    return
                try:
                    fd = os.open(pts, os.O_RDWR | os.O_NOCTTY)
                except OSError:
                    time.sleep(0.1)
                    continue
                tty.setraw(fd)
                with socket.socket(socket.AF_UNIX) as s:
                    for _ in range(600):  # QEMU listens once it runs
                        try:
                            s.connect(sock_path)
                            break
                        except OSError:
                            time.sleep(0.1)
                    self._pump(fd, s)
                os.close(fd)
                while os.path.exists(self.link) and not self.stop.is_set():
                    time.sleep(0.1)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.err = e

    def _pump(self, fd, s):
        while not self.stop.is_set():
            r, _, _ = select.select([fd, s], [], [], 0.2)
            try:
                if fd in r:
                    data = os.read(fd, 4096)
                    if not data:
                        return
                    s.sendall(data)
                    self.relayed += len(data)
                if s in r:
                    data = s.recv(4096)
                    if not data:
                        return
                    os.write(fd, data)
                    self.relayed += len(data)
            except OSError:
                return  # the call's pty went away

    def run(self):
        try:
            if not self.early:
                pts = self._wait_link()
                if pts:
                    self._boot("tty,id=pp,path=%s" % pts)
                return
            sock_path = str(Path(self.out) / "serial.sock")
            relay = threading.Thread(target=self._relay, args=(sock_path,),
                                     daemon=True)
            relay.start()
            self._boot("socket,id=pp,path=%s,server=on,wait=off" % sock_path)
            self.stop.set()
            relay.join(10)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.err = e


def ppp_call(kver, top, script, route_number, args, extra_files, early=False,
             mod="v22bis"):
    """tests/module/guest/<script> in the modem's guest (guestboot.line_run, the
    guest kernel's ppp_async), smline routing route_number to a far modem
    (mod: its modulation word, v22bis, v32bis or v34; with V.42) bridged to the
    far guest's pppd.  Returns (results dir, smline's records, the far
    guest's results dir, the FarGuest)."""
    top.mkdir(parents=True, exist_ok=True)
    link = top / "pty"
    if os.path.lexists(link):
        link.unlink()
    far_out = guestboot.fresh_dir(top / "far")
    far = FarGuest(kver, str(link), far_out, 900, early=early)
    far.start()
    try:
        res, recs = guestboot.line_run(
            kver, script, top / "modem",
            ["--route", "%s=answer:%s,v42,pty=%s" % (route_number, mod, link)],
            env={"SMODEM_ARGS": args}, extra_files=extra_files,
            kmods=["ppp_async"], timeout_s=1500)
    finally:
        far.stop.set()
        far.join(120)
    assert not far.is_alive(), "far guest still running"
    assert far.err is None, "far guest: %r" % far.err
    return res, recs, far_out / "results", far
