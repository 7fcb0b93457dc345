"""What the guest tests of tests/module share: one boot per file whose
results every test judges (once), and the boots most files make.  The
harness itself (kernel, module, static programs, run_checks, line_run) is
smlab.checks, which the study tools use too."""
import sys
import time

from smlab.checks import (BAD_DMESG, TOP, build_static, build_ttyat,  # noqa: F401
                          fresh_dir, generic_kernel, line_run, module, run_checks,
                          smodemd, stats_by_device, timeout_scale)
from smlab import guest as _guest

_CACHE = {}
# every boot once() gave a second chance, one line each; tools/lab/testsum.py
# prints their count beside make check's closing line
RETRY_LOG = TOP / "out" / "tests" / "guest-retries.log"


def _boot_once_more(key, boot):
    """boot(), and once more if its guest died silently (QEMU ended with
    neither the script's exit code nor a kernel's last words on the console:
    smlab.guest.SILENT_DEATHS).  Once, in the 914 boots and calls of CI's
    make check, a guest of test_stolen ended so 41 s into its script; the
    same tree passed every time here (4 boots side by side, a fresh clone at
    CI's path).  A guest that panicked, oopsed or timed out is not booted
    again, nor is one that dies silently twice."""
    n = len(_guest.SILENT_DEATHS)
    try:
        return boot()
    except Exception as e:  # noqa: BLE001 - judged below, else re-raised
        if len(_guest.SILENT_DEATHS) == n:
            raise
        dead = _guest.SILENT_DEATHS[-1]
        RETRY_LOG.parent.mkdir(parents=True, exist_ok=True)
        with open(RETRY_LOG, "a") as f:
            f.write("%s %r: guest died silently (QEMU rc %s, console %s): %s\n" % (
                time.strftime("%Y-%m-%dT%H:%M:%S"), key, dead.qemu_rc, dead.console,
                str(e).splitlines()[0] if str(e) else type(e).__name__))
        print("[guestboot] %r: the guest died silently; booting it once more" % (key,),
              file=sys.stderr, flush=True)
        return boot()


def once(key, boot):
    """boot() once per key for the whole session (twice if the first guest
    died silently: _boot_once_more); a failed boot fails every test that
    needs it without booting again."""
    if key not in _CACHE:
        try:
            _CACHE[key] = (True, _boot_once_more(key, boot))
        except Exception as e:  # noqa: BLE001 - re-raised for every user
            _CACHE[key] = (False, e)
    ok, val = _CACHE[key]
    if not ok:
        raise AssertionError("boot %s failed: %s" % (key, val))
    return val


def tty_results(name, script, outdir):
    """Boot the 6.1 generic kernel once with ttyat and the module, run
    tests/module/guest/<script>; every test of the file reads the same results."""
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
