"""tools/bench_modem.py and tools/demo.py: the pure-Python parts (payloads,
smline's events and the marks parsers, report and timeline generation, the
run on smlab.runner with stand-ins for the calls), no guest boot; smline's
events file once from smline itself (pipe transport).

Cost: no guest of its own in make check (2026-11-28): it reads another file's boot.
"""
import json
import socket
import subprocess
import zlib
from pathlib import Path

import bench_modem as bm
import demo

ROOT = Path(__file__).resolve().parents[2]


def test_payload_is_smlines():
    # smline's record of a call with send=random:4096:11 gave this CRC-32
    assert "%08x" % zlib.crc32(bm.payload(11, 4096)) == "e224c114"
    assert bm.payload(12, 10) == bm.payload(12, 4096)[:10]
    assert bm.payload(11, 64) != bm.payload(12, 64)


def test_route_words():
    assert bm.route(4096) == ("5551234=answer:v22bis,v42,send=random:4096:11,"
                              "expect=random:4096:12")


def test_parse_marks_first_wins():
    m = bm.parse_marks("clean dial 9.71\nclean connect 24.38\nbad line\nclean dial 99\n")
    assert m == {("clean", "dial"): 9.71, ("clean", "connect"): 24.38}


def _event(t, call, source, event, **fields):
    return json.dumps(dict(t=t, sample=round(t * 8000), call=call, source=source,
                           event=event, **fields))


def _frame(t, direction, length, control, ok=True, call=1):
    return _event(t, call, "far", "frame", dir=direction, len=length, fcs_ok=ok, address=3,
                  control=control, control2=control)


# smline --events of two calls, as tools/line/README.md describes them
SMLINE_EVENTS = "\n".join([
    _event(0.0, None, "exchange", "state", state="idle"),
    _event(2.52, 1, "exchange", "off-hook"),
    _event(7.14, 1, "far", "phase", phase="v42-link", detail=None),
    _frame(8.77, "rx", 25, 0xbf),
    _event(9.56, 1, "far", "phase", phase="data", detail="LAPM up", modulation="V.22bis",
           rate=2400, v42=True),
    _frame(10.66, "rx", 131, 0x00),
    _frame(10.70, "tx", 131, 0x00),
    _frame(10.90, "tx", 100, 0x02),
    # sent again (go-back): not new
    _frame(11.00, "tx", 131, 0x00),
    _frame(11.11, "rx", 131, 0x02, ok=False),
    _frame(11.56, "rx", 131, 0x02),
    _frame(11.60, "rx", 131, 0x02),
    _frame(11.70, "rx", 3, 0x01),
    _event(11.80, 1, "exchange", "service-done"),
    _frame(12.02, "rx", 131, 0x04),
    _frame(20.00, "rx", 6, 0x06),
    _event(25.0, 1, "exchange", "call-end", result="connected", end="local-hangup"),
    "",
    _event(30.0, 2, "exchange", "incoming", **{"from": "5550001"}),
    _event(31.0, 2, "exchange", "answered", by="modem", rings=1),
    # before call 2's data phase: does not count
    _frame(34.0, "rx", 131, 0x00, call=2),
    _event(35.0, 2, "far", "phase", phase="data", detail="LAPM up", modulation="V.22bis",
           rate=2400, v42=True),
]) + "\n"


def test_far_receive_times():
    calls = bm.far_receive_times(SMLINE_EVENTS, 384)
    assert len(calls) == 2
    c = calls[0]
    # three new I frames of 128 bytes (the repeat of N(S)=1, the S frame and
    # the frame sent do not count, the bad one is not received); the +++
    # frame comes after
    assert c["data_t"] == 9.56 and c["done_t"] == 12.02
    assert c["iframes"] == 4 and c["info_bytes"] == 387 and c["last_iframe_t"] == 20.0
    # the stream from its first new I frame (step f): what came after it, up to the file's end
    assert (c["first_info"], c["done_info"]) == (128, 384), c
    # the far modem's own new I frames, what the stream to the modem is shared by
    assert (c["tx_first_info"], c["tx_info"]) == (128, 225), c
    assert calls[1] == {"data_t": 35.0, "done_t": None, "last_iframe_t": None,
                        "iframes": 0, "info_bytes": 0, "first_iframe_t": None, "first_info": 0,
                        "done_info": None, "tx_first_info": None, "tx_info": 0}


