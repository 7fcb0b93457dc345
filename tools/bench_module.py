#!/usr/bin/env python3
"""Benchmarks of the module itself (numbers, not pass/fail), one guest boot:

  - ISR top-half cost for dpc/thr/res (median, max), int for reference;
  - interrupt-to-processing latency per context (median, p99, max);
  - trace overhead: processing and ISR time with the smodem events on vs off,
    same boot, same context.

Writes OUT/bench-module.json and prints a table.  Environment: KERNEL, CLOCK
(virtual|real), ICOUNT_SHIFT, BENCH_SECONDS (per measurement, default 5), OUT.
"""
import json
import os
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TOP / "tools" / "lab"), str(TOP / "tools" / "analysis")]

import smtrace  # noqa: E402
from smlab.guest import available_kernels, run_guest  # noqa: E402

CONTEXTS = ["int", "dpc", "thr", "res"]

GUEST = r"""
set -u
K=/opt/smodem/smodem.ko
mkdir -p /tmp/r
for c in %(contexts)s; do
    echo "[guest] $c"
    insmod $K context=$c
    sleep 1
    d=$(ls -d /sys/kernel/debug/smodem/*/)
    echo 1 > ${d}reset; sleep %(secs)s; cat ${d}stats > /tmp/r/$c-off.stats
    trace-cmd start -e smodem -b 8192 >/dev/null 2>&1
    echo 1 > ${d}reset; sleep %(secs)s; cat ${d}stats > /tmp/r/$c-on.stats
    trace-cmd stop; trace-cmd extract -o /tmp/r/$c.dat >/dev/null 2>&1
    trace-cmd reset >/dev/null 2>&1
    rmmod smodem
done
cp -r /tmp/r /share/
"""


def main():
    kernels = available_kernels()
    kver = os.environ.get("KERNEL") or next(
        k for k in kernels if k.startswith("6.1.") and "-rt-" not in k)
    clock = os.environ.get("CLOCK", "virtual")
    shift = int(os.environ.get("ICOUNT_SHIFT", "0"))
    secs = int(os.environ.get("BENCH_SECONDS", "5"))
    out = Path(os.environ.get("OUT", "out")) / "bench-module"
    out.mkdir(parents=True, exist_ok=True)
    print("bench-module: %s, clock=%s shift=%d, %d s per measurement"
          % (kver, clock, shift, secs), flush=True)
    res = run_guest(kver, GUEST % {"contexts": " ".join(CONTEXTS), "secs": secs},
                    str(out), modules=[str(TOP / "build" / kver / "smodem.ko")],
                    clock=clock, icount_shift=shift, timeout_s=600)
    if not res.ok:
        sys.exit("bench-module: guest failed (rc=%s), see %s" % (res.rc, res.console))
    r = out / "r"
    table = {}
    for c in CONTEXTS:
        off = smtrace.stats((r / (c + "-off.stats")).read_text())
        on = smtrace.stats((r / (c + "-on.stats")).read_text())
        ev = smtrace.events(r / (c + ".dat"))
        isr = smtrace.summarize([e.fields["elapsed_ns"] for e in ev
                                 if e.name == "smodem_isr_exit"])
        if c == "dpc":
            lat = [e.fields["delay_ns"] for e in ev if e.name == "smodem_dpc_entry"]
        elif c in ("thr", "res"):
            lat = [e.fields["latency_ns"] for e in ev
                   if e.name == "smodem_thread_wakeup"]
        else:
            lat = []
        # A whole activation of the context, tracepoints included.
        run = {"int": "isr_ns", "dpc": "dpc_ns"}.get(c, "thr_ns")
        table[c] = {
            "run_stat": run,
            "run_ns_avg_trace_off": off[run + "_avg"],
            "run_ns_avg_trace_on": on[run + "_avg"],
            "trace_overhead_pct": round(100.0 * (on[run + "_avg"] - off[run + "_avg"])
                                        / max(1, off[run + "_avg"]), 1),
            "isr_ns": isr,
            "irq_to_processing_ns": smtrace.summarize(lat) if lat else
            {"note": "processing runs inside the handler", "avg": off["wake_ns_avg"]},
            "proc_ns_avg_trace_off": off["proc_ns_avg"],
            "proc_ns_avg_trace_on": on["proc_ns_avg"],
            "isr_ns_avg_trace_off": off["isr_ns_avg"],
            "isr_ns_avg_trace_on": on["isr_ns_avg"],
        }
    summary = {"kernel": kver, "clock": clock, "icount_shift": shift,
               "seconds_per_measurement": secs, "contexts": table}
    (out.parent / "bench-module.json").write_text(json.dumps(summary, indent=2) + "\n")

    print("\n%-4s %11s %11s %14s %14s %12s %12s %9s" % (
        "ctx", "isr p50 ns", "isr max ns", "irq->proc p50", "irq->proc max",
        "run off ns", "run on ns", "trace +%"))
    for c in CONTEXTS:
        t = table[c]
        lat = t["irq_to_processing_ns"]
        print("%-4s %11s %11s %14s %14s %12s %12s %9s" % (
            c, t["isr_ns"]["p50"], t["isr_ns"]["max"], lat.get("p50", "-"),
            lat.get("max", "-"), t["run_ns_avg_trace_off"], t["run_ns_avg_trace_on"],
            t["trace_overhead_pct"]))
    print("(run = one activation of the context: ISR for int, BH for dpc, "
          "thread wakeup for thr/res; trace on = all smodem events enabled)")
    print("\nwrote %s" % (out.parent / "bench-module.json"))


if __name__ == "__main__":
    main()
