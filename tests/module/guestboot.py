"""What the guest tests of tests/module share: one boot per file whose
results every test judges (once), and the boots most files make.  The
harness itself (kernel, module, static programs, run_checks, line_run) is
smlab.checks, which the study tools use too."""
from smlab.checks import (BAD_DMESG, TOP, build_static, build_ttyat,  # noqa: F401
                          fresh_dir, generic_kernel, line_run, module, run_checks,
                          smodemd, stats_by_device, timeout_scale)

_CACHE = {}


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