def test_far_receive_times_v42bis_escape():
    """With a per-call count (V.42bis's estimate of the file's share of the line), the frame
    that reaches it after the escape's guard time (the "+++" alone) does not end the file:
    the frame before it did."""
    ev = ['{"t": 1.0, "sample": 8000, "call": 1, "source": "exchange", "event": "off-hook"}',
          '{"t": 2.0, "sample": 16000, "call": 1, "source": "far", "event": "phase", "phase": "data"}']
    for k, (t, n) in enumerate([(3.0, 128), (3.5, 100), (5.0, 6)]):
        ev.append('{"t": %s, "sample": 0, "call": 1, "source": "far", "event": "frame", "dir": "rx", '
                  '"len": %d, "fcs_ok": true, "address": 3, "control": %d, "control2": 0}'
                  % (t, n + 3, k << 1))
    text = "\n".join(ev)
    assert bm.far_receive_times(text, 4096, [232])[0]["done_t"] == 3.5
    assert bm.far_receive_times(text, 4096, [228])[0]["done_t"] == 3.5
    # a plain count is exact: the last frame it needs is the file's
    assert bm.far_receive_times(text, 232)[0]["done_t"] == 5.0


def test_far_receive_times_from_smline(tmp_path):
    """The reader against smline itself: one call on the pipe transport with
    the test modem (build/line, make line), 1000 bytes from the modem over V.42."""
    build = ROOT / "build" / "line"
    r = subprocess.run(["make", "-s", "-f", "tools/line/line.mk", "line"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    events, calls = tmp_path / "events.jsonl", tmp_path / "calls.jsonl"
    a, b = socket.socketpair()
    line = subprocess.Popen([str(build / "smline"), "--transport", "pipe:fd=%d" % a.fileno(),
                             "--calls", "1", "--route", bm.route(1000), "--json", str(calls),
                             "--events", str(events)],
                            pass_fds=[a.fileno()], stderr=subprocess.DEVNULL)
    modem = subprocess.Popen([str(build / "testmodem"), "--fd", str(b.fileno()), "--dial",
                              bm.NUMBER, "--mod", "v22bis,v42",
                              "--send", "random:1000:%d" % bm.SEED_MODEM,
                              "--expect", "random:1000:%d" % bm.SEED_LINE],
                             pass_fds=[b.fileno()], stdout=subprocess.DEVNULL)
    a.close()
    b.close()
    try:
        assert modem.wait(60) == 0 and line.wait(60) == 0
    finally:
        for p in (modem, line):
            if p.poll() is None:
                p.kill()
                p.wait()
    rec = json.loads(calls.read_text())
    # V.42bis (both ends smline's modem): random bytes, transparent mode's escapes on top
    n = bm.line_bytes(rec, 1000)
    assert rec["v42bis"]["rx"] is True and 1000 <= n <= 1006, rec
    far, = bm.far_receive_times(events.read_text(), 1000, [n])
    assert rec["result"] == "connected" and rec["expect_ok"] is True
    # the data phase the record counts from; the 1000 bytes' encoding in I frames of 128
    assert far["data_t"] * 8000 == rec["data_sample"]
    assert far["info_bytes"] == n and far["iframes"] == 8
    assert far["data_t"] < far["done_t"] == far["last_iframe_t"] < rec["end_sample"] / 8000


def _call(tag="clean", clock="virtual", ok=True, **kw):
    c = {"tag": tag, "clock": clock, "nbytes": 4096, "data_ok": ok, "expect_ok": ok,
         "connected": True, "dte_result": "ok", "setup_s": 14.03, "transfer_s": 15.2,
         "from_modem_Bps": 270.4, "to_modem_Bps": 281.9, "retransmissions": 0,
         "overruns": 0, "stats": {"pending_max": 84}, "call_line_s": 34.45,
         "call_wall_s": 9.75, "wall_per_line_s": 0.283,
         "record": {"result": "connected", "v42": True, "duration_s": 34.46,
                    "setup_s": 14.03, "transfer_s": 15.2, "errors": {}},
         "boot": {"wall_s": 20.0}}
    c.update(kw)
    return c


def test_report_tables():
    b2b = {"to_answer_Bps": 280.4, "to_caller_Bps": 282.1, "answer_data_s": 5.89,
           "caller_data_s": 5.95, "answer_done_s": 20.5, "caller_done_s": 20.47}
    calls = {("virtual", "clean"): _call(idle={"line_s": 20.0, "wall_s": 3.3,
                                               "wall_per_line_s": 0.166}),
             ("virtual", "int"): _call("int"),
             ("virtual", "res"): _call("res", ok=False, data_ok=False),
             ("real", "clean"): _call("clean", "real", ok=False,
                                      record={"result": "connected", "v42": False,
                                              "errors": {"retrains": 3}},
                                      dte_rx_bytes=4000, dte_rx_differing=12, jack_xruns=7)}
    meta = {"date": "today", "kernel": "k", "clock": "virtual", "icount_shift": 0,
            "nbytes": 4096, "load_us": 1840, "smodem_args": bm.SMODEM_ARGS, "raw": "r",
            "notes": ["n1"], "wall_s": 300}
    rep = bm.build_report(meta, b2b, calls, "virtual", ["int", "dpc", "res"])
    assert rep["ratio"] == {"from_modem_pct": 96.4, "to_modem_pct": 99.9, "goal_pct": 95}
    assert rep["b2b"]["both_done_s"] == 14.61
    assert [c["tag"] for c in rep["contexts"]] == ["int", "res"]
    assert [c["clock"] for c in rep["speed"]["calls"]] == ["virtual", "real"]
    md = bm.markdown(rep)
    assert "| ratio (goal >= 95 %) | 96.4 % | 99.9 % | |" in md
    assert "| int | 14.03 | 15.20 | 270.4 | 281.9 | 0 | 0 | 84 | ok | 0.28 |" in md
    assert "| res | 14.03 |" in md and "FAILED: line: connected, V.42 up, modem got no data" in md
    assert "| idle line, module on hook (virtual clock) | 20.00 | 3.30 | 0.166 |" in md
    assert "FAILED: line: connected, V.42 not established, retrains 3, modem got 4000 of " \
           "4096 bytes, 12 differing, 7 JACK xruns" in md
    assert "Note: n1" in md
    json.dumps(rep)


def test_report_v42bis():
    """Step e: the text call's throughput against the line rate and both
    encoders' ratios, beside the reference call's on random bytes; the
    plan gives the text call its own piece, which says text."""
    st = {"engine_v42bis_dirs": 3, "engine_v42bis_p1": 2048, "engine_v42bis_p2": 32,
          "engine_v42bis_tx_in": 16384, "engine_v42bis_tx_out": 8192,
          "engine_v42bis_errors": 0}
    rec = {"v42bis": {"tx": True, "rx": True, "tx_in": 16384, "tx_out": 8000,
                      "rx_in": 8192, "rx_out": 16384}}
    v = bm.v42bis_figures(st, rec)
    assert (v["dirs"], v["ratio_modem"], v["ratio_far"]) == (3, 2.0, 2.048)
    assert bm.line_bytes(rec, 16384) == 8192 and bm.line_bytes({}, 16384) == 16384
    assert bm.line_bytes({"v42bis": {"rx": False}}, 100) == 100
    # the "+++" after the file: its share of the line is not the file's
    assert bm.line_bytes({"v42bis": {"rx": True, "rx_in": 4113, "rx_out": 4099}}, 4096) == 4110
    text = _call("v42bis", nbytes=16384, from_modem_Bps=540.0, to_modem_Bps=600.0, v42bis=v)
    clean = _call(v42bis={"p1": 2048, "p2": 32, "ratio_modem": 0.996, "ratio_far": 0.995})
    meta = {"date": "today", "kernel": "k", "clock": "virtual", "icount_shift": 0,
            "nbytes": 4096, "load_us": 1840, "smodem_args": bm.SMODEM_ARGS, "raw": "r",
            "notes": [], "wall_s": 300}
    rep = bm.build_report(meta, {}, {("virtual", "clean"): clean, ("virtual", "v42bis"): text},
                          "virtual", [])
    md = bm.markdown(rep)
    assert "| text, 16384 bytes each way | 540.0 | 600.0 | 180 % / 200 % | 2.000 | 2.048 | " \
           "2048, 32 | ok |" in md, md
    assert "| random, 4096 bytes each way (the reference call) | 270.4 | 281.9 | 90 % / 94 % | " \
           "0.996 | 0.995 | 2048, 32 | ok |" in md, md
    assert bm.text_payload(100, 0) + bm.text_payload(100, 1) == bm.text_payload(200, 0)
    a = type("A", (), dict(clock="virtual", idle_s=0, contexts=[], other_clock=0, kernel="k",
                           nbytes=4096, icount_shift=0, load_us=1840, smline="s",
                           text_bytes=16384))
    p = bm.plan(a, "ko", "raw")[-1]
    assert (p.key, p.get("tag"), p.get("nbytes"), p.get("text")) == \
        ("virtual-v42bis", "v42bis", 16384, True)


def test_report_pumps():
    """Step f: V.32bis's call against the line rate (1800 B/s) and against b2b's two V.32bis
    far modems, the text through V.42bis; the plan's pieces say v32bis, the guest's +MS
    follows the route's modulation.  Step g: V.34's against the rate its call connected at."""
    fb = {"to_answer_Bps": 1675.3, "to_caller_Bps": 1682.1, "answer_data_s": 7.34,
          "caller_data_s": 7.36, "answer_done_s": 17.12, "caller_done_s": 17.1, "rate": 14400,
          "bytes": 4096, "answer_got": 4096, "caller_got": 4096, "answer_bad": 0,
          "caller_bad": 0}
    v32 = _call("v32bis", from_modem_Bps=1300.0, from_modem_stream_Bps=1600.0, to_modem_Bps=1650.0,
                stats={"engine_echo_latency": 3536, "engine_echo_erle_db": 40,
                       "engine_v32_rtd": 3293})
    text = _call("v32bis-text", nbytes=16384, from_modem_Bps=3000.0, from_modem_stream_Bps=3200.0,
                 to_modem_Bps=3400.0,
                 v42bis={"ratio_modem": 2.1, "ratio_far": 2.2})
    meta = {"date": "today", "kernel": "k", "clock": "virtual", "icount_shift": 0,
            "nbytes": 4096, "load_us": 1840, "smodem_args": bm.SMODEM_ARGS, "raw": "r",
            "notes": [], "wall_s": 300}
    rep = bm.build_report(meta, {}, {("virtual", "v32bis"): v32, ("virtual", "v32bis-text"): text},
                          "virtual", [], fb)
    assert rep["v32bis"]["ratio"] == {"from_modem_pct": 95.5, "to_modem_pct": 98.1,
                                      "goal_pct": 95}
    assert rep["v32bis"]["b2b"]["both_done_s"] == 9.78
    md = bm.markdown(rep)
    # a record without stream figures: the older ones in their place
    assert "| our far modem <-> our far modem (b2b --mod v32bis, no guest, round trip 20 ms) | " \
           "1675.3 (1675.3) | 1682.1 (1682.1) | 93.1 % / 93.5 % | 9.78 | ok |" in md, md
    assert "| smodem (thr, no load) <-> smline, virtual clock | 1600.0 (1300.0) | " \
           "1650.0 (1650.0) | 88.9 % / 91.7 % | 15.20 | ok |" in md, md
    assert "| ratio to b2b (goal >= 95 %) | 95.5 % | 98.1 % | | | |" in md, md
    assert "(ratios 2.100 / 2.200) | 3200.0 (3000.0) | 3400.0 (3400.0) | 178 % / 189 % |" in md, md
    assert "echo canceller ran at 3536 samples (ERLE 40 dB, round trip 3293 samples; output " \
           "lead - samples)" in md, md
    # no step f: no section
    assert "## f." not in bm.markdown(bm.build_report(meta, {}, {}, "virtual", []))
    a = type("A", (), dict(clock="virtual", idle_s=0, contexts=[], other_clock=0, kernel="k",
                           nbytes=4096, icount_shift=0, load_us=1840, smline="s",
                           text_bytes=16384, v32bis=1))
    ps = bm.plan(a, "ko", "raw")[-3:]
    assert [(p.key, p.get("mod"), p.get("text")) for p in ps] == [
        ("b2b-v32bis", "v32bis", None), ("virtual-v32bis", "v32bis", None),
        ("virtual-v32bis-text", "v32bis", True)]
    assert bm.route(10, mod="v32bis").startswith("5551234=answer:v32bis,v42,")
    assert bm.guest_env(["s"], 10, mod="v32bis")["AT_SETUP"] == "AT\\N3+MS=V32B"
    # V.22bis named: the factory's +MS is V.34
    assert bm.guest_env(["s"], 10)["AT_SETUP"] == "AT\\N3+MS=V22B"


    # step g: V.34, measured against the rate the call connected at (28800 here), streams
    # against streams, and against b2b once more over the call's round trip
    gb = dict(fb, rate=31200, to_answer_Bps=3500.0, to_caller_Bps=3400.0,
              to_answer_stream_Bps=3520.0, to_caller_stream_Bps=3500.0,
              v34={"rtd_ms_caller": 20.0})
    gp = dict(gb, delay_ms=214.0, to_answer_stream_Bps=3200.0, to_caller_stream_Bps=3000.0)
    v34 = _call("v34", from_modem_Bps=3000.0, from_modem_stream_Bps=3360.0, to_modem_Bps=3240.0,
                to_modem_stream_Bps=3150.0, stats={"engine_rate": 28800, "engine_v34_rtd": 3584})
    assert bm.call_rtd_ms(v34, "v34") == 448.0 and bm.call_rtd_ms(v34, "v32bis") is None
    rep = bm.build_report(meta, {}, {("virtual", "v34"): v34}, "virtual", [],
                          b2b_pumps={"v34": gb}, b2b_path={"v34": gp})
    assert (rep["v34"]["rate"], rep["v34"]["line_Bps"]) == (28800, 3600.0), rep["v34"]
    assert rep["v34"]["ratio"] == {"from_modem_pct": 95.5, "to_modem_pct": 90.0, "goal_pct": 95}
    assert rep["v34"]["path_ratio"] == {"from_modem_pct": 105.0, "to_modem_pct": 105.0,
                                        "goal_pct": 95}
    md = bm.markdown(rep)
    assert "## g. V.34 at 28800 (AT+MS=V34, smline's V.34 far modem: ours)" in md, md
    assert "| our far modem <-> our far modem (b2b --mod v34, no guest, 31200 bit/s, round trip " \
           "20 ms) | 3520.0 (3500.0) | 3500.0 (3400.0) | 97.8 % / 97.2 % |" in md, md
    assert "| the same over the call's round trip (b2b --delay 214.0: 448 ms) | 3200.0 (3500.0) | " \
           "3000.0 (3400.0) | 88.9 % / 83.3 % |" in md, md
    assert "| smodem (thr, no load) <-> smline, virtual clock | 3360.0 (3000.0) | " \
           "3150.0 (3240.0) | 93.3 % / 87.5 % |" in md, md
    assert "| ratio to b2b | 95.5 % | 90.0 % | | | |" in md, md
    assert "| ratio to b2b over the same round trip (goal >= 95 %) | 105.0 % | 105.0 % |" in md, md
    assert "## f." not in md
    # the pumps' calls move as many seconds of line time as NBYTES at 2400 bit/s
    assert (bm.pump_nbytes(4096, "v34"), bm.pump_nbytes(4096, "v32bis")) == (57344, 24576)
    assert bm.pump_nbytes(4096, "v34", 8192) == 8192
    a.v34, a.v32bis = 1, 0
    ps = bm.plan(a, "ko", "raw")[-3:]
    assert [(p.key, p.get("mod"), p.get("text")) for p in ps] == [
        ("b2b-v34", "v34", None), ("virtual-v34", "v34", None), ("virtual-v34-text", "v34", True)]
    assert bm.guest_env(["s"], 10, mod="v34")["AT_SETUP"] == "AT\\N3+MS=V34"


def test_failure_without_record():
    assert bm.failure(None) == "no call"
    assert bm.failure({"dte_result": "fail NO CARRIER"}) == \
        "no call record (DTE: fail NO CARRIER)"
    assert bm.failure({"boot": {"timed_out": True}}) == \
        "guest timed out, no call record (DTE: no result)"


def test_demo_timeline_and_report(tmp_path):
    call = _call("demo", phases=[
        {"phase": "on-hook", "arg": 0, "t_s": 0.0},
        {"phase": "off-hook", "arg": 0, "t_s": 1.0},
        {"phase": "dialing", "arg": 0, "t_s": 2.5},
        {"phase": "connected", "arg": 2400, "t_s": 13.0},
        {"phase": "hung-up", "arg": 0, "t_s": 40.0}])
    call["record"].update(start_sample=8000, events=[
        {"t": 8000, "event": "call 1: off-hook"},
        {"t": 8000 + 4 * 8000, "event": "far end answers"}])
    rows = demo.timeline(call)
    assert rows[0] == (-1.0, "modem (trace)", "on-hook")
    assert (0.0, "line (smline)", "call 1: off-hook") in rows
    assert (4.0, "line (smline)", "far end answers") in rows
    assert (12.0, "modem (trace)", "connected 2400 bit/s") in rows
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    demo.report(tmp_path, "virtual", call=call)
    md = (tmp_path / "report.md").read_text()
    assert "| 12.000 | modem (trace) | connected 2400 bit/s |" in md
    assert "data intact both ways" in md
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["call"]["tag"] == "demo" and len(data["timeline"]) == len(rows)
    demo.report(tmp_path, "real", call_error="smline missing")
    assert "The call could not run: smline missing" in (tmp_path / "report.md").read_text()


def test_main_on_the_runner(tmp_path, monkeypatch):
    """make bench-modem on smlab.runner with stand-ins for the calls and the
    reference: a call whose harness failed is tried again once, then a
    note and exit status 1, never recorded; the next run makes only that
    call, the one after none (the same report); another LOAD_US makes the
    contexts' calls again, not the clean ones."""
    import smlab.guest
    for var in ("KERNEL", "CLOCK", "ICOUNT_SHIFT", "NBYTES", "TEXT_BYTES", "CONTEXTS", "LOAD_US",
                "IDLE_S", "V32BIS", "V34",
                "OTHER_CLOCK", "JOBS", "SCHEDULER", "BENCH_OUT", "MODULE", "SMLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(smlab.guest, "available_kernels", lambda: ["kA"])
    monkeypatch.setattr(smlab.guest, "default_kernel", lambda: "kA")
    for f in ("smodem.ko", "smline", "b2b"):
        (tmp_path / f).write_bytes(f.encode())
    monkeypatch.setattr(bm, "B2B", tmp_path / "b2b")
    made, fail = [], set()

    def one_call(clock, tag, ctx, load_us, spin, idle_s, raw, nbytes, kver, ko, smline, shift):
        made.append("%s-%s" % (clock, tag))
        if made[-1] in fail:
            return {"tag": tag, "clock": clock, "error": "smline missing"}
        return _call(tag, clock, context=ctx, load_us=load_us, spin=spin)

    def run_b2b(nbytes, b2b):
        made.append("b2b")
        return {"to_answer_Bps": 280.4, "to_caller_Bps": 282.1, "answer_data_s": 5.89,
                "caller_data_s": 5.95, "answer_done_s": 20.5, "caller_done_s": 20.47, "rc": 0}
    monkeypatch.setattr(bm, "one_call", one_call)
    monkeypatch.setattr(bm, "run_b2b", run_b2b)
    out = tmp_path / "out"
    # step e (V.42bis, text) is test_report_v42bis's, steps f and g (V.32bis, V.34) test_report_pumps's
    args = ["--contexts", "int res", "--text-bytes", "0", "--v32bis", "0", "--v34", "0", "--jobs", "2",
            "--out", str(out),
            "--module",
            str(tmp_path / "smodem.ko"), "--smline", str(tmp_path / "smline")]

    def report():
        rep = json.loads((out / "bench-modem.json").read_text())
        for k in ("date", "wall_s"):
            rep.pop(k)
        # the table's header line holds the date (to the minute) and the wall time too
        md = (out / "bench-modem.md").read_text().splitlines()
        return rep, "\n".join(x for x in md if not x.endswith(" s wall."))

    fail.add("virtual-res")
    assert bm.main(args) == 1
    assert sorted(made) == ["b2b", "real-clean", "virtual-clean", "virtual-int", "virtual-res",
                            "virtual-res"]
    rec = [json.loads(x)["key"] for x in (out / "bench-modem" / "record.jsonl").read_text().splitlines()]
    assert sorted(rec) == ["b2b", "real-clean", "virtual-clean", "virtual-int"]
    rep, md = report()
    assert [c["tag"] for c in rep["contexts"]] == ["int"]
    assert "Note: virtual-res missing: error: smline missing (run again to retry it)" in md

    fail.clear()
    del made[:]
    assert bm.main(args) == 0
    assert made == ["virtual-res"]
    rep, md = report()
    assert [c["tag"] for c in rep["contexts"]] == ["int", "res"] and rep["notes"] == []
    assert [(c["clock"], c["tag"]) for c in rep["all_calls"]] == [
        ("virtual", "clean"), ("virtual", "int"), ("virtual", "res"), ("real", "clean")]
    assert rep["ratio"] == {"from_modem_pct": 96.4, "to_modem_pct": 99.9, "goal_pct": 95}

    del made[:]
    assert bm.main(args) == 0
    assert made == [] and report() == (rep, md)

    assert bm.main(args + ["--load-us", "1000"]) == 0
    assert sorted(made) == ["virtual-int", "virtual-res"]


def test_timekeeping_samples():
    # modem_calls.sh's sample_stats: a sample still training, one in data
    # mode 9 s after its present rates began (33,600 out, 31,200 in), one
    # whose receiver has no data yet (rx_at 0)
    text = "\n".join([
        "T 5.0", "engine_v34_state training", "engine_tx_rate 0",
        "T 20.0", "engine_v34_state data",
        "engine_v34_clock 88000 8000 8100 16000",
        "engine_v34_bits 312500 290000 10000 9000",
        "engine_tx_rate 33600", "engine_rx_rate 31200", "engine_v34_mse_db10 465",
        "tx_lead 2048",
        "T 21.0", "engine_v34_state data",
        "engine_v34_clock 96000 8000 0 16000",
        "engine_v34_bits 1 1 1 1", "engine_tx_rate 33600", "engine_rx_rate 31200",
    ])
    rows = bm.timekeeping(text)
    assert len(rows) == 1, rows
    r = rows[0]
    # 72,000 samples of present rates: 302,400 bits out, 280,800 in
    assert (r["up_s"], r["data_s"], r["tx_bits_off"], r["rx_bits_off"]) == (20.0, 10.0, 100, 200)
    assert (r["tx_rate"], r["rx_rate"], r["mse_db10"], r["tx_lead"], r["renegs"]) == \
        (33600, 31200, 465, 2048, None)
