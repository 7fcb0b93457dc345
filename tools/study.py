#!/usr/bin/env python3
"""make study: the soft-modem study's tables and figures (doc/studies.md) on every
kernel in KERNELS, on the instruction-counted clock, each beside the study's own numbers.

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
  pump     the same table with the real V.34 pump instead of the emulation:
           the same versions, tries, noise, answer delays and spinning
           competitor, load_us=0 (the pump is the load: 14-15 % of the CPU
           in its data phase, the emulation's share), the modem offering
           V.34 (AT\\N3+MS=V34) to smline's V.34 far modem (route words
           v34,v42, sending and checking its bytes as the transfer part's
           V.22bis one), PUMP_TRANSFER_BYTES each way.  Its default, 14 x
           TRANSFER_BYTES (143360), scales the bytes by the line rate
           (33600 / 2400), so that the data phase lasts about as long as the
           transfer part's: 44 s at 33600 against 37 s (V.42's window of 15
           frames of 128 bytes over V.34's 0.45 s round trip, the audio
           path's lead among it, holds the stream to 79 % of the line rate,
           V.22bis's to 93 %); a lower rate chosen by the line probing
           lengthens it in proportion.  At the transfer part's 10 KiB a V.34
           call would be 85 % set-up and 3 s of data, too short for a
           starved thread or reservation to fall behind in.  Each version's
           row stands beside its transfer row;
  resmap   the reservation boundary (Table 3, Fig 17): CELLS hard
           reservations X/Y with a call each (tools/resmap.py), over the
           model, every disagreement named and explained.

QUICK=1 is the reduced grid make check runs: the first kernel, 2 s of cyclictest,
the contexts but usr and oth, one try of INT, THR, THR-8, RES 1/8, RES 2/8
(BHW where the kernel has it) moving 1024 bytes, one V.34 pump call of THR
moving 1024 bytes, two reservation cells.
STUDY_PARTS picks parts (compare phase transfer pump resmap).

Each boot is a piece of smlab.runner: JOBS guests at a time here, or on the
workers of a Dask scheduler (SCHEDULER); on the virtual clock the figures
depend on neither.  The record is STUDY_OUT/record.jsonl, or STUDY_RECORD's
(a directory holding record.jsonl, or the file): a line per piece, sorted
by key, the figures apart from what depends on the host (wall times,
paths).  A piece recorded under the same settings digest (its parameters
and, by content, the kernel image, QEMU, the module, smline, smodemd, the
guest script and the code that boots the guests and analyses their files)
is not run again unless FORCE; a piece that failed (a harness error, a
guest that timed out) is tried again once, then reported missing, never
recorded.
--report-only runs nothing: the report of the pieces recorded, their
figures as recorded whatever this checkout's builds (the digests decide
what a run runs again, not what may be shown).  Writes STUDY_OUT/report.md,
report.json, PNG figures and every boot's raw files (traces included).
"""
import json
import math
import re
import sys
import time
from pathlib import Path

import bench_modem as bm
import resmap
import smtrace
from smlab import cli, contexts, resume, runner
from smlab import compare as cmp

TOP = Path(__file__).resolve().parents[1]
LOAD_US = 1840
RING = 512          # the study's ring: the limit line of the pending figures
TRACE_ALL = "-e smodem"

# Study figures (doc/studies.md)
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
# the quick grid's pump part: one version, the one the others are read against
QUICK_PUMP_VERSIONS = ["THR"]
# the pump part's far modem (smline's route word) and what its bytes scale by:
# V.34's top rate over V.22bis's (33600 / 2400)
PUMP_MOD = "v34"
PUMP_SCALE = 14
CMP_CONTEXTS = list(contexts.ALL)
QUICK_CELLS = "1/16 4/17"
PARTS = ["compare", "phase", "transfer", "pump", "resmap"]
# the quick grid compares the study's four and the two new kernel contexts
# (make compare's own test has usr; THR-8's failure is its call's)
QUICK_CONTEXTS = ["int", "dpc", "thr", "res", "irqt", "bhw"]


