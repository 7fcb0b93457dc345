#!/usr/bin/env python3
"""make bench-modem: benchmarks of the modem as a whole (numbers, not
pass/fail), in one run:

  a. payload throughput of a V.22bis + V.42 transfer, each way at once, in
     bytes per second of line time, against two SpanDSP modems back to back
     on the same line (build/line/b2b, run here for the reference);
  b. call set-up time: smline's record (off-hook to data), the guest's trace
     (off-hook to connected) and the DTE's view (ATD to CONNECT);
  c. the same transfer in each context (int, dpc, thr, res) with the study's
     spinning competitor and load_us=1840;
  d. wall-clock seconds per second of line time, idle and in a call, and the
     same call in virtual time (D-Bus line) and in real time (JACK);
  e. V.42bis (on at both ends, as by default): a text file each way
     (TEXT_BYTES of the repository's documentation, thr, no load) through
     the guest's tty against the line rate (2400 bit/s: 300 bytes/s), and
     the compression ratio of each end's encoder on that text and on the
     random bytes of the reference call;
  f. V.32bis (V32BIS=1, the default): the reference call at 14400
     (AT+MS=V32B to smline's v32bis route, thr, no load) against the line
     rate (1800 bytes/s) and against our two V.32bis modems back to back
     (build/line/b2b --mod v32bis: smline's far modem at both ends, no
     guest), and the text of step e through V.42bis at 14400;
  g. V.34 (V34=1, the default): the same three at the rate the V.34 call
     connects at (AT+MS=V34 to smline's v34 route; b2b --mod v34), the line
     rate being that call's rate.

Steps f and g move PUMP_NBYTES each way (default: NBYTES x the pump's top
rate / 2400, as many seconds of line time as the V.22bis calls) and time
each direction as a stream, the same way at both ends and in b2b: from the
receiver's first I frame to the one that completes the file, the first
frame's bytes not counted (the DTE's first byte read, for the line's
direction in the call).  Their reference runs twice: on b2b's own line
(20 ms round trip) and once more over the round trip the call measured
(b2b --delay), where V.42's window stalls as it does in the call.

The guest side is tools/guest/modem_calls.sh; the far end is smline
answering V.22bis + V.42, sending NBYTES (send=random) and checking what
arrives (expect=random). One guest boot per call, all on the main clock
(CLOCK: virtual, the default, through QEMU's D-Bus audio on the
instruction-counted clock; real: JACK), plus the reference call once more
on the other clock.

The reference and the calls are pieces of smlab.runner, JOBS at a time
(default 1: a call's wall-clock figures, and the real-time call over JACK
above all, depend on what else the host runs) here or on a Dask
scheduler's workers (SCHEDULER).  A piece recorded in
BENCH_OUT/bench-modem/record.jsonl with the same settings (module, line
program, b2b, guest script and daemon by content, the call's own
settings) is not run again unless --force; one whose harness failed (or
whose guest timed out) is tried again once, then reported missing (a note
in the report, exit status 1), never recorded.

Every option (--help) defaults to its variable when that is set: KERNEL,
CLOCK, ICOUNT_SHIFT, NBYTES (4096), TEXT_BYTES (16384; 0: no step e),
CONTEXTS (int dpc thr res usr), LOAD_US
(1840), IDLE_S (20), OTHER_CLOCK (1: also the call on the other clock; 0:
skip it), V32BIS (1: step f; 0: skip it), V34 (1: step g; 0: skip it),
PUMP_NBYTES (0: as above), JOBS (1), SCHEDULER, BENCH_OUT (out), MODULE (default
build/<kernel>/smodem.ko), SMLINE (build/line/smline).
Writes BENCH_OUT/bench-modem.json, BENCH_OUT/bench-modem.md and the raw
runs under BENCH_OUT/bench-modem/.
"""
import argparse
import datetime
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import smtrace
from smlab import cli, contexts, resume, runner
from smlab.guest import FileLines
from smlab.payload import payload

TOP = Path(__file__).resolve().parents[1]

NUMBER = "5551234"
SEED_LINE = 11      # what smline sends (send=random:N:11)
SEED_MODEM = 12     # what the guest sends, smline checks (expect=random:N:12)
# The engine behind the tty and a ring deep enough for the output lead (as
# tests/module/call_real.py). The period stays at 12.5 ms throughout
# (phase_periods=0, the default): load_us is per period, and the study's
# 1.84 ms in the 2.5 ms on-hook periods of phase_periods=1 would take 74 %
# of the CPU instead of the study's 14.7 % (a res 2/8 ms reservation then
# falls seconds behind while on hook).
SMODEM_ARGS = "engine=1 ring_samples=8192"
GUEST_SCRIPT = TOP / "tools" / "guest" / "modem_calls.sh"
# the tty chat it sources, shared with compare_calls.sh
GUEST_CHAT = TOP / "tools" / "guest" / "chat.sh"
B2B = TOP / "build" / "line" / "b2b"
SMLINE = TOP / "build" / "line" / "smline"
CONTEXTS = ["int", "dpc", "thr", "res", "usr"]
# context=usr's daemon, static for the guest (make smodemd)
SMODEMD = TOP / "build" / "smodemd" / "smodemd-static"


log = cli.logger("bench-modem")


def route(nbytes, words="", files=None, mod="v22bis"):
    """smline's route for the call; words: further route words (",ansdelay=2100");
    files: (what smline sends, what it expects) as paths instead of random bytes;
    mod: the far modem's modulation word (v22bis, v32bis, v34)."""
    if files:
        return ("%s=answer:%s,v42,send=file:%s,expect=file:%s%s"
                % (NUMBER, mod, files[0], files[1], words))
    return ("%s=answer:%s,v42,send=random:%d:%d,expect=random:%d:%d%s"
            % (NUMBER, mod, nbytes, SEED_LINE, nbytes, SEED_MODEM, words))


# line rate of V.22bis in 8-bit bytes per second, what V.42bis is measured against
LINE_BPS = 2400 / 8
# the modem's +MS for each far modulation, with its automode: V.22bis named too (the factory's
# +MS=V34 would also listen for V.32bis and run V.8, and the study's calls are V.22bis's)
AT_MS = {"v22bis": "+MS=V22B", "v32bis": "+MS=V32B", "v34": "+MS=V34"}
# the pumps of steps f and g: their step, name, +MS and the rate the line is measured against
# (None: the rate the call connected at, which V.34's line probing chooses)
PUMPS = {"v32bis": {"step": "f", "name": "V.32bis", "ms": "V32B", "rate": 14400, "top": 14400},
         "v34": {"step": "g", "name": "V.34", "ms": "V34", "rate": None, "top": 33600}}
# b2b's round trip on its own line, as V.34's phase 2 measures it there (its
# engines' 80-sample blocks): what b2b --delay adds to, to match a call's
B2B_RTD_MS = 20.0


def pump_nbytes(nbytes, mod, given=0):
    """Bytes each way in a pump's calls: given, or as many seconds of line time
    as nbytes at V.22bis's 2400 bit/s (nbytes x the pump's top rate / 2400):
    4 KiB is 1 s at 33,600, where V.42's start, its last acknowledgement and
    the first window's round trip would weigh as much as the stream."""
    return given or nbytes * PUMPS[mod]["top"] // 2400


def call_rtd_ms(call, mod):
    """The round trip the modem measured in its call (phase 2 of V.34, V.32bis's
    start-up), in ms; None when it has none."""
    st = (call or {}).get("stats") or {}
    v = st.get("engine_v34_rtd" if mod == "v34" else "engine_v32_rtd")
    return v / 8.0 if isinstance(v, (int, float)) and v > 0 else None
# step e's text: the documentation, the guest sending one part, smline another
TEXT_SOURCES = ("README.md", "doc/*.md", "tools/line/README.md", "dsp/README.md")


