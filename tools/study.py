#!/usr/bin/env python3
"""make study: the soft-modem study's tables and figures (seeds 000 and 004,
../shared/STUDY.md section 1) on every kernel in KERNELS, on the
instruction-counted clock, each beside the study's own numbers.

Per kernel, with the study's load (load_us=1840 per 12.5 ms period) and its
spinning competitor unless a part says otherwise:
  compare  one boot per context of STUDY_CONTEXTS (and a control boot
           without the module): cyclictest -p 95 -i 1000 (the study's 1 ms
           task) for STUDY_DURATION s,
           rtla where the kernel has the tracers, the whole smodem trace:
           ISR / DPC / thread elapsed times and interrupt-to-processing
           latency (Figs 2, 4, 8, 15), samples pending after each
           processing call (Figs 5-7, 14, 18), the 1 ms task's latency in
           50 us buckets and its longest time between wakeups (Figs 10-13,
           16 and the study's 1978 / 5313 / 4396 / 2239 / 1971 us);
  phase    one call with phase_periods=1 and no emulated load: interrupts
           per second by phase (Fig 1: 400/s on hook, 80/s from dialling
           on) and the data pump's own CPU per phase (Fig 3);
  transfer the study's Tables 1 and 2: per version of STUDY_VERSIONS (INT, DPC, THR at
           SCHED_FIFO, THR-8 = a SCHED_OTHER thread at nice 19 beside the
           normal-priority spinner, RES X/Y, and the contexts the study
           could not have: IRQT, BHW where the kernel has it) TRIES calls
           each moving TRANSFER_BYTES both ways (10240 by default: about the
           study's 36 s at V.22bis + V.42).  The tries differ: try k puts
           white noise at -50 dBm0 on the line from seed k+1 and has the far
           modem answer 2000 + 50 k ms after its pick-up.  Their traces give
           the pending samples per reservation and CPU per phase with load;
  resmap   the reservation boundary (Table 3, Fig 17): CELLS hard
           reservations X/Y with a call each (tools/resmap.py), over the
           model, every disagreement named and explained.

QUICK=1 is the reduced grid make check runs: the first kernel, 2 s of cyclictest,
the contexts but usr and oth, one try of INT, THR, THR-8, RES 1/8, RES 2/8
(BHW where the kernel has it) moving 1024 bytes, two reservation cells.  STUDY_PARTS picks parts (compare phase transfer resmap).  JOBS guests run
at a time; on the virtual clock the figures do not depend on it.  A finished
piece whose settings (kernel, module, line program, scripts, parameters) are
unchanged is not run again unless FORCE.  Writes STUDY_OUT/report.md,
report.json, PNG figures and every boot's raw files (traces included).
"""
import concurrent.futures
import json
import math
import re
import sys
import time
from pathlib import Path

import bench_modem as bm
import resmap
import smtrace
from smlab import cli, resume
from smlab import compare as cmp

TOP = Path(__file__).resolve().parents[1]
LOAD_US = 1840
RING = 512          # the study's ring: the limit line of the pending figures
TRACE_ALL = "-e smodem"

# Study figures (../shared/STUDY.md)
STUDY_GAP_US = {"control": 1978, "int": 5313, "dpc": 4396, "thr": 2239, "res": 1971}
STUDY_TRANSFER = {   # version: ((Table 1 mean s, successes), (Table 2 mean s, successes))
    "INT": ((37.22, 10), (36.37, 10)), "DPC": ((37.23, 10), (36.40, 10)),
    "THR": ((37.56, 10), (36.38, 10)), "THR-8": ((60.22, 10), (36.72, 10)),
    "RES 2/16": ((204.1, 10), (346.7, 2)), "RES 3/16": ((76.8, 10), (103.8, 10)),
    "RES 1/8": ((56.2, 9), (None, 0)), "RES 2/8": ((37.18, 10), (36.38, 10)),
    "RES 1/4": ((37.35, 10), (36.35, 10)),
}
# The study's THR-8 figures are its calls without the competitor; with it
# they failed ("please hang up and try again"), as THR-8 here has it.
STUDY_NOTE = {"THR-8": "study: with the competitor its calls failed; figures without it"}


def _res(x, y):
    return ("RES %d/%d" % (x, y), "res", ("res_runtime_us=%d" % (x * 1000),
                                          "res_period_us=%d" % (y * 1000)))


# (version, context, insmod arguments)
VERSIONS = [("INT", "int", ()), ("DPC", "dpc", ()), ("THR", "thr", ("prio=50",)),
            ("THR-8", "oth", ("nice=19",)),
            _res(2, 16), _res(3, 16), _res(1, 8), _res(2, 8), _res(1, 4),
            ("IRQT", "irqt", ()), ("BHW", "bhw", ())]
QUICK_VERSIONS = ["INT", "THR", "THR-8", "RES 1/8", "RES 2/8", "BHW"]
CMP_CONTEXTS = ["int", "dpc", "thr", "res", "oth", "irqt", "bhw", "usr"]
QUICK_CELLS = "1/16 4/17"
PARTS = ["compare", "phase", "transfer", "resmap"]
# the quick grid compares the study's four and the two new kernel contexts
# (make compare's own test has usr; THR-8's failure is its call's)
QUICK_CONTEXTS = ["int", "dpc", "thr", "res", "irqt", "bhw"]


def log(msg):
    print("study: %s" % msg, flush=True)


