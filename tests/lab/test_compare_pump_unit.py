"""make compare LOAD=pump without a guest: the per-phase cost from the
trace's events, the calls' records, the runs planned, the scripts (the
emulated run's byte for byte as LOAD=emulated's), smline's arguments and
the report's tables.  tests/lab/test_compare_pump.py boots the guest."""

import json

import pytest

from smlab import cli
from smlab import compare as cmp
from smlab.image import default_kernel_name

KERNEL = default_kernel_name()
MS = 1_000_000


@pytest.fixture
def make_params(tmp_path, monkeypatch):
    """params() from options and variables, on any machine: the kernel and
    the programs it checks for stand in."""
    ko = tmp_path / "smodem.ko"
    ko.write_bytes(b"\0")
    line = tmp_path / "smline"
    line.write_bytes(b"\0")
    monkeypatch.setattr(cmp, "available_kernels", lambda: [KERNEL])
    monkeypatch.setattr(cmp, "SMLINE", line)

    def make(argv=(), env=None):
        ap = cli.parser("")
        cmp.add_arguments(ap, env=env or {})
        a = ap.parse_args(["--kernel", KERNEL, "--module", str(ko), "--rtla", "off",
                           "--out", str(tmp_path / "out")] + list(argv))
        return cmp.params(ap, a)
    return make


# -- the cost per phase ---------------------------------------------------------------
def test_phase_costs_by_phase():
    # periods every 12.5 ms; the engine goes off hook at 30 ms, trains at
    # 60 ms (a run ending exactly then counts in the new phase), data at 100 ms
    proc = [(t * MS // 2, el * 1000) for t, el in (
        (25, 8), (50, 9), (75, 15), (100, 16), (125, 40), (150, 90), (175, 42),
        (200, 50), (225, 52), (250, 51), (275, 54))]
    ph = [(30 * MS, "off-hook"), (62_500_000, "training"), (100 * MS, "connected")]
    c = cmp.phase_costs(proc, ph, start_ns=0, period_ns=12_500_000)
    assert list(c) == ["on-hook", "off-hook", "training", "connected"]
    assert c["on-hook"]["periods"] == 2 and c["on-hook"]["max_us"] == 9.0
    assert c["off-hook"]["periods"] == 2 and c["off-hook"]["min_us"] == 15.0
    tr = c["training"]
    assert (tr["periods"], tr["min_us"], tr["max_us"], tr["p50_us"]) == (3, 40.0, 90.0, 42.0)
    assert tr["avg_us"] == pytest.approx(57.3, abs=0.05)
    assert tr["first_s"] == pytest.approx(0.0625, abs=1e-3)
    d = c["connected"]
    assert (d["periods"], d["p50_us"], d["p99_us"], d["max_us"]) == (4, 51.0, 54.0, 54.0)
    assert d["share_pct"] == pytest.approx(100 * 51.75 / 12500, abs=0.01)
    assert d["time_s"] == 0.05
    # the histogram in PHASE_BIN_US bins, left edges
    assert tr["hist_us"] == {"40": 2, "90": 1}
    assert sum(d["hist_us"].values()) == 4
    # the training spike against the data phase's median
    assert cmp.spike(c, "training") == (39.0, pytest.approx(90 / 51, abs=0.01))
    assert cmp.spike({"training": tr}, "training") is None
    assert cmp.phase_costs([], ph) == {}
    # two events at one instant: the later one in the trace's order holds
    c = cmp.phase_costs([(10, 5000), (20, 6000)], [(5, "on-hook"), (5, "hung-up")])
    assert list(c) == ["hung-up"] and c["hung-up"]["periods"] == 2


def test_phases_ordered_as_a_call():
    names = ["connected", "waiting", "x-new", "on-hook", "training", "retrain", "dialing", "probing",
             "v8"]
    assert cmp.ordered_phases(dict.fromkeys(names)) == [
        "on-hook", "dialing", "waiting", "v8", "probing", "training", "connected", "retrain", "x-new"]


