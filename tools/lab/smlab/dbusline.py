"""The telephone line in virtual time: smline on QEMU's D-Bus audio.

QEMU joins a private bus (dbus-daemon started here), exports its audio there,
and smline (tools/line, transport dbus) registers as the listener of both
directions. QEMU starts paused (-S) and is let go (QMP "cont") only once
smline listens, so that the first sample the guest plays is already the
line's: the same command gives the same call on any machine.

    line = DbusLine(["--route", "5551234=answer:v22bis,echo"], out_dir)
    run_guest(kver, script, out_dir, line=line)      # see guest.run_guest

See tools/line/transport_dbus.c for how the samples are paced.
"""

import asyncio
import os
import subprocess
import time
from pathlib import Path

# QEMU's own QMP client library (PyPI qemu.qmp, installed into the venv)
from qemu.qmp import ConnectError, ExecuteError, QMPClient

from .image import BUILD
from .procs import Group

SMLINE = BUILD / "line" / "smline"

_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


class PrivateBus:
    """A dbus-daemon of our own, on a socket in tmpdir."""

    def __init__(self, tmpdir, timeout_s):
        self.path = os.path.join(tmpdir, "bus")
        self.address = "unix:path=" + self.path
        conf = os.path.join(tmpdir, "bus.conf")
        Path(conf).write_text(_BUS_CONFIG.format(path=self.path))
        self.group = Group(["dbus-daemon", "--nofork", "--config-file=" + conf],
                           timeout_s, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.path):
            if self.group.poll() is not None:
                err = self.group.proc.stderr.read().decode(errors="replace")
                raise RuntimeError("dbus-daemon failed: " + err.strip())
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("dbus-daemon did not create " + self.path)
            time.sleep(0.02)

    def stop(self):
        self.group.stop(grace_s=1.0)


async def _qmp(sock_path, command, arguments, timeout_s, alive):
    qmp = QMPClient("smlab")
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if not os.path.exists(sock_path):
                raise FileNotFoundError(sock_path)
            # greeting and qmp_capabilities included
            await asyncio.wait_for(qmp.connect(sock_path),
                                   max(0.1, deadline - time.monotonic()))
            break
        except (FileNotFoundError, ConnectError, asyncio.TimeoutError) as e:
            # QEMU not listening yet
            if alive is not None and not alive():
                raise RuntimeError("QEMU exited before its QMP socket %s answered"
                                   % sock_path) from e
            if time.monotonic() > deadline:
                raise RuntimeError("QMP socket %s never answered: %s" % (sock_path, e)) from e
            await asyncio.sleep(0.05)
    try:
        return await asyncio.wait_for(qmp.execute(command, arguments),
                                      max(0.1, deadline - time.monotonic()))
    except ExecuteError as e:
        raise RuntimeError("QMP %s: %s" % (command, e)) from e
    finally:
        await qmp.disconnect()


def qmp_command(sock_path, command, arguments=None, timeout_s=10, alive=None):
    """Run one QMP command on QEMU's monitor socket (-qmp unix:PATH,server=on)
    with qemu.qmp's client; return its result (the "return" value).  Waits
    up to timeout_s for QEMU to listen; alive() (e.g. a QEMU Group's
    `lambda: g.poll() is None`) ends the wait early when QEMU died."""
    return asyncio.run(_qmp(sock_path, command, arguments, timeout_s, alive))


def tick_default():
    """QEMU's audio timer period for a line: $SMLAB_DBUS_TICK_US, else 1 ms.

    Each tick is one synchronous D-Bus Read between QEMU and smline, and
    those round trips are much of a call's host CPU (a boot with one V.34
    call moving 16 KiB each way: 31 s of CPU at 1 ms, 23 s at 2 ms, 19 s at
    4 ms, the same call and rate).  make check sets 4 ms (at first it set
    2: at 4 ms QEMU's PCM out ran past the nine periods the driver queued
    and halted, until driver/hw_ac97.c queued it by frames).  The
    experiments keep 1 ms, since the tick is how late the guest's input
    arrives."""
    v = os.environ.get("SMLAB_DBUS_TICK_US", "")
    if not v:
        return 1000
    if not v.isdigit() or not 100 <= int(v) <= 20000:
        raise ValueError("SMLAB_DBUS_TICK_US=%s: a whole number of us, 100 to 20000" % v)
    return int(v)


class DbusLine:
    """smline on the D-Bus transport, started and stopped by run_guest()."""

    def __init__(self, args, out_dir, tick_us=None, delay=1536, smline=SMLINE,
                 log_name="smline.log", stall_s=5.0):
        self.args = list(args)
        self.out_dir = Path(out_dir)
        self.tick_us = int(tick_us or tick_default())
        self.delay = int(delay)
        self.stall_s = stall_s
        self.smline = Path(smline)
        self.log_path = self.out_dir / log_name
        self.group = None
        self.ready = None
        if not self.smline.is_file():
            raise FileNotFoundError("%s missing: make line" % self.smline)

    def audiodev(self):
        # 8 kHz mono on QEMU's side: no resampling anywhere between the
        # AC'97 (VRA at 8000) and the line
        return ("dbus,id=snd0,timer-period=%d,in.frequency=8000,out.frequency=8000,"
                "in.channels=1,out.channels=1" % self.tick_us)

    def start(self, address, tmpdir, timeout_s):
        self.ready = os.path.join(tmpdir, "line.ready")
        cmd = [str(self.smline), "--transport", "dbus:" + address,
               "--dbus-tick-us", str(self.tick_us), "--dbus-delay", str(self.delay),
               "--dbus-stall-s", str(self.stall_s), "--ready", self.ready] + self.args
        self.out_dir.mkdir(parents=True, exist_ok=True)
        (self.out_dir / "smline-cmd.txt").write_text(" ".join(cmd) + "\n")
        self._log = open(self.log_path, "wb")
        self.group = Group(cmd, timeout_s, stdin=subprocess.DEVNULL,
                           stdout=self._log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout_s=60):
        deadline = time.monotonic() + timeout_s
        while not os.path.exists(self.ready):
            if self.group.poll() is not None:
                raise RuntimeError("smline exited (rc %s) before listening; see %s"
                                   % (self.group.poll(), self.log_path))
            if time.monotonic() > deadline:
                raise RuntimeError("smline not listening after %d s; see %s"
                                   % (timeout_s, self.log_path))
            time.sleep(0.02)

    def stop(self, grace_s=5.0):
        """Let smline finish (QEMU gone: its connection closes) and reap it."""
        if self.group is None:
            return None
        deadline = time.monotonic() + grace_s
        while self.group.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        rc = self.group.stop(grace_s=2.0)
        self.group = None
        self._log.close()
        return rc