def has_bh_wq(kver):
    """system_bh_wq (context=bhw) came with Linux 6.9."""
    m = re.match(r"(\d+)\.(\d+)", kver)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (6, 9)


def is_rt(kver):
    return "-rt-" in kver


# -- trace analysis --------------------------------------------------------------------
def _loghist(vals_ns):
    """Elapsed times in log-spaced microsecond bins (4 per decade)."""
    h = {}
    for v in vals_ns:
        us = max(v / 1000.0, 0.1)
        b = round(10 ** (math.floor(math.log10(us) * 4) / 4), 3)
        h[str(b)] = h.get(str(b), 0) + 1
    return dict(sorted(h.items(), key=lambda kv: float(kv[0])))


def _counts(vals):
    h = {}
    for v in vals:
        h[str(v)] = h.get(str(v), 0) + 1
    return dict(sorted(h.items(), key=lambda kv: int(kv[0])))


def trace_figures(dat):
    """What the study drew from its traces, from one trace.dat: elapsed
    times and latencies (summaries and log histograms), pending samples
    after each processing call, and per phase (from smodem_phase) the
    interrupts per second and the share of time the driver's activations
    took (ISR + bottom half + thread elapsed: CPU, as nothing outranks them
    here but the 1 ms task)."""
    ev = smtrace.events(dat)
    by = smtrace.by_name(ev)

    def f(name, field):
        return smtrace.field_values(by, name, field)

    out = {"events": len(ev)}
    for key, name, field in (("isr_elapsed", "smodem_isr_exit", "elapsed_ns"),
                             ("dpc_elapsed", "smodem_dpc_exit", "elapsed_ns"),
                             ("dpc_latency", "smodem_dpc_entry", "delay_ns"),
                             ("thread_elapsed", "smodem_thread_done", "elapsed_ns"),
                             ("thread_latency", "smodem_thread_wakeup", "latency_ns")):
        v = f(name, field)
        if v:
            out[key] = {"summary": smtrace.summarize(v), "hist_us": _loghist(v)}
    pend = f("smodem_process", "pending")
    out["pending"] = {"summary": smtrace.summarize(pend), "hist": _counts(pend)} if pend else None
    # per phase: intervals between smodem_phase events
    ph = by.get("smodem_phase", [])
    if ev:
        t_end = max(e.ts_ns for e in ev)
        busy = [(e.ts_ns, e.fields.get("elapsed_ns", 0)) for n in (
            "smodem_isr_exit", "smodem_dpc_exit", "smodem_thread_done") for e in by.get(n, [])]
        irqs = [e.ts_ns for e in by.get("smodem_irq", [])]
        phases = []
        # the engine starts on hook without an event: the capture's start
        # to the first phase event is on hook
        if ph and ev[0].ts_ns < ph[0].ts_ns and ph[0].fields.get("phase") != "on-hook":
            ph = [smtrace.Event("smodem_phase", ev[0].ts_ns, 0, "", 0, "", {"phase": "on-hook"})] + ph
        for i, e in enumerate(ph):
            t0 = e.ts_ns
            t1 = ph[i + 1].ts_ns if i + 1 < len(ph) else t_end
            if t1 - t0 < 1_000_000:     # a phase of under 1 ms: a step, not a phase
                continue
            n = sum(1 for t in irqs if t0 <= t < t1)
            b = sum(el for t, el in busy if t0 <= t < t1)
            phases.append({"phase": e.fields.get("phase"), "t_s": round((t0 - ph[0].ts_ns) / 1e9, 3),
                           "dur_s": round((t1 - t0) / 1e9, 3),
                           "irqs_per_s": round(n / ((t1 - t0) / 1e9), 1),
                           "cpu_pct": round(100.0 * b / (t1 - t0), 2)})
        out["phases"] = phases
        # interrupts per second over the whole capture, 0.5 s bins (Fig 1)
        if irqs:
            t0 = ph[0].ts_ns if ph else irqs[0]
            bins = {}
            for t in irqs:
                if t >= t0:
                    k = int((t - t0) // 500_000_000)
                    bins[k] = bins.get(k, 0) + 1
            out["irq_rate"] = [[k * 0.5, 2 * bins.get(k, 0)] for k in range(max(bins) + 1)]
    out["overruns"] = len(by.get("smodem_overrun", []))
    return out


def phase_table(phases):
    """Merge a call's phase intervals by phase name (time-weighted)."""
    agg = {}
    for p in phases or []:
        a = agg.setdefault(p["phase"], {"dur_s": 0.0, "irqs": 0.0, "busy": 0.0})
        a["dur_s"] += p["dur_s"]
        a["irqs"] += p["irqs_per_s"] * p["dur_s"]
        a["busy"] += p["cpu_pct"] * p["dur_s"]
    return {k: {"dur_s": round(a["dur_s"], 2),
                "irqs_per_s": round(a["irqs"] / a["dur_s"], 1) if a["dur_s"] else None,
                "cpu_pct": round(a["busy"] / a["dur_s"], 2) if a["dur_s"] else None}
            for k, a in agg.items()}


# -- the pieces of work ----------------------------------------------------------------
class Plan:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out)
        # finished pieces kept apart from the raw files (results and
        # settings only), so that a run goes on in another checkout
        self.record = Path(a.record) if a.record else None

    def kdir(self, k):
        return self.out / k

    def common(self, k):
        ko = TOP / "build" / k / "smodem.ko"
        return {"kernel": k, "module": resume.file_digest(ko), "smline": resume.file_digest(bm.SMLINE),
                "calls_script": resume.file_digest(bm.GUEST_SCRIPT),
                "compare": resume.file_digest(Path(cmp.__file__)),
                "guest_append": self.a.guest_append}

    def jobs(self, k):
        """[(kind, key, callable(settings) -> result, settings)] for kernel k."""
        a, js = self.a, []
        base = self.common(k)
        for ctx in (["control"] + [c for c in a.contexts if c != "bhw" or has_bh_wq(k)]
                    if "compare" in a.parts else []):
            st = dict(base, part="compare", ctx=ctx, duration=a.duration, load_us=LOAD_US,
                      smodemd=resume.file_digest(bm.SMODEMD) if ctx == "usr" else None)
            js.append(("compare", ctx, lambda s, ctx=ctx, k=k: self.run_compare(k, ctx), st))
        if "phase" in a.parts:
            st = dict(base, part="phase", nbytes=a.nbytes)
            js.append(("phase", "phase", lambda s, k=k: self.run_phase(k), st))
        for ver, ctx, args in VERSIONS:
            if ("transfer" not in a.parts or ver not in a.versions
                    or (ctx == "bhw" and not has_bh_wq(k))):
                continue
            for t in range(a.tries):
                st = dict(base, part="transfer", version=ver, try_=t, nbytes=a.nbytes, args=args)
                js.append(("transfer", "%s#%d" % (ver, t),
                           lambda s, ver=ver, ctx=ctx, args=args, t=t, k=k:
                           self.run_transfer(k, ver, ctx, args, t), st))
        for x, y in (a.cells if "resmap" in a.parts else []):
            st = dict(base, part="resmap", x=x, y=y, nbytes=a.resmap_bytes)
            js.append(("resmap", "%d/%d" % (x, y), lambda s, x=x, y=y, k=k: self.run_cell(k, x, y), st))
        return js

    # each returns a JSON-able result
    def run_compare(self, k, ctx):
        a = self.a
        ap = cli.parser("")
        cmp.add_arguments(ap, env={})
        args = ["--contexts", ctx if ctx != "control" else "int", "--duration", str(a.duration),
                "--kernel", k, "--out", str(self.kdir(k) / "compare"),
                "--preempt", "full", "--rtla", "auto"]
        if a.guest_append:
            args += ["--guest-append", a.guest_append]
        if a.quick:
            args += ["--rtla-duration", "1"]
        p = cmp.params(ap, ap.parse_args(args))
        e = cmp.run_one(ctx, p, 1, 1, log=lambda m: None)
        dat = self.kdir(k) / "compare" / ctx / "trace.dat"
        if dat.exists():
            e["figures_trace"] = trace_figures(dat)
        return e

    def call(self, k, tag, ctx, load, spin, idle, args, try_=0, nbytes=None):
        a = self.a
        nb = nbytes or a.nbytes
        extra = dict(trace_events=TRACE_ALL)
        if try_ is not None:
            extra.update(line_extra=["--noise", "-50", "--seed", str(try_ + 1)],
                         route_words=",ansdelay=%d" % (2000 + 50 * try_))
        c = bm.one_call("virtual", tag, ctx, load, spin, idle, self.kdir(k) / "calls", nb, k,
                        TOP / "build" / k / "smodem.ko", bm.SMLINE, 0, args=args, quiet=True,
                        cmdline_extra=" ".join(x for x in ("preempt=full", a.guest_append) if x),
                        **extra)
        dat = self.kdir(k) / "calls" / "virtual" / tag / "results" / (tag + ".dat")
        c["ok"] = bm.call_ok(c)
        c["why"] = None if c["ok"] else bm.failure(c)
        c["figures_trace"] = trace_figures(dat) if dat.exists() else None
        return c

    def run_phase(self, k):
        return self.call(k, "phase", "thr", 0, False, 3, ("phase_periods=1",), try_=None)

    def run_transfer(self, k, ver, ctx, args, t):
        tag = re.sub(r"[^A-Za-z0-9]+", "_", ver).strip("_").lower() + "-%d" % t
        return self.call(k, tag, ctx, LOAD_US, True, 0, args, try_=t)

    def run_cell(self, k, x, y):
        tag = "res%d_%d" % (x, y)
        args = ("res_runtime_us=%d" % (x * 1000), "res_period_us=%d" % (y * 1000),
                "ring_samples=8192")
        c = bm.one_call("virtual", tag, "res", LOAD_US, True, 0, self.kdir(k) / "resmap",
                        self.a.resmap_bytes, k, TOP / "build" / k / "smodem.ko", bm.SMLINE, 0,
                        args=args, quiet=True,
                        cmdline_extra=" ".join(x for x in ("preempt=full", self.a.guest_append) if x))
        return c