log = cli.logger("study")


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
# What a piece's result holds that depends on the host, not on the guest:
# wall times, whether QEMU had KVM, where the raw files went.  The record
# keeps them apart from the figures (the runner's "host").
HOST_KEYS = {"wall_s", "boot_s", "script_s", "call_wall_s", "wall_per_line_s", "prep_s", "kvm"}
HOST_PATHS = {"boot.out", "params.module"}


def host_apart(result):
    """(figures, host): result without its host-dependent entries, and
    those entries by their dotted path (boot.wall_s, params.module ...)."""
    host = {}

    def walk(x, path):
        if isinstance(x, dict):
            out = {}
            for k, v in x.items():
                p = path + (str(k),)
                if k in HOST_KEYS or ".".join(p) in HOST_PATHS:
                    host[".".join(p)] = v
                else:
                    out[k] = walk(v, p)
            return out
        if isinstance(x, list):
            return [walk(v, path + (str(i),)) for i, v in enumerate(x)]
        return x
    return walk(result, ()), host


def plan(a, kernels):
    """The pieces of the grid, in the order they run: a run stopped early
    has the most to show, every kernel's comparison and a first call of
    every version before the further tries and cells."""
    ps = []
    for k in kernels:
        where = dict(out=str(Path(a.out) / k), module=str(TOP / "build" / k / "smodem.ko"),
                     smline=str(bm.SMLINE), guest_append=a.guest_append)

        def add(kind, name, rank, **st):
            ps.append((rank, kernels.index(k), runner.Piece.make(
                kind, k, "%s:%s:%s" % (k, kind, name), name=name, **where, **st)))
        for ctx in (["control"] + [c for c in a.contexts if c != "bhw" or has_bh_wq(k)]
                    if "compare" in a.parts else []):
            add("compare", ctx, 0, ctx=ctx, duration=a.duration, load_us=LOAD_US,
                rtla_duration=1 if a.quick else None)
        if "phase" in a.parts:
            add("phase", "phase", 0, nbytes=a.nbytes)
        for ver, ctx, args in VERSIONS:
            if ("transfer" not in a.parts or ver not in a.versions
                    or (ctx == "bhw" and not has_bh_wq(k))):
                continue
            for t in range(a.tries):
                add("transfer", "%s#%d" % (ver, t), 1 + 2 * t, version=ver, ctx=ctx, try_=t,
                    nbytes=a.nbytes, args=list(args))
        for ver, ctx, args in VERSIONS:
            if ("pump" not in a.parts or ver not in a.pump_versions
                    or (ctx == "bhw" and not has_bh_wq(k))):
                continue
            for t in range(a.tries):
                add("pump", "%s#%d" % (ver, t), 1 + 2 * t, version=ver, ctx=ctx, try_=t,
                    nbytes=a.pump_bytes, args=list(args), mod=PUMP_MOD)
        for x, y in (a.cells if "resmap" in a.parts else []):
            add("resmap", "%d/%d" % (x, y), 2 if (x, y) in resmap.STUDY else 30, x=x, y=y,
                nbytes=a.resmap_bytes)
    return [p for _, _, p in sorted(ps, key=lambda r: r[:2])]


# where a piece's files are, not what its figures depend on (those by content)
PLACES = ("out", "module", "smline")


def piece_code():
    """This module's code that makes a piece's figures: the boots'
    arguments and the analysis of their files."""
    return (run_piece, run_compare, call, cmdline, run_phase, run_transfer, run_pump, run_cell,
            resmap.run_piece, host_apart, trace_figures, _loghist, _counts)


