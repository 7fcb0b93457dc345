"""What the guest tests of tests/module share: which kernel and module to
boot, one boot per file whose results every test judges, and the static
ttyat helper the tty tests run in the guest."""
import os
import re
import subprocess
from pathlib import Path

from smlab.guest import available_kernels, run_guest

TOP = Path(__file__).resolve().parents[2]
BAD_DMESG = re.compile(r"WARNING|BUG|Oops|Call Trace|refcount|use-after|"
                       r"lockdep|inconsistent|circular|scheduling while")
_CACHE = {}


def generic_kernel():
    """The 6.1 generic flavour (SMODEM_TTY_KERNEL overrides), or None."""
    if os.environ.get("SMODEM_TTY_KERNEL"):
        return os.environ["SMODEM_TTY_KERNEL"]
    have = [k for k in available_kernels() if re.match(r"6\.1\.\d+-\d+-amd64$", k)]
    return have[0] if have else None


def module(kver):
    """build/<kver>/smodem.ko (SMODEM_KO overrides)."""
    ko = Path(os.environ.get("SMODEM_KO") or TOP / "build" / kver / "smodem.ko")
    assert ko.is_file(), "%s missing: make modules" % ko
    return ko


def once(key, boot):
    """boot() once per key for the whole session; a failed boot fails every
    test that needs it without booting again."""
    if key not in _CACHE:
        try:
            _CACHE[key] = (True, boot())
        except Exception as e:  # noqa: BLE001 - re-raised for every user
            _CACHE[key] = (False, e)
    ok, val = _CACHE[key]
    if not ok:
        raise AssertionError("boot %s failed: %s" % (key, val))
    return val


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
    return build_static(out, "tests/module/ttyat.c")


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
    """Run tests/module/<script>, after tests/module/guestlib.sh, in a guest
    as `sh -s ARGS`; its raw results land in out/results."""
    text = ((TOP / "tests/module/guestlib.sh").read_text() +
            (TOP / "tests/module" / script).read_text())
    kw["timeout_s"] = kw.get("timeout_s", 300) * timeout_scale()
    res = run_guest(kver, "sh -s %s <<'SMODEM_EOF'\n%s\nSMODEM_EOF\n" % (args, text),
                    str(out), **kw)
    assert res.ok, "guest failed: rc=%s timed_out=%s, see %s" % (
        res.rc, res.timed_out, res.console)
    print("guest: %.1f s wall" % res.wall_s)
    return out / "results"


def tty_results(name, script, outdir):
    """Boot the 6.1 generic kernel once with ttyat and the module, run
    tests/module/<script>; every test of the file reads the same results."""
    kver = generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = fresh_dir(outdir / kver)
        exe = build_ttyat(out)
        return run_checks(kver, script, out, audio="ac97",
                          extra_files={"usr/bin/ttyat": str(exe),
                                       "opt/smodem/smodem.ko": str(module(kver))},
                          timeout_s=300)
    return once((name, kver), boot)


def line_run(kver, script, out, line_args, env=None, timeout_s=600,
             tick_us=1000, args="", extra_files=None, kmods=(), icount_shift=0):
    """Run tests/module/<script> in a guest whose AC'97 is joined to smline
    (build/line/smline, route etc. in line_args) through QEMU's D-Bus audio,
    on the instruction-counted clock: a call here is the same call on every
    run. line_args may name files in out (save=...): out is emptied first.
    Returns (results dir, smline's call records)."""
    import json
    from smlab.dbusline import DbusLine
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


def line_results(name, script, outdir, line_args, **kw):
    """line_run() once per session for (name, kernel)."""
    kver = generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        return line_run(kver, script, outdir / kver, line_args, **kw)
    return once((name, kver), boot)


def read_result(run, name):
    """Text of results/<name> of a line_run() (results dir, records)."""
    return (run[0] / name).read_text(errors="replace")


def call_record(run, calls, name):
    """smline's record of the call named name, calls being the names of the
    boot's calls in order (all of them must have a record, in order)."""
    recs = run[1]
    assert [r["call"] for r in recs] == list(range(1, len(calls) + 1)), recs
    return recs[calls.index(name)]


def stats_by_device(path):
    """{debugfs directory: stats dict} of guestlib.sh's all_stats file."""
    import smtrace
    out, cur = {}, None
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith("== "):
            cur = line[3:].strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return {k: smtrace.stats("\n".join(v)) for k, v in out.items()}
