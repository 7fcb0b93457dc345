"""Child processes that never outlive us: own process group, bounded by
timeout(1), killed as a group on any exit path."""

import os
import signal
import subprocess
import threading
import time

# If the harness dies without cleaning up (SIGKILL), the kernel sends
# timeout(1) SIGTERM and timeout forwards it to the command.  setpriv(1)
# (util-linux) sets that parent-death signal and execs timeout: nothing of
# ours runs between fork and exec (preexec_fn is unsafe in a threaded
# program).  As with prctl(PR_SET_PDEATHSIG), the "parent" is the thread
# that started the child: start long-lived children from a thread that
# outlives them (run_guest does, from its caller's thread).
PDEATHSIG = ["setpriv", "--pdeathsig", "TERM", "--"]


_live = set()
_live_lock = threading.Lock()


class Group:
    """A command run as `setpriv --pdeathsig TERM -- timeout -k K T cmd...`
    in a new session (its own process group)."""

    def __init__(self, cmd, timeout_s, kill_after_s=5, **popen_kw):
        self.timeout_s = timeout_s
        full = PDEATHSIG + ["timeout", "-k", str(kill_after_s),
                            "%.0f" % max(1, timeout_s)] + list(cmd)
        self.proc = subprocess.Popen(full, start_new_session=True, **popen_kw)
        self.pgid = self.proc.pid
        self.start = time.monotonic()
        with _live_lock:
            _live.add(self)

    def poll(self):
        return self.proc.poll()

    def alive(self):
        """True while any member of the process group exists."""
        try:
            os.killpg(self.pgid, 0)
            return True
        except ProcessLookupError:
            return False
        except PermissionError:
            return True

    def kill(self, sig=signal.SIGKILL):
        try:
            os.killpg(self.pgid, sig)
        except ProcessLookupError:
            pass

    def stop(self, grace_s=3.0):
        """TERM the group, KILL it after grace_s, reap the leader."""
        if self.proc.poll() is None or self.alive():
            self.kill(signal.SIGTERM)
            deadline = time.monotonic() + grace_s
            while time.monotonic() < deadline:
                self.proc.poll()
                if not self.alive():
                    break
                time.sleep(0.05)
            self.kill(signal.SIGKILL)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # wait until group members (not our children) are gone too
        deadline = time.monotonic() + 5
        while self.alive() and time.monotonic() < deadline:
            self.kill(signal.SIGKILL)
            time.sleep(0.05)
        with _live_lock:
            _live.discard(self)
        return self.proc.returncode


def kill_all():
    with _live_lock:
        groups = list(_live)
    for g in groups:
        g.stop(grace_s=1.0)


class term_as_interrupt:
    """While active (main thread only), SIGTERM raises KeyboardInterrupt so
    that the caller's finally blocks tear the children down."""

    def __enter__(self):
        self.old = None
        if threading.current_thread() is threading.main_thread():
            def handler(signum, frame):
                raise KeyboardInterrupt("SIGTERM")
            self.old = signal.signal(signal.SIGTERM, handler)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)
        return False