class Digests:
    """A piece's settings digest: its own settings and, by content, what its
    figures depend on: the kernel image, QEMU, the module, smline (and
    smodemd for usr), the guest scripts, and the code that boots the guests
    and analyses their files (compare's and bench_modem's, smtrace, this
    module's piece_code())."""

    def __init__(self):
        self.cache = {}

    def builds(self, piece):
        key = (piece.kernel, piece.get("module"), piece.get("smline"))
        if key not in self.cache:
            import inspect
            import shutil
            qemu = shutil.which("qemu-system-x86_64")
            img = Path("/boot/vmlinuz-%s" % piece.kernel)
            self.cache[key] = runner.digest(
                {"kernel_image": runner.digest(img) if img.exists() else None,
                 "qemu": runner.digest(Path(qemu)) if qemu else None,
                 "module": resume.file_digest(piece.get("module")),
                 "smline": resume.file_digest(piece.get("smline")),
                 "calls_script": bm.script_digest(),
                 "compare": resume.file_digest(Path(cmp.__file__)),
                 "bench_modem": resume.file_digest(Path(bm.__file__)),
                 "smtrace": resume.file_digest(Path(smtrace.__file__)),
                 "code": [inspect.getsource(f) for f in piece_code()]})
        return self.cache[key]

    def __call__(self, piece):
        own = {k: v for k, v in piece.settings if k not in PLACES}
        if piece.get("ctx") == "usr" and piece.kind == "compare":
            own["smodemd"] = resume.file_digest(bm.SMODEMD)
        return runner.digest(self.builds(piece), piece.kind, own)


def run_piece(piece):
    """One piece: a boot, and what its files say (a function of this module,
    so that a Dask worker imports it by name).  A guest that timed out is a
    failure of the piece (the runner tries it again), a call that failed is
    a figure."""
    run = {"compare": run_compare, "phase": run_phase, "transfer": run_transfer,
           "pump": run_pump, "resmap": run_cell}[piece.kind]
    r = json.loads(json.dumps(run(piece), default=str))
    if ((r.get("guest") or {}).get("timed_out")) or ((r.get("boot") or {}).get("timed_out")):
        raise runner.PieceFailed("the guest timed out")
    figures, host = host_apart(r)
    return dict(figures, host=host)


def cmdline(piece):
    return " ".join(x for x in ("preempt=full", piece.get("guest_append")) if x)


def run_compare(piece):
    ctx, out = piece.get("ctx"), Path(piece.get("out"))
    ap = cli.parser("")
    cmp.add_arguments(ap, env={})
    args = ["--contexts", ctx if ctx != "control" else "int", "--duration", str(piece.get("duration")),
            "--kernel", piece.kernel, "--out", str(out / "compare"), "--module", piece.get("module"),
            "--preempt", "full", "--rtla", "auto"]
    if piece.get("guest_append"):
        args += ["--guest-append", piece.get("guest_append")]
    if piece.get("rtla_duration"):
        args += ["--rtla-duration", str(piece.get("rtla_duration"))]
    p = cmp.params(ap, ap.parse_args(args))
    e = cmp.run_one(ctx, p, 1, 1, log=lambda m: None)
    dat = out / "compare" / ctx / "trace.dat"
    if dat.exists():
        e["figures_trace"] = trace_figures(dat)
    return e


def call(piece, tag, ctx, load, spin, idle, args, try_=0, mod="v22bis"):
    """One call (bench_modem's): mod is the far modem's modulation, which
    the modem's +MS follows."""
    out = Path(piece.get("out"))
    extra = dict(trace_events=TRACE_ALL, mod=mod)
    if try_ is not None:
        extra.update(line_extra=["--noise", "-50", "--seed", str(try_ + 1)],
                     route_words=",ansdelay=%d" % (2000 + 50 * try_))
    c = bm.one_call("virtual", tag, ctx, load, spin, idle, out / "calls", piece.get("nbytes"),
                    piece.kernel, Path(piece.get("module")), Path(piece.get("smline")), 0,
                    args=tuple(args), quiet=True, cmdline_extra=cmdline(piece), **extra)
    dat = out / "calls" / "virtual" / tag / "results" / (tag + ".dat")
    c["ok"] = bm.call_ok(c)
    c["why"] = None if c["ok"] else bm.failure(c)
    c["figures_trace"] = trace_figures(dat) if dat.exists() else None
    # the DTE's CONNECT (its rate), from the transcript
    txt = out / "calls" / "virtual" / tag / "results" / (tag + ".txt")
    m = re.search(r"^< (CONNECT\b.*)$", txt.read_text(errors="replace"), re.M) if txt.exists() else None
    c["connect"] = m.group(1).strip() if m else None
    return c


