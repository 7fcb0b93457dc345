#!/usr/bin/env python3
"""make demo: the modem end to end, then the study's comparison.

1. A call: boot a guest with smodem.ko (engine=1), dial smline's answering
   modem (V.34 + V.42 by default, AT+MS=V34: the rate its line probing
   chooses; DEMO_MOD=v32bis or v22bis for the older pumps) from
   /dev/ttySM0, move a file each way at once,
   escape and hang up (tools/guest/modem_calls.sh, as make bench-modem).
   CLOCK=virtual (the default): the AC'97 reaches smline through QEMU's
   D-Bus audio on the instruction-counted clock, so the call is the same on
   every run; CLOCK=real: through a JACK server in real time.
2. The contexts comparison (make compare): control and each context with the
   study's 1 ms periodic task and spinning competitor.
3. A report: OUT/report.md and OUT/report.json (the call's record, its phase
   timeline from the trace and smline's record, the comparison beside the
   study's figures), next to the comparison's summary.json and PNGs.

Options (--help) as for make compare (CONTEXTS, DURATION, LOAD_US, KERNEL,
CLOCK, ICOUNT_SHIFT, ...), each defaulting to its variable when that is set;
OUT defaults to out/demo; DEMO_CONTEXT (thr), DEMO_MOD (v34) and DEMO_BYTES
(4096) for the call; DEMO_CALL=0 or DEMO_COMPARE=0 skip a part.
"""
import datetime
import json
import os
import sys
import time
from pathlib import Path

import bench_modem    # tools/bench_modem.py, beside this script
from smlab import cli, compare

# Max time between wakeups of the 1 ms timer callback, us (the soft-modem study; doc/studies.md).
STUDY_MAX_GAP_US = {"control": 1978, "int": 5313, "dpc": 4396, "thr": 2239, "res": 1971}
STUDY_LABEL = {"control": "no modem", "int": "INT", "dpc": "DPC",
               "thr": "THR pri 24", "res": "RES 2/8",
               "usr": "none: its future work, upcalls"}


def fmt(v, scale=1.0, digits=0):
    if v is None:
        return "-"
    return ("%%.%df" % digits) % (v / scale)


# -- the call --------------------------------------------------------------------
def timeline(call):
    """One list of (seconds since off-hook, where, what): the guest's traced
    phases (their clock) and smline's call events (line samples)."""
    rows = []
    phases = call.get("phases") or []
    t0 = next((p["t_s"] for p in phases if p["phase"] == "off-hook"), None)
    if t0 is not None:
        for p in phases:
            what = p["phase"]
            if what == "connected" and p.get("arg"):
                what += " %s bit/s" % p["arg"]
            elif p.get("arg") and what not in ("hung-up", "on-hook"):
                what += " (%s)" % p["arg"]
            rows.append((round(p["t_s"] - t0, 3), "modem (trace)", what))
    rec = call.get("record") or {}
    start = rec.get("start_sample")
    if start is not None:
        for e in rec.get("events") or []:
            rows.append((round((e["t"] - start) / 8000.0, 3), "line (smline)", e["event"]))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


# the far modem of each DEMO_MOD
FAR_NAME = {"v22bis": "SpanDSP's V.22bis", "v32bis": "our V.32bis (there is no other)",
            "v34": "our V.34 (there is no other)"}


