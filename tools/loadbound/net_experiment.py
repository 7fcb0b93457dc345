#!/usr/bin/env python3
"""make loadbound-net: the load-bound study's experiments 2 and 3.

Network receive processing as the driver, on the instruction-counted clock.
Each guest has two e1000 NICs on one QEMU hub and tools/netload/netload.ko, an
hrtimer-paced sender at SCHED_FIFO 99 (tools/lab/smlab/netload.py): nothing
comes from outside the guest, so every run is the same run.

Experiment 2 (per kernel and flood period, one boot): lbprobe at SCHED_FIFO
PRIO for DURATION s under each load in turn: none, flood (an ICMP echo request
every FLOOD2_NS, the study's 10 us and 50 us, answered), flood-noreply (icmp_echo_ignore_all), sink (the same frames to a MAC
nobody has: the sender's own cost, which the flood's includes).  On PREEMPT_RT
the NIC's IRQ thread keeps the kernel's SCHED_FIFO 50, above the probe, so the
probe sees the receive processing as it sees it on the generic kernel.

Experiment 3 (the study's Figs 7-9, one boot per configuration): tau1 (2 ms
every 10 ms, reads the heartbeat datagram netload sends every 10 ms) and tau2
(every 10 ms, execution time swept) at SCHED_FIFO 30 and 20 under a flood
(one request every FLOOD3_NS), in the study's configurations: vanilla (6.1
generic), and 6.1 PREEMPT_RT with the NIC's IRQ thread high (FIFO 50), low
(FIFO 10) and under SCHED_DEADLINE (DL_RUNTIME/DL_PERIOD, the bandwidth
server).  Per configuration the probe first measures the bound above the
tasks (PRIO), loadbound.py's schedulability test with that bound predicts the
largest tau2 it admits, and lbtasks measures % of tau2's deadlines missed and
heartbeats lost for each tau2.

Each boot's traces and task results are analysed where it ran; the
subtractions, predictions, tables and plots are made here.  The boots are
pieces of smlab.runner: JOBS at a time here, or on a Dask scheduler's
workers (SCHEDULER); a boot recorded in OUT/record.jsonl with the same
settings (guest scripts, programs, netload and loadbound.py by content) is
not run again unless --force; one whose guest failed (or whose results could
not be analysed) is tried again once, then reported missing (FAILED in the
table, exit status 1), never recorded.  Writes OUT/{summary.json,table.md,
*.png} and the raw runs in OUT/runs/<boot>/.
"""
import argparse
import json
import re
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(TOP / "tools" / "lab"))
import loadbound as lb  # noqa: E402

from smlab.guest import FileLines, available_kernels  # noqa: E402
from smlab import boots, cli, netload, runner  # noqa: E402
from smlab.boots import env_default  # noqa: E402
from smlab.compare import kernel_tracers  # noqa: E402
from smlab.resume import file_digest  # noqa: E402



log = cli.logger("loadbound-net", elapsed=True)

EXP2_MODES = ("none", "flood", "flood-noreply", "sink")
# measured: on 6.1 PREEMPT_RT the in-guest sender alone (its hrtimer wake-up
# at SCHED_FIFO 99 and the transmit) costs about 10 us per request, so one
# every 10 us takes the whole CPU and the guest never gets back to its
# script; the RT kernel gets floods from this period up only
RT_MIN_FLOOD_NS = 20000
TAU1_US, TAU_PERIOD_US, TAU1_PRIO, TAU2_PRIO = 2000, 10000, 30, 20
# the study's configurations: name, kernel flavour, the NIC IRQ thread's setting
CONFIGS = (("vanilla", "generic", "default"),
           ("rt-high", "rt", "fifo:50"),
           ("rt-low", "rt", "fifo:10"),
           ("rt-deadline", "rt", "deadline"))


def build_static(src, exe):
    return boots.build_static(src, exe, ["-lpthread"])


