"""A private JACK server on the dummy backend (no sound hardware), paced in
real time, for clock="real" guests and the host line program.

    with jack_server() as js:
        subprocess.run(["my-client"], env=js.env)    # talks to this server
        js.wait_ports("qemu")                        # after starting QEMU
        js.connect("out-qemu:output 0", "line:in")

Each server gets its own name so that concurrent users do not collide;
clients find it through JACK_DEFAULT_SERVER in js.env (QEMU through the
audiodev's server-name=, see js.qemu_audiodev()).
"""

import contextlib
import os
import re
import subprocess
import time

from .procs import Group


class JackError(RuntimeError):
    pass


class JackServer:
    def __init__(self, name=None, rate=48000, period=256, timeout_s=3600,
                 realtime=True, log=None):
        self.name = name or "smlab-%d-%d" % (os.getpid(), int(time.time() * 1000) % 100000)
        self.rate = rate
        self.period = period
        self.timeout_s = timeout_s
        self.realtime = realtime
        self.log = log
        self.group = None
        self.env = dict(os.environ)
        self.env.update({
            "JACK_DEFAULT_SERVER": self.name,
            "JACK_NO_START_SERVER": "1",
            "JACK_NO_AUDIO_RESERVATION": "1",
        })

    # -- lifecycle ---------------------------------------------------------
    def start(self, wait_s=10.0):
        cmd = ["jackd", "-n", self.name, "-R" if self.realtime else "-r",
               "-d", "dummy", "-r", str(self.rate), "-p", str(self.period)]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            self.group = Group(cmd, self.timeout_s, env=self.env,
                               stdin=subprocess.DEVNULL, stdout=out,
                               stderr=subprocess.STDOUT)
        finally:
            if self.log:
                out.close()
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.group.poll() is not None:
                raise JackError("jackd exited with %s" % self.group.proc.returncode)
            if self._lsp_ok():
                return self
            time.sleep(0.1)
        self.stop()
        raise JackError("jackd did not come up within %.0f s" % wait_s)

    def stop(self):
        if self.group is not None:
            self.group.stop()
            self.group = None

    def running(self):
        return self.group is not None and self.group.poll() is None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- clients -------------------------------------------------------------
    def _run(self, args, timeout=10):
        return subprocess.run(args, env=self.env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout)

    def _lsp_ok(self):
        try:
            return self._run(["jack_lsp", "-s", self.name], timeout=5).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def ports(self, *filters):
        """Port names, optionally only those containing all filter strings."""
        p = self._run(["jack_lsp", "-s", self.name] + list(filters))
        if p.returncode != 0:
            raise JackError("jack_lsp failed: %s" % p.stderr.strip())
        return [l.strip() for l in p.stdout.splitlines() if l.strip()]

    def connections(self):
        """{port: [connected ports]} from jack_lsp -c."""
        p = self._run(["jack_lsp", "-s", self.name, "-c"])
        out, cur = {}, None
        for line in p.stdout.splitlines():
            if not line.strip():
                continue
            if line[0].isspace():
                if cur is not None:
                    out[cur].append(line.strip())
            else:
                cur = line.strip()
                out[cur] = []
        return out

    def connect(self, src, dst):
        p = self._run(["jack_connect", "-s", self.name, src, dst])
        if p.returncode != 0:
            raise JackError("jack_connect %s %s: %s" % (src, dst, p.stderr.strip()))

    def disconnect(self, src, dst):
        p = self._run(["jack_disconnect", "-s", self.name, src, dst])
        if p.returncode != 0:
            raise JackError("jack_disconnect %s %s: %s" % (src, dst, p.stderr.strip()))

    def wait_ports(self, pattern, count=1, timeout_s=30.0):
        """Wait until at least count ports match the regex pattern."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        while True:
            found = [p for p in self.ports() if rx.search(p)]
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise JackError("no %d ports matching %r after %.0f s (have %s)"
                                % (count, pattern, timeout_s, self.ports()))
            time.sleep(0.2)

    def qemu_audiodev(self, id="snd0", timer_period=1000, client="qemu",
                      in_ports=None, out_ports=None):
        """-audiodev argument for QEMU's jack backend on this server.
        in_ports: regex of the host output ports QEMU's capture connects to;
        out_ports: regex of the host input ports QEMU's playback feeds."""
        opts = ["jack", "id=" + id, "timer-period=%d" % timer_period]
        for d in ("in", "out"):
            opts += ["%s.server-name=%s" % (d, self.name),
                     "%s.client-name=%s" % (d, client),
                     "%s.start-server=off" % d]
        # QEMU option values escape commas by doubling them
        if in_ports:
            opts.append("in.connect-ports=" + in_ports.replace(",", ",,"))
        if out_ports:
            opts.append("out.connect-ports=" + out_ports.replace(",", ",,"))
        return ",".join(opts)


@contextlib.contextmanager
def jack_server(**kw):
    js = JackServer(**kw)
    js.start()
    try:
        yield js
    finally:
        js.stop()
