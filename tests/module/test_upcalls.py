"""make upcalls' quick variant ("The experiments" 2): the upcall
study's experiments with modems, one boot of the 6.1 generic kernel with no
background load, 1 to 4 modems (load_us=1840: up to 59 % of the CPU, below
every bound), each served by smodemd's single rate-monotonic thread and by
one thread per modem, the pairs calling each other (tools/upcalls.py,
tests/module/guest/upcalls_checks.sh).  Below the admission test's bound every
period must be taken and every call must move its bytes, in both modes; the
single thread must block less often per period than one thread per modem.
With four modems the last one served finishes 7.2 ms after its interrupt,
later than half a period: its output must still be placed in time (the lead
grows with the delay, driver/smodem_ring.h; with the old lead of a period
and a half every output of the second pair lost its first frames, tx_late,
and its call failed).

Cost: 1 guest, 1.5 min of wall time (1.4 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import json
import sys
from pathlib import Path

import pytest

import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "upcalls"
sys.path.insert(0, str(TOP / "tools"))
import upcalls  # noqa: E402

NS = [1, 2, 3, 4]
NBYTES = 256


def res():
    def boot():
        rc = upcalls.main(["--loads", "none", "--ns", " ".join(map(str, NS)), "--nbytes", str(NBYTES),
                           "--out", str(OUT), "--force"])
        assert rc == 0
        return json.loads((OUT / "upcalls.json").read_text())
    return guestboot.once(("upcalls", guestboot.generic_kernel()), boot)


def _cells():
    return {(c["n"], c["mode"]): c for c in res()["cells"]}


def test_admission_formula():
    """n(2^(1/n) - 1) modem after modem, equal periods of 12.5 ms."""
    assert upcalls.admitted(8, 1840)[0] == 5      # 6 x 0.1472 = 0.883 > 0.735
    assert upcalls.admitted(8, 1940)[0] == 4      # 5 x 0.1552 = 0.776 > 0.743
    assert upcalls.admitted(8, 12500)[0] == 1     # one modem may take it all
    assert upcalls.admitted(8, 0)[0] == 8
    n, steps = upcalls.admitted(3, 1840)
    assert n == 3 and [round(b, 3) for _, _, b in steps] == [1.0, 0.828, 0.780]


def test_bad_arguments_refused():
    for argv in (["--ns", "0 2"], ["--ns", "9"], ["--loads", "disk"], ["--modes", "edf"]):
        with pytest.raises(SystemExit) as e:
            upcalls.main(argv + ["--out", str(OUT / "bad")])
        assert e.value.code == 2, argv


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("mode", upcalls.MODES)
def test_below_the_bound_every_period_and_call(n, mode):
    c = _cells()[(n, mode)]
    assert c["insmod_ok"] and c["attached"] and c["daemon_rc"] == "0", c
    assert c["devices_seen"] == n and not c["bad_dmesg"], c
    assert c["missed"] == 0 and c["overruns"] == 0 and c["tx_late"] == 0, c
    assert c["calls_ok"] == c["pairs"] == n // 2, c
    assert c["held"], c
    # every modem's every period: the longest response well inside the period
    assert 0 < c["resp_max_us"] < upcalls.T_US, c
    assert c["work_us"] >= 1840, c
    assert 0 < c["useful"] <= 1, c
    # served about every period of its life
    assert c["periods"] >= 0.9 * n * c["secs"] * 1e6 / upcalls.T_US, c


@pytest.mark.parametrize("n", [2, 3, 4])
def test_single_thread_blocks_less(n):
    rm, th = _cells()[(n, "rm")], _cells()[(n, "threads")]
    # one thread per modem blocks once per period each; the single thread
    # takes every ready modem after one wake-up
    assert th["ctx_per_period"] >= 0.95, th
    assert rm["ctx_per_period"] <= th["ctx_per_period"] - 0.2, (rm, th)


def test_report_written():
    r = res()
    lim = {(s["load"], s["mode"]): s for s in r["limits"]}
    for mode in upcalls.MODES:
        assert lim[("none", mode)]["largest_held"] == max(NS), lim
    assert r["cost_measured_us"] >= 1840
    md = (OUT / "upcalls.md").read_text()
    assert "| none | 4 | rm |" in md and "admission test" in md
    assert (OUT / "upcalls.png").stat().st_size > 10000
