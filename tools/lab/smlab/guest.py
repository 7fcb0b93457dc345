"""Boot a Debian kernel in QEMU with a busybox initramfs and run a script.

See tools/lab/README.md.  Main entry point: run_guest().
"""

import atexit
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import image
from .image import available_kernels, default_kernel, module_path, BUILD, ROOT  # noqa: F401 (API)
from .jack import JackServer, jack_server  # noqa: F401 (API)
from .dbusline import DbusLine, PrivateBus, qmp_command  # noqa: F401 (API)
from .procs import Group, kill_all, term_as_interrupt

atexit.register(kill_all)

QEMU = "qemu-system-x86_64"
# fixed addresses: the driver's device names (ac97-0000:00:04.0) depend on them
PCI_9P = "0x3"
PCI_AC97 = "0x4"
# ac97s > 1: the further controllers (0x5/0x6 are netload's e1000s)
PCI_AC97_MORE = ("0x8", "0x9", "0xa")
AC97_MAX = 1 + len(PCI_AC97_MORE)
RTC_BASE = "2026-01-01T00:00:00"

# The virtual clock. rr=record is there for its lock, not for its log (nothing
# is ever replayed: the log goes to /dev/null). With sleep=off QEMU 7.2 skips
# an idle guest's time by adding the time to the next timer to the clock's
# bias (icount_start_warp_timer) from its main loop, which reads the
# instruction count the vCPU thread last published. After the guest's HLT
# the vCPU thread publishes the instructions of its last execution slice
# only once it is back out of cpu_exec; a main loop that warps in between
# (any wake-up of it while the vCPU thread is preempted there: host load)
# overshoots the timer by those instructions, and the interrupt it raises
# reaches the guest that many nanoseconds late (seen: 146 and 620 ns). Record
# mode makes the main loop and the vCPU's execution slices take turns (the
# replay mutex: icount_prepare_for_run .. icount_process_data), so the main
# loop only ever sees a count that includes the HLT. Cost: within the host's
# noise (256 s against 251 s of wall time for the same run side by side).
ICOUNT = "shift=%d,sleep=off,rr=record,rrfile=/dev/null"

BASE_CMDLINE = [
    "console=ttyS0,115200",
    "quiet", "loglevel=3",
    # fixed addresses and no host-dependent choices at boot
    "nokaslr", "norandmaps", "random.trust_cpu=off",
    "tsc=reliable", "no_timer_check", "8250.nr_uarts=1",
    # a dead guest must end the run quickly instead of waiting for the timeout
    "panic=-1", "oops=panic",
    # no PTI/retpoline/... switching: TCG emulates them slowly and the study
    # compares contexts against each other, not against bare metal
    "mitigations=off",
    # the crypto self-tests cost 0.7 s of guest time (2-4 s of TCG) per boot
    "cryptomgr.notests",
    # never let the kernel pick up the AC'97 with snd-intel8x0
    "module_blacklist=snd_intel8x0,snd_intel8x0m",
]


@dataclass
class GuestResult:
    rc: object            # int exit code of the script, None if never reported
    console: str          # path of the full serial console log
    out_dir: str
    wall_s: float
    timed_out: bool
    kvm: bool
    boot_s: object = None           # wall seconds from QEMU start to script start
    guest_boot_s: object = None     # guest uptime when the script started
    script_s: object = None         # wall seconds the script ran
    guest_script_s: object = None   # guest seconds the script ran
    prep_s: object = None           # wall seconds before QEMU started (images)
    qemu_cpu_s: object = None       # CPU seconds QEMU used (sampled, to 0.5 s)
    # the script's own progress lines ("[guest] ..." on the console): where
    # QEMU's CPU and the wall time went between one and the next
    sections: list = field(default_factory=list)
    qemu_rc: object = None
    cmd: list = field(default_factory=list)

    @property
    def ok(self):
        return self.rc == 0 and not self.timed_out

    def log(self):
        """Text of the script's output (guest.log), or '' if absent."""
        p = Path(self.out_dir) / "guest.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def console_text(self):
        p = Path(self.console)
        return p.read_text(errors="replace") if p.exists() else ""


