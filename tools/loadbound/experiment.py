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
periodic task with the processing's (e, p) beside it; each run also less its
kernel's control run, window by window: the study's subtraction); a boot
whose results are there with the same settings (module, probe and script
included) is not run again unless --force; writes OUT/summary.json,
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
from smlab.resume import file_digest  # noqa: E402

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
    """6.1 generic and PREEMPT_RT, 6.12 generic and PREEMPT_RT: those installed."""
    have = available_kernels()
    out = []
    for pat in (r"6\.1\.\d+-\d+-amd64$", r"6\.1\.\d+-\d+-rt-amd64$",
                r"6\.12\.\d+\S*-amd64$", r"6\.12\.\d+\S*-rt-amd64$"):
        out += [k for k in have if re.match(pat, k) and (("-rt-" in k) == ("rt" in pat))][:1]
    return out


def run_name(kver, ctx, load_us, loads):
    """kernel-context, with -loadN when several loads are measured and this
    is not the first one."""
    if ctx == "control" or load_us == loads[0]:
        return "%s-%s" % (kver, ctx)
    return "%s-%s-load%d" % (kver, ctx, load_us)


def finished_run(out, settings, force, marker):
    """Resuming: OUT holds a finished run of exactly these settings."""
    stamp = out / "settings.json"
    return (not force and stamp.exists() and json.loads(stamp.read_text()) == settings
            and (out / "results" / marker).exists())


def one_run(a, kver, ctx, load_us, name, probe, log):
    out = Path(a.out) / "runs" / name
    params = "hw=ac97 engine=0 load_us=%d %s" % (load_us, a.module_params)
    files = {"usr/bin/lbprobe": str(probe), "opt/lb/osnoise.sh": str(HERE / "osnoise.sh")}
    if ctx != "control":
        ko = TOP / "build" / kver / "smodem.ko"
        if not ko.is_file():
            raise RuntimeError("%s missing: make modules" % ko)
        files["opt/smodem/smodem.ko"] = str(ko)
    st = {"kernel": kver, "context": ctx, "params": params, "prio": a.prio, "seconds": a.duration,
          "osnoise": a.osnoise, "guest_append": a.guest_append,
          "files": {k: file_digest(v) for k, v in sorted(files.items())},
          "script": file_digest(HERE / "modem_run.sh")}
    done = {"kernel": kver, "context": ctx, "load_us": load_us, "name": name, "dir": str(out / "results")}
    if finished_run(out, st, a.force, "probe.txt"):
        log("%s: results there, not run again" % name)
        return dict(done, wall_s=float((out / "wall_s").read_text()))
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    t = time.monotonic()
    log("%s: booting" % name)
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
    (out / "settings.json").write_text(json.dumps(st, indent=1) + "\n")
    (out / "wall_s").write_text("%.1f\n" % wall)
    log("%s: done in %.0f s wall" % (name, wall))
    return dict(done, wall_s=wall)


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
    p.add_argument("--load-us", default=env_default("LOAD_US", "1840"),
                   help="load_us of the module; several (e.g. '1840 0': 0 is the data pump "
                   "alone) measure each [LOAD_US]")
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
    p.add_argument("--force", action="store_true", default=bool(os.environ.get("FORCE")),
                   help="run every boot again, even one whose results are there with the same settings [FORCE]")
    p.add_argument("--out", default=env_default("LB_OUT", "out/loadbound"), help="[LB_OUT]")
    a = p.parse_args(argv)
    kernels = a.kernels.split()
    contexts = ["control"] + [c for c in a.contexts.split() if c != "control"]
    # any context= the module has (int dpc thr res, oth where it exists)
    bad = [c for c in contexts if not re.fullmatch(r"[a-z]+", c)]
    try:
        loads = [int(x) for x in a.load_us.split()]
    except ValueError:
        loads = []
    if bad or not kernels or not loads or a.duration < 1.1 or a.jobs < 1:
        p.error("bad contexts %s / no kernels / bad --load-us / duration below 1.1 s / jobs < 1"
                % bad)
    for k in kernels:
        if k not in available_kernels():
            p.error("kernel %s not installed (have %s)" % (k, " ".join(available_kernels())))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    probe = build_probe(out / "bin")
    t0 = time.monotonic()

    def log(m):
        print("[loadbound %4.0f s] %s" % (time.monotonic() - t0, m), flush=True)

    jobs = [(k, c, ld, run_name(k, c, ld, loads)) for k in kernels for c in contexts
            for ld in (loads if c != "control" else loads[:1])]
    log("%d guest runs, %d at a time, %.1f s of probe each: %s" % (
        len(jobs), a.jobs, a.duration, " ".join(n for _, _, _, n in jobs)))
    runs, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(one_run, a, k, c, ld, n, probe, log): (k, n) for k, c, ld, n in jobs}
        for f in concurrent.futures.as_completed(futs):
            try:
                runs.append(f.result())
            except Exception as e:  # noqa: BLE001 - reported, the others go on
                failed.append({"kernel": futs[f][0], "context": futs[f][1], "error": str(e)})
                log("FAILED %s" % e)
            log("%d of %d runs finished" % (len(runs) + len(failed), len(jobs)))
    order = {n: i for i, (_, _, _, n) in enumerate(jobs)}
    runs.sort(key=lambda r: order[r["name"]])

    grid = lb.window_grid(10_000, min(10**9, int(a.duration * 1e9 * 0.9)), 10)
    summaries = []
    for r in runs:
        d = Path(r["dir"])
        for meas in ("probe", "osnoise"):
            f = d / ("%s.txt" % meas)
            if not f.exists():
                continue
            try:
                tr = lb.read_trace(f)
                periodic = (r["load_us"] * 1000, PERIOD_NS) if r["load_us"] else None
                s = lb.analyse_trace(tr, grid, None if r["context"] == "control" else periodic)
            except lb.LoadBoundError as e:
                failed.append({"kernel": r["kernel"], "context": r["context"], "error": str(e)})
                continue
            s["name"] = r["name"] + ("" if meas == "probe" else "-osnoise")
            s["kernel"], s["context"], s["measure"] = r["kernel"], r["context"], meas
            s["load_us"] = None if r["context"] == "control" else r["load_us"]
            s["wall_s"] = r["wall_s"]
            s["stats"] = stats_of(d / "stats.txt")
            s["title"] = "%s, %s: %s at SCHED_FIFO %s, load_us=%d" % (
                r["kernel"], r["context"], meas, tr.header.get("prio"), r["load_us"])
            summaries.append(s)
    # the study's subtraction: each run less its kernel's run without the
    # module, measured the same way
    base = {(s["kernel"], s["measure"]): s for s in summaries if s["context"] == "control"}
    for s in summaries:
        if s["context"] != "control" and (s["kernel"], s["measure"]) in base:
            lb.subtract_baseline(s, base[(s["kernel"], s["measure"])])
        png = out / ("%s.png" % s["name"])
        lb.plot(s, png, title=s.pop("title"))
        s["png"] = str(png)
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
        "clock": "virtual", "icount_shift": 0, "duration_s": a.duration, "load_us": loads,
        "probe_prio": a.prio, "guest_append": a.guest_append, "module_params": a.module_params,
        "runs": summaries, "failed": failed, "wall_s": time.monotonic() - t0}, indent=1) + "\n")
    sys.stdout.write(tab)
    log("wrote %s/{summary.json,table.md,*.png}" % out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
