#!/usr/bin/env python3
"""Benchmarks of the module itself (numbers, not pass/fail), one guest boot:

  - ISR top-half cost for dpc/thr/res (median, max), int for reference;
  - interrupt-to-processing latency per context (median, p99, max);
  - trace overhead: processing and ISR time with the smodem events on vs off,
    same boot, same context.

Writes OUT/bench-module.json (make bench-module: out/) and prints a table;
the guest's raw files go to OUT/bench-module/.  Every option defaults to the
variable in brackets when that is set (--help).
"""
import json
import sys
from pathlib import Path

import smtrace
from smlab import cli
from smlab.guest import available_kernels, default_kernel, run_guest

TOP = Path(__file__).resolve().parents[1]

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


def main(argv=None):
    kernels = available_kernels()
    ap = cli.parser(__doc__)
    cli.env_option(ap, "--kernel", "KERNEL", default_kernel(), str,
                   "guest kernel (an installed Debian flavour)", choices=kernels)
    cli.env_option(ap, "--clock", "CLOCK", "virtual", str,
                   "virtual: instruction-counted; real: real-time TCG",
                   choices=["virtual", "real"])
    cli.env_option(ap, "--icount-shift", "ICOUNT_SHIFT", 0, cli.int_range(0, 10),
                   "virtual clock: 2^N ns of guest time per instruction")
    cli.env_option(ap, "--seconds", "BENCH_SECONDS", 5, cli.positive_int,
                   "seconds per measurement")
    cli.env_option(ap, "--out", "BENCH_OUT", "out", str,
                   "output directory (bench-module.json, bench-module/)")
    cli.env_option(ap, "--module", "MODULE", None, str,
                   "smodem.ko (default: build/<kernel>/smodem.ko)")
    a = ap.parse_args(argv)
    if a.kernel is None:
        ap.error("no 6.1 generic kernel installed: give --kernel (make deps)")
    kver, clock, shift, secs = a.kernel, a.clock, a.icount_shift, a.seconds
    ko = Path(a.module or TOP / "build" / kver / "smodem.ko")
    if not ko.is_file():
        ap.error("%s missing: make module KVER=%s" % (ko, kver))
    out = Path(a.out) / "bench-module"
    out.mkdir(parents=True, exist_ok=True)
    print("bench-module: %s, clock=%s shift=%d, %d s per measurement"
          % (kver, clock, shift, secs), flush=True)
    res = run_guest(kver, GUEST % {"contexts": " ".join(CONTEXTS), "secs": secs},
                    str(out), modules=[str(ko)],
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