# -- the calls' records ------------------------------------------------------------------
def test_pump_calls(tmp_path):
    d = tmp_path / "calls"
    d.mkdir()
    (d / "marks.txt").write_text(
        "window start 10.00\ncall1 dial 12.00\ncall1 connect 26.00\ncall1 rxdone 28.00\n"
        "call1 hungup 33.00\ncall2 dial 35.00\ncall2 connect 49.00\ncall2 hungup 56.00\n"
        "window end 40.00\ncall10 dial 60\ncall10 failed 70\nbad line\n")
    (d / "call1.txt").write_text("> ATD\n< CONNECT 2400\nCONNECTED CONNECT 2400\n"
                                 "DATA ok n=512\nRESULT ok\n")
    (d / "call2.txt").write_text("CONNECTED CONNECT 2400\nDATA bad n=512 got=100\nRESULT ok\n")
    (d / "call10.txt").write_text("RESULT fail NO ANSWER\n")
    rec = {"result": "connected", "modulation": "V.22bis", "rate": 2400, "v42": True,
           "expect_ok": True, "setup_s": 13.4, "transfer_s": 2.4, "errors": {"retrains": 0}}
    (tmp_path / "smline-calls.jsonl").write_text(
        json.dumps(rec) + "\n" + json.dumps(dict(rec, expect_ok=False)) + "\n")
    c = cmp.pump_calls(tmp_path)
    assert [x["tag"] for x in c] == ["call1", "call2", "call10"]
    assert c[0]["connect"] == "CONNECT 2400" and c[0]["data_ok"] and c[0]["expect_ok"]
    assert c[0]["dial_to_connect_s"] == 14.0 and c[0]["in_window"] is True
    assert c[0]["modulation"] == "V.22bis" and c[0]["retrains"] == 0
    assert not c[1]["data_ok"] and c[1]["expect_ok"] is False and c[1]["in_window"] is False
    assert c[2]["connect"] is None and not c[2]["dte_ok"] and c[2]["line_result"] is None
    assert cmp.pump_calls(tmp_path / "none") == []


# -- the runs and their scripts ----------------------------------------------------------
def test_plan_emulated_as_before(make_params):
    p = make_params(["--contexts", "int thr"])
    assert [(k, c, r["load"]) for k, c, r in cmp.plan_runs(p)] == [
        ("control", "control", "emulated"), ("int", "int", "emulated"),
        ("thr", "thr", "emulated")]
    assert not any(k.startswith("pump_") for k in p)


def test_plan_pump(make_params):
    p = make_params(["--contexts", "int thr", "--pump-duration", "25"], env={"LOAD": "pump"})
    runs = cmp.plan_runs(p, no_control=True)
    assert [(k, c, r["load"], r["duration_s"], r["icount_shift"]) for k, c, r in runs] == [
        ("int", "int", "emulated", 10, 0), ("int+pump", "int", "pump", 25, 0),
        ("thr", "thr", "emulated", 10, 0), ("thr+pump", "thr", "pump", 25, 0),
        ("int+pump@shift1", "int", "pump", 25, 1)]
    assert [cmp._dirname(k) for k, _, _ in runs][-1] == "int-pump-shift1"
    p = make_params(["--contexts", "dpc", "--slow-shift", "none", "--no-emulated"],
                    env={"LOAD": "pump", "SLOW_CONTEXT": "thr"})
    assert [k for k, _, _ in cmp.plan_runs(p, True)] == ["dpc+pump"]
    p = make_params(["--contexts", "dpc", "--slow-shift", "2", "--slow-context", "res"],
                    env={"LOAD": "pump"})
    assert cmp.plan_runs(p, True)[-1][:2] == ("res+pump@shift2", "res")


def test_emulated_run_unchanged_by_load_pump(make_params):
    """The emulated row of LOAD=pump is LOAD=emulated's run: the same
    script and the same parameters, hence on the virtual clock the same
    figures."""
    emu = make_params(["--contexts", "int usr"])
    pump = make_params(["--contexts", "int usr"], env={"LOAD": "pump", "PUMP_BYTES": "99"})
    a = {k: r for k, _, r in cmp.plan_runs(emu)}
    b = {k: r for k, _, r in cmp.plan_runs(pump)}
    for k in ("control", "int", "usr"):
        assert a[k] == b[k]
        ctx = k
        assert cmp.guest_script(ctx, a[k]) == cmp.guest_script(ctx, b[k])
    s = cmp.guest_script("int", a["int"])
    assert "load_us=1840" in s and "compare_calls" not in s and "engine=" not in s


def test_pump_script(make_params):
    p = make_params(["--contexts", "thr", "--ring-samples", "4096"],
                    env={"LOAD": "pump", "LOAD_US": "1840"})
    r = dict((k, x) for k, _, x in cmp.plan_runs(p, True))["thr+pump"]
    s = cmp.guest_script("thr", r)
    assert "context=thr hw=ac97 load_us=0 engine=1 ring_samples=4096" in s
    loop, cyc = s.index("compare_calls.sh $M/calls"), s.index("\ncyclictest ")
    stop, off = s.index(": > $M/calls/stop"), s.index("echo 0 > $T/tracing_on")
    spin, tail = s.index("kill $SPIN"), s.index("$PUMP_TAIL_S")
    # the loop starts right before cyclictest and stops after the trace;
    # its call ends after the competitor, before the unload
    assert loop < cyc < off < stop < spin < tail < s.index("rmmod smodem")
    assert s.index("window start") < cyc and s.index("window end") > off
    assert "-D %d " % r["duration_s"] in s
    r = dict((k, x) for k, _, x in cmp.plan_runs(make_params(
        ["--contexts", "thr"], env={"LOAD": "pump"}), True))["thr+pump"]
    assert "ring_samples=%d" % cmp.PUMP_RING in cmp.guest_script("thr", r)
    # control never calls
    assert "compare_calls" not in cmp.guest_script("control", r)


