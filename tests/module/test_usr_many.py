"""One smodemd serving several modems ("Many modems per daemon"),
one boot of the 6.1 generic kernel on the instruction-counted clock
(tests/module/guest/usr_many_checks.sh).

- hw=vline devices=4 vline_pairs=1 context=usr, load_us=0 (four modems'
  calls at load_us=1840 are tests/module/test_upcalls.py's): one smodemd
  -v --fifo 50 for all four, first with its single rate-monotonic thread,
  then with --threads; in each, both pairs call at once (V.22bis + V.42,
  CALL_BYTES out and echoed back, checked at both ends), no period missed
  after the attach, no overruns; the daemon's voluntary context switches per
  second, per mode, printed (the upcall study's comparison).
- devices=6: smodemd's admission test, sum(C/T) + c_max(1/T_1 - 1/T_n) <=
  n(2^(1/n) - 1), at the default cost (load_us + 100 us) and at --cost
  load_us: the first modem refused is the one the formula says, with its
  numbers, exit status 3; --no-admission serves all six.

Cost: 1 guest, 0.3 min of wall time (0.3 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import re
import sys
from pathlib import Path

import guestboot

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools"))
import upcalls  # noqa: E402

OUT = TOP / "out" / "tests" / "usr_many"
N, ADMIT_N = 4, 6
LOAD_US = 1840        # the admission phase's (the study's V.90 pump)
SERVE_LOAD_US = 0
COST_MARGIN_US = 100    # smodemd's --cost default: load_us + this
CALL_BYTES = 2048
LOAD_PERIODS = 200
RATE, PERIOD = 8000, 100
MODES = ["rm", "threads"]


def res():
    kver = guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(OUT / kver)
        exe = guestboot.build_ttyat(out)
        env = {"N": str(N), "ADMIT_N": str(ADMIT_N), "LOAD_US": str(LOAD_US),
               "SERVE_LOAD_US": str(SERVE_LOAD_US),
               "LOAD_PERIODS": str(LOAD_PERIODS),
               "CALL_BYTES": str(CALL_BYTES), "MODES": " ".join(MODES)}
        return guestboot.run_checks(
            kver, "usr_many_checks.sh", out, share="deferred", env=env,
            timeout_s=600,
            extra_files={"usr/bin/ttyat": str(exe),
                         "usr/bin/smodemd": str(guestboot.smodemd()),
                         "opt/smodem/smodem.ko": str(guestboot.module(kver))})
    return guestboot.once(("usr_many", kver), boot)


def _text(name):
    return (res() / name).read_text(errors="replace")


def _all_stats(name):
    return guestboot.stats_by_device(res() / (name + ".stats"))


def first_refused(n, cost_us, period_us):
    """The upcall study's test modem after modem (tools/upcalls.py): the
    1-based index of the first that does not fit, its sum and bound, or
    None."""
    last, steps = upcalls.admitted(n, cost_us, period_us)
    return steps[last] if last < n else None


def _daemon(mode, name=None):
    """smodemd's own counts (tools/upcalls.py reads them): {path: (periods,
    longest us)}, and the (seconds, voluntary, involuntary) context switches
    line."""
    err = _text(name or "serve-%s.smodemd" % mode)
    per, s = upcalls.parse_daemon(err)
    assert s, err
    assert s["mode"] == mode and s["n"] == N, err
    return (err, {k: (p, longest) for k, (p, longest, _) in per.items()}, s["secs"],
            s["voluntary"], s["involuntary"])


def test_one_daemon_serves_all_modems_calls_at_once():
    assert _text("serve-insmod.rc").strip() == "0"
    for mode in MODES:
        name = "serve-" + mode
        assert _text(name + "-attached.rc").strip() == "0", mode
        for a in range(0, N, 2):
            caller = _text("%s-%d.txt" % (name, a))
            answerer = _text("%s-%d.txt" % (name, a + 1))
            m = re.search(r"^DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(\d+)",
                          caller, re.M)
            assert m, (mode, caller)
            assert m.groups() == (str(CALL_BYTES), str(CALL_BYTES), "0", "0"), caller
            m = re.search(r"^ECHO n=(\d+) got=(\d+) bad=(\d+) back=(\d+)", answerer, re.M)
            assert m, (mode, answerer)
            assert m.groups() == (str(CALL_BYTES),) * 2 + ("0", str(CALL_BYTES)), answerer
        sts, st0 = _all_stats(name), _all_stats(name + "-start")
        assert len(sts) == N
        for dev, st in sts.items():
            # usr_* count since the load: the calls' stretch
            for k in ("usr_missed", "usr_stalls", "usr_bad", "usr_upcalls"):
                st[k] -= st0[dev][k]
            assert st["context"] == "usr" and st["usr_attached"] == 1, (mode, dev, st)
            assert st["engine_connects"] == 1, (mode, dev, st)
            assert st["engine_rate"] == 2400 and st["engine_link"] == "v42", (mode, dev, st)
            assert st["overruns"] == 0 and st["usr_bad"] == 0, (mode, dev, st)
            assert st["usr_missed"] == 0 and st["usr_stalls"] == 0, (mode, dev, st)
            assert st["usr_upcalls"] > 0, (mode, dev, st)
        assert _text(name + "-daemon.rc").strip() == "0", mode
    assert _text("serve-rmmod.rc").strip() == "0"
    bad = [x for x in _text("serve.dmesg").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_context_switches_per_mode():
    """The study's comparison: the single RM thread blocks at most once per
    period it serves (often less: it takes every ready modem after one
    wake-up), one thread per modem once per period each."""
    per_period = {}
    for mode in MODES:
        err, per, secs, vol, invol = _daemon(mode)
        assert sorted(per) == ["/dev/smodem%d" % i for i in range(N)], err
        periods = sum(p for p, _ in per.values())
        # every modem served about every period of the run
        for path, (p, longest) in per.items():
            assert p >= 0.9 * secs * RATE / PERIOD, (mode, path, p, secs)
        per_period[mode] = vol / periods
        print("%-8s %.1f s, %d periods, voluntary context switches %d (%.1f/s, "
              "%.3f per period), involuntary %d, longest handler %s us" % (
                  mode, secs, periods, vol, vol / secs, vol / periods, invol,
                  max(x for _, x in per.values())))
    assert per_period["rm"] <= 1.05 and per_period["threads"] <= 1.05, per_period
    assert per_period["rm"] <= per_period["threads"] + 0.02, per_period


def test_context_switches_under_load():
    """The same with load_us=1840 (the study's V.90 pump, in the kernel at
    DONE): while one modem's period runs the others' become ready, and the
    single thread takes them without blocking in between."""
    per_period = {}
    for mode in MODES:
        assert _text("load-%s.rc" % mode).strip() == "0", mode
        err, per, secs, vol, invol = _daemon(mode, "load-%s.err" % mode)
        assert [p for p, _ in per.values()] == [LOAD_PERIODS] * N, err
        periods = N * LOAD_PERIODS
        per_period[mode] = vol / periods
        print("load_us=%d %-8s %.1f s, %d periods, voluntary context switches %d "
              "(%.1f/s, %.3f per period), involuntary %d" % (
                  LOAD_US, mode, secs, periods, vol, vol / secs, vol / periods, invol))
    assert per_period["rm"] <= per_period["threads"] + 0.02, per_period


def test_admission():
    assert _text("admit-insmod.rc").strip() == "0"
    period_us = PERIOD * 1e6 / RATE
    for case, cost in (("default", LOAD_US + COST_MARGIN_US), ("cost", LOAD_US)):
        err = _text("admit-%s.err" % case)
        want = first_refused(ADMIT_N, cost, period_us)
        assert want, (case, cost)
        k, u, bound = want
        assert _text("admit-%s.rc" % case).strip() == "3", (case, err)
        m = re.search(r"^smodemd: (\S+): refused by the admission test: modem (\d+): "
                      r"sum\(C/T\) ([\d.]+) \+ c_max\(1/T_1 - 1/T_n\) ([\d.]+) = ([\d.]+) > "
                      r"n\(2\^\(1/n\)-1\) ([\d.]+) \(n (\d+), C (\d+) us, T (\d+) us\)$",
                      err, re.M)
        assert m, (case, err)
        assert m.group(1) == "/dev/smodem%d" % (k - 1) and int(m.group(2)) == k, (case, err)
        assert abs(float(m.group(3)) - u) < 0.001 and float(m.group(4)) == 0, err
        assert abs(float(m.group(6)) - bound) < 0.001, err
        assert int(m.group(8)) == cost and int(m.group(9)) == round(period_us), err
        assert len(re.findall(r": admitted: ", err)) == k - 1, err
        print("%s: C %d us, T %.0f us: modem %d refused (%.3f > %.3f)" % (
            case, cost, period_us, k, u, bound))
    err = _text("admit-none.err")
    assert _text("admit-none.rc").strip() == "0", err
    assert "refused" not in err
    assert len(re.findall(r": 20 periods, ", err)) == ADMIT_N, err
    assert _text("admit-rmmod.rc").strip() == "0"
