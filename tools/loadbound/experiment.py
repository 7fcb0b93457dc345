#!/usr/bin/env python3
"""make loadbound: the load-bound study's experiment 1 on the modem.

For each kernel and each context (plus `control`: no module, the base
system's own interference, the study's Fig. 4) one guest boot on the
instruction-counted clock: insmod smodem.ko context=C hw=ac97 engine=0
load_us=LOAD_US, lbprobe (tools/loadbound/probe.c) at SCHED_FIFO PRIO below
the modem's work (its thread is SCHED_FIFO 50, a SCHED_DEADLINE reservation
is above every FIFO priority) for DURATION seconds, then, where the kernel
has it, the osnoise tracer for as long on the same CPU at the same priority.
Each boot's traces are analysed with loadbound.py where it ran (demand on
the 10 us..1 s grid, the hyperbolic fit, the analytical bound of a periodic
task with the processing's (e, p) beside it); here each run is also taken
less its kernel's control run, window by window (the study's subtraction).
The boots are pieces of smlab.runner: JOBS at a time here, or on a Dask
scheduler's workers (SCHEDULER); a boot recorded in OUT/record.jsonl with
the same settings (module, probe, guest script and loadbound.py by
content) is not run again unless --force; one whose guest failed (or whose
trace could not be analysed) is tried again once, then reported missing
(FAILED in the table, exit status 1), never recorded.  Writes
OUT/summary.json, OUT/table.md, OUT/<kernel>-<run>.png and the raw runs in
OUT/runs/.
"""
import argparse
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
sys.path.insert(0, str(HERE))
import loadbound as lb  # noqa: E402

from smlab import boots, cli, contexts, runner  # noqa: E402
from smlab.boots import env_default  # noqa: E402
from smlab.guest import available_kernels  # noqa: E402
from smlab.resume import file_digest  # noqa: E402

PERIOD_NS = 12_500_000


log = cli.logger("loadbound", elapsed=True)


def build_probe(out):
    return boots.build_static(HERE / "probe.c", out / "lbprobe")


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


def guest_files(kver, ctx, probe):
    """{guest path: host path} of one boot: the probe, the osnoise script
    and, but for control, the module."""
    files = {"usr/bin/lbprobe": str(probe), "opt/lb/osnoise.sh": str(HERE / "osnoise.sh")}
    if ctx != "control":
        files["opt/smodem/smodem.ko"] = str(TOP / "build" / kver / "smodem.ko")
    return files


def plan(a, kernels, contexts, loads, probe):
    """The boots as runner pieces, kernel by kernel, control first."""
    return [runner.Piece.make("loadbound", k, run_name(k, c, ld, loads), context=c, load_us=ld,
                              params="hw=ac97 engine=0 load_us=%d %s" % (ld, a.module_params),
                              prio=a.prio, seconds=a.duration, osnoise=a.osnoise,
                              guest_append=a.guest_append, timeout=a.timeout,
                              out=str(Path(a.out).resolve()),
                              probe=str(probe))
            for k in kernels for c in contexts for ld in (loads if c != "control" else loads[:1])]


def settings(piece):
    """What a boot's figures depend on (files by content): its digest."""
    files = guest_files(piece.kernel, piece.get("context"), piece.get("probe"))
    return runner.digest({
        "kernel": piece.kernel, "context": piece.get("context"), "params": piece.get("params"),
        "prio": piece.get("prio"), "seconds": piece.get("seconds"), "osnoise": piece.get("osnoise"),
        "guest_append": piece.get("guest_append"),
        "files": {k: file_digest(v) for k, v in sorted(files.items())},
        "script": file_digest(HERE / "modem_run.sh"), "analysis": file_digest(HERE / "loadbound.py")})