def test_far_end_passed_through(make_params, tmp_path):
    p = make_params(["--contexts", "thr", "--pump-far", "v32bis,v22bis,v42,v42bis",
                     "--pump-bytes", "300"],
                    env={"LOAD": "pump", "PUMP_LINE": "--noise -50 --seed '3'"})
    r = cmp.pump_route(p)
    assert r == ("5551234=answer:v32bis,v22bis,v42,v42bis,send=random:300:11,"
                 "expect=random:300:12")
    args = cmp.pump_line_args(p, tmp_path)
    assert args[:2] == ["--route", r] and args[-4:] == ["--noise", "-50", "--seed", "3"]
    assert str(tmp_path / "smline-calls.jsonl") in args


def test_options_checked(make_params):
    with pytest.raises(SystemExit):
        make_params(env={"LOAD": "real"})
    with pytest.raises(SystemExit):
        make_params(["--load", "pump", "--clock", "real"])
    with pytest.raises(SystemExit):
        make_params(["--load", "pump", "--pump-line", "--noise '-50"])
    # smline's echo service would mix the modem's own bytes into what the DTE checks
    for far in ("v34,v42,echo", "v22bis,send=random:10:1", "v32bis,expect=file:/x"):
        with pytest.raises(SystemExit):
            make_params(["--load", "pump", "--pump-far", far])
    assert make_params(["--load", "pump", "--pump-far", "v34,v42,worsen=2,worsen_noise=-40"])[
        "pump_far"] == "v34,v42,worsen=2,worsen_noise=-40"
    with pytest.raises(SystemExit):
        make_params(["--slow-context", "int thr"])
    with pytest.raises(SystemExit):
        make_params(env={"SLOW_SHIFT": "11"})
    assert make_params(["--load", "pump"], env={"SLOW_SHIFT": "none"})["slow_shift"] is None
    assert make_params(["--load", "pump"])["slow_shift"] == 1


def test_pump_tail_covers_the_calls_waits():
    # the guest's bounded waits: dial 90 s, the data, the writer, the
    # engine's last bytes, escape and ATH
    assert cmp.pump_tail_s(1024, 2) > 90 + 1024 // 80 + 20 + 30
    assert cmp.pump_tail_s(4096, 2) > cmp.pump_tail_s(1024, 2)


# -- the report ------------------------------------------------------------------------------
def _entry(load, ctx, shift=0, costs=None, calls=None, proc=None):
    e = {"context": ctx, "load": load, "icount_shift": shift, "kernel": KERNEL,
         "clock": "virtual", "params": {"load_us": 1840},
         "cyclictest": {"max_us": 5, "max_gap_us": 1002},
         "trace": {"process_elapsed_ns": proc or {"n": 0}}}
    if load == "pump":
        e["pump"] = {"route": "R", "smline_options": "", "period_ns": 12_500_000,
                     "phases": costs, "calls": calls or []}
    return e


def test_pump_table():
    proc = [(i * 12_500_000, el * 1000) for i, el in enumerate([8, 8, 40, 90, 42, 50, 52, 51])]
    costs = cmp.phase_costs(proc, [(25_000_000, "training"), (62_500_000, "connected")],
                            0, 12_500_000)
    call = {"tag": "call1", "connect": "CONNECT 2400", "data_ok": True, "expect_ok": True,
            "in_window": True}
    s = {"int": _entry("emulated", "int", proc={"n": 3, "avg": 1852000, "max": 1870000}),
         "int+pump": _entry("pump", "int", costs=costs, calls=[call]),
         "int+pump@shift1": _entry("pump", "int", 1, costs=costs,
                                   calls=[dict(call, data_ok=False, in_window=False)])}
    t = cmp.pump_table(s)
    lines = t.splitlines()
    row = next(x for x in lines if x.lstrip().startswith("int+pump "))
    assert "1/1/1 (1)" in row and "CONNECT 2400" in row and "1852.0/1870.0" in row
    assert "training: 90.0 (+39.0, x1.76)" in row and "1840 (max 3300)" in row
    slow = next(x for x in lines if x.lstrip().startswith("int+pump@shift1 "))
    assert "0/1/1 (0)" in slow
    assert any("training" in x and "+39.0 (x1.76)" in x for x in lines)
    assert any("data (connected)" in x for x in lines)
    assert "not intact" in t
    assert cmp.pump_table({"int": s["int"]}) == "LOAD=pump: no pump run"
