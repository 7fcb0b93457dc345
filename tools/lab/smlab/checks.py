"""The project's guest checks as a library: the module and kernel a check
boots, the static guest programs (ttyat, smodemd), and running one of
tests/module/guest's scripts (after guestlib.sh) in a guest, with or
without smline on the line.  The tests use it through
tests/module/guestboot.py; the study tools (tools/upcalls.py) use it
directly, so that a Dask worker, which has smlab but not tests/ on its
import path, can run their pieces."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import smtrace
from smlab.dbusline import DbusLine
from smlab.guest import available_kernels, run_guest

TOP = Path(__file__).resolve().parents[3]
# what a guest's dmesg must not say after a check
BAD_DMESG = re.compile(r"WARNING|BUG|Oops|Call Trace|refcount|use-after|"
                       r"lockdep|inconsistent|circular|scheduling while")


def generic_kernel():
    """The 6.1 generic flavour (SMODEM_TTY_KERNEL overrides), or None."""
    if os.environ.get("SMODEM_TTY_KERNEL"):
        return os.environ["SMODEM_TTY_KERNEL"]
    have = [k for k in available_kernels() if re.match(r"6\.1\.\d+-\d+-amd64$", k)]
    return have[0] if have else None


def ko_release(ko):
    """The kernel release a module was built for (its vermagic's first word)."""
    r = subprocess.run([shutil.which("modinfo") or "/sbin/modinfo", "-F", "vermagic", str(ko)], capture_output=True, text=True)
    return r.stdout.split()[0] if r.returncode == 0 and r.stdout.strip() else None


def module(kver):
    """build/<kver>/smodem.ko; SMODEM_KO overrides it for the kernel it was
    built for only (check-debug sets it for the debug kernel, and a test that
    boots another flavour beside it must not load that module there)."""
    ko = os.environ.get("SMODEM_KO")
    if not ko or (Path(ko).is_file() and ko_release(ko) not in (None, kver)):
        ko = TOP / "build" / kver / "smodem.ko"
    ko = Path(ko)
    assert ko.is_file(), "%s missing: make modules" % ko
    return ko


def fresh_dir(out):
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    return out


def build_static(out, src, incs=()):
    """A static guest program from one C file (path relative to the top):
    out/<its stem>.  incs: include directories, relative to the top."""
    src = TOP / src
    exe = Path(out) / src.stem
    inc = [x for d in incs for x in ("-I", str(TOP / d))]
    subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-s",
                    "-pthread"] + inc + ["-o", str(exe), str(src)], check=True)
    return exe


def build_ttyat(out):
    return build_static(out, "tests/module/guest/ttyat.c")


def smodemd():
    """context=usr's daemon, static for the guest (make smodemd)."""
    subprocess.run(["make", "--no-print-directory", "-C", str(TOP), "smodemd"],
                   check=True, capture_output=True)
    return TOP / "build" / "smodemd" / "smodemd-static"


def timeout_scale():
    """SMODEM_TIMEOUT_SCALE (default 1): every guest timeout is multiplied by
    it; make check-debug sets it (KASAN + lockdep under TCG are slower)."""
    return float(os.environ.get("SMODEM_TIMEOUT_SCALE") or 1)


def run_checks(kver, script, out, args="", **kw):
    """Run tests/module/guest/<script>, after its guestlib.sh, in a guest
    as `sh -s ARGS`; its raw results land in out/results."""
    text = ((TOP / "tests/module/guest/guestlib.sh").read_text() +
            (TOP / "tests/module/guest" / script).read_text())
    kw["timeout_s"] = kw.get("timeout_s", 300) * timeout_scale()
    res = run_guest(kver, "sh -s %s <<'SMODEM_EOF'\n%s\nSMODEM_EOF\n" % (args, text),
                    str(out), **kw)
    assert res.ok, "guest failed: rc=%s timed_out=%s, see %s" % (
        res.rc, res.timed_out, res.console)
    print("guest: %.1f s wall" % res.wall_s)
    return out / "results"


def line_run(kver, script, out, line_args, env=None, timeout_s=600,
             tick_us=None, args="", extra_files=None, kmods=(), icount_shift=0):
    """Run tests/module/guest/<script> in a guest whose AC'97 is joined to smline
    (build/line/smline, route etc. in line_args) through QEMU's D-Bus audio,
    on the instruction-counted clock: a call here is the same call on every
    run. line_args may name files in out (save=...): out is emptied first.
    Returns (results dir, smline's call records)."""
    out = fresh_dir(out)
    exe = build_ttyat(out)
    calls = out / "calls.jsonl"
    line = DbusLine(list(line_args) + ["--json", str(calls), "-v"], out, tick_us=tick_us)
    files = {"usr/bin/ttyat": str(exe), "opt/smodem/smodem.ko": str(module(kver))}
    files.update(extra_files or {})
    results = run_checks(kver, script, out, args=args, audio="ac97", line=line,
                         share="deferred", env=env or {}, extra_files=files,
                         kmods=kmods, timeout_s=timeout_s,
                         icount_shift=icount_shift)
    recs = []
    if calls.exists():
        recs = [json.loads(x) for x in calls.read_text().splitlines() if x.strip()]
    return results, recs


def stats_by_device(path):
    """{debugfs directory: stats dict} of guestlib.sh's all_stats file."""
    out, cur = {}, None
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith("== "):
            cur = line[3:].strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return {k: smtrace.stats("\n".join(v)) for k, v in out.items()}