def run_phase(piece):
    return call(piece, "phase", "thr", 0, False, 3, ("phase_periods=1",), try_=None)


def run_transfer(piece):
    ver, t = piece.get("version"), piece.get("try_")
    tag = re.sub(r"[^A-Za-z0-9]+", "_", ver).strip("_").lower() + "-%d" % t
    return call(piece, tag, piece.get("ctx"), LOAD_US, True, 0, piece.get("args"), try_=t)


def run_pump(piece):
    """A transfer call with the real pump: no emulated load, the far modem
    on piece's mod (V.34), the same noise, answer delay and competitor."""
    ver, t = piece.get("version"), piece.get("try_")
    tag = "%s-%s-%d" % (piece.get("mod"), re.sub(r"[^A-Za-z0-9]+", "_", ver).strip("_").lower(), t)
    return call(piece, tag, piece.get("ctx"), 0, True, 0, piece.get("args"), try_=t, mod=piece.get("mod"))


def run_cell(piece):
    """make resmap's cell, its raw files under <out>/resmap/cells/."""
    x, y = piece.get("x"), piece.get("y")
    return resmap.run_piece(runner.Piece.make(
        "resmap", piece.kernel, "res%d_%d" % (x, y), x=x, y=y, out=str(Path(piece.get("out")) / "resmap"),
        nbytes=piece.get("nbytes"), ring=8192, module=piece.get("module"), smline=piece.get("smline"),
        guest_append=cmdline(piece)))


def record_path(a):
    """STUDY_RECORD (a directory, or a .jsonl file) or STUDY_OUT: the record."""
    r = Path(a.record or a.out)
    return r if r.suffix == ".jsonl" else r / "record.jsonl"


def recorded(pieces, record):
    """--report-only: the figures as recorded, whatever the digests (they say
    what a run would run again, not what may be shown)."""
    return {p.key: record.lines[p.key]["figures"] for p in pieces if p.key in record.lines}


def run_all(pieces, a, record):
    """(figures by key, missing: key -> why) of the pieces: run on the
    runner, or with --report-only as recorded."""
    if a.report_only:
        figs = recorded(pieces, record)
        dig = Digests()
        try:
            other = sum(1 for p in pieces if p.key in figs and record.lines[p.key].get("digest") != dig(p))
        except OSError as e:    # no builds here: nothing to compare the digests with
            log("digests not compared (%s)" % e)
            other = 0
        if other:
            log("%d of %d recorded pieces were recorded under other settings than this checkout's "
                "(builds, scripts or parameters): shown as recorded (a run would run them again)"
                % (other, len(figs)))
        return figs, {p.key: "not recorded" for p in pieces if p.key not in figs}
    if a.force:
        record.lines.clear()        # run every piece (the file keeps the old lines until the run compacts it)
    log("%d pieces on %s, %s" % (len(pieces), ", ".join(sorted({p.kernel for p in pieces})),
                                  a.scheduler or "%d at a time" % a.jobs))
    rep = runner.run(pieces, run_piece, record, Digests(), jobs=a.jobs, retries=1,
                     scheduler=a.scheduler, say=log,
                     on_result=lambda p, r: log("ran %s" % p.key))
    record.compact()
    return rep.figures, rep.missing


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
    trows = []
    for ver, ctx, args, calls in _by_version(k, res.get("transfer", {}), a, "transfer", trows):
        row = call_rows(calls)
        row.pop("connect")
        trows.append(dict({"version": ver, "context": ctx, "args": list(args)}, **row,
                          study=STUDY_TRANSFER.get(ver)))
    s["transfer"] = trows
    prows = []
    for ver, ctx, args, calls in _by_version(k, res.get("pump", {}), a, "pump", prows):
        emu = next((t for t in trows if t["version"] == ver and not t.get("refused")), None)
        prows.append(dict({"version": ver, "context": ctx, "args": list(args)}, **call_rows(calls),
                          nbytes=sorted({c.get("nbytes") for c in calls}),
                          emulated=({x: emu[x] for x in ("tries", "ok", "mean_s", "sd_s")}
                                    if emu else None),
                          study=STUDY_TRANSFER.get(ver)))
    s["pump"] = prows
    cells = res.get("resmap", {})
    rrows = []
    for key in sorted(cells, key=lambda t: tuple(int(x) for x in t.split("/"))):
        x, y = (int(v) for v in key.split("/"))
        r = resmap.cell_row(x, y, cells[key])
        r["explained"] = resmap.explain(r, 8192) if r["works"] != r["model"] else None
        rrows.append(r)
    s["resmap"] = rrows
    return s