def priority(kind, key, st):
    if kind in ("compare", "phase"):
        return 0
    if kind == "transfer":
        return 1 + 2 * st["try_"]
    return 2 if (st["x"], st["y"]) in resmap.STUDY else 30


def run_all(plan, kernels, jobs, force, report_only=False):
    work = []
    for k in kernels:
        for kind, key, fn, st in plan.jobs(k):
            work.append((k, kind, key, fn, st))
    # a run stopped early has the most to show: every kernel's comparison
    # and a first call of every version before the further tries and cells
    work.sort(key=lambda w: (priority(w[1], w[2], w[4]), kernels.index(w[0])))
    total = len(work)
    results = {}
    t0 = time.monotonic()
    done = 0
    ran = 0
    missing = []

    def one(w):
        k, kind, key, fn, st = w
        name = "%s-%s.json" % (kind, re.sub(r"[^A-Za-z0-9#]+", "_", key))
        stamp = plan.kdir(k) / "done" / name
        kept = plan.record / k / name if plan.record else None
        old = resume.reuse(stamp, st, force)
        if old is None and kept:
            old = resume.reuse(kept, st, force)
        if old is not None:
            return old, True
        if report_only:
            return None, True
        t = time.monotonic()
        try:
            r = fn(st)
        except Exception as e:  # noqa: BLE001 - one piece's harness error is reported, not kept
            import traceback
            log("%s %s %s: harness error: %s" % (k, kind, key, traceback.format_exc()))
            return {"error": "%s: %s" % (type(e).__name__, e)}, False
        r["wall_s_piece"] = round(time.monotonic() - t, 1)
        resume.keep(stamp, st, r)
        if kept:
            resume.keep(kept, st, r)
        return json.loads(json.dumps(r, default=str)), False

    log("%d pieces on %s, %d at a time" % (total, ", ".join(kernels), jobs))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(one, w): w for w in work}
        for fu in concurrent.futures.as_completed(futs):
            k, kind, key, _, _ = futs[fu]
            r, reused = fu.result()
            done += 1
            if r is None or r.get("error"):
                missing.append("%s %s %s%s" % (k, kind, key, " (%s)" % r["error"] if r else ""))
                if r:
                    log("[%d/%d] %s %s %s FAILED: %s" % (done, total, k, kind, key, r["error"]))
                continue
            results.setdefault(k, {}).setdefault(kind, {})[key] = r
            if not reused:
                ran += 1
            el = time.monotonic() - t0
            left = el / ran * (total - done) if ran else 0
            if report_only:
                continue
            log("[%d/%d, %.0f s, about %.0f s left] %s %s %s%s" % (
                done, total, el, left, k, kind, key, " (done before, not run again)" if reused else ""))
    if missing:
        log("%d of %d pieces not done yet (left out of the report): %s%s" % (
            len(missing), total, ", ".join(missing[:5]), " ..." if len(missing) > 5 else ""))
    return results, round(time.monotonic() - t0, 1), missing


