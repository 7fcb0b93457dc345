"""The comparison run: control (no module) and one guest boot per context,
each with the spinning competitor and cyclictest as the coexisting periodic
task (the study's 1 ms timer callback).  See tools/lab/README.md."""

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

from .guest import run_guest, module_path, ROOT

sys.path.insert(0, str(ROOT / "tools" / "analysis"))
import smtrace  # noqa: E402  (the lead's trace/stats parser)

CONTEXTS = ("int", "dpc", "thr", "res")
INTERVAL_US = 1000
HIST_US = 20000
CYCLIC_PRIO = 95


# -- guest side ----------------------------------------------------------------
def guest_script(ctx, p):
    """Shell for one run.  Everything measured goes to /tmp first: no share
    I/O while measuring."""
    modargs = ""
    if ctx != "control":
        args = ["context=" + ctx, "hw=" + p["hw"], "load_us=%d" % p["load_us"]]
        for k in ("prio", "res_runtime_us", "res_period_us", "rate",
                  "ring_samples", "period_samples"):
            if p.get(k) is not None:
                args.append("%s=%d" % (k, p[k]))
        if p.get("module_params"):
            args.append(p["module_params"])
        modargs = " ".join(args)
    pin = p["smp"] > 1
    cyc = ("cyclictest -m -p %d -i %d -h %d -q -v -D %d%s"
           % (CYCLIC_PRIO, INTERVAL_US, HIST_US, p["duration_s"],
              " -a 0" if pin else ""))
    return r"""
M=/tmp/m
T=/sys/kernel/tracing
mkdir -p $M
CTX=%(ctx)s
PIN=%(pin)d
echo "compare: context $CTX"
# SMP: the modem's interrupt, its processing, the competitor and the
# measuring thread all share CPU 0, as on the study's uniprocessor.
if [ $PIN = 1 ]; then taskset 1 spin & else spin & fi
SPIN=$!
if [ $CTX != control ]; then
	insmod /opt/smodem/smodem.ko %(modargs)s || exit 20
	dev=$(ls /sys/kernel/debug/smodem | head -n 1)
	[ -n "$dev" ] || exit 21
	S=/sys/kernel/debug/smodem/$dev
	echo "$dev" > $M/dev.txt
	if [ $PIN = 1 ]; then
		irq=$(grep smodem /proc/interrupts | cut -d: -f1 | tr -d ' ')
		echo 1 > /proc/irq/$irq/smp_affinity && echo "irq cpu0" >> $M/pinning.txt ||
			echo "irq failed" >> $M/pinning.txt
		tp=$(grep '^thread_pid ' $S/stats | cut -d' ' -f2)
		if [ -z "$tp" ]; then
			echo "thread none" >> $M/pinning.txt
		elif taskset -p 1 $tp >/dev/null 2>&1; then
			echo "thread cpu0" >> $M/pinning.txt
		else
			# Linux refuses: a SCHED_DEADLINE task must be allowed on
			# its whole root domain.
			echo "thread refused" >> $M/pinning.txt
		fi
	fi
	cat $S/stats > $M/stats-load.txt
	trace-cmd start -e smodem -b 8192 > $M/trace-start.log 2>&1 || exit 22
	# trace-cmd takes a while to start and stop under TCG: clear both the
	# counters and the buffer at one instant (shell builtins) so that stats
	# and trace cover the same window
	# (the buffer first: clearing it waits for an RCU grace period)
	echo > $T/trace
	echo 1 > $S/reset
fi
%(cyc)s > $M/cyclictest.txt 2>&1
CRC=$?
if [ $CTX != control ]; then
	echo 0 > $T/tracing_on
	# builtins only: a fork+exec competing with spin takes tens of ms
	while IFS= read -r l; do echo "$l"; done < $S/stats > $M/stats.txt
	trace-cmd stop
fi
kill $SPIN
wait $SPIN 2>/dev/null
RC=$CRC
if [ $CTX != control ]; then
	trace-cmd extract -o $M/trace.dat > $M/extract.log 2>&1 || RC=23
	rmmod smodem || RC=24
fi
echo "%(cyc)s" > $M/cyclictest.cmd
echo "%(modargs)s" > $M/module.args
cp -a $M/. /share/
echo "compare: done rc=$RC"
exit $RC
""" % {"ctx": ctx, "modargs": modargs, "cyc": cyc, "pin": pin}