def kernel_of(flavour):
    pat = r"6\.1\.\d+-\d+-rt-amd64$" if flavour == "rt" else r"6\.1\.\d+-\d+-amd64$"
    ks = [k for k in available_kernels() if re.match(pat, k)]
    return ks[0] if ks else None


# ------------------------------------------------------------ analysis (unit-tested)

def read_counters(path):
    """netload.sh's counters file: {name: int}."""
    out = {}
    p = Path(path)
    if not p.exists():
        return out
    for ln in p.read_text().splitlines():
        f = ln.split()
        if len(f) == 2 and re.fullmatch(r"-?\d+", f[1]):
            out[f[0]] = int(f[1])
    return out


def counter_delta(start, end):
    return {k: end[k] - start.get(k, 0) for k in end}


def read_tasks_result(path):
    """lbtasks run's output: (header dict, [row dict per tau2])."""
    head, rows = {}, []
    text = Path(path).read_text()
    for ln in text.splitlines():
        if ln.startswith("# "):
            f = ln[2:].split(None, 1)
            if len(f) == 2:
                head[f[0]] = f[1]
        elif ln.strip():
            f = ln.split()
            if len(f) % 2:
                raise lb.LoadBoundError("%s: bad line %r" % (path, ln))
            rows.append({f[i]: float(f[i + 1]) for i in range(0, len(f), 2)})
    if head.get("lbtasks") != "1" or not rows:
        raise lb.LoadBoundError("%s: not an lbtasks result (or no rows)" % path)
    for r in rows:
        r["u2"] = r["e2_us"] / float(head["period_us"])
        r["miss2_pct"] = 100.0 * r["missed2"] / r["jobs2"] if r["jobs2"] else 0.0
        r["miss1_pct"] = 100.0 * r["missed1"] / r["jobs1"] if r["jobs1"] else 0.0
        r["hb_lost_pct"] = 100.0 * r["hb_lost"] / r["hb_sent"] if r["hb_sent"] else 0.0
    return head, rows


def predict(fit, bound_prio, e1_us=TAU1_US, period_us=TAU_PERIOD_US,
            prio1=TAU1_PRIO, prio2=TAU2_PRIO):
    """The schedulability test with the fitted bound above both tasks: whether
    it admits tau1, and the largest tau2 (us, and as a utilisation) it admits
    beside tau1; tau2 above that is predicted to miss."""
    b = lb.Bound("net", fit["u"], float(fit["p_ns"]), float(fit["e_ns"]), bound_prio)
    t1 = lb.Task("tau1", e1_us * 1e3, period_us * 1e3, period_us * 1e3, prio1)
    t2 = lb.Task("tau2", 1e3, period_us * 1e3, period_us * 1e3, prio2)
    r1, r2 = lb.schedulability([t1, t2], [b])
    e2 = r2["max_e_us"] if r1["admitted"] else 0.0
    return {"tau1_admitted": r1["admitted"], "tau1_total": r1["total"],
            "load_above_tau2": r2["load_above"], "max_e2_us": e2, "max_u2": e2 / period_us}


def predict_measured(summ, e1_us=TAU1_US, period_us=TAU_PERIOD_US):
    """The same test with the measured staircase instead of the fitted
    hyperbola: the load above the tasks at d = the period read from the
    points (the largest grid window <= d), tau1's 2 ms beside it; the
    largest tau2 as a utilisation."""
    d = period_us * 1000
    g = summ["grid_ns"]
    i = max(j for j in range(len(g)) if g[j] <= d)
    load = summ["staircase"][i]
    u1 = e1_us / period_us
    return {"load_at_d": load, "max_u2": max(0.0, 1.0 - u1 - load)}


def first_miss(rows):
    """The smallest tau2 utilisation with any missed deadline (None: none)."""
    m = [r["u2"] for r in rows if r["missed2"] > 0]
    return min(m) if m else None


# ------------------------------------------------------------ runs