# -- the report ------------------------------------------------------------------------
def _f(v, fmt="%.0f"):
    return "-" if v is None else fmt % v


def summarise(k, res, a):
    """The figures of one kernel, as data (report.json) from the pieces."""
    s = {"kernel": k, "rt": is_rt(k)}
    cmpr = res.get("compare", {})
    rows = []
    for ctx in ["control"] + CMP_CONTEXTS:
        e = cmpr.get(ctx)
        if ctx == "bhw" and not has_bh_wq(k):
            if ctx in a.contexts and "compare" in a.parts:
                rows.append({"context": ctx, "refused": "no system_bh_wq before Linux 6.9"})
            continue
        if e is None:
            continue
        c = e.get("cyclictest") or {}
        tf = e.get("figures_trace") or {}
        st = e.get("stats") or {}
        rows.append({
            "context": ctx, "guest_rc": (e.get("guest") or {}).get("rc"),
            "cyc_avg_us": c.get("avg_us"), "cyc_p99_us": c.get("p99_us"), "cyc_max_us": c.get("max_us"),
            "max_gap_us": c.get("max_gap_us"), "missed_periods": c.get("skipped_periods"),
            "cyc_hist": c.get("histogram"), "study_gap_us": STUDY_GAP_US.get(ctx),
            "isr_us": _us(tf, "isr_elapsed"), "dpc_us": _us(tf, "dpc_elapsed"),
            "thread_us": _us(tf, "thread_elapsed"),
            "latency_us": _us(tf, "thread_latency") or _us(tf, "dpc_latency"),
            "elapsed_hists": {x: (tf.get(x) or {}).get("hist_us") for x in (
                "isr_elapsed", "dpc_elapsed", "thread_elapsed", "thread_latency", "dpc_latency")
                if tf.get(x)},
            "pending_max": ((tf.get("pending") or {}).get("summary") or {}).get("max"),
            "pending_hist": (tf.get("pending") or {}).get("hist"),
            "overruns": st.get("overruns"),
            "rtla": _rtla(e.get("rtla")),
        })
    s["compare"] = rows
    ph = res.get("phase", {}).get("phase")
    if ph:
        tf = ph.get("figures_trace") or {}
        s["phase_call"] = {"ok": ph.get("ok"), "why": ph.get("why"),
                           "phases": phase_table(tf.get("phases")), "irq_rate": tf.get("irq_rate"),
                           "sequence": [(p["phase"], p["dur_s"]) for p in tf.get("phases") or []]}
    tr = res.get("transfer", {})
    trows = []
    for ver, ctx, args in VERSIONS:
        calls = [tr[key] for key in sorted(tr) if key.rsplit("#", 1)[0] == ver]
        if not calls:
            if ver in a.versions and ctx == "bhw" and not has_bh_wq(k) and "transfer" in a.parts:
                trows.append({"version": ver, "refused": "no system_bh_wq before Linux 6.9"})
            continue
        oks = [c for c in calls if c.get("ok")]
        ts = [c["transfer_s"] for c in oks if c.get("transfer_s") is not None]
        mean = sum(ts) / len(ts) if ts else None
        sd = math.sqrt(sum((x - mean) ** 2 for x in ts) / len(ts)) if len(ts) > 1 else (0.0 if ts else None)
        pend = [((c.get("figures_trace") or {}).get("pending") or {}) for c in calls]
        pmax = max((p.get("summary") or {}).get("max") or 0 for p in pend) if pend else None
        hist = {}
        for p in pend:
            for v, n in (p.get("hist") or {}).items():
                hist[v] = hist.get(v, 0) + n
        loaded = phase_table(((calls[0].get("figures_trace") or {}).get("phases")))
        trows.append({"version": ver, "context": ctx, "args": list(args), "tries": len(calls),
                      "ok": len(oks), "mean_s": mean, "sd_s": sd,
                      "min_s": min(ts) if ts else None, "max_s": max(ts) if ts else None,
                      "setup_s": [c.get("setup_s") for c in calls],
                      "overruns": sum(c.get("overruns") or 0 for c in calls),
                      "dropped": sum(((c.get("stats") or {}).get("dropped") or 0) for c in calls),
                      "pending_max": pmax, "pending_hist": hist, "phases_loaded": loaded,
                      "failures": [c.get("why") for c in calls if not c.get("ok")],
                      "study": STUDY_TRANSFER.get(ver)})
    s["transfer"] = trows
    cells = res.get("resmap", {})
    rrows = []
    for key in sorted(cells, key=lambda t: tuple(int(x) for x in t.split("/"))):
        x, y = (int(v) for v in key.split("/"))
        r = resmap.cell_row(x, y, cells[key])
        r["explained"] = resmap.explain(r, 8192) if r["works"] != r["model"] else None
        rrows.append(r)
    s["resmap"] = rrows
    return s