def _by_version(k, part, a, kind, rows):
    """(version, context, insmod arguments, its calls in try order) of a
    part's pieces; a version the kernel refuses goes to rows as such."""
    versions = a.pump_versions if kind == "pump" else a.versions
    for ver, ctx, args in VERSIONS:
        calls = [part[key] for key in sorted(part, key=lambda x: int(x.rsplit("#", 1)[1]))
                 if key.rsplit("#", 1)[0] == ver]
        if calls:
            yield ver, ctx, args, calls
        elif ver in versions and ctx == "bhw" and not has_bh_wq(k) and kind in a.parts:
            rows.append({"version": ver, "refused": "no system_bh_wq before Linux 6.9"})


def call_rows(calls):
    """What the tries of one version add up to: calls that moved their
    bytes, the transfer's mean and population sd over those, the rates the
    DTE was told (CONNECT's, how many calls each), the buffers' worst, the
    first call's CPU per phase and why the others failed."""
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
    connect = {}
    for c in calls:
        m = re.match(r"CONNECT (\d+)", c.get("connect") or "")
        if m:
            connect[m.group(1)] = connect.get(m.group(1), 0) + 1
    return {"tries": len(calls), "ok": len(oks), "mean_s": mean, "sd_s": sd,
            "min_s": min(ts) if ts else None, "max_s": max(ts) if ts else None,
            "setup_s": [c.get("setup_s") for c in calls],
            "connect": dict(sorted(connect.items(), key=lambda kv: -int(kv[0]))),
            "overruns": sum(c.get("overruns") or 0 for c in calls),
            "dropped": sum(((c.get("stats") or {}).get("dropped") or 0) for c in calls),
            "pending_max": pmax, "pending_hist": hist,
            "phases_loaded": phase_table(((calls[0].get("figures_trace") or {}).get("phases"))),
            "failures": [c.get("why") for c in calls if not c.get("ok")]}


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
         "wall time (%s), %d at a time. Study figures from `doc/studies.md`."
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
        if s.get("pump"):
            L += pump_markdown(s["pump"])
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
        for ver, _, _ in VERSIONS:
            if any(t["version"] == ver for s in summ.values() for t in s.get("pump") or []):
                L.append("| V.34 pump %s: ok, mean (s) | " % ver + " | ".join(
                    next(("%d/%d, %s" % (t["ok"], t["tries"], _f(t["mean_s"], "%.2f"))
                          for t in s.get("pump") or [] if t["version"] == ver and not t.get("refused")),
                         "refused" if any(t["version"] == ver for t in s.get("pump") or []) else "-")
                    for s in summ.values()) + " |")
        L.append("| reservation cells agreeing with the model | " + " | ".join(
            ("%d of %d" % (sum(r["works"] == r["model"] for r in s["resmap"]), len(s["resmap"]))
             if s["resmap"] else "-") for s in summ.values()) + " |")
    L += ["", "Figures: " + ", ".join(meta["figures"]), ""]
    return "\n".join(L)