def boot_settings(a, kind, kver, irq, modes, tasks=None, period_ns=10000, hb_ns=0):
    env = {"NL_MODES": " ".join(modes), "LB_IRQ": irq, "LB_PRIO": str(a.prio),
           "LB_SECONDS": str(a.duration if kind == "exp2" else a.duration3),
           "NL_PERIOD_NS": str(period_ns), "NL_HB_NS": str(hb_ns), "LB_TASKS": tasks or ""}
    if a.osnoise and kind == "exp2" and (kernel_tracers(kver) or {}).get("osnoise"):
        env["LB_OSNOISE"] = "1"
    return {"kind": kind, "kernel": kver, "irq": irq, "env": env,
            "guest_append": a.guest_append}


def boot(st, out, bins, timeout, log=log):
    """One guest boot of settings st (boot_settings()) into out; returns its
    results directory, raises runner.PieceFailed when the guest failed."""
    from smlab.guest import run_guest
    out = Path(out)
    name = out.name
    boots.fresh_dir(out)
    files = dict(netload.guest_files(st["kernel"]))
    files.update({"usr/bin/lbprobe": str(bins["lbprobe"]), "usr/bin/lbtasks": str(bins["lbtasks"]),
                  "opt/lb/osnoise.sh": str(HERE / "osnoise.sh")})
    t = time.monotonic()
    log("%s: booting %s" % (name, st["kernel"]))
    stop = threading.Event()

    def progress():
        lines = FileLines(out / "console.log")
        while not stop.wait(5):
            for ln in lines.new():
                if ln.startswith("[guest]"):
                    log("%s: %s" % (name, ln[8:]))
    threading.Thread(target=progress, daemon=True).start()
    try:
        res = run_guest(st["kernel"], (HERE / "net_run.sh").read_text(), str(out), clock="virtual",
                        audio="none", share="deferred", progress=False, kmods=netload.KMODS,
                        qemu_extra=netload.qemu_args(), cmdline_extra=st["guest_append"],
                        timeout_s=timeout, env=st["env"], extra_files=files)
    finally:
        stop.set()
    r = boots.results(res, out, "dmesg.txt", name)
    log("%s: done in %.0f s wall" % (name, time.monotonic() - t))
    return r


def plan(boots, a, bins):
    """The boots [(name, settings)] as runner pieces."""
    return [runner.Piece.make("loadbound-net", st["kernel"], name,
                              st=json.dumps(st, sort_keys=True), bins=json.dumps(bins, sort_keys=True),
                              out=str(Path(a.out).resolve()), timeout=a.timeout)
            for name, st in boots]


def settings(piece):
    """What a boot's figures depend on (files by content): its digest."""
    bins = json.loads(piece.get("bins"))
    return runner.digest(json.loads(piece.get("st")),
                         {k: file_digest(v) for k, v in sorted(bins.items())},
                         {f: file_digest(HERE / f) for f in ("net_run.sh", "osnoise.sh", "loadbound.py")},
                         {f: file_digest(netload.SRC / f) for f in ("netload.c", "netload.sh")})


def run_piece(piece):
    """One boot, its results analysed (a function of this module, so that a
    Dask worker imports it by name): experiment 2, {"modes": [summary per
    load and measure], "irq"}; experiment 3, {"bound", "rows",
    "tasks_header", "irq_seen"}."""
    st = json.loads(piece.get("st"))
    bins = {k: Path(v) for k, v in json.loads(piece.get("bins")).items()}
    for k, src in (("lbprobe", "probe.c"), ("lbtasks", "tasks.c")):
        build_static(HERE / src, bins[k])   # a worker without the coordinator's build
    t = time.monotonic()
    d = boot(st, Path(piece.get("out")) / "runs" / piece.key, bins, piece.get("timeout"))
    wall = round(time.monotonic() - t, 1)
    try:
        figs = analyse_boot(st, d)
    except (lb.LoadBoundError, OSError) as e:
        raise runner.PieceFailed(str(e)) from None
    # the boot's wall time is the host's, not a figure of the boot
    return dict(figs, host={"wall_s": wall})