class FileLines:
    """The complete lines a growing file (a guest's console) gained since
    the last call; the unfinished last line waits for its end."""

    def __init__(self, path):
        self.path = Path(path)
        self.pos = 0
        self.buf = ""

    def new(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                chunk = f.read()
            self.pos += len(chunk)
            self.buf += chunk.decode(errors="replace")
        except FileNotFoundError:
            pass
        lines = self.buf.split("\n")
        self.buf = lines.pop()
        return lines


CONSOLE_TAIL = 60
# A guest whose QEMU ended without the script's exit code and without any of
# these on the console died silently (a triple fault, a lost host-side
# exchange): tests/module/guestboot.py's once() boots it again, once.  A kernel that said
# why it died never counts as silent.
_KERNEL_DEATH = re.compile(r"Kernel panic|BUG:|Oops|general protection|Call Trace|"
                           r"double fault|stack guard page|watchdog: ")
SILENT_DEATHS = []


def note_unreported(res, kver):
    """A guest that never reported its script's exit code: the console's end
    on stderr (CI keeps a failed test's stderr, not the out/ tree; an oops,
    a panic or the last progress line is the evidence), and the result in
    SILENT_DEATHS if it neither timed out nor says why it died."""
    text = res.console_text()
    tail = text.splitlines()[-CONSOLE_TAIL:]
    print("[smlab] %s: the console's last %d lines:\n%s" % (kver, len(tail), "\n".join(
        "  | " + ln for ln in tail)), file=sys.stderr, flush=True)
    if not res.timed_out and not _KERNEL_DEATH.search(text):
        SILENT_DEATHS.append(res)


def _say(progress, msg):
    if progress:
        print("[smlab] " + msg, file=sys.stderr, flush=True)


# -- KVM probe -----------------------------------------------------------------
def kvm_usable(progress=True, kver=None):
    """Whether a Debian guest really boots under KVM here (cached)."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    cache = BUILD / "kvm-probe.json"
    key = "%s %s" % (platform.release(), platform.version())
    try:
        data = json.loads(cache.read_text())
        if data.get("key") == key:
            return bool(data["ok"])
    except (OSError, ValueError, KeyError):
        pass
    kver = kver or available_kernels()[0]
    _say(progress, "probing KVM with a test boot (cached in %s)" % cache)
    with tempfile.TemporaryDirectory(prefix="smlab-kvmprobe-") as d:
        res = run_guest(kver, "exit 0", d, clock="real", audio="none",
                        timeout_s=30, accel="kvm", progress=False)
    ok = res.rc == 0 and not res.timed_out
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"key": key, "ok": ok, "wall_s": res.wall_s}) + "\n")
    _say(progress, "KVM %s" % ("works" if ok else "does not work: using TCG"))
    return ok


# -- the run -------------------------------------------------------------------
_STALE = ("guest.rc", "guest.log", "dmesg.log", "console.log", "qemu.log")
_MARK = re.compile(r"SMLAB: (.*?) up=([0-9.]+)")


def qemu_command(kernel, initrd, out_dir, console, clock, icount_shift, smp,
                 mem_mb, audio, accel, cpu, audiodev, cmdline, display="none",
                 ac97s=1):
    cmd = [QEMU, "-nodefaults", "-no-user-config",
           "-machine", "pc", "-accel", accel,
           "-cpu", cpu if accel == "tcg" else "host",
           "-smp", str(smp), "-m", str(mem_mb),
           "-display", display, "-vga", "none",
           "-serial", "file:" + console,
           "-no-reboot", "-seed", "1",
           "-rtc", "base=%s,clock=vm" % RTC_BASE,
           "-kernel", kernel, "-initrd", initrd, "-append", cmdline,
           "-fsdev", "local,id=fs0,path=%s,security_model=none" % out_dir,
           "-device", "virtio-9p-pci,fsdev=fs0,mount_tag=share,addr=%s" % PCI_9P]
    if clock == "virtual":
        cmd += ["-icount", ICOUNT % icount_shift]
    if audio == "ac97":
        cmd += ["-audiodev", audiodev,
                "-device", "AC97,audiodev=snd0,addr=%s" % PCI_AC97]
        # every controller on the one audiodev (with QEMU 7.2's mixing
        # engine on, the default, their voices share one stream: a D-Bus
        # listener hears them mixed and answers all with the same input)
        for addr in PCI_AC97_MORE[:ac97s - 1]:
            cmd += ["-device", "AC97,audiodev=snd0,addr=%s" % addr]
    return cmd


def run_guest(kver, script, out_dir, modules=(), clock="virtual", icount_shift=0,
              smp=1, mem_mb=1024, timeout_s=300, audio="ac97", jack_ports=None,
              progress=True, share="live", kmods=(), cmdline_extra="",
              accel="auto", cpu="qemu64", jack=None, extra_files=None, env=None,
              boot="vmlinux", on_running=None, line=None, qemu_extra=(),
              ac97s=1):
    """Boot kver, run script (busybox sh, root, cwd /share), return GuestResult.

    Beyond the documented API:
      share="deferred": /share is a tmpfs while the script runs and is copied
          to out_dir afterwards (no host I/O during the script: keeps
          icount runs deterministic; a timed-out run leaves only the console).
      kmods: in-tree module names of kver to load (with dependencies) first.
      cmdline_extra: appended to the kernel command line (e.g. "preempt=full"),
          after $SMLAB_CMDLINE_EXTRA, which every guest of a run gets
          (make check sets it: see the Makefile).
      accel: "auto" (KVM for clock=real only if a probe boot works), "tcg", "kvm".
      jack: a running JackServer to use for clock=real (else one is started).
      jack_ports: {"in": regex, "out": regex} or a (in, out) tuple for the
          audiodev's in/out.connect-ports.
      extra_files: {guest path: host path} added to the per-run archive.
      env: variables exported to the script.
      on_running(result_so_far, jack_server): called once the script started.
      line: a DbusLine: the AC'97 is joined to smline through QEMU's D-Bus
          audio on a private bus (any clock; with clock="virtual" the call
          runs on the guest's instruction-counted time). QEMU starts paused
          and runs once smline listens. Instead of JACK for clock="real".
      qemu_extra: further QEMU arguments, appended to the command as given
          (e.g. ["-chardev", "tty,id=pp,path=/dev/pts/3",
          "-device", "isa-serial,chardev=pp"] for a second serial port,
          which the guest sees with cmdline_extra="8250.nr_uarts=2").
      ac97s: how many AC'97 controllers (1..AC97_MAX, audio="ac97"): the
          first at 00:04.0 as always, the others at 00:08.0, 00:09.0,
          00:0a.0, all on the one audiodev.
    """
    t0 = time.monotonic()
    if os.environ.get("SMLAB_NO_GUEST"):
        # make check-fast: a test that boots belongs in tests/conftest.py's
        # GUEST_FILES (make check runs it)
        raise RuntimeError("SMLAB_NO_GUEST is set (make check-fast): this "
                           "test boots a guest; list its file in "
                           "tests/conftest.py's GUEST_FILES")
    if clock not in ("virtual", "real"):
        raise ValueError("clock must be 'virtual' or 'real'")
    if clock == "virtual" and smp > 1:
        # Measured on QEMU 7.2: with -icount and more than one vCPU, Debian's
        # 6.1 kernel never reaches its console (the run only times out).
        raise ValueError("smp > 1 needs clock='real': QEMU's instruction "
                         "counting does not boot an SMP guest here")
    if audio not in ("ac97", "none"):
        raise ValueError("audio must be 'ac97' or 'none'")
    if not 1 <= ac97s <= AC97_MAX:
        raise ValueError("ac97s must be 1..%d" % AC97_MAX)
    if ac97s > 1 and audio != "ac97":
        raise ValueError("ac97s > 1 needs audio='ac97'")
    if line is not None and audio != "ac97":
        raise ValueError("a line needs audio='ac97'")
    if share not in ("live", "deferred"):
        raise ValueError("share must be 'live' or 'deferred'")
    if kver not in available_kernels():
        raise ValueError("kernel %s not installed (have: %s)"
                         % (kver, ", ".join(available_kernels())))
    modules = [str(Path(m).resolve()) for m in modules]
    for m in modules:
        if not os.path.isfile(m):
            raise FileNotFoundError(m)
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for name in _STALE:
        try:
            (out / name).unlink()
        except FileNotFoundError:
            pass
    console = str(out / "console.log")

    say = (lambda m: _say(progress, "%s: %s" % (kver, m)))
    base = image.base_initramfs(kver, say if progress else None)
    kernel = image.kernel_image(kver, boot, say if progress else None)

    if accel == "auto":
        use_kvm = clock == "real" and kvm_usable(progress, kver)
        accel = "kvm" if use_kvm else "tcg"
    if accel == "kvm" and clock == "virtual":
        raise ValueError("icount (clock=virtual) needs TCG")

    extra = [x for x in (image.kernel_cmdline(kver), os.environ.get("SMLAB_CMDLINE_EXTRA"),
                         cmdline_extra) if x]
    cmdline = " ".join(BASE_CMDLINE + extra)
    res = GuestResult(rc=None, console=console, out_dir=str(out), wall_s=0.0,
                      timed_out=False, kvm=(accel == "kvm"))

    tmpdir = tempfile.mkdtemp(prefix="smlab-")
    group = None
    own_jack = None
    bus = None
    try:
        initrd = os.path.join(tmpdir, "initrd.cpio")
        with open(initrd, "wb") as f:
            with open(base, "rb") as b:
                shutil.copyfileobj(b, f)
            f.write(image.run_archive(kver, script, modules, kmods, share,
                                      extra_files, env))

        audiodev = "none,id=snd0,timer-period=250"
        display = "none"
        qmp = os.path.join(tmpdir, "qmp.sock")
        if line is not None:
            bus = PrivateBus(tmpdir, timeout_s + 120)
            audiodev = line.audiodev()
            display = "dbus,addr=%s,gl=off,audiodev=snd0" % bus.address
        elif audio == "ac97" and clock == "real":
            if jack is None:
                say("starting jackd (dummy backend, 48 kHz)")
                own_jack = JackServer(timeout_s=timeout_s + 60,
                                      log=str(out / "jackd.log"))
                own_jack.start()
                jack = own_jack
            if isinstance(jack_ports, dict):
                ports = (jack_ports.get("in"), jack_ports.get("out"))
            else:
                ports = tuple(jack_ports) if jack_ports else (None, None)
            audiodev = jack.qemu_audiodev(timer_period=1000,
                                          in_ports=ports[0], out_ports=ports[1])

        cmd = qemu_command(kernel, initrd, str(out), console, clock, icount_shift,
                           smp, mem_mb, audio, accel, cpu, audiodev, cmdline,
                           display=display, ac97s=ac97s)
        if line is not None:
            cmd += ["-S", "-qmp", "unix:%s,server=on,wait=off" % qmp]
        cmd += list(qemu_extra)
        res.cmd = cmd
        (out / "qemu-cmd.txt").write_text(" ".join(cmd) + "\n")
        mode = ("virtual, icount shift=%d" % icount_shift if clock == "virtual"
                else "real time")
        say("booting (%s, %s, smp=%d, %d MB)" % (accel, mode, smp, mem_mb))
        with term_as_interrupt(), open(out / "qemu.log", "wb") as qlog:
            group = Group(cmd, timeout_s, stdin=subprocess.DEVNULL,
                          stdout=qlog, stderr=subprocess.STDOUT)
            if line is not None:
                line.start(bus.address, tmpdir, timeout_s + 60)
                line.wait_ready()
                qmp_command(qmp, "cont", alive=lambda: group.poll() is None)
                say("line listening on D-Bus (%s); guest running" % bus.address)
            t_boot = time.monotonic()
            res.prep_s = t_boot - t0
            hard_deadline = t_boot + timeout_s + 15
            follow, t_script = FileLines(console), None
            sect = _Sections(res.sections)

            def cpu_now():
                # QEMU may be gone by the time its last lines are read: its
                # last sample then stands for the end
                c = _cpu_s(qemu_pid)
                if c is not None:
                    res.qemu_cpu_s = c
                return res.qemu_cpu_s
            qemu_pid, t_cpu = None, 0.0
            while True:
                if time.monotonic() - t_cpu > 0.5:
                    t_cpu = time.monotonic()
                    qemu_pid = qemu_pid or _child_pid(group.pgid)
                    res.qemu_cpu_s = _cpu_s(qemu_pid) or res.qemu_cpu_s
                rc = group.poll()
                # follow the console for the init's phase marks
                for ln in follow.new():
                    if t_script is not None and ln.startswith("[guest]"):
                        sect.mark(_section_label(ln), cpu_now())
                    m = _MARK.search(ln)
                    if not m:
                        continue
                    what, up = m.group(1), float(m.group(2))
                    if what == "phase script-start":
                        t_script = time.monotonic()
                        res.boot_s = t_script - t_boot
                        res.guest_boot_s = up
                        sect.mark("(script start)", cpu_now())
                        say("script running (booted in %.1f s wall, %.2f s guest)"
                            % (res.boot_s, up))
                        if on_running:
                            on_running(res, jack)
                    elif what.startswith("phase script-end"):
                        if t_script is not None:
                            res.script_s = time.monotonic() - t_script
                        if res.guest_boot_s is not None:
                            res.guest_script_s = up - res.guest_boot_s
                        sect.mark(None, cpu_now())
                        say("script ended: %s" % what.split(" ", 2)[-1])
                    elif what.startswith("SMLAB-RC"):
                        pass
                    elif not what.startswith("phase"):
                        say("guest: " + what)
                if rc is not None:
                    break
                if time.monotonic() > hard_deadline:
                    res.timed_out = True
                    break
                time.sleep(0.05)
            qrc = group.stop() if (rc is None or group.alive()) else rc
            group = None
            res.qemu_rc = qrc
            if qrc in (124, 137) or qrc == -9:
                res.timed_out = True
    finally:
        if group is not None:
            group.stop(grace_s=1.0)
        if line is not None:
            line.stop()
        if bus is not None:
            bus.stop()
        if own_jack is not None:
            own_jack.stop()
        shutil.rmtree(tmpdir, ignore_errors=True)

    res.wall_s = time.monotonic() - t0
    rcfile = out / "guest.rc"
    if rcfile.exists():
        try:
            res.rc = int(rcfile.read_text().split()[0])
        except (ValueError, IndexError):
            res.rc = None
    if res.rc is None and not res.timed_out:
        m = re.findall(r"SMLAB: SMLAB-RC=(\d+)", res.console_text())
        if m:
            res.rc = int(m[-1])
    if res.timed_out:
        say("TIMED OUT after %.0f s (QEMU killed)" % timeout_s)
    elif res.rc is None:
        say("guest never reported an exit code (QEMU rc %s); see %s" % (res.qemu_rc, console))
    if res.rc is None:
        note_unreported(res, kver)
    say("done: rc=%s, %.1f s wall" % (res.rc, res.wall_s))
    _log_times(res, kver, clock, icount_shift, line is not None)
    return res


class _Sections:
    """The script's progress lines as sections: each one's QEMU CPU and wall
    seconds, from its line to the next (to 0.05 s: the console's polling)."""

    def __init__(self, out):
        self.out, self.cur = out, None

    def mark(self, label, cpu):
        now = time.monotonic()
        if self.cur is not None:
            name, t, c = self.cur
            self.out.append({"section": name, "wall_s": round(now - t, 2),
                             "cpu_s": round(cpu - c, 2) if cpu is not None and c is not None
                             else None})
        self.cur = (label, now, cpu) if label is not None else None


def _section_label(line):
    """A progress line without its prefix, the guest's uptime (guest_checks.sh
    gives it) and its arguments' details."""
    words = line[len("[guest]"):].split()
    if words and re.match(r"^\d+\.\d+$", words[0]):
        words = words[1:]
    return " ".join(words)[:48] or "(unnamed)"


def _child_pid(pid):
    """The first child of pid (QEMU under the Group's `timeout`), or None."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except (OSError, ValueError):
        return None


def _cpu_s(pid):
    """User + system CPU seconds of a live process, or None."""
    if not pid:
        return None
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _log_times(res, kver, clock, shift, line):
    """One JSON line per guest in $SMLAB_TIMES (make check's breakdown of
    where a guest test's wall time goes: tests/conftest.py sums them)."""
    path = os.environ.get("SMLAB_TIMES")
    if not path:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    rec = {"test": test, "kver": kver, "clock": clock, "shift": shift,
           "line": line, "wall_s": res.wall_s, "prep_s": res.prep_s,
           "boot_s": res.boot_s, "guest_boot_s": res.guest_boot_s,
           "script_s": res.script_s, "guest_script_s": res.guest_script_s,
           "qemu_cpu_s": res.qemu_cpu_s, "pid": os.getpid(), "sections": res.sections}
    with open(path, "a") as f:
        f.write(json.dumps(rec) + "\n")