# -- host side parsers -------------------------------------------------------------
def parse_cyclictest(text, interval_us=INTERVAL_US):
    """cyclictest -h -q -v output: histogram, summary and per-cycle values."""
    hist = {}
    summ = {}
    values = []
    for line in text.splitlines():
        m = re.match(r"^(\d{6}) (\d+)\s*$", line)
        if m:
            n = int(m.group(2))
            if n:
                hist[int(m.group(1))] = n
            continue
        m = re.match(r"^# (Total|Min Latencies|Avg Latencies|Max Latencies|"
                     r"Histogram Overflows):\s*(\d+)", line)
        if m:
            summ[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r"^\s*(\d+):\s*(\d+):\s*(\d+)\s*$", line)
        if m:
            values.append((int(m.group(2)), int(m.group(3))))
    total = sum(hist.values()) + summ.get("Histogram Overflows", 0)

    def pct(p):
        if not total:
            return None
        need, acc = p / 100.0 * total, 0
        for us in sorted(hist):
            acc += hist[us]
            if acc >= need:
                return us
        return HIST_US  # in the overflow

    out = {
        "cycles": summ.get("Total", total),
        "min_us": summ.get("Min Latencies"),
        "avg_us": summ.get("Avg Latencies"),
        "max_us": summ.get("Max Latencies"),
        "p50_us": pct(50), "p99_us": pct(99), "p999_us": pct(99.9),
        "overflows": summ.get("Histogram Overflows", 0),
        "histogram": {str(k): v for k, v in sorted(hist.items())},
    }
    # Absolute-timer mode: a wakeup lat late aims the next one at the first
    # period boundary not before it, j = max(1, ceil(lat / interval)) periods
    # on (cyclictest skips the periods it missed), so consecutive wakeups are
    # j*interval + lat_c - lat_(c-1) apart.
    values.sort()
    gaps, skipped = [], 0
    for a, b in zip(values, values[1:]):
        if b[0] != a[0] + 1:
            continue
        j = max(1, -(-a[1] // interval_us))
        skipped += j - 1
        gaps.append(j * interval_us + b[1] - a[1])
    out["max_gap_us"] = max(gaps) if gaps else None
    out["gap_cycles"] = len(gaps)
    out["skipped_periods"] = skipped if gaps else None
    return out


def _summ(vals, scale=1):
    s = smtrace.summarize(vals)
    return {k: (v / scale if isinstance(v, (int, float)) and k != "n" else v)
            for k, v in s.items()}


def parse_trace(dat, rate, period_samples):
    ev = smtrace.events(dat)
    by = {}
    for e in ev:
        by.setdefault(e.name, []).append(e)

    def f(name, field):
        return [e.fields[field] for e in by.get(name, []) if field in e.fields]

    irq_ts = [e.ts_ns for e in by.get("smodem_irq", [])]
    irq_gap = [b - a for a, b in zip(irq_ts, irq_ts[1:])]
    return {
        "events": len(ev),
        "counts": {k: len(v) for k, v in sorted(by.items())},
        "irqs": len(irq_ts),
        "irq_interval_ns": _summ(irq_gap),
        "isr_elapsed_ns": _summ(f("smodem_isr_exit", "elapsed_ns")),
        "dpc_delay_ns": _summ(f("smodem_dpc_entry", "delay_ns")),
        "dpc_elapsed_ns": _summ(f("smodem_dpc_exit", "elapsed_ns")),
        "thread_wakeup_ns": _summ(f("smodem_thread_wakeup", "latency_ns")),
        "thread_elapsed_ns": _summ(f("smodem_thread_done", "elapsed_ns")),
        "process_elapsed_ns": _summ(f("smodem_process", "elapsed_ns")),
        "process_samples": sum(f("smodem_process", "samples")),
        "pending_after_process": _summ(f("smodem_process", "pending")),
        "pending_at_irq": _summ(f("smodem_irq", "pending")),
        "pending_hist": _hist(f("smodem_process", "pending")),
        "overruns": len(by.get("smodem_overrun", [])),
        "dropped": max(f("smodem_overrun", "dropped") or [0]),
        "dma_halts": len(by.get("smodem_dma_halt", [])),
        "period_changes": len(by.get("smodem_period_change", [])),
        "expected_irqs_per_s": rate / float(period_samples),
    }


def _hist(vals):
    h = {}
    for v in vals:
        h[v] = h.get(v, 0) + 1
    return {str(k): h[k] for k in sorted(h)}


# -- the run ------------------------------------------------------------------------
def params_from_env(env=os.environ):
    def num(name, default):
        v = env.get(name)
        return default if v in (None, "") else int(v)
    return {
        "contexts": (env.get("CONTEXTS") or " ".join(CONTEXTS)).split(),
        "duration_s": num("DURATION", 10),
        "load_us": num("LOAD_US", 1840),
        "kernel": env.get("KERNEL") or "6.1.0-56-amd64",
        "clock": env.get("CLOCK") or "virtual",
        "icount_shift": num("ICOUNT_SHIFT", 0),
        "out": env.get("OUT") or "out/compare",
        "hw": env.get("HW") or "ac97",
        "prio": num("PRIO", None),
        "res_runtime_us": num("RES_RUNTIME_US", None),
        "res_period_us": num("RES_PERIOD_US", None),
        "rate": num("RATE", None),
        "ring_samples": num("RING_SAMPLES", None),
        "period_samples": num("PERIOD_SAMPLES", None),
        "module_params": env.get("MODULE_PARAMS") or "",
        # The study's kernel preempted its threads; Debian's 6.1 is
        # PREEMPT_DYNAMIC and boots "voluntary", where a SCHED_FIFO kthread
        # busy for 1.84 ms is not preempted even by cyclictest at 95.
        # PREEMPT=voluntary shows that; "" keeps the kernel's own default.
        "preempt": env.get("PREEMPT", "full"),
        "cmdline_extra": env.get("GUEST_APPEND") or "",
        "smp": num("SMP", 1),
        "module": env.get("MODULE") or None,
    }


def run_one(ctx, p, idx, total, log=print):
    out = Path(p["out"]) / ctx
    out.mkdir(parents=True, exist_ok=True)
    for f in ("trace.dat", "stats.txt", "cyclictest.txt", "stats-load.txt"):
        try:
            (out / f).unlink()
        except FileNotFoundError:
            pass
    mods = [] if ctx == "control" else [p["module"]]
    sha = hashlib.sha256(Path(p["module"]).read_bytes()).hexdigest() if mods else None
    t = time.monotonic()
    log("compare: [%d/%d] %s: booting %s (%s clock%s), %d s of measurement"
        % (idx, total, ctx, p["kernel"], p["clock"],
           ", icount shift %d" % p["icount_shift"] if p["clock"] == "virtual" else "",
           p["duration_s"]))
    # generous: virtual time runs at most a few times slower than wall here
    timeout = 120 + 12 * p["duration_s"] * (1 + p["icount_shift"])
    res = run_guest(p["kernel"], guest_script(ctx, p), str(out), modules=mods,
                    clock=p["clock"], icount_shift=p["icount_shift"], smp=p["smp"],
                    timeout_s=timeout, audio="ac97", share="deferred",
                    cmdline_extra=" ".join(
                        x for x in (("preempt=" + p["preempt"]) if p["preempt"] else "",
                                    p["cmdline_extra"]) if x),
                    progress=False)
    rate = p.get("rate") or 8000
    period = p.get("period_samples") or 100
    entry = {
        "context": ctx,
        "module_sha256": sha,
        "clock": p["clock"],
        "icount_shift": p["icount_shift"] if p["clock"] == "virtual" else None,
        "kernel": p["kernel"],
        "params": {k: v for k, v in p.items() if k not in ("contexts", "out")},
        "guest": {"rc": res.rc, "timed_out": res.timed_out, "wall_s": round(res.wall_s, 2),
                  "boot_s": round(res.boot_s, 2) if res.boot_s else None,
                  "kvm": res.kvm, "console": os.path.relpath(res.console, p["out"])},
    }
    cyc = out / "cyclictest.txt"
    entry["cyclictest_cmd"] = ((out / "cyclictest.cmd").read_text().strip()
                               if (out / "cyclictest.cmd").exists() else None)
    entry["module_args"] = ((out / "module.args").read_text().strip()
                            if (out / "module.args").exists() else None)
    entry["cyclictest"] = parse_cyclictest(cyc.read_text()) if cyc.exists() else None
    pinf = out / "pinning.txt"
    entry["pinning"] = (dict(line.split(" ", 1) for line in pinf.read_text().split("\n") if " " in line)
                        if pinf.exists() else None)
    if ctx != "control":
        st = out / "stats.txt"
        entry["stats"] = smtrace.stats(st.read_text()) if st.exists() else None
        dat = out / "trace.dat"
        entry["trace_dat"] = os.path.relpath(dat, p["out"]) if dat.exists() else None
        entry["trace"] = parse_trace(dat, rate, period) if dat.exists() else None
    else:
        entry["stats"] = entry["trace"] = entry["trace_dat"] = None
    c = entry["cyclictest"] or {}
    tr = entry["trace"] or {}
    log("compare: [%d/%d] %s: rc=%s in %.0f s; cyclictest max %s us, max gap %s us%s"
        % (idx, total, ctx, res.rc, time.monotonic() - t, c.get("max_us"),
           c.get("max_gap_us"),
           "; %d irqs, %d overruns" % (tr.get("irqs", 0), tr.get("overruns", 0))
           if tr else ""))
    if not res.ok:
        log("compare: %s: guest failed (rc=%s%s); see %s"
            % (ctx, res.rc, ", timed out" if res.timed_out else "", res.console))
    return entry


def _fmt(v, scale=1, digits=0):
    if v is None:
        return "-"
    return ("%%.%df" % digits) % (v / scale)


def table(summary):
    rows = []
    hdr = ("context", "cyc min", "avg", "p99", "max", "gap", "skip", "ISR min/avg/max",
           "DPC min/avg/max", "thread min/avg/max", "wakeup avg/max", "pend", "ovr", "irqs")
    rows.append(hdr)
    for ctx, e in summary.items():
        c = e.get("cyclictest") or {}
        t = e.get("trace") or {}

        def mam(key, scale=1000, d=0):
            s = t.get(key) or {}
            if not s.get("n"):
                return "-"
            return "/".join(_fmt(s[k], scale, d) for k in ("min", "avg", "max"))
        wake = t.get("thread_wakeup_ns") or {}
        rows.append((
            ctx, _fmt(c.get("min_us")), _fmt(c.get("avg_us")), _fmt(c.get("p99_us")),
            _fmt(c.get("max_us")), _fmt(c.get("max_gap_us")), _fmt(c.get("skipped_periods")),
            mam("isr_elapsed_ns", 1000, 1), mam("dpc_elapsed_ns"), mam("thread_elapsed_ns"),
            "%s/%s" % (_fmt(wake.get("avg"), 1000, 1), _fmt(wake.get("max"), 1000, 1))
            if wake.get("n") else "-",
            _fmt((t.get("pending_after_process") or {}).get("max")),
            _fmt(t.get("overruns")) if t else "-",
            _fmt(t.get("irqs")) if t else "-"))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(hdr))]
    lines = ["  ".join(str(v).rjust(w) for v, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return ("cyclictest latencies in us (gap: max time between wakeups; skip: 1 ms periods "
            "missed); ISR/DPC/thread "
            "elapsed and wakeup latency in us;\npend: max samples pending after a "
            "processing call; ovr: overruns\n" + "\n".join(lines))


def _binned(h, width):
    """{value: count} -> bin left edges and counts, empty bins included (so
    that a step plot does not bridge gaps)."""
    if not h:
        return [], []
    top = max(int(k) for k in h) // width + 1
    counts = [0] * (top + 1)
    for k, v in h.items():
        counts[int(k) // width] += v
    return [i * width for i in range(top + 1)], counts


def _step_plot(ax, series, width, xlabel, ylabel):
    styles = ["-", "--", "-.", ":"]
    for i, (label, h) in enumerate(series):
        xs, ys = _binned(h, width)
        if not xs:
            continue
        # zero bins are masked on the log axis and leave visible gaps;
        # line styles keep identical curves distinguishable
        ax.step(xs + [xs[-1] + width], ys + [ys[-1]], where="post", label=label,
                linestyle=styles[i % len(styles)], linewidth=2.4 - 0.3 * i)
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)


def figures(summary, out, bin_us=50):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figs = []
    e0 = next(iter(summary.values()))
    fig, ax = plt.subplots(figsize=(9, 5))
    _step_plot(ax, [(c, (e.get("cyclictest") or {}).get("histogram") or {})
                    for c, e in summary.items()],
               bin_us, "cyclictest latency (us, %d us bins)" % bin_us, "wakeups")
    ax.set_title("1 ms periodic task (SCHED_FIFO 95) with a spinning competitor\n"
                 "%s, %s clock%s, load %s us per 12.5 ms period"
                 % (e0["kernel"], e0["clock"],
                    ", icount shift %s" % e0["icount_shift"] if e0["clock"] == "virtual" else "",
                    e0["params"].get("load_us")))
    p = Path(out) / "cyclictest-hist.png"
    fig.savefig(p, dpi=110, bbox_inches="tight")
    plt.close(fig)
    figs.append(p.name)

    series = [(c, (e.get("trace") or {}).get("pending_hist") or {})
              for c, e in summary.items()]
    if any(h for _, h in series):
        fig, ax = plt.subplots(figsize=(9, 5))
        _step_plot(ax, series, 4, "samples pending after a processing call "
                   "(4-sample bins; the ring holds 512)", "calls")
        p = Path(out) / "pending-hist.png"
        fig.savefig(p, dpi=110, bbox_inches="tight")
        plt.close(fig)
        figs.append(p.name)
    return figs


def main(argv=None, env=os.environ):
    import argparse
    p = params_from_env(env)
    ap = argparse.ArgumentParser(description="smodem context comparison in a QEMU guest "
                                 "(parameters also from the environment, as make compare passes them)")
    ap.add_argument("--contexts", default=" ".join(p["contexts"]))
    ap.add_argument("--duration", type=int, default=p["duration_s"])
    ap.add_argument("--load-us", type=int, default=p["load_us"])
    ap.add_argument("--kernel", default=p["kernel"])
    ap.add_argument("--clock", choices=["virtual", "real"], default=p["clock"])
    ap.add_argument("--icount-shift", type=int, default=p["icount_shift"])
    ap.add_argument("--out", default=p["out"])
    ap.add_argument("--module", default=p["module"], help="default build/<kernel>/smodem.ko")
    ap.add_argument("--no-control", action="store_true", help="skip the run without module")
    a = ap.parse_args(argv)
    p.update(contexts=a.contexts.split(), duration_s=a.duration, load_us=a.load_us,
             kernel=a.kernel, clock=a.clock, icount_shift=a.icount_shift, out=a.out,
             module=a.module)
    bad = [c for c in p["contexts"] if c not in CONTEXTS]
    if bad:
        ap.error("unknown context(s) %s (choose from %s)" % (bad, " ".join(CONTEXTS)))
    if not p["module"]:
        p["module"] = str(ROOT / module_path(p["kernel"]))
    if p["contexts"] and not os.path.isfile(p["module"]):
        ap.error("module %s missing: make module KVER=%s" % (p["module"], p["kernel"]))
    Path(p["out"]).mkdir(parents=True, exist_ok=True)
    runs = ([] if a.no_control else ["control"]) + p["contexts"]
    summary = {}
    t0 = time.monotonic()
    for i, ctx in enumerate(runs, 1):
        summary[ctx] = run_one(ctx, p, i, len(runs))
    figs = figures(summary, p["out"])
    for e in summary.values():
        e["figures"] = figs
    with open(Path(p["out"]) / "summary.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    text = table(summary)
    (Path(p["out"]) / "summary.txt").write_text(text + "\n")
    print(text)
    print("compare: %d runs in %.0f s; %s/summary.json, figures %s"
          % (len(runs), time.monotonic() - t0, p["out"], ", ".join(figs)))
    failed = [c for c, e in summary.items() if e["guest"]["rc"] != 0]
    if failed:
        print("compare: FAILED runs: %s" % " ".join(failed), file=sys.stderr)
        return 1
    return 0