def text_payload(n, part):
    """n bytes of the repository's documentation: part 0 from the start, part
    1 from where part 0 ends (what each end sends)."""
    data = b"".join(f.read_bytes() for pat in TEXT_SOURCES for f in sorted(TOP.glob(pat)))
    if len(data) < 2 * n:
        raise ValueError("only %d bytes of text for 2 x %d" % (len(data), n))
    return data[part * n:(part + 1) * n]


# -- the reference: two SpanDSP modems back to back ------------------------------
def run_b2b(nbytes, b2b=B2B, mod="v22bis", delay_ms=0.0):
    """delay_ms: b2b's one-way delay each way (--delay)."""
    t0 = time.monotonic()
    # line time enough for the bytes at V.22bis's 2400 bit/s with V.42's
    # overhead, whatever the pump (b2b's own limit, 60 s, would end a long
    # V.34 run at its first 200 KB)
    cmd = [str(b2b), "--mod", mod, "--v42", "--bytes", str(nbytes),
           "--max-s", str(60 + nbytes // 200)]
    if delay_ms:
        cmd += ["--delay", "%.1f" % delay_ms]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120 + nbytes // 400)
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["rc"] = p.returncode
    r["wall_s"] = round(time.monotonic() - t0, 3)
    return r


# -- wall-clock stamps of the guest's marks ---------------------------------------
_MARK = re.compile(r"SMLAB: bench (\S+) (\S+) up=([0-9.]+)")


class ConsoleMarks(threading.Thread):
    """Follows the guest's console and stamps each bench mark with the host's
    monotonic clock (polled every 20 ms): wall time against guest time."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = Path(path)
        self.marks = {}
        self._halt = threading.Event()

    def run(self):
        follow = FileLines(self.path)
        while True:
            stopping = self._halt.is_set()
            lines = follow.new()
            now = time.monotonic()
            for ln in lines:
                m = _MARK.search(ln)
                if m:
                    self.marks.setdefault((m.group(1), m.group(2)),
                                          {"up": float(m.group(3)), "wall": now})
            if stopping:
                return
            time.sleep(0.02)

    def stop(self):
        self._halt.set()
        self.join(timeout=5)


def parse_marks(text):
    """marks.txt of the guest: 'TAG EVENT UPTIME' lines -> {(tag, event): up}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3:
            try:
                out.setdefault((parts[0], parts[1]), float(parts[2]))
            except ValueError:
                pass
    return out


# -- smline's events: when the far end had all the modem's bytes -----------------
# the modem's escape: "+++" after this long without data (S12, 1 s)
ESCAPE_GUARD_S = 1.0


def far_receive_times(events_text, nbytes, per_call=()):
    """Per call (in order), from smline's --events file (JSON Lines, see
    tools/line/README.md): the far modem's data phase and the good V.42 I
    frame from the modem that completed nbytes of information field (new
    sequence numbers only; 3 octets of address and control before the
    information field), in line seconds. per_call: other counts for the
    first calls (with V.42bis: what the modem's encoder made of its
    payload, line_bytes()).
    [{"data_t", "done_t" (None: never complete), "last_iframe_t", "iframes",
      "info_bytes", "first_iframe_t", "first_info" (the first frame's information
      bytes), "done_info" (information bytes up to done_t), "tx_first_info",
      "tx_info" (the far modem's own new I frames: the first one's information
      bytes and all of theirs, what the stream to the modem is shared by)}]"""
    calls, by_number = [], {}
    for line in events_text.splitlines():
        if not line.strip():
            continue
        e = json.loads(line)
        ev, t = e["event"], e["t"]
        if e["source"] == "exchange" and ev in ("off-hook", "incoming"):
            by_number[e["call"]] = {"data_t": None, "done_t": None, "last_iframe_t": None,
                                    "iframes": 0, "info_bytes": 0, "_next_ns": None,
                                    "first_iframe_t": None, "first_info": 0, "done_info": None,
                                    "tx_first_info": None, "tx_info": 0, "_tx_next_ns": None}
            calls.append(by_number[e["call"]])
            continue
        cur = by_number.get(e["call"])
        if cur is None or e["source"] != "far":
            continue
        if ev == "phase" and e["phase"] == "data":
            cur["data_t"] = t
        elif ev == "frame" and cur["data_t"] is not None:
            if (e["dir"] == "tx" and e["len"] >= 3 and not e["control"] & 1 and
                    (cur["_tx_next_ns"] is None or e["control"] >> 1 == cur["_tx_next_ns"])):
                # the far modem's own new I frame (a repeat has an older N(S))
                cur["_tx_next_ns"] = ((e["control"] >> 1) + 1) & 0x7F
                cur["tx_info"] += e["len"] - 3
                if cur["tx_first_info"] is None:
                    cur["tx_first_info"] = e["len"] - 3
                continue
            if e["dir"] != "rx" or not e["fcs_ok"] or e["len"] < 3 or e["control"] & 1:
                continue    # not a good I frame from the modem (control bit 0 clear)
            ns = e["control"] >> 1
            if cur["_next_ns"] is not None and ns != cur["_next_ns"]:
                continue    # sent again
            cur["_next_ns"] = (ns + 1) & 0x7F
            cur["iframes"] += 1
            cur["info_bytes"] += e["len"] - 3
            if cur["first_iframe_t"] is None:
                cur["first_iframe_t"], cur["first_info"] = t, e["len"] - 3
            prev, cur["last_iframe_t"] = cur["last_iframe_t"], t
            i = calls.index(cur)
            n = per_call[i] if i < len(per_call) else nbytes
            if cur["done_t"] is None and cur["info_bytes"] >= n:
                # a per-call count (V.42bis) is an estimate: the frame after the
                # escape's guard time (1 s without data) carries only the "+++"
                late = i < len(per_call) and prev is not None and t - prev > ESCAPE_GUARD_S
                cur["done_t"] = prev if late else t
                cur["done_info"] = cur["info_bytes"] - (e["len"] - 3 if late else 0)
    for c in calls:
        del c["_next_ns"], c["_tx_next_ns"]
    return calls


# -- one guest boot ------------------------------------------------------------------
def guest_env(steps, nbytes, trace_events="", mod="v22bis"):
    """trace_events: trace-cmd's -e options for each call ("": the phases,
    period changes, overruns and DMA halts); mod: the far modem's
    modulation, which the modem's +MS follows (AT_MS)."""
    env = {"STEPS": " ".join(steps), "SMODEM_ARGS": SMODEM_ARGS,
           "DIAL": "T" + NUMBER, "AT_SETUP": "AT\\N3" + AT_MS[mod], "NBYTES": str(nbytes)}
    if trace_events:
        env["TRACE_EVENTS"] = trace_events
    return env


def line_bytes(rec, nbytes):
    """What the modem's nbytes became on the line, from smline's record:
    with V.42bis, the share of its decoder's input that gave the first
    nbytes of its output (the escape's "+++" follows the file; rounded up)."""
    bis = (rec or {}).get("v42bis") or {}
    if not bis.get("rx") or not bis.get("rx_out"):
        return nbytes
    return -(-bis["rx_in"] * nbytes // bis["rx_out"])


# phase_periods=1 interrupts every 2.5 ms on hook: a line whose audio tick is
# longer merges those interrupts (make check's 4 ms tick read 246 a second
# instead of 400), so a boot with it ticks every 2 ms at most.
PHASE_TICK_US = 2000


def line_tick(steps):
    """The D-Bus line's tick for a boot running steps (smlab's default, at
    most PHASE_TICK_US if a call loads the module with phase_periods=1)."""
    from smlab.dbusline import tick_default
    t = tick_default()
    if any("phase_periods=1" in s for s in steps):
        t = min(t, PHASE_TICK_US)
    return t


def run_boot(clock, steps, out, nbytes, kver, ko, smline=SMLINE, shift=0,
             timeout_s=1200, progress=True, cmdline_extra="", line_extra=(), route_words="",
             trace_events="", text=False, mod="v22bis"):
    """Boot once, run the steps; return the raw material of every call.
    line_extra: further smline options (--noise, --seed); route_words: further
    words of the far end's route; trace_events: guest_env()'s; text: the
    files each way are text (text_payload()), not random bytes; mod: the far
    modem's modulation (v22bis, v32bis, v34: the modem's +MS follows)."""
    from smlab.guest import run_guest
    from smlab.dbusline import DbusLine
    from smlab.jack import jack_server
    from smlab.procs import Group

    out = Path(out)
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    (out / "tx.bin").write_bytes(text_payload(nbytes, 0) if text else payload(SEED_MODEM, nbytes))
    (out / "rx.bin").write_bytes(text_payload(nbytes, 1) if text else payload(SEED_LINE, nbytes))
    calls = out / "calls.jsonl"
    events = out / "events.jsonl"
    files = (out / "rx.bin", out / "tx.bin") if text else None
    line_args = ["--route", route(nbytes, route_words, files, mod), "--json", str(calls),
                 "--events", str(events), "-vv"] + list(line_extra)
    kw = dict(audio="ac97", share="deferred", env=guest_env(steps, nbytes, trace_events, mod),
              extra_files={"opt/smodem/smodem.ko": str(ko),
                           "opt/guest/chat.sh": str(GUEST_CHAT),
                           "opt/bench/tx.bin": str(out / "tx.bin"),
                           "opt/bench/rx.bin": str(out / "rx.bin"),
                           **({"usr/bin/smodemd": str(SMODEMD)} if SMODEMD.is_file() else {})},
              timeout_s=timeout_s, progress=progress, cmdline_extra=cmdline_extra)
    script = GUEST_SCRIPT.read_text()
    marks = ConsoleMarks(out / "console.log")
    marks.start()
    t0 = time.monotonic()
    try:
        if clock == "virtual":
            line = DbusLine(line_args, out, smline=smline, tick_us=line_tick(steps))
            res = run_guest(kver, script, str(out), clock="virtual", icount_shift=shift,
                            line=line, **kw)
        else:
            # as tests/module/call_real.py: 21 ms JACK periods (5.3 ms ones
            # gave the dummy driver xruns on the loaded 2-core host)
            with jack_server(timeout_s=timeout_s + 60, period=1024,
                             log=str(out / "jackd.log")) as js, \
                    open(out / "smline.log", "wb") as lf:
                ln = Group([str(smline), "--transport", "jack"] + line_args,
                           timeout_s + 30, env=js.env, stdin=subprocess.DEVNULL,
                           stdout=lf, stderr=subprocess.STDOUT)
                try:
                    js.wait_ports(r"^smline:to_modem$", timeout_s=10)
                    res = run_guest(kver, script, str(out), clock="real", jack=js,
                                    jack_ports={"in": "smline:to_modem",
                                                "out": "smline:from_modem"}, **kw)
                    time.sleep(0.5)
                finally:
                    ln.stop()
    finally:
        marks.stop()
    wall = time.monotonic() - t0
    recs = []
    if calls.exists():
        recs = [json.loads(x) for x in calls.read_text().splitlines() if x.strip()]
    rdir = out / "results"
    if (rdir / "marks.txt").exists():
        gmarks = parse_marks((rdir / "marks.txt").read_text())
    else:   # a guest that never finished: what its console said
        gmarks = {k: v["up"] for k, v in marks.marks.items()}
    return {"clock": clock, "out": out, "results": rdir, "guest": res, "wall_s": wall,
            "records": recs, "marks": gmarks, "wall_marks": marks.marks,
            "far": far_receive_times(_read(events) or "", nbytes,
                                     [line_bytes(r, nbytes) for r in recs])}


def _read(p):
    return p.read_text(errors="replace") if p.exists() else None


def trace_phases(dat):
    """[(phase, arg, seconds since the first event)] from a trace.dat."""
    if not Path(dat).exists():
        return []
    try:
        ev = smtrace.events(dat)
    except subprocess.CalledProcessError:
        return []
    ph = [e for e in ev if e.name == "smodem_phase"]
    if not ph:
        return []
    t0 = ph[0].ts_ns
    return [(e.fields.get("phase"), e.fields.get("arg"), (e.ts_ns - t0) / 1e9) for e in ph]


def _first(phases, name):
    for p, _, t in phases:
        if p == name:
            return t
    return None


def _r(v, d=2):
    return None if v is None else round(v, d)


def analyse_call(tag, run, rec, far, nbytes):
    """Everything measured about one call, as a flat dict."""
    rdir = run["results"]
    mk = run["marks"]
    wm = run["wall_marks"]
    up = lambda ev: mk.get((tag, ev))  # noqa: E731
    txt = _read(rdir / (tag + ".txt")) or ""
    st = smtrace.stats(_read(rdir / (tag + ".stats")) or "")
    phases = trace_phases(rdir / (tag + ".dat"))
    c = {"tag": tag, "clock": run["clock"], "nbytes": nbytes,
         "connected": "RESULT ok" in txt, "data_ok": "DATA ok" in txt,
         "dte_result": (re.findall(r"^RESULT (.*)$", txt, re.M) or [None])[-1],
         "record": rec}
    m = re.search(r"^DATA bad n=\d+ got=(\d+) differing=(\d*)", txt, re.M)
    if m:
        c["dte_rx_bytes"] = int(m.group(1))
        c["dte_rx_differing"] = int(m.group(2) or 0)
    if up("dial") is not None and up("connect") is not None:
        c["dte_dial_to_connect_s"] = _r(up("connect") - up("dial"))
    if up("connect") is not None and up("rxdone") is not None:
        c["dte_rx_s"] = _r(up("rxdone") - up("connect"))
        if c["data_ok"]:
            c["to_modem_Bps"] = _r(nbytes / max(1e-3, up("rxdone") - up("connect")), 1)
    if c["data_ok"] and up("rxfirst") is not None and up("rxdone") is not None and far:
        # the stream from its first frame at the DTE to its last, as the
        # modem's own (below) and b2b's: the first frame's share not counted
        t1, first, total = up("rxfirst"), far.get("tx_first_info"), far.get("tx_info")
        if first is not None and total and total > first and up("rxdone") > t1:
            c["to_modem_stream_Bps"] = _r(nbytes * (total - first) / total /
                                          (up("rxdone") - t1), 1)
    if up("connect") is not None and up("txdone") is not None:
        c["dte_writer_s"] = _r(up("txdone") - up("connect"))
    if far and far.get("data_t") is not None and far.get("done_t") is not None:
        c["far_rx_s"] = _r(far["done_t"] - far["data_t"])
        if c["far_rx_s"] > 0:
            c["from_modem_Bps"] = _r(nbytes / c["far_rx_s"], 1)
        # the stream itself, first I frame to last: without the DTE's start after
        # CONNECT, which at 14400 is a fifth of a 4 KiB transfer
        t1, info = far.get("first_iframe_t"), far.get("done_info")
        if t1 is not None and info and far["done_t"] > t1 and info > far.get("first_info", 0):
            share = (info - far["first_info"]) / info
            c["from_modem_stream_Bps"] = _r(nbytes * share / (far["done_t"] - t1), 1)
    if rec:
        c["setup_s"] = rec.get("setup_s")
        c["transfer_s"] = rec.get("transfer_s")
        c["line_duration_s"] = rec.get("duration_s")
        c["expect_ok"] = rec.get("expect_ok")
        c["far_retransmissions"] = rec.get("retransmissions")
        c["far_fcs_errors"] = (rec.get("errors") or {}).get("fcs")
    if phases:
        c["phases"] = [{"phase": p, "arg": a, "t_s": round(t, 3)} for p, a, t in phases]
        oh, cn = _first(phases, "off-hook"), _first(phases, "connected")
        dl = _first(phases, "dialing")
        if oh is not None and cn is not None:
            c["trace_offhook_to_connected_s"] = _r(cn - oh)
        if dl is not None and cn is not None:
            c["trace_dialing_to_connected_s"] = _r(cn - dl)
    if st:
        c["stats"] = {k: st.get(k) for k in (
            "context", "policy", "load_us", "overruns", "dropped", "tx_late", "tx_lead", "dma_halts",
            "pending_max", "engine_rate", "engine_link", "engine_v42_retransmissions",
            "engine_v42_crc_errors", "engine_rx_overruns", "engine_v42_bytes_tx",
            "engine_v42_bytes_rx", "engine_tx_gap_late", "engine_v42bis_dirs",
            "engine_v42bis_p1", "engine_v42bis_p2", "engine_v42bis_tx_in",
            "engine_v42bis_tx_out", "engine_v42bis_rx_in", "engine_v42bis_rx_out",
            "engine_v42bis_errors", "engine_echo_latency", "engine_echo_erle_db",
            "engine_v32_rtd", "engine_v34_rtd", "engine_tx_rate", "engine_rx_rate",
            "engine_v34_baud", "engine_v34_mse_db10") if k in st}
        c["v42bis"] = v42bis_figures(st, rec)
        c["overruns"] = st.get("overruns")
        c["modem_retransmissions"] = st.get("engine_v42_retransmissions")
    tk = timekeeping(_read(rdir / (tag + ".samples")) or "")
    if tk:
        c["timekeeping"] = tk
    rt = [x for x in (c.get("far_retransmissions"), c.get("modem_retransmissions"))
          if x is not None]
    c["retransmissions"] = sum(rt) if rt else None
    # wall clock against line (guest) time over the call, dial to hang-up
    d, h = wm.get((tag, "dial")), wm.get((tag, "hungup"))
    if d and h and h["up"] > d["up"]:
        c["call_line_s"] = _r(h["up"] - d["up"])
        c["call_wall_s"] = _r(h["wall"] - d["wall"])
        c["wall_per_line_s"] = _r((h["wall"] - d["wall"]) / (h["up"] - d["up"]), 3)
    return c


def timekeeping(text):
    """The guest's stats samples of a call (modem_calls.sh's sample_stats):
    per sample in V.34's data mode, its seconds of data, each direction's
    data bits less its rate times its samples (a call that keeps its time
    holds these within a data frame, whatever its length), the output lead
    and the late frames."""
    rows, cur = [], None
    for line in text.splitlines():
        w = line.split()
        if len(w) == 2 and w[0] == "T":
            cur = {"up": float(w[1])}
            rows.append(cur)
        elif cur is not None:
            name, vals = smtrace.stats_words(line)
            if name:
                cur[name] = vals
    out = []
    for r in rows:
        tk = smtrace.v34_timekeeping(r)
        if tk is None:
            continue
        del tk["run_samples"]
        out.append({"up_s": r["up"], **tk,
                     "mse_db10": r.get("engine_v34_mse_db10", [None])[0],
                     "renegs": r.get("engine_v34_renegs", [None])[0],
                     "retrains": r.get("engine_v34_retrains", [None])[0],
                     "tx_lead": r.get("tx_lead", [None])[0], "tx_late": r.get("tx_late", [None])[0],
                     "overruns": r.get("overruns", [None])[0],
                     "retransmissions": r.get("engine_v42_retransmissions", [None])[0]})
    return out


def v42bis_figures(st, rec):
    """V.42bis in a call: what was agreed (our view) and each encoder's ratio,
    input over output bytes (ours from the module's stats, smline's, SpanDSP's
    V.42bis, from its record); None where a direction did not compress."""
    def ratio(a, b):
        return _r(a / b, 3) if a and b else None
    bis = (rec or {}).get("v42bis") or {}
    return {"dirs": st.get("engine_v42bis_dirs"), "p1": st.get("engine_v42bis_p1"),
            "p2": st.get("engine_v42bis_p2"), "errors": st.get("engine_v42bis_errors"),
            "ratio_modem": ratio(st.get("engine_v42bis_tx_in"), st.get("engine_v42bis_tx_out")),
            "ratio_far": ratio(bis.get("tx_in"), bis.get("tx_out"))}


def analyse_boot(run, tags, nbytes):
    """Calls of one boot in order: smline's records and far-end logs follow
    the calls that dialled. Each call also gets its boot's figures."""
    out = {}
    i = 0
    g = run["guest"]
    boot = {"rc": g.rc, "timed_out": g.timed_out, "wall_s": _r(g.wall_s, 1),
            "boot_s": _r(g.boot_s, 1), "script_s": _r(g.script_s, 1), "out": str(run["out"])}
    for tag in tags:
        rec = far = None
        if (tag, "dial") in run["marks"]:
            rec = run["records"][i] if i < len(run["records"]) else None
            far = run["far"][i] if i < len(run["far"]) else None
            i += 1
        c = analyse_call(tag, run, rec, far, nbytes)
        s, e = run["wall_marks"].get((tag, "idle-start")), run["wall_marks"].get((tag, "idle-end"))
        if s and e and e["up"] > s["up"]:
            c["idle"] = {"line_s": _r(e["up"] - s["up"]), "wall_s": _r(e["wall"] - s["wall"]),
                         "wall_per_line_s": _r((e["wall"] - s["wall"]) / (e["up"] - s["up"]), 3)}
        c["boot"] = boot
        if run["clock"] == "real":
            c["jack_xruns"] = jack_xruns(run["out"])
        out[tag] = c
    return out


def call_ok(c):
    return bool(c and c.get("data_ok") and c.get("expect_ok"))


def failure(c):
    """Why a call did not move its data, in a few words."""
    if c is None:
        return "no call"
    rec = c.get("record") or {}
    why = ["guest timed out"] if (c.get("boot") or {}).get("timed_out") else []
    if not rec:
        why.append("no call record (DTE: %s)" % (c.get("dte_result") or "no result"))
        return ", ".join(why)
    why.append("line: %s" % rec.get("result"))
    if rec.get("result") == "connected":
        why.append("V.42 %s" % ("up" if rec.get("v42") else "not established"))
        err = rec.get("errors") or {}
        for k in ("retrains", "carrier_drops", "fcs", "mismatched_bytes"):
            if err.get(k):
                why.append("%s %s" % (k.replace("_", " "), err[k]))
        if rec.get("expect_ok") is False:
            why.append("far end's check failed (%s of %s bytes)"
                       % (rec.get("bytes_from_modem"), c.get("nbytes")))
    if not c.get("data_ok"):
        if "dte_rx_bytes" in c:
            why.append("modem got %d of %s bytes, %d differing"
                       % (c["dte_rx_bytes"], c.get("nbytes"), c.get("dte_rx_differing", 0)))
        else:
            why.append("modem got no data (DTE: %s)" % (c.get("dte_result") or "no result"))
    if c.get("jack_xruns"):
        why.append("%d JACK xruns" % c["jack_xruns"])
    return ", ".join(why)


# -- report ------------------------------------------------------------------------------
def _f(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


def _pct(a, b):
    return None if a is None or not b else 100.0 * a / b


def markdown(rep):
    """The human table (also printed)."""
    b = rep["b2b"]
    L = ["# make bench-modem", "",
         "%s; kernel %s; main clock %s%s; %d bytes each way at once, V.22bis 2400 + V.42 "
         "(smline answering, SpanDSP); module `%s`; one guest boot per call; %.0f s wall."
         % (rep["date"], rep["kernel"], rep["clock"],
            " (icount shift %d)" % rep["icount_shift"] if rep["clock"] == "virtual" else "",
            rep["nbytes"], rep["smodem_args"], rep.get("wall_s") or 0), ""]
    cl = rep.get("clean") or {}
    L += ["## a. Throughput (bytes/s of line time, each way, full duplex)", "",
          "| | modem -> line | line -> modem | both ways done (s) |",
          "|---|---|---|---|",
          "| SpanDSP <-> SpanDSP (b2b) | %s | %s | %s |" % (
              _f(b.get("to_answer_Bps"), "%.1f"), _f(b.get("to_caller_Bps"), "%.1f"),
              _f(b.get("both_done_s"))),
          "| smodem (thr, no load) <-> SpanDSP (smline), %s clock | %s | %s | %s |" % (
              rep["clock"], _f(cl.get("from_modem_Bps"), "%.1f"),
              _f(cl.get("to_modem_Bps"), "%.1f"), _f(cl.get("transfer_s"))),
          "| ratio (goal >= 95 %%) | %s | %s | |" % (
              _f(rep["ratio"].get("from_modem_pct"), "%.1f %%"),
              _f(rep["ratio"].get("to_modem_pct"), "%.1f %%")),
          "",
          "modem -> line: from the far modem's data phase to the I frame that completes the "
          "file (smline's events.jsonl); line -> modem: from CONNECT to the last byte read at the "
          "guest's DTE; b2b: each receiver's data phase to its last byte. Both ways done: "
          "smline's `transfer_s` (b2b: the later direction).", ""]
    if not call_ok(cl):
        L += ["The reference call FAILED: %s." % failure(cl), ""]
    L += ["## b. Call set-up (s)", "",
          "| call | smline: off-hook to data (`setup_s`) | trace: off-hook to connected | "
          "trace: dialing to connected | DTE: ATD to CONNECT |",
          "|---|---|---|---|---|"]
    for c in rep["all_calls"]:
        L.append("| %s (%s) | %s | %s | %s | %s |" % (
            c["tag"], c["clock"], _f(c.get("setup_s")), _f(c.get("trace_offhook_to_connected_s")),
            _f(c.get("trace_dialing_to_connected_s")), _f(c.get("dte_dial_to_connect_s"))))
    L += ["", "smline's set-up runs from the modem's off-hook to the far modem's data phase "
          "(V.42 up); the trace's `connected` is the modem's training done (before V.42); "
          "the DTE's CONNECT comes once V.42 is settled. b2b (no exchange, no dialling, "
          "answer tone after 0.5 s): data phase after %s s (caller) / %s s (answerer)."
          % (_f(b.get("caller_data_s")), _f(b.get("answer_data_s"))), ""]
    L += ["## c. The contexts, with the spinning competitor and load_us=%s" % rep["load_us"], "",
          "| context | setup s | transfer s (both ways) | modem -> line B/s | line -> modem B/s | "
          "retransmissions | overruns | max pending | data | wall s per line s |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for c in rep["contexts"]:
        st = c.get("stats") or {}
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["tag"], _f(c.get("setup_s")), _f(c.get("transfer_s")),
            _f(c.get("from_modem_Bps"), "%.1f"), _f(c.get("to_modem_Bps"), "%.1f"),
            _f(c.get("retransmissions"), "%d"), _f(c.get("overruns"), "%d"),
            _f(st.get("pending_max"), "%d"),
            "ok" if call_ok(c) else "FAILED: %s" % failure(c),
            _f(c.get("wall_per_line_s"), "%.2f")))
    L += ["", "retransmissions: V.42 I frames sent again by the far end (smline) plus by the "
          "modem (`engine_v42_retransmissions`); overruns, max pending: the module's stats "
          "(ring of 8192 samples); wall s per line s: dial to hang-up.", ""]
    d = rep["speed"]
    L += ["## d. Line time against wall time", "",
          "| what | line s | wall s | wall s per line s |", "|---|---|---|---|"]
    for c in d.get("calls", []):
        if c.get("idle"):
            i = c["idle"]
            L.append("| idle line, module on hook (%s clock) | %s | %s | %s |" % (
                c["clock"], _f(i["line_s"]), _f(i["wall_s"]), _f(i["wall_per_line_s"], "%.3f")))
    for c in d.get("calls", []):
        L.append("| call, %s clock, ATD to ATH | %s | %s | %s |" % (
            c["clock"], _f(c.get("call_line_s")), _f(c.get("call_wall_s")),
            _f(c.get("wall_per_line_s"), "%.3f")))
    L += ["", "The same call (%d bytes each way, thr, no load) on both clocks, from smline's "
          "record (line time) and the host's clock:" % rep["nbytes"], "",
          "| clock | result | call, off-hook to on-hook (line s) | setup s | transfer s | "
          "ATD to ATH (wall s) | guest boot to power-off (wall s) |",
          "|---|---|---|---|---|---|---|"]
    for c in d.get("calls", []):
        rec = c.get("record") or {}
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            c["clock"], "ok" if call_ok(c) else "FAILED: %s" % failure(c),
            _f(rec.get("duration_s")), _f(rec.get("setup_s")), _f(rec.get("transfer_s")),
            _f(c.get("call_wall_s")), _f((c.get("boot") or {}).get("wall_s"), "%.1f")))
    t = rep.get("v42bis")
    if t is not None:
        tb = t.get("text") or {}
        L += ["", "## e. V.42bis (both ends, as by default)", "",
              "| data | modem -> line B/s | line -> modem B/s | against the line rate (%d B/s) | "
              "ratio, modem's encoder | ratio, smline's (SpanDSP) | P1, P2 | data |" % LINE_BPS,
              "|---|---|---|---|---|---|---|---|"]
        for name, c in (("text, %s bytes each way" % _f(t.get("text_bytes"), "%d"), tb),
                        ("random, %d bytes each way (the reference call)" % rep["nbytes"],
                         t.get("random") or {})):
            v = c.get("v42bis") or {}
            L.append("| %s | %s | %s | %s / %s | %s | %s | %s | %s |" % (
                name, _f(c.get("from_modem_Bps"), "%.1f"), _f(c.get("to_modem_Bps"), "%.1f"),
                _f(_pct(c.get("from_modem_Bps"), LINE_BPS), "%.0f %%"),
                _f(_pct(c.get("to_modem_Bps"), LINE_BPS), "%.0f %%"),
                _f(v.get("ratio_modem"), "%.3f"), _f(v.get("ratio_far"), "%.3f"),
                "%s, %s" % (_f(v.get("p1"), "%d"), _f(v.get("p2"), "%d")),
                "ok" if call_ok(c) else "FAILED: %s" % failure(c)))
        L += ["", "Throughput as in a. (the payload's bytes per second of line time); ratio: "
              "bytes into an encoder over bytes out of it (the module's `engine_v42bis_*`, "
              "smline's record). The text: the repository's documentation, thr, no load."]
    for mod in PUMPS:
        if rep.get(mod) is not None:
            L += _pump_section(rep, mod)
    for note in rep.get("notes", []):
        L += ["", "Note: " + note]
    L += ["", "Raw runs: %s/<clock>/<call>/ (console.log, smline.log, calls.jsonl, "
          "results/<call>.{txt,stats,dat}, marks.txt)." % rep["raw"], ""]
    return "\n".join(L)


def _pump_section(rep, mod):
    """Step f or g: a pump's call against its line rate and against our two far modems
    back to back (b2b --mod), on b2b's own line and over the call's round trip, and the
    text through V.42bis."""
    p, f = PUMPS[mod], rep[mod]
    rate, lbps = f.get("rate"), f.get("line_Bps")
    fb, fc, ft = f.get("b2b") or {}, f.get("call") or {}, f.get("text") or {}
    fp = f.get("b2b_path")
    r = f.get("ratio") or {}

    def ok(b):
        return (b.get("rate") and b.get("rate") == (p["rate"] or b.get("rate")) and
                b.get("answer_bad") == 0 and b.get("caller_bad") == 0 and
                b.get("answer_got") == b.get("bytes") and b.get("caller_got") == b.get("bytes"))

    def b2b_row(name, b):
        up, down = _stream(b, "to_answer"), _stream(b, "to_caller")
        return "| %s | %s (%s) | %s (%s) | %s / %s | %s | %s |" % (
            name, _f(up, "%.1f"), _f(b.get("to_answer_Bps"), "%.1f"), _f(down, "%.1f"),
            _f(b.get("to_caller_Bps"), "%.1f"), _f(_pct(up, lbps), "%.1f %%"),
            _f(_pct(down, lbps), "%.1f %%"), _f(b.get("both_done_s")),
            "ok" if ok(b) else "FAILED")

    nb = fc.get("nbytes") or fb.get("bytes")
    L = ["", "## %s. %s at %s (AT+MS=%s, smline's %s far modem: ours)" % (
        p["step"], p["name"], _f(rate, "%d"), p["ms"], p["name"]), "",
        "%s bytes each way (random). Each figure is a stream: from the receiver's first I "
        "frame to the one that completes the file, the first frame's bytes not counted; in "
        "brackets the older measure (b2b: from the receiver's data phase; the call: modem -> "
        "line from the far modem's data phase, line -> modem from the DTE's CONNECT)." % _f(nb, "%d"),
        "",
        "| | modem -> line B/s | line -> modem B/s | against the line rate (%s B/s) | "
        "both ways done (s) | data |" % _f(lbps, "%d"),
        "|---|---|---|---|---|---|",
        b2b_row("our far modem <-> our far modem (b2b --mod %s, no guest%s, round trip %s ms)" % (
            mod, ", %s bit/s" % _f(fb.get("rate"), "%d") if not p["rate"] else "",
            _f(((fb.get("v34") or {}).get("rtd_ms_caller") or B2B_RTD_MS), "%.0f")), fb)]
    if fp is not None:
        L.append(b2b_row("the same over the call's round trip (b2b --delay %s: %s ms)" % (
            _f(fp.get("delay_ms"), "%.1f"), _f(call_rtd_ms(fc, mod), "%.0f")), fp))
    L += [
        "| smodem (thr, no load) <-> smline, %s clock | %s (%s) | %s (%s) | "
        "%s / %s | %s | %s |" % (
            rep["clock"], _f(fc.get("from_modem_stream_Bps"), "%.1f"),
            _f(fc.get("from_modem_Bps"), "%.1f"), _f(_stream(fc, "to_modem"), "%.1f"),
            _f(fc.get("to_modem_Bps"), "%.1f"),
            _f(_pct(fc.get("from_modem_stream_Bps"), lbps), "%.1f %%"),
            _f(_pct(_stream(fc, "to_modem"), lbps), "%.1f %%"),
            _f(fc.get("transfer_s")), "ok" if call_ok(fc) else "FAILED: %s" % failure(fc)),
        "| ratio to b2b%s | %s | %s | | | |" % (
            "" if fp is not None else " (goal >= 95 %)",
            _f(r.get("from_modem_pct"), "%.1f %%"), _f(r.get("to_modem_pct"), "%.1f %%"))]
    if fp is not None:
        q = f.get("path_ratio") or {}
        L.append("| ratio to b2b over the same round trip (goal >= 95 %%) | %s | %s | | | |" % (
            _f(q.get("from_modem_pct"), "%.1f %%"), _f(q.get("to_modem_pct"), "%.1f %%")))
    if ft:
        v = ft.get("v42bis") or {}
        L.append("| the same, text through V.42bis, %s bytes each way (ratios %s / %s) | %s (%s) | "
                 "%s (%s) | %s / %s | %s | %s |" % (
                     _f(ft.get("nbytes"), "%d"), _f(v.get("ratio_modem"), "%.3f"),
                     _f(v.get("ratio_far"), "%.3f"), _f(ft.get("from_modem_stream_Bps"), "%.1f"),
                     _f(ft.get("from_modem_Bps"), "%.1f"), _f(_stream(ft, "to_modem"), "%.1f"),
                     _f(ft.get("to_modem_Bps"), "%.1f"),
                     _f(_pct(ft.get("from_modem_stream_Bps"), lbps), "%.0f %%"),
                     _f(_pct(_stream(ft, "to_modem"), lbps), "%.0f %%"),
                     _f(ft.get("transfer_s")),
                     "ok" if call_ok(ft) else "FAILED: %s" % failure(ft)))
    st = fc.get("stats") or {}
    L += ["", "The line rate's share is what V.42 leaves of %s bit/s (its framing, "
          "acknowledgements and bit stuffing: b2b's is the bound). V.42's window (k = 15 "
          "frames of N401 = 128 octets, smline's SpanDSP's most) stalls wherever the round trip "
          "is longer than the window takes to send: the reference over the call's round trip "
          "has the call's stalls, the one on b2b's own line has none. The modem's "
          "echo canceller ran at %s samples (ERLE %s dB, round trip %s samples; output lead "
          "%s samples)." % (
              _f(rate, "%d"), _f(st.get("engine_echo_latency"), "%d"),
              _f(st.get("engine_echo_erle_db"), "%d"),
              _f(st.get("engine_v34_rtd" if mod == "v34" else "engine_v32_rtd"), "%d"),
              _f(st.get("tx_lead"), "%d"))]
    tk = fc.get("timekeeping") or []
    if tk:
        L += ["", "Timekeeping over the call (the guest's stats every 30 s of its time; "
              "bits off: each direction's data bits less its rate times the pump's samples since "
              "the data at the present rates began, which a call that keeps its time holds within a data frame, %d "
              "bits at 33,600, however long it runs):" % (13 * 8 * 18), "",
              "| data (s) | rate out / in | bits off out / in | MSE (dB) | renegotiations | "
              "retrains | output lead | late frames | overruns | V.42 retransmissions |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for t in tk:
            L.append("| %s | %s / %s | %+d / %+d | %s | %s | %s | %s | %s | %s | %s |" % (
                _f(t["data_s"], "%.0f"), t["tx_rate"], t["rx_rate"], t["tx_bits_off"],
                t["rx_bits_off"], _f(t["mse_db10"] / 10 if t["mse_db10"] is not None else None,
                                     "%.1f"),
                t["renegs"], t["retrains"], t["tx_lead"], t["tx_late"], t["overruns"],
                t["retransmissions"]))
    return L


def _both_done(b2b):
    b2b = dict(b2b)
    if b2b.get("answer_done_s") is not None:
        b2b["both_done_s"] = _r(max(b2b["answer_done_s"] - b2b["answer_data_s"],
                                    b2b["caller_done_s"] - b2b["caller_data_s"]))
    return b2b


def _stream(d, key):
    """A stream figure (key + "_stream_Bps"), or the older whole-transfer one
    where a record has none."""
    v = d.get(key + "_stream_Bps")
    return d.get(key + "_Bps") if v is None else v


def _pump_ratio(call, ref):
    """Call against a reference, both as streams (first frame to last): the
    modem's direction against b2b's caller -> answerer, the line's against
    answerer -> caller."""
    return {"from_modem_pct": _r(_pct(call.get("from_modem_stream_Bps"),
                                      _stream(ref, "to_answer")), 1),
            "to_modem_pct": _r(_pct(_stream(call, "to_modem"), _stream(ref, "to_caller")), 1),
            "goal_pct": 95}


def build_report(meta, b2b, calls, main_clock, contexts, b2b_v32=None, b2b_pumps=None,
                 b2b_path=None):
    """Assemble the JSON report from the analysed calls:
    calls = {(clock, tag): analysed call}; b2b_v32: step f's reference
    (None: no step f); b2b_pumps: {modulation: its reference} for steps f and g;
    b2b_path: {modulation: its reference over the call's round trip}."""
    b2b = _both_done(b2b)
    clean = calls.get((main_clock, "clean")) or {}
    rep = dict(meta)
    rep["b2b"] = b2b
    rep["clean"] = clean
    rep["ratio"] = {
        "from_modem_pct": _r(_pct(clean.get("from_modem_Bps"), b2b.get("to_answer_Bps")), 1),
        "to_modem_pct": _r(_pct(clean.get("to_modem_Bps"), b2b.get("to_caller_Bps")), 1),
        "goal_pct": 95}
    rep["contexts"] = [calls[(main_clock, c)] for c in contexts if (main_clock, c) in calls]
    rep["all_calls"] = list(calls.values())
    rep["speed"] = {"calls": [c for (clk, tag), c in calls.items() if tag == "clean"]}
    text = calls.get((main_clock, "v42bis"))
    if text is not None:
        rep["v42bis"] = {"text_bytes": text.get("nbytes"), "text": text, "random": clean}
        rep["all_calls"] = [c for c in rep["all_calls"] if c is not text] + [text]
    pumps = dict(b2b_pumps or {})
    if b2b_v32 is not None:
        pumps["v32bis"] = b2b_v32
    for mod, p in PUMPS.items():
        call = calls.get((main_clock, mod))
        if pumps.get(mod) is None and call is None:
            continue
        fb, call = _both_done(pumps.get(mod) or {}), call or {}
        rate = p["rate"] or (call.get("stats") or {}).get("engine_rate") or fb.get("rate")
        path = (b2b_path or {}).get(mod)
        rep[mod] = {
            "b2b": fb, "call": call, "text": calls.get((main_clock, mod + "-text")),
            "rate": rate, "line_Bps": rate / 8 if rate else None,
            "ratio": _pump_ratio(call, fb)}
        if path is not None:
            rep[mod]["b2b_path"] = _both_done(path)
            rep[mod]["path_ratio"] = _pump_ratio(call, path)
    return rep


def jack_xruns(out):
    p = Path(out) / "jackd.log"
    return len(re.findall(r"XRun", p.read_text(errors="replace"))) if p.exists() else None


def one_call(clock, tag, ctx, load_us, spin, idle_s, raw, nbytes, kver, ko, smline, shift,
             args=(), quiet=False, cmdline_extra="", text=False, **line):
    """One boot, one call; returns the analysed call (failures recorded).
    args: further insmod arguments (name=value, after SMODEM_ARGS);
    cmdline_extra: the guest kernel's command line extra; line: run_boot()'s
    line_extra, route_words, trace_events, mod."""
    out = raw / clock / tag
    if any(":" in x or "," in x or " " in x for x in args):
        raise ValueError("insmod arguments must not hold ':', ',' or spaces: %s" % " ".join(args))
    step = "call:%s:%s:%d:%d:%d:%s" % (tag, ctx, load_us, 1 if spin else 0, idle_s, ",".join(args))
    t = time.monotonic()
    try:
        # a call that fails slowly waits out the DTE's bounded reads (NBYTES / 80 s)
        run = run_boot(clock, [step], out, nbytes, kver, ko, smline, shift,
                       timeout_s=(240 + 3 * idle_s if clock == "virtual" else 300) + nbytes // 40,
                       progress=not quiet, cmdline_extra=cmdline_extra, text=text, **line)
        c = analyse_boot(run, [tag], nbytes)[tag]
    except Exception as e:  # noqa: BLE001 - a benchmark records its failures
        c = {"tag": tag, "clock": clock, "nbytes": nbytes, "error": str(e),
             "dte_result": "harness error: %s" % e}
    c["context"] = ctx
    c["load_us"] = load_us
    c["spin"] = bool(spin)
    log("    %s/%s: %s; set-up %s s, transfer %s s, modem->line %s B/s, line->modem %s B/s, "
        "%.0f s wall" % (clock, tag, "ok" if call_ok(c) else "FAILED: " + failure(c),
                         c.get("setup_s"), c.get("transfer_s"), c.get("from_modem_Bps"),
                         c.get("to_modem_Bps"), time.monotonic() - t))
    return c


def plan(a, ko, raw):
    """The reference (b2b) and the calls as runner pieces, in the order they
    ran one after another: the clean call on the main clock, the contexts,
    the clean call on the other clock.  One boot per call: a module reload
    within a boot was seen to lengthen the D-Bus line's delay by about 125 ms
    each time, which would favour whichever context ran first."""
    oc = "real" if a.clock == "virtual" else "virtual"
    calls = [(a.clock, "clean", "thr", 0, False, a.idle_s if a.clock == "virtual" else 0)]
    calls += [(a.clock, c, c, a.load_us, True, 0) for c in a.contexts]
    if a.other_clock == 1:
        calls.append((oc, "clean", "thr", 0, False, a.idle_s if oc == "virtual" else 0))
    pieces = [runner.Piece.make("b2b", a.kernel, "b2b", nbytes=a.nbytes, b2b=str(B2B))] + [
        runner.Piece.make("call", a.kernel, "%s-%s" % (clk, tag), clock=clk, tag=tag, context=ctx,
                          load_us=load, spin=spin, idle_s=idle, nbytes=a.nbytes,
                          shift=a.icount_shift if clk == "virtual" else 0, raw=str(raw),
                          module=str(ko), smline=str(a.smline))
        for clk, tag, ctx, load, spin, idle in calls]
    if a.text_bytes:
        # step e: text each way, its own piece (its settings say text)
        pieces.append(runner.Piece.make(
            "call", a.kernel, "%s-v42bis" % a.clock, clock=a.clock, tag="v42bis", context="thr",
            load_us=0, spin=False, idle_s=0, nbytes=a.text_bytes,
            shift=a.icount_shift if a.clock == "virtual" else 0, raw=str(raw), module=str(ko),
            smline=str(a.smline), text=True))
    for mod in PUMPS:
        if not getattr(a, mod, 0):
            continue
        # steps f and g: the pump's reference, the call, and the text through V.42bis
        sh = a.icount_shift if a.clock == "virtual" else 0
        n = pump_nbytes(a.nbytes, mod, getattr(a, "pump_nbytes", 0))
        pieces.append(runner.Piece.make("b2b", a.kernel, "b2b-" + mod, nbytes=n,
                                        b2b=str(B2B), mod=mod))
        pieces.append(runner.Piece.make(
            "call", a.kernel, "%s-%s" % (a.clock, mod), clock=a.clock, tag=mod, context="thr",
            load_us=0, spin=False, idle_s=0, nbytes=n, shift=sh, raw=str(raw),
            module=str(ko), smline=str(a.smline), mod=mod))
        if a.text_bytes:
            pieces.append(runner.Piece.make(
                "call", a.kernel, "%s-%s-text" % (a.clock, mod), clock=a.clock, tag=mod + "-text",
                context="thr", load_us=0, spin=False, idle_s=0, nbytes=a.text_bytes, shift=sh,
                raw=str(raw), module=str(ko), smline=str(a.smline), text=True, mod=mod))
    return pieces


PATHS = ("b2b", "module", "smline", "raw")


def script_digest():
    """The guest side of a call, by content: modem_calls.sh and chat.sh."""
    return runner.digest(GUEST_SCRIPT, GUEST_CHAT)


def settings(piece):
    """What a piece's figures depend on (programs by content): its digest."""
    files = {k: resume.file_digest(v) for k, v in piece.settings if k in PATHS and k != "raw"}
    if piece.kind == "call":
        files["script"] = script_digest()
        if SMODEMD.is_file():
            files["smodemd"] = resume.file_digest(SMODEMD)
    return runner.digest(piece.kind, piece.kernel, SMODEM_ARGS, files,
                         {k: v for k, v in piece.settings if k not in PATHS})


def run_piece(piece):
    """The reference or one call (a function of this module, so that a Dask
    worker imports it by name)."""
    if piece.kind == "b2b":
        if piece.get("mod"):
            return run_b2b(piece.get("nbytes"), piece.get("b2b"), piece.get("mod"))
        return run_b2b(piece.get("nbytes"), piece.get("b2b"))
    clk, tag, ctx, load, spin, idle = (piece.get(k) for k in (
        "clock", "tag", "context", "load_us", "spin", "idle_s"))
    log("%s clock: call %s (context %s, load_us=%d%s%s)"
        % (clk, tag, ctx, load, ", spinning competitor" if spin else "",
           ", %d s idle line first" % idle if idle else ""))
    extra = {"text": True} if piece.get("text") else {}
    if piece.get("mod"):
        extra["mod"] = piece.get("mod")
    c = one_call(clk, tag, ctx, load, spin, idle, Path(piece.get("raw")), piece.get("nbytes"),
                 piece.kernel, Path(piece.get("module")), Path(piece.get("smline")), piece.get("shift"),
                 **extra)
    if (c.get("boot") or {}).get("timed_out"):
        raise runner.PieceFailed("the guest timed out (%s)" % failure(c))
    return c


def _contexts(text):
    return contexts.parse(text, allowed=CONTEXTS, none_ok=True)


def main(argv=None):
    from smlab.guest import available_kernels, default_kernel
    kernels = available_kernels()
    ap = cli.parser(__doc__)
    opt = (lambda *a, **kw: cli.env_option(ap, *a, **kw))
    opt("--kernel", "KERNEL", default_kernel(), str,
        "guest kernel (an installed Debian flavour)", choices=kernels)
    opt("--clock", "CLOCK", "virtual", str, "the main clock: virtual (D-Bus line, "
        "instruction-counted) or real (JACK)", choices=["virtual", "real"])
    opt("--icount-shift", "ICOUNT_SHIFT", 0, cli.int_range(0, 10),
        "virtual clock: 2^N ns of guest time per instruction")
    opt("--nbytes", "NBYTES", 4096, cli.positive_int, "bytes each way in every call")
    opt("--text-bytes", "TEXT_BYTES", 16384, cli.nonneg_int,
        "bytes of text each way in step e's V.42bis call (0: no step e)")
    opt("--contexts", "CONTEXTS", " ".join(CONTEXTS), _contexts,
        "contexts of step c, space-separated, or none")
    opt("--load-us", "LOAD_US", 1840, cli.nonneg_int, "load_us of the contexts' calls")
    opt("--idle-s", "IDLE_S", 20, cli.nonneg_int,
        "seconds of idle line before the virtual-clock reference call")
    opt("--other-clock", "OTHER_CLOCK", 1, cli.int_range(0, 1),
        "1: the reference call once more on the other clock; 0: skip it")
    opt("--v32bis", "V32BIS", 1, cli.int_range(0, 1),
        "1: step f, V.32bis at 14400 (its reference, the call, the text); 0: skip it")
    opt("--v34", "V34", 1, cli.int_range(0, 1),
        "1: step g, V.34 (its reference, the call, the text); 0: skip it")
    opt("--pump-nbytes", "PUMP_NBYTES", 0, cli.nonneg_int,
        "bytes each way in the random-data calls of steps f and g (0: NBYTES x the pump's "
        "top rate / 2400, as many seconds of line time as NBYTES at 2400 bit/s)")
    opt("--jobs", "JOBS", 1, cli.int_range(1, 64),
        "pieces at a time (more than 1 changes the wall-clock figures)")
    opt("--scheduler", "SCHEDULER", None, str,
        "a Dask scheduler (tcp://host:8786) whose workers run the calls (make lab-worker)")
    opt("--out", "BENCH_OUT", str(TOP / "out"), str,
        "output directory (bench-modem.json, bench-modem.md, bench-modem/)")
    opt("--module", "MODULE", None, str, "smodem.ko (default: build/<kernel>/smodem.ko)")
    opt("--smline", "SMLINE", str(SMLINE), str, "the line program")
    ap.add_argument("--force", action="store_true", help="run every piece again")
    a = ap.parse_args(argv)
    if a.kernel is None:
        ap.error("no 6.1 generic kernel installed: give --kernel (make deps)")
    kver, clock, shift, nbytes = a.kernel, a.clock, a.icount_shift, a.nbytes
    contexts, load_us = a.contexts, a.load_us
    base = Path(a.out)
    raw = base / "bench-modem"
    ko = Path(a.module or TOP / "build" / kver / "smodem.ko")
    smline = Path(a.smline)
    need = [(ko, "make module KVER=%s" % kver), (smline, "make line"), (B2B, "make line")]
    if "usr" in contexts:
        need.append((SMODEMD, "make smodemd"))
    for f, hint in need:
        if not f.is_file():
            ap.error("%s missing: %s" % (f, hint))
    record = raw / "record.jsonl"
    if a.force:
        subprocess.run(["rm", "-rf", str(raw)], check=True)
    t0 = time.monotonic()
    pieces = plan(a, ko, raw.resolve())
    log("%s, main clock %s, %d bytes each way, contexts %s, load_us=%d; %d pieces, %s"
        % (kver, clock, nbytes, " ".join(contexts) or "none", load_us, len(pieces),
           a.scheduler or "%d at a time" % a.jobs))

    def said(piece, figs):
        if piece.kind == "b2b":
            log("    %s: %.1f B/s caller->answerer, %.1f B/s answerer->caller"
                % (piece.key, figs["to_answer_Bps"], figs["to_caller_Bps"]))
    rep = runner.run(pieces, run_piece, record, settings, jobs=a.jobs, retries=1,
                     scheduler=a.scheduler, say=log, on_result=said)
    b2b = rep.figures.get("b2b", {})
    calls = {(x.get("clock"), x.get("tag")): rep.figures[x.key]
             for x in pieces if x.kind == "call" and x.key in rep.figures}
    missing = sorted(rep.missing.items())
    notes = ["%s missing: %s (run again to retry it)" % kw for kw in missing]
    r = calls.get(("real", "clean"))
    if r is not None and not call_ok(r):
        notes.append("the real-time call over JACK did not move its data intact (%s). "
                     "Real-time TCG on this shared 2-core machine loses time; see "
                     "tests/module/call_real.py." % failure(r))
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "kernel": kver,
            "clock": clock, "icount_shift": shift, "nbytes": nbytes, "load_us": load_us,
            "smodem_args": SMODEM_ARGS, "route": route(nbytes), "raw": str(raw),
            "notes": notes}
    # each pump's reference once more over the round trip its call measured
    # (not a piece: it depends on the call, and takes b2b a few seconds)
    b2b_path = {}
    for m in PUMPS:
        rtd = call_rtd_ms(calls.get((clock, m)), m)
        if getattr(a, m, 0) and rtd is not None:
            d = max(0.0, (rtd - B2B_RTD_MS) / 2)
            try:
                b2b_path[m] = run_b2b(pump_nbytes(nbytes, m, a.pump_nbytes), B2B, m, d)
            except (subprocess.SubprocessError, ValueError, IndexError) as e:
                notes.append("b2b --mod %s --delay %.1f failed: %s" % (m, d, e))
                continue
            log("    b2b-%s over the call's %.1f ms round trip: %.1f / %.1f B/s"
                % (m, rtd, b2b_path[m].get("to_answer_stream_Bps") or 0,
                   b2b_path[m].get("to_caller_stream_Bps") or 0))
    report = build_report(meta, b2b, calls, clock, contexts,
                          b2b_pumps={m: rep.figures.get("b2b-" + m) for m in PUMPS
                                     if getattr(a, m, 0)}, b2b_path=b2b_path)
    report["wall_s"] = round(time.monotonic() - t0, 1)
    base.mkdir(parents=True, exist_ok=True)
    (base / "bench-modem.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    md = markdown(report)
    (base / "bench-modem.md").write_text(md)
    print()
    print(md)
    log("wrote %s and %s in %.0f s" % (base / "bench-modem.json", base / "bench-modem.md",
                                        report["wall_s"]))
    return 1 if missing else 0


if __name__ == "__main__":
    # run_piece by this module's name, not __main__'s, for a Dask worker
    import bench_modem
    sys.exit(bench_modem.main())