def analyse_boot(st, d):
    """A boot's results directory d, analysed (run_piece's figures)."""
    env, kver, prio = st["env"], st["kernel"], int(st["env"]["LB_PRIO"])
    grid = lb.window_grid(10_000, min(10**9, int(float(env["LB_SECONDS"]) * 1e9 * 0.9)), 10)
    irq = (d / "irq.txt").read_text().strip() if (d / "irq.txt").exists() else ""
    fl = int(env["NL_PERIOD_NS"])
    if st["kind"] == "exp3":
        s = analyse_mode(d / "flood", grid, "net3-%s" % st["config"],
                         "%s (%s, IRQ thread %s): flood every %d us + heartbeat, lbprobe FIFO %d"
                         % (st["config"], kver, st["irq"], fl // 1000, prio))
        head, rows = read_tasks_result(d / "flood" / "tasks.txt")
        return {"bound": s, "rows": rows, "tasks_header": head, "irq_seen": irq}
    modes = []
    for mode in env["NL_MODES"].split():
        for meas in ("probe", "osnoise"):
            if meas == "osnoise" and not (d / mode / "osnoise.txt").exists():
                continue
            try:
                s = analyse_mode(d / mode, grid, "net-%s-f%dus-%s" % (kver, fl // 1000, mode),
                                 "%s, %s (%d us): lbprobe at SCHED_FIFO %d"
                                 % (kver, mode, fl // 1000, prio), meas)
            except (lb.LoadBoundError, OSError) as e:
                raise lb.LoadBoundError("%s %s: %s" % (mode, meas, e)) from None
            s.update(kernel=kver, mode=mode, flood_ns=fl, irq=irq)
            modes.append(s)
    return {"modes": modes}


def analyse_mode(d, grid, name, title, meas="probe"):
    s = lb.analyse_trace(lb.read_trace(d / ("%s.txt" % meas)), grid)
    s["name"] = name + ("" if meas == "probe" else "-" + meas)
    s["measure"], s["title"] = meas, title if meas == "probe" else title.replace("lbprobe", meas)
    s["counters"] = counter_delta(read_counters(d / "counters-start.txt"),
                                  read_counters(d / "counters.txt"))
    return s


def plot_run(s, outdir):
    png = outdir / ("%s.png" % s["name"])
    lb.plot(s, png, title=s.pop("title"))
    s["png"] = str(png)


def plot_exp2(summaries, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, s in enumerate(summaries):
        g = np.array(s["grid_ns"], float) / 1e3
        ls = "-" if "-rt-" not in s["kernel"] else "--"
        ax.plot(g, np.array(s["load"]) * 100, ls, marker="o", ms=2.5, color="C%d" % (i % 4),
                label="%s %s (u=%.3f)" % ("RT" if "-rt-" in s["kernel"] else "generic", s["mode"], s["fit"]["u"]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("window length delta (us)")
    ax.set_ylabel("max interference / delta (%)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Network receive processing, flood every %d us, probe at SCHED_FIFO %s "
                 "(solid: generic, dashed: PREEMPT_RT)"
                 % (summaries[0]["flood_ns"] // 1000, summaries[0]["header"].get("prio")), fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def plot_exp3(configs, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    for i, c in enumerate(configs):
        u = [r["u2"] * 100 for r in c["rows"]]
        ax.plot(u, [r["miss2_pct"] for r in c["rows"]], "o-", color="C%d" % i, label=c["config"])
        bx.plot(u, [r["hb_lost_pct"] for r in c["rows"]], "o-", color="C%d" % i, label=c["config"])
        ax.axvline(c["prediction"]["max_u2"] * 100, color="C%d" % i, ls=":", alpha=0.8)
    ax.set_xlabel("tau2 utilisation (%)")
    ax.set_ylabel("tau2 deadlines missed (%)")
    ax.set_title("tau2 misses (dotted: largest tau2 the test admits)", fontsize=9)
    bx.set_xlabel("tau2 utilisation (%)")
    bx.set_ylabel("heartbeats lost (%)")
    bx.set_title("tau1's heartbeats lost", fontsize=9)
    for x in (ax, bx):
        x.grid(True, alpha=0.3)
        x.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--experiments", default=env_default("NET_EXPERIMENTS", "2 3"),
                   help="which experiments [NET_EXPERIMENTS]")
    p.add_argument("--duration", type=float, default=float(env_default("DURATION", "3")),
                   help="seconds of probe per load, experiment 2 [DURATION]")
    p.add_argument("--duration3", type=float, default=float(env_default("DURATION3", "2")),
                   help="seconds of probe and of each tau2, experiment 3 [DURATION3]")
    p.add_argument("--prio", type=int, default=int(env_default("PROBE_PRIO", "40")),
                   help="the probe's SCHED_FIFO priority [PROBE_PRIO]")
    p.add_argument("--flood2-ns", default=env_default("FLOOD2_NS", "10000 50000"),
                   help="experiment 2's floods: one echo request every N ns, each measured; "
                   "PREEMPT_RT only from %d [FLOOD2_NS]" % RT_MIN_FLOOD_NS)
    p.add_argument("--flood3-ns", type=int, default=int(env_default("FLOOD3_NS", "50000")),
                   help="experiment 3's flood: one echo request every N ns [FLOOD3_NS]")
    p.add_argument("--tau2-us", default=env_default("TAU2_US", "1000,2000,3000,4000,5000,6000,7000"),
                   help="tau2's execution times swept (us) [TAU2_US]")
    p.add_argument("--dl", default=env_default("DL", "1000:10000"),
                   help="the IRQ thread's SCHED_DEADLINE RUNTIME_US:PERIOD_US [DL]")
    p.add_argument("--configs", default=env_default("CONFIGS3", " ".join(c[0] for c in CONFIGS)),
                   help="experiment 3's configurations [CONFIGS3]")
    p.add_argument("--no-osnoise", dest="osnoise", action="store_false",
                   help="experiment 2 without the osnoise tracer's second measurement (it runs where the "
                   "kernel has the tracer: Debian's PREEMPT_RT)")
    boots.add_run_options(p, timeout=1800, out_var="LB_NET_OUT", out_default="out/loadbound/net")
    a = p.parse_args(argv)
    exps = a.experiments.split()
    gen, rt = kernel_of("generic"), kernel_of("rt")
    if not gen or not rt:
        p.error("needs the 6.1 generic and PREEMPT_RT kernels (make deps)")
    if a.duration < 1.1 or a.duration3 < 1.1 or a.jobs < 1 or not set(exps) <= {"2", "3"}:
        p.error("durations below 1.1 s, jobs < 1 or experiments not within '2 3'")
    try:
        tau2 = [int(x) for x in a.tau2_us.split(",")]
    except ValueError:
        tau2 = []
    if not tau2 or any(x <= 0 or x > TAU_PERIOD_US for x in tau2):
        p.error("--tau2-us: a comma-separated list within 1..%d" % TAU_PERIOD_US)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    bins = {"lbprobe": build_static(HERE / "probe.c", out / "bin" / "lbprobe"),
            "lbtasks": build_static(HERE / "tasks.c", out / "bin" / "lbtasks")}
    t0 = time.monotonic()
    boot_list = []
    try:
        floods2 = [int(x) for x in a.flood2_ns.split()]
    except ValueError:
        floods2 = []
    if not floods2 or min(floods2) < 1000 or a.flood3_ns < 1000:
        p.error("--flood2-ns / --flood3-ns: periods in ns, >= 1000")
    skipped = []
    if "2" in exps:
        for k in (gen, rt):
            for fl in floods2:
                if k == rt and fl < RT_MIN_FLOOD_NS:
                    skipped.append("%s, flood every %d us: the sender alone would take the whole CPU"
                                   % (k, fl // 1000))
                    continue
                boot_list.append(("exp2-%s-f%dus" % (k, fl // 1000),
                                  boot_settings(a, "exp2", k, "default", EXP2_MODES, period_ns=fl)))
    if "3" in exps:
        tasks = "%d %s %d %g %d %d" % (TAU1_US, ",".join(map(str, tau2)), TAU_PERIOD_US,
                                       a.duration3, TAU1_PRIO, TAU2_PRIO)
        for cname, flav, irq in CONFIGS:
            if cname not in a.configs.split():
                continue
            irq = "deadline:%s" % a.dl if irq == "deadline" else irq
            st = boot_settings(a, "exp3", gen if flav == "generic" else rt, irq, ("flood",),
                               tasks, a.flood3_ns, TAU_PERIOD_US * 1000)
            st["config"] = cname
            boot_list.append(("exp3-%s" % cname, st))
    log("%d guest boots, %s: %s" % (len(boot_list), a.scheduler or "%d at a time" % a.jobs,
                                    " ".join(n for n, _ in boot_list)))
    pieces = plan(boot_list, a, {k: str(v) for k, v in bins.items()})
    record, rep = boots.run(a, out, pieces, run_piece, settings, log)
    failed = [{"boot": n, "error": rep.missing[n]} for n, _ in boot_list if n in rep.missing]
    # boot -> (settings, figures, wall s), in the plan's order
    done = {n: (st, rep.figures[n], record.lines[n]["host"].get("wall_s"))
            for n, st in boot_list if n in rep.figures}

    tab, summary = [], {"clock": "virtual", "icount_shift": 0, "probe_prio": a.prio,
                        "guest_append": a.guest_append, "failed": failed}
    exp2 = [dict(s, wall_s=wall) for st, figs, wall in done.values() if st["kind"] == "exp2"
            for s in figs["modes"]]
    # the study's subtraction: the receive processing is the flood's demand
    # less that of the same frames sent to nobody (the sender and the idle
    # system), window by window, measured the same way in the same boot
    sinks = {(s["kernel"], s["flood_ns"], s["measure"]): s for s in exp2 if s["mode"] == "sink"}
    for s in exp2:
        base = sinks.get((s["kernel"], s["flood_ns"], s["measure"]))
        if s["mode"] in ("flood", "flood-noreply") and base:
            lb.subtract_baseline(s, base)
        plot_run(s, out)
    exp2_probe = [s for s in exp2 if s["measure"] == "probe"]
    if exp2:
        for fl in sorted({s["flood_ns"] for s in exp2}):
            plot_exp2([s for s in exp2_probe if s["flood_ns"] == fl], out / ("net-exp2-f%dus.png" % (fl // 1000)))
        tab += ["## Experiment 2: network receive processing, lbprobe at SCHED_FIFO %d, %g s per load"
                % (a.prio, a.duration), ""] + ["Not run: %s." % x for x in skipped] + ["", lb.table(exp2),
                "| run | sent | received (NIC) | echo requests in | replies out | NIC drops | sender late |",
                "|---|---|---|---|---|---|---|"]
        for s in exp2_probe:
            c = s["counters"]
            tab.append("| %s | %d | %d | %d | %d | %d | %d |" % (
                s["name"], c.get("sent", 0), c.get("rx_rx_packets", 0), c.get("icmp_InEchos", 0),
                c.get("icmp_OutEchoReps", 0),
                c.get("rx_rx_missed_errors", 0) + c.get("rx_rx_dropped", 0) + c.get("rx_rx_fifo_errors", 0),
                c.get("late", 0)))
        tab += ["", "The receive processing without the sender, flood minus sink (the sender's own cost, "
                "measured alone): interference and long-run u", "",
                "| kernel | flood | replies | flood | sink | receive (difference) |", "|---|---|---|---|---|---|"]
        for s in exp2_probe:
            if s["mode"] not in ("flood", "flood-noreply"):
                continue
            sink = [x for x in exp2_probe if x["kernel"] == s["kernel"] and x["flood_ns"] == s["flood_ns"]
                    and x["mode"] == "sink"]
            if sink:
                tab.append("| %s | %d us | %s | %.2f %% | %.2f %% | %.2f %% |" % (
                    s["kernel"], s["flood_ns"] // 1000, "yes" if s["mode"] == "flood" else "no",
                    100 * s["utilisation"], 100 * sink[0]["utilisation"],
                    100 * (s["utilisation"] - sink[0]["utilisation"])))
        tab += ["", "IRQ threads: " + "; ".join(sorted({s["irq"].replace("\n", ", ") for s in exp2})), ""]
    summary["exp2"] = exp2
    summary["skipped"] = skipped
    exp3 = []
    for st, figs, wall in done.values():
        if st["kind"] != "exp3":
            continue
        s = figs["bound"]
        plot_run(s, out)
        pred = predict(s["fit"], a.prio)
        pred["measured"] = predict_measured(s)
        exp3.append({"config": st["config"], "kernel": st["kernel"], "irq": st["irq"],
                     "irq_seen": figs["irq_seen"], "bound": s, "rows": figs["rows"],
                     "tasks_header": figs["tasks_header"], "prediction": pred,
                     "first_miss_u2": first_miss(figs["rows"]), "wall_s": wall})
    if exp3:
        plot_exp3(exp3, out / "net-exp3.png")
        tab += ["## Experiment 3: tau1 (2 ms / 10 ms, heartbeat) and tau2 (10 ms, swept) at FIFO %d/%d, "
                "flood every %d us, %g s per point" % (TAU1_PRIO, TAU2_PRIO, a.flood3_ns // 1000, a.duration3),
                "", "| config | IRQ thread | bound above the tasks (u / p / e) | tau1 admitted | "
                "largest tau2 admitted (U) | the same with the measured points | first measured miss (U) |",
                "|---|---|---|---|---|---|---|"]
        for c in exp3:
            f = c["bound"]["fit"]
            fm = c["first_miss_u2"]
            tab.append("| %s | %s | %.4f / %s / %s | %s | %.0f us (%.1f %%) | %.1f %% (load %.3f at 10 ms) | %s |" % (
                c["config"], c["irq"], f["u"], lb.fmt_ns(f["p_ns"]), lb.fmt_ns(f["e_ns"]),
                "yes" if c["prediction"]["tau1_admitted"] else "NO", c["prediction"]["max_e2_us"],
                100 * c["prediction"]["max_u2"], 100 * c["prediction"]["measured"]["max_u2"],
                c["prediction"]["measured"]["load_at_d"], "none" if fm is None else "%.0f %%" % (100 * fm)))
        tab += ["", "| config | " + " | ".join("U2=%.0f%%" % (100 * r["u2"]) for r in exp3[0]["rows"]) + " |",
                "|---|" + "---|" * len(exp3[0]["rows"])]
        for c in exp3:
            tab.append("| %s: tau2 missed / heartbeats lost / tau1 missed (%%) | %s |" % (c["config"], " | ".join(
                "%.0f / %.0f / %.0f" % (r["miss2_pct"], r["hb_lost_pct"], r["miss1_pct"]) for r in c["rows"])))
        tab.append("")
    summary["exp3"] = exp3
    if failed:
        tab += ["FAILED:"] + ["- %s: %s" % (x["boot"], x["error"]) for x in failed]
    summary["wall_s"] = time.monotonic() - t0
    boots.write_report(out, "\n".join(tab) + "\n", summary, log, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    # run_piece by this module's name, not __main__'s, for a Dask worker
    import net_experiment
    sys.exit(net_experiment.main())
