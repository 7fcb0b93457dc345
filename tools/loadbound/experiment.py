#!/usr/bin/env python3
"""make loadbound: the load-bound study's experiment 1 on the modem (issue 13).

For each kernel and each context (plus `control`: no module, the base
system's own interference, the study's Fig. 4) one guest boot on the
instruction-counted clock: insmod smodem.ko context=C hw=ac97 engine=0
load_us=LOAD_US, lbprobe (tools/loadbound/probe.c) at SCHED_FIFO PRIO below
the modem's work (its thread is SCHED_FIFO 50, a SCHED_DEADLINE reservation
is above every FIFO priority) for DURATION seconds, then, where the kernel
has it, the osnoise tracer for as long on the same CPU at the same priority.
Boots run JOBS at a time.  Each trace is analysed with loadbound.py
(demand on the 10 us..1 s grid, the hyperbolic fit, the analytical bound of a
periodic task with the processing's (e, p) beside it); writes OUT/summary.json,
OUT/table.md, OUT/<kernel>-<run>.png and the raw runs in OUT/runs/.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
sys.path.insert(0, str(HERE))
import loadbound as lb  # noqa: E402

from smlab.guest import available_kernels, run_guest  # noqa: E402

PERIOD_NS = 12_500_000


def env_default(var, default):
    return os.environ.get(var) or default


def build_probe(out):
    exe = out / "lbprobe"
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-s", "-o", str(exe),
                    str(HERE / "probe.c")], check=True)
    return exe


def default_kernels():
    have = available_kernels()
    gen = [k for k in have if re.match(r"6\.1\.\d+-\d+-amd64$", k)][:1]
    rt = [k for k in have if re.match(r"6\.1\.\d+-\d+-rt-amd64$", k)][:1]
    return gen + rt


def one_run(a, kver, ctx, probe, log):
    out = Path(a.out) / "runs" / kver / ctx
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    params = "hw=ac97 engine=0 load_us=%d %s" % (a.load_us, a.module_params)
    files = {"usr/bin/lbprobe": str(probe), "opt/lb/osnoise.sh": str(HERE / "osnoise.sh")}
    if ctx != "control":
        ko = TOP / "build" / kver / "smodem.ko"
        if not ko.is_file():
            raise RuntimeError("%s missing: make modules" % ko)
        files["opt/smodem/smodem.ko"] = str(ko)
    t = time.monotonic()
    log("%s %s: booting" % (kver, ctx))
    res = run_guest(kver, (HERE / "modem_run.sh").read_text(), str(out), clock="virtual",
                    audio="ac97", share="deferred", progress=False,
                    cmdline_extra=a.guest_append, timeout_s=a.timeout,
                    env={"LB_CONTEXT": ctx, "LB_PARAMS": params, "LB_PRIO": str(a.prio),
                         "LB_SECONDS": str(a.duration), "LB_OSNOISE": "1" if a.osnoise else "0"},
                    extra_files=files)
    wall = time.monotonic() - t
    r = out / "results"
    if not res.ok or not (r / "probe.txt").exists():
        err = (r / "error").read_text() if (r / "error").exists() else ""
        raise RuntimeError("%s %s: guest failed (rc=%s timed_out=%s) %s see %s"
                           % (kver, ctx, res.rc, res.timed_out, err.strip(), res.console))
    log("%s %s: done in %.0f s wall" % (kver, ctx, wall))
    return {"kernel": kver, "context": ctx, "dir": str(r), "wall_s": wall}


def stats_of(path):
    if not path.exists():
        return {}
    return dict(ln.split(None, 1) for ln in path.read_text().splitlines() if " " in ln)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--kernels", default=env_default("KERNELS", " ".join(default_kernels())),
                   help="kernels to boot [KERNELS]")
    p.add_argument("--contexts", default=env_default("CONTEXTS", "int dpc thr res"),
                   help="the module's contexts [CONTEXTS]; control always runs too")
    p.add_argument("--duration", type=float, default=float(env_default("DURATION", "5")),
                   help="seconds of probe per run [DURATION]")
    p.add_argument("--load-us", type=int, default=int(env_default("LOAD_US", "1840")),
                   help="load_us of the module [LOAD_US]")
    p.add_argument("--prio", type=int, default=int(env_default("PROBE_PRIO", "40")),
                   help="the probe's SCHED_FIFO priority [PROBE_PRIO]")
    p.add_argument("--module-params", default=env_default("MODULE_PARAMS", ""),
                   help="further insmod arguments [MODULE_PARAMS]")
    p.add_argument("--guest-append", default=env_default("GUEST_APPEND", "preempt=full"),
                   help="kernel command line extra [GUEST_APPEND]")
    p.add_argument("--jobs", type=int, default=int(env_default("JOBS", str(os.cpu_count() or 1))),
                   help="guests at a time [JOBS]")
    p.add_argument("--no-osnoise", dest="osnoise", action="store_false",
                   help="skip the osnoise tracer's second measurement")
    p.add_argument("--timeout", type=float, default=900, help="wall seconds per guest")
    p.add_argument("--out", default=env_default("LB_OUT", "out/loadbound"), help="[LB_OUT]")
    a = p.parse_args(argv)
    kernels = a.kernels.split()
    contexts = ["control"] + [c for c in a.contexts.split() if c != "control"]
    bad = [c for c in contexts if c not in ("control", "int", "dpc", "thr", "res")]
    if bad or not kernels or a.duration < 1.1 or a.jobs < 1:
        p.error("bad contexts %s / no kernels / duration below 1.1 s / jobs < 1" % bad)
    for k in kernels:
        if k not in available_kernels():
            p.error("kernel %s not installed (have %s)" % (k, " ".join(available_kernels())))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    probe = build_probe(out / "bin")
    t0 = time.monotonic()

    def log(m):
        print("[loadbound %4.0f s] %s" % (time.monotonic() - t0, m), flush=True)

    jobs = [(k, c) for k in kernels for c in contexts]
    log("%d guest runs, %d at a time, %.1f s of probe each" % (len(jobs), a.jobs, a.duration))
    runs, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(one_run, a, k, c, probe, log): (k, c) for k, c in jobs}
        for f in concurrent.futures.as_completed(futs):
            try:
                runs.append(f.result())
            except Exception as e:  # noqa: BLE001 - reported, the others go on
                failed.append({"kernel": futs[f][0], "context": futs[f][1], "error": str(e)})
                log("FAILED %s" % e)
            log("%d of %d runs finished" % (len(runs) + len(failed), len(jobs)))
    order = {(k, c): i for i, (k, c) in enumerate(jobs)}
    runs.sort(key=lambda r: order[(r["kernel"], r["context"])])

    grid = lb.window_grid(10_000, min(10**9, int(a.duration * 1e9 * 0.9)), 10)
    periodic = (a.load_us * 1000, PERIOD_NS) if a.load_us else None
    summaries = []
    for r in runs:
        d = Path(r["dir"])
        for meas in ("probe", "osnoise"):
            f = d / ("%s.txt" % meas)
            if not f.exists():
                continue
            try:
                tr = lb.read_trace(f)
                s = lb.analyse_trace(tr, grid, None if r["context"] == "control" else periodic)
            except lb.LoadBoundError as e:
                failed.append({"kernel": r["kernel"], "context": r["context"], "error": str(e)})
                continue
            s["name"] = "%s-%s%s" % (r["kernel"], r["context"], "" if meas == "probe" else "-osnoise")
            s["kernel"], s["context"], s["measure"] = r["kernel"], r["context"], meas
            s["wall_s"] = r["wall_s"]
            s["stats"] = stats_of(d / "stats.txt")
            png = out / ("%s.png" % s["name"])
            lb.plot(s, png, title="%s, %s: %s at SCHED_FIFO %s, load_us=%d" % (
                r["kernel"], r["context"], meas, tr.header.get("prio"), a.load_us))
            s["png"] = str(png)
            summaries.append(s)
    tab = lb.table(summaries)
    # the modem's own figure of its processing, per run
    extra = ["", "| run | processing avg (us) | where | periods | overruns | wall (s) |", "|---|---|---|---|---|---|"]
    for s in summaries:
        st = s["stats"]
        extra.append("| %s | %s | %s | %s | %s | %.0f |" % (
            s["name"], "%.1f" % (int(st["proc_ns_avg"]) / 1e3) if "proc_ns_avg" in st else "-",
            st.get("exec", "-"), st.get("periods", "-"), st.get("overruns", "-"), s["wall_s"]))
    tab += "\n".join(extra) + "\n"
    if failed:
        tab += "\nFAILED:\n" + "".join("- %s %s: %s\n" % (x["kernel"], x["context"], x["error"]) for x in failed)
    (out / "table.md").write_text(tab)
    (out / "summary.json").write_text(json.dumps({
        "clock": "virtual", "icount_shift": 0, "duration_s": a.duration, "load_us": a.load_us,
        "probe_prio": a.prio, "guest_append": a.guest_append, "module_params": a.module_params,
        "runs": summaries, "failed": failed, "wall_s": time.monotonic() - t0}, indent=1) + "\n")
    sys.stdout.write(tab)
    log("wrote %s/{summary.json,table.md,*.png}" % out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