def call_section(call, clock):
    rec = call.get("record") or {}
    ok = bool(call.get("data_ok") and call.get("expect_ok"))
    L = ["## A call", "",
         "The guest's `/dev/ttySM0` (smodem.ko `%s context=%s`) dials %s; smline answers "
         "with %s and SpanDSP's V.42 and sends %d bytes while it checks the %d the "
         "modem sends (both at once); `+++`, `ATH`. %s clock%s." % (
             bench_modem.SMODEM_ARGS, (call.get("stats") or {}).get("context", "?"),
             bench_modem.NUMBER, FAR_NAME.get(call.get("mod"), "SpanDSP's V.22bis"),
             call["nbytes"], call["nbytes"],
             clock.capitalize(), " (QEMU's D-Bus audio, instruction-counted: the same call "
             "on every run)" if clock == "virtual" else " (JACK)"),
         "",
         "| | |", "|---|---|",
         "| result | %s |" % ("**%s**, data intact both ways" % rec.get("result")
                              if ok else "**FAILED**: %s" % bench_modem.failure(call)),
         "| link | %s %s bit/s%s |" % (rec.get("modulation", "-"), rec.get("rate", "-"),
                                     ", V.42 LAPM" if rec.get("v42") else ""),
         "| set-up: off-hook to data (line) / ATD to CONNECT (DTE) | %s s / %s s |" % (
             rec.get("setup_s", "-"), call.get("dte_dial_to_connect_s", "-")),
         "| transfer, both ways done (line) | %s s |" % rec.get("transfer_s", "-"),
         "| modem -> line / line -> modem | %s / %s bytes/s |" % (
             call.get("from_modem_Bps", "-"), call.get("to_modem_Bps", "-")),
         "| bytes to / from the modem (CRC-32) | %s (%s) / %s (%s) |" % (
             rec.get("bytes_to_modem", "-"), rec.get("crc32_to_modem", "-"),
             rec.get("bytes_from_modem", "-"), rec.get("crc32_from_modem", "-")),
         "| V.42 retransmissions, FCS errors | %s, %s |" % (
             call.get("retransmissions", "-"), call.get("far_fcs_errors", "-")),
         "| overruns, max samples pending (ring 8192) | %s, %s |" % (
             call.get("overruns", "-"), (call.get("stats") or {}).get("pending_max", "-")),
         "| call, off-hook to on-hook | %s s of line time%s |" % (
             rec.get("duration_s", "-"),
             ", %s s of wall time from ATD to ATH" % call["call_wall_s"]
             if call.get("call_wall_s") is not None else ""),
         "", "The `+++` of the escape reaches the far end as data (3 bytes more from the "
         "modem), as with any Hayes modem.", "",
         "### Timeline (seconds since off-hook)", "",
         "| t (s) | where | what |", "|---|---|---|"]
    for t, where, what in timeline(call):
        L.append("| %.3f | %s | %s |" % (t, where, what))
    L += ["", "The modem's phases come from its `smodem_phase` tracepoint (`%s`), the line's "
          "from smline's call record (`call/calls.jsonl`)." % call.get("trace", "call/results/demo.dat"),
          ""]
    return L


# -- the comparison ------------------------------------------------------------------
def compare_section(summary):
    e0 = next(iter(summary.values()))
    p = e0["params"]
    lines = [
        "## The contexts beside the study's figures",
        "",
        "- kernel: %s; clock: %s%s; uniprocessor guest" % (
            e0["kernel"], e0["clock"],
            " (icount shift %s)" % e0["icount_shift"] if e0["clock"] == "virtual" else
            " (real-time TCG, AC'97 on the JACK backend)"),
        "- module: `load_us=%s` (emulated processing per 12.5 ms period; the study's pump cost "
        "1.84 ms), ring 512, period 100 samples at 8 kHz" % p.get("load_us"),
        "- in every run: a normal-priority spinning process (the study's competitor) and "
        "`cyclictest -m -p 95 -i 1000` for %s s (the study's 1 ms timer callback)" % p.get("duration_s"),
        "",
        "### The 1 ms periodic task beside the modem",
        "",
        "| run | study: max gap between wakeups (us) | smodem: max gap (us) | cyclictest avg / p99 / max latency (us) | max samples pending | overruns |",
        "|---|---|---|---|---|---|",
    ]
    for ctx, e in summary.items():
        c = e.get("cyclictest") or {}
        t = e.get("trace") or {}
        pend = (t.get("pending_after_process") or {}).get("max")
        lines.append("| %s | %s (%s) | %s | %s / %s / %s | %s | %s |" % (
            ctx, STUDY_MAX_GAP_US.get(ctx, "-"), STUDY_LABEL.get(ctx, ctx),
            fmt(c.get("max_gap_us")), fmt(c.get("avg_us"), 1, 1), fmt(c.get("p99_us")),
            fmt(c.get("max_us")), fmt(pend) if t else "-",
            fmt(t.get("overruns")) if t else "-"))
    lines += [
        "",
        "The study's figures are from Windows 2000 on a 450 MHz Pentium II; compare the *order* of the "
        "contexts and their ratios to the control run, not the absolute values.",
        "",
        "### The modem's own timings",
        "",
        "```",
        compare.table(summary),
        "```",
        "",
    ]
    for fig in e0.get("figures", []):
        lines += ["![%s](%s)" % (fig, fig), ""]
    lines += ["Raw data: `summary.json`, per-context `trace.dat` (open with kernelshark or "
              "`trace-cmd report`).", ""]
    return lines