def _us(tf, key):
    sm = (tf.get(key) or {}).get("summary")
    if not sm or not sm.get("n"):
        return None
    return {k: round(sm[k] / 1000.0, 1) for k in ("min", "avg", "p99", "max") if sm.get(k) is not None}


def _rtla(r):
    if not r:
        return None
    tl = (r.get("timerlat") or {}).get("thread") or {}
    on = r.get("osnoise") or {}
    return {"timerlat_thread_max_us": tl.get("max_us"), "osnoise_max_single_us": on.get("max_single_us"),
            "osnoise_avail_pct": on.get("cpu_avail_pct"), "status": r.get("status")}


def _mam(d):
    return "-" if not d else "%s / %s / %s" % (_f(d.get("min"), "%.1f"), _f(d.get("avg"), "%.1f"),
                                                 _f(d.get("max"), "%.1f"))


def markdown(summ, meta):
    L = ["# The soft-modem study on Linux (`make study`)", "",
         "%s; virtual clock (icount shift 0), `preempt=full`, uniprocessor guests; %d pieces in %.0f s of "
         "wall time (%s), %d at a time. Study figures from `../shared/STUDY.md`."
         % (meta["date"], meta["pieces"], meta["wall_s"], "quick grid" if meta["quick"] else "full grid",
            meta["jobs"]), ""]
    if meta.get("missing"):
        L += ["**Partial report**: %d of %d pieces are not done yet (the run goes on where it stopped); "
              "%.0f s of wall time in the pieces done." % (len(meta["missing"]), meta["pieces"],
                                                           meta["pieces_wall_s"]), ""]
    for k, s in summ.items():
        L += ["## %s (%s)" % (k, "PREEMPT_RT" if s["rt"] else "generic"), ""]
        L += ["### The 1 ms task and the driver's elapsed times (Figs 2, 4, 8, 10-16)", "",
              "cyclictest -m -p 95 -i 1000 for %d s beside the modem (load_us=%d) and the spinning "
              "competitor; elapsed times from the trace (us, min / avg / max)." % (meta["duration"], LOAD_US), "",
              "| context | study max gap | cyclictest avg / p99 / max | max gap | 1 ms periods missed | ISR | "
              "DPC | thread | irq -> processing | max pending | rtla timerlat thread max |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in s["compare"]:
            if r.get("refused"):
                L.append("| %s | - | refused: %s |  |  |  |  |  |  |  |  |" % (r["context"], r["refused"]))
                continue
            rt = r.get("rtla") or {}
            L.append("| %s | %s | %s / %s / %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["context"], _f(r["study_gap_us"]), _f(r["cyc_avg_us"]), _f(r["cyc_p99_us"]),
                _f(r["cyc_max_us"]), _f(r["max_gap_us"]), _f(r["missed_periods"]), _mam(r["isr_us"]),
                _mam(r["dpc_us"]), _mam(r["thread_us"]), _mam(r["latency_us"]), _f(r["pending_max"]),
                _f(rt.get("timerlat_thread_max_us"))))
        pc = s.get("phase_call")
        if pc:
            L += ["", "### Interrupt rate and CPU by phase (Figs 1 and 3)", "",
                  "A call with `phase_periods=1`, no emulated load (the data pump alone: %s); the loaded "
                  "column is the first THR transfer call (load_us=%d, 12.5 ms periods throughout)."
                  % ("ok" if pc["ok"] else "FAILED: %s" % pc["why"], LOAD_US), "",
                  "| phase | time (s) | interrupts/s (study: 400 on hook, 80 after) | CPU, data pump alone | "
                  "CPU with the study's load |", "|---|---|---|---|---|"]
            thr = next((t for t in s["transfer"] if t.get("version") == "THR"), {})
            loaded = thr.get("phases_loaded") or {}
            for name, p in pc["phases"].items():
                L.append("| %s | %s | %s | %s %% | %s |" % (
                    name, _f(p["dur_s"], "%.2f"), _f(p["irqs_per_s"], "%.1f"), _f(p["cpu_pct"], "%.2f"),
                    _f((loaded.get(name) or {}).get("cpu_pct"), "%.1f %%")))
        if s["transfer"]:
            L += ["", "### File transfer (Tables 1 and 2)", "",
                  "%d bytes each way per call, V.22bis + V.42 to smline; tries differ by the line's noise "
                  "seed (-50 dBm0) and the far modem's answer delay. Transfer: smline's data phase to "
                  "both files done (s)." % meta["nbytes"], "",
                  "| version | ok | mean (s) | sd | min / max | study T1 | study T2 | overruns | max pending | "
                  "why not |", "|---|---|---|---|---|---|---|---|---|---|"]
            for t in s["transfer"]:
                if t.get("refused"):
                    L.append("| %s | refused: %s |  |  |  |  |  |  |  |  |" % (t["version"], t["refused"]))
                    continue
                st = t.get("study") or ((None, None), (None, None))
                L.append("| %s | %d/%d | %s | %s | %s / %s | %s, %s/10 | %s, %s/10 | %d | %s | %s |" % (
                    t["version"], t["ok"], t["tries"], _f(t["mean_s"], "%.2f"), _f(t["sd_s"], "%.2f"),
                    _f(t["min_s"], "%.2f"), _f(t["max_s"], "%.2f"), _f(st[0][0], "%.2f"), _f(st[0][1]),
                    _f(st[1][0], "%.2f"), _f(st[1][1]), t["overruns"], _f(t["pending_max"]),
                    "; ".join(sorted(set(x for x in t["failures"] if x)))[:160] or "-"))
                if t["version"] in STUDY_NOTE:
                    L.append("|  | %s |  |  |  |  |  |  |  |  |" % STUDY_NOTE[t["version"]])
        if s["resmap"]:
            L += ["", "### Reservation boundary (Table 3, Fig 17)", "",
                  "| X/Y ms | share | gap | model | Linux | study (of 10) | max pending | overruns | why |",
                  "|---|---|---|---|---|---|---|---|---|"]
            for r in s["resmap"]:
                L.append("| %d/%d | %.1f %% | %d ms | %s | %s | %s | %s | %s | %s |" % (
                    r["x_ms"], r["y_ms"], 100 * r["share"], r["gap_ms"],
                    "works" if r["model"] else "fails", "works" if r["works"] else "fails",
                    _f(r["study"]), _f(r.get("pending_max")), _f(r.get("overruns")),
                    r["explained"] or "-"))
        L.append("")
    if len(summ) > 1:
        L += ["## Generic against PREEMPT_RT", "",
              "Each cell: the kernel's figure for the result (\"-\": not measured or not done yet).", "",
              "| result | " + " | ".join(summ) + " |", "|---|" + "---|" * len(summ)]

        def crow(ctx, s, fmt):
            r = next((r for r in s["compare"] if r["context"] == ctx), None)
            if r is None:
                return "-"
            return "refused" if r.get("refused") else fmt(r)
        for ctx in ["control"] + CMP_CONTEXTS:
            L.append("| %s: cyclictest max / max gap (us) | " % ctx + " | ".join(crow(
                ctx, s, lambda r: "%s / %s" % (_f(r.get("cyc_max_us")), _f(r.get("max_gap_us"))))
                for s in summ.values()) + " |")
        for ctx in CMP_CONTEXTS:
            L.append("| %s: irq -> processing avg / max (us), max pending | " % ctx + " | ".join(crow(
                ctx, s, lambda r: "%s / %s, %s" % (_f((r.get("latency_us") or {}).get("avg"), "%.1f"),
                                                  _f((r.get("latency_us") or {}).get("max"), "%.1f"),
                                                  _f(r.get("pending_max"))))
                for s in summ.values()) + " |")
        for ver, _, _ in VERSIONS:
            L.append("| transfer %s: ok, mean (s) | " % ver + " | ".join(
                next(("%d/%d, %s" % (t["ok"], t["tries"], _f(t["mean_s"], "%.2f")) for t in s["transfer"]
                      if t["version"] == ver and not t.get("refused")),
                     "refused" if any(t["version"] == ver for t in s["transfer"]) else "-")
                for s in summ.values()) + " |")
        L.append("| reservation cells agreeing with the model | " + " | ".join(
            ("%d of %d" % (sum(r["works"] == r["model"] for r in s["resmap"]), len(s["resmap"]))
             if s["resmap"] else "-") for s in summ.values()) + " |")
    L += ["", "Figures: " + ", ".join(meta["figures"]), ""]
    return "\n".join(L)


