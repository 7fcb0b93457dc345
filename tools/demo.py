#!/usr/bin/env python3
"""make demo: boot a guest with the AC'97 controller (joined to a host JACK
server with CLOCK=real, the default here; instruction-counted with
CLOCK=virtual), load smodem.ko in each context in turn next to the study's
1 ms periodic task and spinning competitor, and write a report beside the
study's own figures: out/demo/report.md (+ the comparison's PNGs and JSON).

Environment as for make compare (CONTEXTS, DURATION, LOAD_US, KERNEL, CLOCK,
ICOUNT_SHIFT); OUT defaults to out/demo.
"""
import datetime
import json
import os
import shutil
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOP / "tools" / "lab"))

from smlab import compare  # noqa: E402

# Max time between wakeups of the 1 ms timer callback, us (STUDY.md section 1).
STUDY_MAX_GAP_US = {"control": 1978, "int": 5313, "dpc": 4396, "thr": 2239, "res": 1971}
STUDY_LABEL = {"control": "no modem", "int": "INT", "dpc": "DPC",
               "thr": "THR pri 24", "res": "RES 2/8"}


def fmt(v, scale=1.0, digits=0):
    if v is None:
        return "-"
    return ("%%.%df" % digits) % (v / scale)


def report(summary, out):
    e0 = next(iter(summary.values()))
    p = e0["params"]
    lines = [
        "# smodem demo report",
        "",
        "Generated %s by `make demo`." % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
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
        "## The 1 ms periodic task beside the modem",
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
        "## The modem's own timings",
        "",
        "```",
        compare.table(summary),
        "```",
        "",
    ]
    for fig in e0.get("figures", []):
        lines += ["![%s](%s)" % (fig, fig), ""]
    lines += ["Raw data: `summary.json`, per-context `trace.dat` (open with kernelshark or "
              "`trace-cmd report`)."]
    (out / "report.md").write_text("\n".join(lines) + "\n")


def main():
    env = dict(os.environ)
    env.setdefault("CLOCK", "real")
    if env.get("OUT", "out/compare") == "out/compare":
        env["OUT"] = "out/demo"
    out = Path(env["OUT"])
    rc = compare.main([], env=env)
    summary = json.loads((out / "summary.json").read_text())
    report(summary, out)
    print("demo: report in %s" % (out / "report.md"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