def _rates(connect):
    """CONNECT's rates and how many calls had each: "33600 x9, 31200 x1"."""
    return ", ".join("%s x%d" % kv for kv in connect.items()) or "none"


def pump_markdown(rows):
    """The pump part's table: each version's V.34 calls beside its
    emulated row (the transfer part's, where this report has it)."""
    nb = sorted({n for t in rows for n in t.get("nbytes") or [] if n})
    L = ["", "### File transfer with the real V.34 pump (Tables 1 and 2 without the emulation)", "",
         "%s bytes each way per call, the modem offering V.34 (`AT\\N3+MS=V34`) to smline's V.34 far "
         "modem with V.42, load_us=0 (the pump is the load), the spinning competitor, the transfer "
         "table's tries (noise seed, answer delay). Rate: the DTE's CONNECT, calls per rate. CPU: the "
         "first call's driver time in its data phase. Emulated: the transfer table's row (V.22bis, "
         "load_us=%d)." % (" or ".join(str(n) for n in nb) or "-", LOAD_US), "",
         "| version | ok/tries | mean (s) | sd (s) | rate CONNECTed | CPU, data phase | overruns | "
         "max pending | emulated ok/tries | emulated mean (s) | emulated sd (s) | why not |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in rows:
        if t.get("refused"):
            L.append("| %s | refused: %s |  |  |  |  |  |  |  |  |  |  |" % (t["version"], t["refused"]))
            continue
        e = t.get("emulated") or {}
        L.append("| %s | %d/%d | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |" % (
            t["version"], t["ok"], t["tries"], _f(t["mean_s"], "%.2f"), _f(t["sd_s"], "%.2f"),
            _rates(t["connect"]),
            _f(((t.get("phases_loaded") or {}).get("connected") or {}).get("cpu_pct"), "%.1f %%"),
            t["overruns"], _f(t["pending_max"]),
            "%d/%d" % (e["ok"], e["tries"]) if e else "-", _f(e.get("mean_s"), "%.2f"),
            _f(e.get("sd_s"), "%.2f"),
            "; ".join(sorted(set(x for x in t["failures"] if x)))[:160] or "-"))
    return L


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
    the spinner and the interrupts), kept in the record's directory beside
    record.jsonl (a call taken from the record left its trace in another
    checkout); what went wrong otherwise."""
    import shutil
    import subprocess
    dat = out / k / "calls" / "virtual" / "thr-0" / "results" / "thr-0.dat"
    png = "kernelshark-%s.png" % k
    kept = record / png if record and record.resolve() != out.resolve() else None
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
    opt("--pump-bytes", "PUMP_TRANSFER_BYTES", None, cli.positive_int,
        "bytes each way per V.34 pump call (%d x TRANSFER_BYTES; quick 1024)" % PUMP_SCALE)
    opt("--cells", "CELLS", None, str, "reservation cells: study, sweep, 'X/Y ...' or a mix (study sweep; quick %s)"
        % QUICK_CELLS)
    opt("--contexts", "STUDY_CONTEXTS", None, str, "contexts compared (%s)" % " ".join(CMP_CONTEXTS))
    opt("--versions", "STUDY_VERSIONS", None, str, "transfer-table versions, comma-separated (all)")
    opt("--parts", "STUDY_PARTS", " ".join(PARTS), str, "parts to run, space-separated")
    opt("--guest-append", "GUEST_APPEND", "", str, "extra guest kernel command line")
    opt("--out", "STUDY_OUT", None, str, "output directory (out/study; quick out/study-quick)")
    opt("--record", "STUDY_RECORD", "", str,
        "the record's directory (its record.jsonl) or file, if not STUDY_OUT: pieces recorded there "
        "under the same settings are not run again (doc/study/full holds the project's own full run)")
    opt("--scheduler", "SCHEDULER", None, str,
        "a Dask scheduler (tcp://host:8786) whose workers run the pieces (make lab-worker)")
    ap.add_argument("--force", action="store_true", help="run every piece again")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: the report of the pieces recorded (a run still going, or "
                         "another checkout's record), their figures as recorded")
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
    a.pump_bytes = a.pump_bytes or (1024 if q else PUMP_SCALE * a.nbytes)
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
    try:
        contexts.parse(" ".join(a.contexts))
    except contexts.UnknownContext as e:
        ap.error(str(e))
    names = [v[0] for v in VERSIONS]
    a.versions = ([v.strip() for v in a.versions.split(",") if v.strip()] if a.versions
                  else (QUICK_VERSIONS if q else names))
    unknown = [v for v in a.versions if v not in names]
    if unknown:
        ap.error("unknown version(s) %s (have: %s)" % (", ".join(unknown), ", ".join(names)))
    a.pump_versions = [v for v in a.versions if v in QUICK_PUMP_VERSIONS] if q else a.versions
    a.out = a.out or str(TOP / "out" / ("study-quick" if q else "study"))
    a.quick = q
    for k in ([] if a.report_only else kernels):
        for f, hint in ((TOP / "build" / k / "smodem.ko", "make module KVER=%s" % k),
                        (bm.SMLINE, "make line")):
            if not Path(f).is_file():
                ap.error("%s missing: %s" % (f, hint))
    if "usr" in a.contexts and "compare" in a.parts and not bm.SMODEMD.is_file() and not a.report_only:
        ap.error("%s missing: make smodemd" % bm.SMODEMD)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    pieces = plan(a, kernels)
    record = runner.Record(record_path(a))
    figs, missing = run_all(pieces, a, record)
    wall = round(time.monotonic() - t0, 1)
    res = {}
    for p in pieces:
        if p.key in figs:
            res.setdefault(p.kernel, {}).setdefault(p.kind, {})[p.get("name")] = figs[p.key]
    if missing:
        log("%d of %d pieces not done yet (left out of the report): %s%s" % (
            len(missing), len(pieces), ", ".join("%s (%s)" % (k.replace(":", " "), why)
                                                 for k, why in sorted(missing.items())[:5]),
            " ..." if len(missing) > 5 else ""))
    summ = {k: summarise(k, res.get(k, {}), a) for k in kernels}
    meta = {"date": time.strftime("%Y-%m-%d"), "quick": q, "kernels": kernels, "jobs": a.jobs,
            "duration": a.duration, "tries": a.tries, "nbytes": a.nbytes, "pump_bytes": a.pump_bytes,
            "cells": len(a.cells),
            "pieces": len(pieces), "wall_s": wall, "record": str(record.path),
            "missing": ["%s (%s)" % (k.replace(":", " "), why) for k, why in sorted(missing.items())],
            "pieces_wall_s": round(sum((record.lines[k].get("host") or {}).get("piece_wall_s") or 0
                                       for k in figs if k in record.lines), 1)}
    meta["figures"] = plots(summ, out)
    if not q:
        meta["kernelshark"] = kshark(out, kernels[0], record.path.parent)
        if meta["kernelshark"].get("png"):
            meta["figures"].append(meta["kernelshark"]["png"])
    report = {"meta": meta, "kernels": summ}
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    md = markdown(summ, meta)
    (out / "report.md").write_text(md)
    sys.stdout.write(md)
    log("wrote %s/report.md, report.json and %d figures in %.0f s" % (out, len(meta["figures"]), wall))
    # a run that left pieces missing failed (each was tried twice); a
    # report of a run still going is what --report-only is for
    return 1 if missing and not a.report_only else 0


if __name__ == "__main__":
    sys.exit(main())