def report(out, clock, call=None, call_error=None, summary=None):
    lines = ["# smodem demo report", "",
             "Generated %s by `make demo` (CLOCK=%s)." % (
                 datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), clock), ""]
    if call is not None:
        lines += call_section(call, clock)
    elif call_error:
        lines += ["## A call", "", "The call could not run: %s" % call_error, ""]
    if summary:
        lines += compare_section(summary)
    (out / "report.md").write_text("\n".join(lines) + "\n")
    data = {"clock": clock, "call": call, "call_error": call_error,
            "timeline": [{"t_s": t, "where": w, "what": x} for t, w, x in timeline(call)]
            if call else None,
            "compare": summary}
    (out / "report.json").write_text(json.dumps(data, indent=1, default=str) + "\n")


def run_call(a, p, out):
    """The demo's call (options a, the comparison's parameters p); returns
    the analysed call (bench_modem.analyse_call)."""
    kver = p["kernel"]
    ko = Path(p["module"])
    smline = Path(a.smline)
    for f in (ko, smline):
        if not f.is_file():
            raise FileNotFoundError("%s missing (make module line)" % f)
    ctx = a.demo_context
    nbytes = a.demo_bytes
    clock = p["clock"]
    print("demo: [1/2] a call: %s, %s clock, context %s, %s, %d bytes each way"
          % (kver, clock, ctx, a.demo_mod, nbytes), flush=True)
    t = time.monotonic()
    run = bench_modem.run_boot(clock, ["call:demo:%s:0:0" % ctx], out / "call", nbytes,
                               kver, ko, smline, p["icount_shift"],
                               timeout_s=300, mod=a.demo_mod)
    call = bench_modem.analyse_boot(run, ["demo"], nbytes)["demo"]
    call["trace"] = os.path.relpath(run["results"] / "demo.dat", out)
    call["mod"] = a.demo_mod
    rec = call.get("record") or {}
    print("demo: call %s (%s %s), set-up %s s, transfer %s s, %s; %.0f s wall"
          % (rec.get("result", "no record"), rec.get("modulation"), rec.get("rate"),
             rec.get("setup_s"), rec.get("transfer_s"),
             "data ok" if bench_modem.call_ok(call) else "FAILED: " + bench_modem.failure(call),
             time.monotonic() - t), flush=True)
    return call


def main(argv=None):
    env = dict(os.environ)
    # make exports OUT=out/compare for make compare: the demo's is out/demo
    if env.get("OUT", "out/compare") == "out/compare":
        env["OUT"] = "out/demo"
    ap = cli.parser(__doc__)
    compare.add_arguments(ap, env, out="out/demo")
    g = ap.add_argument_group("the call")
    opt = (lambda *a, **kw: cli.env_option(ap, *a, env=env, group=g, **kw))
    # usr's call needs smodemd in the guest, which the call's script
    # (tools/guest/modem_calls.sh) does not start: not offered here
    opt("--demo-context", "DEMO_CONTEXT", "thr", str, "the call's context",
        choices=[c for c in compare.ALL_CONTEXTS if c != "usr"])
    opt("--demo-mod", "DEMO_MOD", "v34", str, "the far modem's modulation (the modem's +MS follows)",
        choices=sorted(bench_modem.AT_MS))
    opt("--demo-bytes", "DEMO_BYTES", 4096, cli.positive_int, "bytes each way")
    opt("--smline", "SMLINE", str(bench_modem.SMLINE), str, "the line program")
    opt("--call", "DEMO_CALL", 1, cli.int_range(0, 1), "0: skip the call")
    opt("--compare", "DEMO_COMPARE", 1, cli.int_range(0, 1), "0: skip the comparison")
    a = ap.parse_args(argv)
    p = compare.params(ap, a)
    out = Path(p["out"])
    out.mkdir(parents=True, exist_ok=True)
    rc = 0
    call = err = summary = None
    if a.call:
        try:
            call = run_call(a, p, out)
            if not bench_modem.call_ok(call):
                rc = 1
        except Exception as e:  # noqa: BLE001 - reported, the comparison still runs
            err = str(e)
            print("demo: the call failed: %s" % e, file=sys.stderr)
            rc = 1
    if a.compare:
        print("demo: [2/2] the contexts comparison", flush=True)
        rc = compare.run(p, no_control=a.no_control) or rc
        summary = json.loads((out / "summary.json").read_text())
    report(out, p["clock"], call, err, summary)
    print("demo: report in %s (and report.json)" % (out / "report.md"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