def _step_plot(ax, series, width, xlabel, ylabel):
    """compare's step plot with widths that stay positive: it thins each
    further series by 0.3 pt, and the study draws up to 13 series (a width
    of zero hides a curve, a negative one stops matplotlib)."""
    cmp._step_plot(ax, series, width, xlabel, ylabel)
    for i, line in enumerate(ax.get_lines()):
        line.set_linewidth(max(2.4 - 0.15 * i, 0.8))


def plots(summ, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figs = []
    for k, s in summ.items():
        # cyclictest, 50 us buckets
        fig, ax = plt.subplots(figsize=(9, 5))
        _step_plot(ax, [(r["context"], r.get("cyc_hist") or {}) for r in s["compare"]
                            if not r.get("refused")], 50, "1 ms task latency (us, 50 us buckets)", "wakeups")
        ax.set_title("%s: cyclictest beside the modem and the spinner" % k, fontsize=9)
        figs.append(_save(fig, out, "cyclictest-%s.png" % k))
        # elapsed times and latencies: one panel per context, log bins
        rows = [r for r in s["compare"] if r.get("elapsed_hists")]
        if rows:
            fig, axs = plt.subplots(len(rows), 1, figsize=(9, 1.6 * len(rows) + 1), sharex=True,
                                    squeeze=False)
            for ax, r in zip(axs[:, 0], rows):
                for i, (key, hist) in enumerate(sorted(r["elapsed_hists"].items())):
                    xs = [float(x) for x in hist]
                    # a bar per quarter decade, side by side per kind
                    ax.bar([x * 10 ** (0.05 * i) for x in xs], list(hist.values()),
                           width=[x * 0.12 for x in xs], label=key.replace("_", " "), align="edge")
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_ylabel(r["context"])
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(fontsize=6, loc="upper center", ncol=3)
            axs[-1, 0].set_xlabel("us (quarter-decade bins)")
            fig.suptitle("%s: ISR / DPC / thread elapsed times and interrupt-to-processing latency, "
                         "activations per bin" % k, fontsize=9)
            figs.append(_save(fig, out, "elapsed-%s.png" % k))
        # pending, per context and per reservation
        series = [(r["context"], r.get("pending_hist") or {}) for r in s["compare"] if r.get("pending_hist")]
        series += [(t["version"] + " (call)", t.get("pending_hist") or {}) for t in s["transfer"]
                   if t.get("pending_hist") and t["version"].startswith("RES")]
        if series:
            fig, ax = plt.subplots(figsize=(9, 5))
            _step_plot(ax, series, 4, "samples pending after a processing call (4-sample bins)", "calls")
            ax.axvline(RING, color="red", linestyle=":", label="the study's ring (512)")
            # healthy contexts stay near 14, starved reservations reach thousands
            ax.set_xscale("symlog", linthresh=32)
            ax.set_xlim(left=0)
            ax.legend(fontsize=7)
            ax.set_title("%s: samples pending" % k, fontsize=9)
            figs.append(_save(fig, out, "pending-%s.png" % k))
        pc = s.get("phase_call")
        if pc and pc.get("irq_rate"):
            fig, ax = plt.subplots(figsize=(9, 4))
            xs, ys = zip(*pc["irq_rate"])
            ax.step(xs, ys, where="post")
            t = 0.0
            for i, (name, p) in enumerate(pc.get("sequence") or []):
                ax.axvspan(t, t + p, alpha=0.08 if i % 2 else 0.16, color="grey")
                ax.text(t + p / 2, max(ys) * (0.92 - 0.08 * (i % 3)), name, ha="center", fontsize=7)
                t += p
            ax.set_xlabel("s since the first phase event")
            ax.set_ylabel("interrupts per second")
            ax.set_title("%s: interrupt rate over a call (phase_periods=1)" % k, fontsize=9)
            ax.grid(True, alpha=0.3)
            figs.append(_save(fig, out, "irq-rate-%s.png" % k))
        if s["resmap"]:
            png = out / ("resmap-%s.png" % k)
            resmap.plot(s["resmap"], png, {"kernel": k, "guest_append": "preempt=full"})
            figs.append(png.name)
    return figs


def kshark(out, k, record=None):
    """kernelshark's picture of 60 ms of the first THR call (its periods,
    the spinner and the interrupts), kept in the record beside the call's
    result (a call taken from the record left its trace in another
    checkout); what went wrong otherwise."""
    import shutil
    import subprocess
    dat = out / k / "calls" / "virtual" / "thr-0" / "results" / "thr-0.dat"
    png = "kernelshark-%s.png" % k
    kept = record / k / png if record else None
    if not dat.exists():
        if kept and kept.exists():
            shutil.copyfile(kept, out / png)
            return {"png": png, "trace": "taken from %s" % kept}
        return {"error": "no THR call trace"}
    r = subprocess.run([sys.executable, str(TOP / "tools" / "traces" / "kshark_shot.py"), str(dat),
                        "-o", str(out / png), "--skip", "20", "--length", "0.06"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return {"error": (r.stderr or r.stdout).strip()[-300:]}
    if kept:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / png, kept)
    return {"png": png, "trace": str(dat.relative_to(out))}


def _save(fig, out, name):
    import matplotlib.pyplot as plt
    fig.tight_layout()
    fig.savefig(out / name, dpi=100)
    plt.close(fig)
    return name


def figures_only(report):
    """report.json without what depends on the host (wall times, paths):
    what JOBS must not change."""
    drop = {"wall_s", "wall_s_piece", "date", "jobs", "figures"}

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if k not in drop}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x
    return clean(report)


def main(argv=None):
    from smlab.image import available_kernels, debian_kernels
    ap = cli.parser(__doc__)
    opt = (lambda *a, **kw: cli.env_option(ap, *a, **kw))
    opt("--kernels", "KERNELS", " ".join(debian_kernels()), str, "guest kernels, space-separated")
    opt("--quick", "QUICK", 0, cli.int_range(0, 1), "1: the reduced grid of make check")
    opt("--jobs", "JOBS", 2, cli.int_range(1, 64), "guests at a time")
    opt("--duration", "STUDY_DURATION", None, cli.positive_int, "seconds of cyclictest per context (30; quick 2)")
    opt("--tries", "TRIES", None, cli.positive_int, "calls per transfer-table version (10; quick 1)")
    opt("--nbytes", "TRANSFER_BYTES", None, cli.positive_int,
        "bytes each way per transfer call (10240; quick 1024)")
    opt("--cells", "CELLS", None, str, "reservation cells: study, sweep, 'X/Y ...' or a mix (study sweep; quick %s)"
        % QUICK_CELLS)
    opt("--contexts", "STUDY_CONTEXTS", None, str, "contexts compared (%s)" % " ".join(CMP_CONTEXTS))
    opt("--versions", "STUDY_VERSIONS", None, str, "transfer-table versions, comma-separated (all)")
    opt("--parts", "STUDY_PARTS", " ".join(PARTS), str, "parts to run, space-separated")
    opt("--guest-append", "GUEST_APPEND", "", str, "extra guest kernel command line")
    opt("--out", "STUDY_OUT", None, str, "output directory (out/study; quick out/study-quick)")
    opt("--record", "STUDY_RECORD", "", str,
        "also keep each finished piece's result here, and take pieces from here whose settings "
        "match (doc/study/full holds the project's own full run)")
    ap.add_argument("--force", action="store_true", help="run every piece again")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: the report of the pieces done so far (a run still going)")
    a = ap.parse_args(argv)
    q = a.quick == 1
    kernels = a.kernels.split()
    if not kernels:
        ap.error("no kernels: make deps")
    bad = [k for k in kernels if k not in available_kernels()]
    if bad:
        ap.error("kernel(s) not installed: %s (have: %s)" % (" ".join(bad), " ".join(available_kernels())))
    if q and a.kernels == " ".join(debian_kernels()):
        kernels = kernels[:1]
    a.duration = a.duration or (2 if q else 30)
    a.tries = a.tries or (1 if q else 10)
    a.nbytes = a.nbytes or (1024 if q else 10240)
    a.resmap_bytes = 1024 if q else 2048
    try:
        cells = []
        for part in (a.cells or (QUICK_CELLS if q else "study sweep")).split():
            cells += resmap.parse_cells(part)
        a.cells = sorted(set(cells))
    except ValueError as e:
        ap.error(str(e))
    a.parts = a.parts.split()
    if not a.parts or any(x not in PARTS for x in a.parts):
        ap.error("--parts: choose from %s" % " ".join(PARTS))
    a.contexts = (a.contexts or " ".join(QUICK_CONTEXTS if q else CMP_CONTEXTS)).split()
    unknown = [c for c in a.contexts if c not in CMP_CONTEXTS]
    if unknown:
        ap.error("unknown context(s) %s (have: %s)" % (" ".join(unknown), " ".join(CMP_CONTEXTS)))
    names = [v[0] for v in VERSIONS]
    a.versions = ([v.strip() for v in a.versions.split(",") if v.strip()] if a.versions
                  else (QUICK_VERSIONS if q else names))
    unknown = [v for v in a.versions if v not in names]
    if unknown:
        ap.error("unknown version(s) %s (have: %s)" % (", ".join(unknown), ", ".join(names)))
    a.out = a.out or str(TOP / "out" / ("study-quick" if q else "study"))
    a.quick = q
    for k in kernels:
        for f, hint in ((TOP / "build" / k / "smodem.ko", "make module KVER=%s" % k),
                        (bm.SMLINE, "make line")):
            if not Path(f).is_file():
                ap.error("%s missing: %s" % (f, hint))
    if "usr" in a.contexts and not bm.SMODEMD.is_file():
        ap.error("%s missing: make smodemd" % bm.SMODEMD)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plan = Plan(a)
    res, wall, missing = run_all(plan, kernels, a.jobs, a.force, a.report_only)
    summ = {k: summarise(k, res.get(k, {}), a) for k in kernels}
    meta = {"date": time.strftime("%Y-%m-%d"), "quick": q, "kernels": kernels, "jobs": a.jobs,
            "duration": a.duration, "tries": a.tries, "nbytes": a.nbytes, "cells": len(a.cells),
            "pieces": sum(len(plan.jobs(k)) for k in kernels), "wall_s": wall,
            "missing": missing,
            "pieces_wall_s": round(sum(r.get("wall_s_piece", 0) for kr in res.values()
                                       for part in kr.values() for r in part.values()), 1)}
    meta["figures"] = plots(summ, out)
    if not q:
        meta["kernelshark"] = kshark(out, kernels[0], plan.record)
        if meta["kernelshark"].get("png"):
            meta["figures"].append(meta["kernelshark"]["png"])
    report = {"meta": meta, "kernels": summ}
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    md = markdown(summ, meta)
    (out / "report.md").write_text(md)
    sys.stdout.write(md)
    log("wrote %s/report.md, report.json and %d figures in %.0f s" % (out, len(meta["figures"]), wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