def run_piece(piece):
    """One boot and its traces analysed (a function of this module, so that a
    Dask worker imports it by name): {"measures": [summary per trace]}."""
    from smlab.guest import run_guest
    kver, ctx, load_us, name = piece.kernel, piece.get("context"), piece.get("load_us"), piece.key
    out = Path(piece.get("out")) / "runs" / name
    probe = Path(piece.get("probe"))
    if not probe.is_file():     # a worker without the coordinator's build
        build_probe(probe.parent)
    boots.fresh_dir(out)
    t = time.monotonic()
    log("%s: booting" % name)
    res = run_guest(kver, (HERE / "modem_run.sh").read_text(), str(out), clock="virtual",
                    audio="ac97", share="deferred", progress=False,
                    cmdline_extra=piece.get("guest_append"), timeout_s=piece.get("timeout"),
                    env={"LB_CONTEXT": ctx, "LB_PARAMS": piece.get("params"),
                         "LB_PRIO": str(piece.get("prio")), "LB_SECONDS": str(piece.get("seconds")),
                         "LB_OSNOISE": "1" if piece.get("osnoise") else "0"},
                    extra_files=guest_files(kver, ctx, probe))
    wall = time.monotonic() - t
    r = boots.results(res, out, "probe.txt", "%s %s" % (kver, ctx))
    log("%s: done in %.0f s wall" % (name, wall))
    grid = lb.window_grid(10_000, min(10**9, int(piece.get("seconds") * 1e9 * 0.9)), 10)
    measures = []
    for meas in ("probe", "osnoise"):
        f = r / ("%s.txt" % meas)
        if not f.exists():
            continue
        try:
            tr = lb.read_trace(f)
            periodic = (load_us * 1000, PERIOD_NS) if load_us else None
            s = lb.analyse_trace(tr, grid, None if ctx == "control" else periodic)
        except lb.LoadBoundError as e:
            raise runner.PieceFailed(str(e)) from None
        s["name"] = name + ("" if meas == "probe" else "-osnoise")
        s["kernel"], s["context"], s["measure"] = kver, ctx, meas
        s["load_us"] = None if ctx == "control" else load_us
        s["stats"] = stats_of(r / "stats.txt")
        s["title"] = "%s, %s: %s at SCHED_FIFO %s, load_us=%d" % (
            kver, ctx, meas, tr.header.get("prio"), load_us)
        measures.append(s)
    # the boot's wall time is the host's, not a figure of the boot
    return {"measures": measures, "host": {"wall_s": round(wall, 1)}}


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
    p.add_argument("--no-osnoise", dest="osnoise", action="store_false",
                   help="skip the osnoise tracer's second measurement")
    boots.add_run_options(p, timeout=900, out_var="LB_OUT", out_default="out/loadbound")
    a = p.parse_args(argv)
    kernels = a.kernels.split()
    try:
        ctxs = ["control"] + [c for c in contexts.parse(a.contexts, extra=("control",))
                              if c != "control"]
    except contexts.UnknownContext as e:
        p.error(str(e))
    try:
        loads = [int(x) for x in a.load_us.split()]
    except ValueError:
        loads = []
    if not kernels or not loads or a.duration < 1.1 or a.jobs < 1:
        p.error("no kernels / bad --load-us / duration below 1.1 s / jobs < 1")
    for k in kernels:
        if k not in available_kernels():
            p.error("kernel %s not installed (have %s)" % (k, " ".join(available_kernels())))
    missing = [str(ko) for ko in (TOP / "build" / k / "smodem.ko" for k in kernels)
               if len(ctxs) > 1 and not ko.is_file()]
    if missing:
        p.error("%s missing: make modules" % " ".join(missing))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    probe = build_probe(out / "bin")
    t0 = time.monotonic()
    pieces = plan(a, kernels, ctxs, loads, probe)
    log("%d guest runs, %s, %.1f s of probe each: %s" % (
        len(pieces), a.scheduler or "%d at a time" % a.jobs, a.duration,
        " ".join(x.key for x in pieces)))
    record, rep = boots.run(a, out, pieces, run_piece, settings, log)
    failed = [{"kernel": x.kernel, "context": x.key, "error": rep.missing[x.key]}
              for x in pieces if x.key in rep.missing]
    summaries = [dict(s, wall_s=record.lines[x.key]["host"].get("wall_s"))
                 for x in pieces if x.key in rep.figures for s in rep.figures[x.key]["measures"]]
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
    boots.write_report(out, tab, {
        "clock": "virtual", "icount_shift": 0, "duration_s": a.duration, "load_us": loads,
        "probe_prio": a.prio, "guest_append": a.guest_append, "module_params": a.module_params,
        "runs": summaries, "failed": failed, "wall_s": time.monotonic() - t0}, log)
    return 1 if failed else 0


if __name__ == "__main__":
    # run_piece by this module's name, not __main__'s, for a Dask worker
    import experiment
    sys.exit(experiment.main())
