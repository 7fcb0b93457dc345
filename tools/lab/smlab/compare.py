"""The comparison run: control (no module) and one guest boot per context,
each with the spinning competitor and cyclictest as the coexisting periodic
task (the study's 1 ms timer callback).  See tools/lab/README.md."""

import argparse
import bisect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import smtrace

from . import cli, contexts
from .dbusline import SMLINE, DbusLine
from .guest import available_kernels, default_kernel, run_guest, module_path, ROOT
from .payload import payload
from .image import DYN_TOOLS, kernel_file, ldd
from .resume import file_digest

# the study's four and usr (the upcall into smodemd, started in the guest at
# thr's priority: the study's future work), run by default; any context= the
# module has may be asked for (oth: the study's THR-8; irqt, bhw: what Linux
# drivers use today; the module refuses bhw before 6.9 and irqt without
# hw=ac97, and the run says so)
CONTEXTS = ("int", "dpc", "thr", "res", "usr")
ALL_CONTEXTS = contexts.ALL
# context=usr's daemon, static for the guest (make smodemd)
SMODEMD = "build/smodemd/smodemd-static"
INTERVAL_US = 1000
HIST_US = 20000
CYCLIC_PRIO = 95
# rtla (Debian's package, the kernel's tools/tracing/rtla): the timerlat and
# osnoise tracers' front end, run after cyclictest in the same boot, under
# the same load, at cyclictest's priority (see rtla_commands()).
RTLA = "/usr/bin/rtla"
RTLA_TRACERS = {"timerlat": "CONFIG_TIMERLAT_TRACER", "osnoise": "CONFIG_OSNOISE_TRACER"}
# timerlat's histogram as wide as cyclictest's (-h 20000): 1 us buckets
RTLA_HIST_ENTRIES = HIST_US
# osnoise: its thread busy 5 ms of every 10 at SCHED_FIFO 95, so that the
# modem's own thread (SCHED_FIFO 50, or the reservation) still gets its
# 1.84 ms per 12.5 ms period between the windows on a uniprocessor
OSNOISE_PERIOD_US = 10000
OSNOISE_RUNTIME_US = 5000


# -- guest side ----------------------------------------------------------------
def guest_script(ctx, p):
    """Shell for one run.  Everything measured goes to /tmp first: no share
    I/O while measuring."""
    modargs = ""
    pump = p.get("load") == "pump"
    if ctx != "control":
        # the real pump: no emulation, and the engine's call needs a ring
        # deep enough for its output lead (bench_modem.SMODEM_ARGS)
        args = ["context=" + ctx, "hw=" + p["hw"], "load_us=%d" % (0 if pump else p["load_us"])]
        if pump:
            args.append("engine=1")
        for k in ("prio", "res_runtime_us", "res_period_us", "rate",
                  "ring_samples", "period_samples"):
            if p.get(k) is not None:
                args.append("%s=%d" % (k, p[k]))
            elif pump and k == "ring_samples":
                args.append("ring_samples=%d" % PUMP_RING)
        if p.get("module_params"):
            args.append(p["module_params"])
        modargs = " ".join(args)
    pin = p["smp"] > 1
    # --json: cyclictest's own summary and histogram (parse_cyclictest);
    # -v: every cycle's latency, for the gaps between wakeups
    cyc = ("cyclictest -m -p %d -i %d -h %d -q -v -D %d%s --json=/tmp/m/cyclictest.json"
           % (CYCLIC_PRIO, INTERVAL_US, HIST_US, p["duration_s"],
              " -a 0" if pin else ""))
    rtla = rtla_commands(p) if p.get("rtla_run") else {}
    rtla_sh = "".join(
        "if grep -qw %(t)s $T/available_tracers; then\n"
        "\t%(cmd)s > $M/rtla-%(t)s.txt 2>&1; echo $? > $M/rtla-%(t)s.rc\n"
        "else echo absent > $M/rtla-%(t)s.rc; fi\n"
        "echo \"%(cmd)s\" > $M/rtla-%(t)s.cmd\n" % {"t": t, "cmd": cmd}
        for t, cmd in rtla.items())
    script = r"""
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
SMODEMD=
if [ $CTX != control ]; then
	insmod /opt/smodem/smodem.ko %(modargs)s || exit 20
	dev=$(ls /sys/kernel/debug/smodem | head -n 1)
	[ -n "$dev" ] || exit 21
	S=/sys/kernel/debug/smodem/$dev
	echo "$dev" > $M/dev.txt
	if [ $CTX = usr ]; then
		# the upcall's process: smodemd at the SCHED_FIFO priority the
		# module gives thr's thread (prio=), attached before measuring
		UPRIO=$(cat /sys/module/smodem/parameters/prio)
		smodemd --fifo $UPRIO --verbose 2> $M/smodemd.log &
		SMODEMD=$!
		i=0
		while [ $i -lt 100 ] && ! grep -q '^usr_pid ' $S/stats; do
			sleep 0.1
			i=$((i + 1))
		done
		grep -q '^usr_pid ' $S/stats || { cp -a $M/. /share/; exit 25; }
	fi
	if [ $PIN = 1 ]; then
		irq=$(grep smodem /proc/interrupts | cut -d: -f1 | tr -d ' ')
		echo 1 > /proc/irq/$irq/smp_affinity && echo "irq cpu0" >> $M/pinning.txt ||
			echo "irq failed" >> $M/pinning.txt
		tp=$(grep -E '^(thread|usr)_pid ' $S/stats | cut -d' ' -f2)
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
# rtla's tracers after cyclictest (one CPU: the two would measure each
# other), the competitor and the module still running; the smodem trace
# and stats above cover cyclictest's window only
%(rtla)s
kill $SPIN
wait $SPIN 2>/dev/null
RC=$CRC
if [ -n "$SMODEMD" ]; then
	# SIGTERM: it finishes its upcall, detaches, exits 0
	kill -TERM $SMODEMD
	wait $SMODEMD
	echo $? > $M/smodemd.rc
fi
if [ $CTX != control ]; then
	trace-cmd extract -o $M/trace.dat > $M/extract.log 2>&1 || RC=23
	rmmod smodem || RC=24
fi
echo "%(cyc)s" > $M/cyclictest.cmd
echo "%(modargs)s" > $M/module.args
cp -a $M/. /share/
echo "compare: done rc=$RC"
exit $RC
""" % {"ctx": ctx, "modargs": modargs, "cyc": cyc, "pin": pin, "rtla": rtla_sh}
    return pump_script(script) if p.get("load") == "pump" and ctx != "control" else script


# -- LOAD=pump: the real data pump in a call through the window ----------------
PUMP_SCRIPT = ROOT / "tools" / "guest" / "compare_calls.sh"
# the tty chat it sources, shared with modem_calls.sh
PUMP_CHAT = ROOT / "tools" / "guest" / "chat.sh"
# bench_modem.SMODEM_ARGS's ring: the call's output lead needs more than the
# study's 512 samples on QEMU's D-Bus audio (doc/study-softmodem.md)
PUMP_RING = 8192
PUMP_NUMBER = "5551234"
PUMP_SEED_LINE, PUMP_SEED_MODEM = 11, 12


def pump_tail_s(nbytes, onhook_s):
    """Guest seconds the call in progress when cyclictest ends may still
    take: compare_calls.sh's bounded waits (dial, data, the writer, the
    engine's last bytes, escape and ATH) added up."""
    return 90 + (nbytes // 80 + 20) + (nbytes // 40 + 40) // 2 + 30 + 15 + onhook_s


def pump_script(script):
    """The emulated run's script with the call loop around cyclictest: the
    loop starts with the window (counters and trace just cleared), gets
    its stop with the window's end, and is waited for once the competitor
    is gone (the call it is in runs to its hang-up, outside the window)."""
    i = script.index("\ncyclictest ") + 1
    loop = ("mkdir -p $M/calls\n"
            "sh /opt/pump/compare_calls.sh $M/calls > $M/calls/loop.log 2>&1 &\n"
            "LOOP=$!\n"
            "read -r up _ < /proc/uptime; echo \"window start $up\" >> $M/calls/marks.txt\n")
    script = script[:i] + loop + script[i:]
    # after the trace's end, and a builtin (no fork beside the spinner)
    stop = "\ttrace-cmd stop\nfi\n"
    assert stop in script
    script = script.replace(stop, stop + ": > $M/calls/stop\n"
                            "read -r up _ < /proc/uptime; echo \"window end $up\" >> "
                            "$M/calls/marks.txt\n", 1)
    spun = "kill $SPIN\nwait $SPIN 2>/dev/null\n"
    assert spun in script
    wait = ("i=0\n"
            "while kill -0 $LOOP 2>/dev/null && [ $i -lt $PUMP_TAIL_S ]; do\n"
            "\tsleep 1\n\ti=$((i + 1))\n"
            "done\n"
            "kill $LOOP 2>/dev/null\n"
            "echo $i > $M/calls/tail_s\n")
    return script.replace(spun, spun + wait, 1)


def pump_route(p):
    """smline's route: the far modem answers with p["pump_far"]'s words
    (its modulations and V.42: whatever the engine negotiates with it
    runs), sends pump_bytes and checks what arrives."""
    n = p["pump_bytes"]
    return "%s=answer:%s,send=random:%d:%d,expect=random:%d:%d" % (
        PUMP_NUMBER, p["pump_far"], n, PUMP_SEED_LINE, n, PUMP_SEED_MODEM)


def pump_line_args(p, out):
    """smline's arguments for a pump run whose files go to out: the route,
    its records, then PUMP_LINE's options as given (they come last, so
    they may add routes or change the line)."""
    return (["--route", pump_route(p), "--json", str(Path(out) / "smline-calls.jsonl"),
             "--events", str(Path(out) / "smline-events.jsonl"), "-v"]
            + shlex.split(p["pump_line"]))


def parse_marks(text):
    """compare_calls.sh's marks.txt -> {call tag: {event: guest uptime s}}."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) != 3:
            continue
        try:
            out.setdefault(f[0], {}).setdefault(f[1], float(f[2]))
        except ValueError:
            pass
    return out


def pump_calls(out):
    """The calls of one LOAD=pump run: the DTE's side (compare_calls.sh's
    transcripts and marks) beside smline's records, in order; in_window:
    dialled and ended within cyclictest's window (the "window" marks)."""
    d = Path(out) / "calls"
    marks = parse_marks((d / "marks.txt").read_text()) if (d / "marks.txt").exists() else {}
    recf = Path(out) / "smline-calls.jsonl"
    recs = ([json.loads(x) for x in recf.read_text().splitlines() if x.strip()]
            if recf.exists() else [])
    calls = []
    win = marks.pop("window", {})
    tags = sorted(marks, key=lambda t: int(re.sub(r"\D", "", t) or 0))
    for i, tag in enumerate(tags):
        txt = (d / (tag + ".txt")).read_text(errors="replace") if (d / (tag + ".txt")).exists() else ""
        m = re.search(r"^CONNECTED (.*)$", txt, re.M)
        rec = recs[i] if i < len(recs) else {}
        mk = marks[tag]
        c = {"tag": tag, "connect": m.group(1).strip() if m else None,
             "dte_ok": "RESULT ok" in txt, "data_ok": "DATA ok" in txt,
             "line_result": rec.get("result"), "modulation": rec.get("modulation"),
             "rate": rec.get("rate"), "v42": rec.get("v42"), "expect_ok": rec.get("expect_ok"),
             "setup_s": rec.get("setup_s"), "transfer_s": rec.get("transfer_s"),
             "retrains": (rec.get("errors") or {}).get("retrains"),
             "marks": mk}
        if "dial" in mk and "connect" in mk:
            c["dial_to_connect_s"] = round(mk["connect"] - mk["dial"], 2)
        # the whole call (dial to hang-up) inside cyclictest's window
        end = mk.get("hungup", mk.get("failed"))
        c["in_window"] = (None if "start" not in win or "end" not in win else
                          bool(mk.get("dial", 0) >= win["start"] and end is not None
                               and end <= win["end"]))
        calls.append(c)
    return calls


PHASE_BIN_US = 5


def phase_costs(process, phases, start_ns=None, period_ns=None):
    """The real pump's cost per call phase: process = [(ts_ns, elapsed_ns)]
    of smodem_process (one per period), phases = [(ts_ns, name)] of
    smodem_phase in time order.  Each processing run belongs to the phase
    in force at its end (a run that changes the phase counts in the new
    one); before the first phase event the engine is on hook (it starts so
    without an event).  start_ns: the window's start (default the first
    run).  -> {phase: {"periods", "first_s", "time_s", "min_us", "p50_us",
    "avg_us", "p99_us", "max_us", "share_pct" (avg of period_ns), "hist_us"
    (PHASE_BIN_US bins: their left edges)}} in the order the phases first came."""
    # by time only: two phase events at one instant (hung-up, on-hook) keep
    # the trace's order
    process = sorted(process, key=lambda x: x[0])
    phases = sorted(phases, key=lambda x: x[0])
    if not process:
        return {}
    t0 = process[0][0] if start_ns is None else start_ns
    bounds = [t for t, _ in phases]
    names = [n for _, n in phases]
    per = {}
    for ts, el in process:
        j = bisect.bisect_right(bounds, ts) - 1
        name = names[j] if j >= 0 else "on-hook"
        per.setdefault(name, {"first": ts, "v": []})["v"].append(el)
    out = {}
    for name, d in per.items():
        v = sorted(d["v"])
        n = len(v)

        def q(p):
            return v[min(n - 1, max(0, -(-int(p * n) // 100) - 1))] / 1000.0
        avg = sum(v) / n / 1000.0
        hist = {}
        for x in v:
            b = int(x // (PHASE_BIN_US * 1000)) * PHASE_BIN_US
            hist[str(b)] = hist.get(str(b), 0) + 1
        out[name] = {"periods": n, "first_s": round((d["first"] - t0) / 1e9, 3),
                     "time_s": round(n * period_ns / 1e9, 2) if period_ns else None,
                     "min_us": v[0] / 1000.0, "p50_us": q(50), "avg_us": round(avg, 3),
                     "p99_us": q(99), "max_us": v[-1] / 1000.0,
                     "share_pct": round(100.0 * avg * 1000 / period_ns, 2) if period_ns else None,
                     "hist_us": dict(sorted(hist.items(), key=lambda kv: int(kv[0])))}
    return out


# the call's phases as the report names them (smodem_phase's names), in a
# call's order; a name not here comes after them
PHASE_ORDER = ("on-hook", "off-hook", "dialing", "waiting", "answer-tone", "v8", "probing",
               "training", "connected", "retrain", "carrier-lost", "hung-up")
PHASE_LABEL = {"connected": "data (connected)", "answer-tone": "answer tone",
               "probing": "probing (V.34 phase 2)"}


def ordered_phases(costs):
    rank = {n: i for i, n in enumerate(PHASE_ORDER)}
    return sorted(costs, key=lambda n: (rank.get(n, len(PHASE_ORDER)), n))


def spike(costs, name, ref="connected"):
    """How far a phase's worst period is above the data phase's typical one:
    (max - ref's median in us, max / ref's median), None without a data
    phase."""
    r = (costs.get(ref) or {}).get("p50_us")
    c = costs.get(name)
    if not r or not c:
        return None
    return round(c["max_us"] - r, 1), round(c["max_us"] / r, 2)


def pump_trace(dat, period_ns):
    """From a LOAD=pump run's trace: the pump's cost per phase, and the
    phase sequence [(s since the window's start, name)]."""
    ev = smtrace.events(dat)
    by = smtrace.by_name(ev)
    proc = [(e.ts_ns, e.fields.get("elapsed_ns", 0)) for e in by.get("smodem_process", [])]
    ph = [(e.ts_ns, e.fields.get("phase")) for e in by.get("smodem_phase", [])]
    t0 = min([t for t, _ in proc] + [t for t, _ in ph]) if (proc or ph) else 0
    return {"phases": phase_costs(proc, ph, t0, period_ns),
            "sequence": [[round((t - t0) / 1e9, 3), n] for t, n in ph]}


# -- host side parsers -------------------------------------------------------------
def parse_cyclictest(summary, verbose="", interval_us=INTERVAL_US):
    """cyclictest's --json output (summary: its text or the parsed object;
    one measuring thread, run with -h) and the per-cycle latencies its -v
    printed (verbose: that text).  Latencies in us."""
    if isinstance(summary, (str, bytes)):
        summary = json.loads(summary)
    th = summary["thread"]["0"]
    hist = {int(k): v for k, v in th.get("histogram", {}).items() if v}
    cycles = th["cycles"]
    inside = sum(hist.values())
    overflows = cycles - inside     # the JSON has no count of its own
    values = []
    for line in verbose.splitlines():
        m = re.match(r"^\s*(\d+):\s*(\d+):\s*(\d+)\s*$", line)
        if m:
            values.append((int(m.group(2)), int(m.group(3))))

    def pct(p):
        if not cycles:
            return None
        need, acc = p / 100.0 * cycles, 0
        for us in sorted(hist):
            acc += hist[us]
            if acc >= need:
                return us
        return HIST_US  # in the overflow

    # The average in whole us, truncated (as cyclictest's text summary
    # gives it): exact from the histogram when every cycle is in it; the
    # JSON's own average has 2 decimals.
    if not cycles:
        avg = None
    elif not overflows:
        avg = sum(us * n for us, n in hist.items()) // cycles
    else:
        avg = int(th["avg"])
    out = {
        "cycles": cycles,
        "min_us": th.get("min") if cycles else None,
        "avg_us": avg,
        "max_us": th.get("max") if cycles else None,
        "p50_us": pct(50), "p99_us": pct(99), "p999_us": pct(99.9),
        "overflows": overflows,
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


# -- rtla ---------------------------------------------------------------------------
def rtla_commands(p):
    """{tracer: command} run in the guest after cyclictest: timerlat's
    histogram (its thread at cyclictest's priority and period, like
    cyclictest's measuring thread) and osnoise's summary."""
    d = p.get("rtla_duration_s") or p["duration_s"]
    return {
        "timerlat": "rtla timerlat hist -c 0 -d %d -p %d -P f:%d -b 1 -E %d"
                    % (d, INTERVAL_US, CYCLIC_PRIO, RTLA_HIST_ENTRIES),
        "osnoise": "rtla osnoise top -q -c 0 -d %d -p %d -r %d -P f:%d"
                   % (d, OSNOISE_PERIOD_US, OSNOISE_RUNTIME_US, CYCLIC_PRIO),
    }


def kernel_tracers(kver, config=None):
    """{tracer: True/False} from the kernel's config (/boot/config-V, or
    config-V beside a kernel root's vmlinuz-V), None if there is none."""
    if config is None:
        config = os.path.join(os.path.dirname(kernel_file(kver)), "config-" + kver)
    try:
        text = Path(config).read_text(errors="replace")
    except OSError:
        return None
    return {t: re.search(r"^%s=y$" % opt, text, re.M) is not None
            for t, opt in RTLA_TRACERS.items()}


def rtla_plan(kver, mode, config=None):
    """(run rtla in the guest?, {tracer: why not, for each one that will
    not run}).  mode: "auto" (where the kernel's config has the tracers; the
    guest checks too), "on" (always try; the guest reports the tracers it
    lacks), "off"."""
    if mode == "off":
        return False, {t: "not run (--rtla off)" for t in RTLA_TRACERS}
    if not os.path.exists(RTLA):
        if mode == "on":
            raise FileNotFoundError("%s missing: make deps (Debian's rtla)" % RTLA)
        return False, {t: "not run (%s not installed)" % RTLA for t in RTLA_TRACERS}
    have = kernel_tracers(kver, config)
    if mode == "on" or have is None:
        return True, {}
    why = {t: "kernel %s has no %s tracer (%s not set)" % (kver, t, RTLA_TRACERS[t])
           for t, ok in have.items() if not ok}
    return len(why) < len(RTLA_TRACERS), why


def rtla_files():
    """{guest path: host path}: rtla and those of its shared objects the
    base image lacks (it has trace-cmd's: libtracefs, libtraceevent, libc
    and the loader), added to one run's archive: the base image stays as
    it is for every other run."""
    files = {RTLA.lstrip("/"): RTLA}
    base = set(ldd(DYN_TOOLS[0]))
    for lib in ldd(RTLA):
        if lib not in base:
            files[lib.lstrip("/")] = os.path.realpath(lib)
    return files


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _num(tok):
    if tok in ("-", ""):
        return None
    v = float(tok)
    return int(v) if v == int(v) and "." not in tok else v


def _pct(hist, count, p, over_value):
    """The p-th percentile of a {value: n} histogram of count samples, those
    beyond it (count - sum) at over_value."""
    if not count:
        return None
    need, acc = p / 100.0 * count, 0
    for v in sorted(hist):
        acc += hist[v]
        if acc >= need:
            return v
    return over_value


def parse_rtla_timerlat_hist(text):
    """`rtla timerlat hist` output (one CPU or more, us) -> {"irq": {...},
    "thread": {...}} of the first CPU: count, min/avg/max_us, over (samples
    past the histogram), p50/p99/p999_us and the non-zero histogram."""
    cols, rows, summ = None, {}, {}
    for line in _ANSI.sub("", text).splitlines():
        f = line.split()
        if not f or line.startswith("#"):
            continue
        if f[0] == "Index":
            cols = f[1:]
            continue
        if cols is None:
            continue
        if f[0].endswith(":"):
            summ[f[0][:-1]] = [_num(x) for x in f[1:1 + len(cols)]]
        elif f[0].isdigit():
            rows[int(f[0])] = [int(x) for x in f[1:1 + len(cols)]]
    if cols is None or "count" not in summ:
        raise ValueError("no rtla timerlat histogram in the output")
    out = {}
    entries = RTLA_HIST_ENTRIES
    for kind, prefix in (("irq", "IRQ-"), ("thread", "Thr-")):
        i = next((i for i, c in enumerate(cols) if c.startswith(prefix)), None)
        if i is None:
            out[kind] = None
            continue
        hist = {v: r[i] for v, r in rows.items() if i < len(r) and r[i]}
        count = summ["count"][i] or 0
        g = lambda k: (summ.get(k) or [None] * len(cols))[i]  # noqa: E731
        out[kind] = {
            "cpu": int(cols[i].split("-")[1]),
            "count": count, "min_us": g("min") if count else None,
            "avg_us": g("avg") if count else None,
            "max_us": g("max") if count else None,
            "over": g("over") or 0,
            "p50_us": _pct(hist, count, 50, entries),
            "p99_us": _pct(hist, count, 99, entries),
            "p999_us": _pct(hist, count, 99.9, entries),
            "histogram": {str(k): v for k, v in sorted(hist.items())},
        }
    return out


OSNOISE_COLS = ("periods", "runtime_us", "noise_us", "cpu_avail_pct", "max_noise_us",
                "max_single_us", "hw", "nmi", "irq", "softirq", "thread")


def parse_rtla_osnoise_top(text):
    """`rtla osnoise top -q` output -> the first CPU's summary: periods,
    runtime and noise (us), % CPU available, max noise in a period and
    max single noise (us), and the interference counts (hw, nmi, irq,
    softirq, thread)."""
    for line in _ANSI.sub("", text).splitlines():
        m = re.match(r"^\s*(\d+)\s+#(\d+)\s+(.*)$", line)
        if not m:
            continue
        vals = [_num(x) for x in m.group(3).split()]
        if len(vals) != len(OSNOISE_COLS) - 1:
            continue
        out = {"cpu": int(m.group(1))}
        out.update(zip(OSNOISE_COLS, [int(m.group(2))] + vals))
        return out
    raise ValueError("no rtla osnoise summary line in the output")


RTLA_PARSERS = {"timerlat": parse_rtla_timerlat_hist, "osnoise": parse_rtla_osnoise_top}


def rtla_results(out, kver, why_not):
    """entry["rtla"] from a run's files in out (rtla-<tracer>.{txt,rc,cmd}):
    per tracer its parsed summary, its command, and a status: "ok", or why
    there is no number (the kernel lacks the tracer, rtla failed, ...)."""
    res = {"status": {}, "cmd": {}}
    for t, parse in RTLA_PARSERS.items():
        res[t] = None
        rcf, txt, cmdf = (Path(out) / ("rtla-%s.%s" % (t, x)) for x in ("rc", "txt", "cmd"))
        res["cmd"][t] = cmdf.read_text().strip() if cmdf.exists() else None
        if t in why_not:
            res["status"][t] = why_not[t]
            continue
        rc = rcf.read_text().strip() if rcf.exists() else None
        if rc is None:
            res["status"][t] = "no result (the guest did not get there)"
        elif rc == "absent":
            res["status"][t] = "kernel %s has no %s tracer" % (kver, t)
        elif rc != "0":
            res["status"][t] = "rtla failed (rc=%s, see %s)" % (rc, txt.name)
        else:
            try:
                res[t] = parse(txt.read_text(errors="replace"))
                res["status"][t] = "ok"
            except (OSError, ValueError) as e:
                res["status"][t] = "unparsed: %s" % e
    return res


def _summ(vals, scale=1):
    s = smtrace.summarize(vals)
    return {k: (v / scale if isinstance(v, (int, float)) and k != "n" else v)
            for k, v in s.items()}


def parse_trace(dat, rate, period_samples):
    ev = smtrace.events(dat)
    by = smtrace.by_name(ev)

    def f(name, field):
        return smtrace.field_values(by, name, field)

    irq_ts = [e.ts_ns for e in by.get("smodem_irq", [])]
    irq_gap = [b - a for a, b in zip(irq_ts, irq_ts[1:])]
    # the processing's end: the thread's (thr, res, oth, irqt; usr: the
    # daemon's SMODEM_USR_DONE), else the bottom half's, else the ISR's
    done = next((by[n] for n in ("smodem_thread_done", "smodem_dpc_exit", "smodem_isr_exit")
                 if by.get(n)), [])
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
        "slack_ns": _summ(slack(irq_ts, [e.ts_ns for e in done])),
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


def slack(irq_ts, done_ts):
    """For each end of a processing run (done_ts), the time until the next
    period interrupt (irq_ts, sorted): the upcall study's "time remaining to
    the deadline", the deadline being the next period.  Whether a run ended
    after the interrupt that followed its own shows as pending samples."""
    out, i = [], 0
    for t in sorted(done_ts):
        while i < len(irq_ts) and irq_ts[i] <= t:
            i += 1
        if i == len(irq_ts):
            break
        out.append(irq_ts[i] - t)
    return out


def _hist(vals):
    h = {}
    for v in vals:
        h[v] = h.get(v, 0) + 1
    return {str(k): h[k] for k in sorted(h)}


# -- the run ------------------------------------------------------------------------
def _contexts(text):
    return contexts.parse(text)


def add_arguments(ap, env=os.environ, out="out/compare"):
    """The comparison's options on parser ap, their defaults from env (the
    variables make compare exports)."""
    g = ap.add_argument_group("the comparison")
    def opt(*a, **kw):
        return cli.env_option(ap, *a, env=env, group=g, **kw)
    opt("--contexts", "CONTEXTS", " ".join(CONTEXTS), _contexts,
        "contexts to run after the control run, space-separated (any of %s)" % " ".join(ALL_CONTEXTS))
    opt("--duration", "DURATION", 10, cli.positive_int, "seconds of cyclictest per run")
    opt("--load-us", "LOAD_US", 1840, cli.nonneg_int,
        "module parameter load_us: emulated processing per period (us)")
    opt("--kernel", "KERNEL", default_kernel(), str, "guest kernel (installed Debian flavour)")
    opt("--clock", "CLOCK", "virtual", str,
        "virtual: instruction-counted (-icount), real: real-time TCG", choices=["virtual", "real"])
    opt("--icount-shift", "ICOUNT_SHIFT", 0, cli.int_range(0, 10),
        "virtual clock: 2^N ns of guest time per instruction")
    opt("--out", "OUT", out, str, "output directory")
    opt("--module", "MODULE", None, str, "smodem.ko to load (default: build/<kernel>/smodem.ko)")
    opt("--hw", "HW", "ac97", str, "module parameter hw", choices=["ac97", "vline"])
    opt("--prio", "PRIO", None, cli.int_range(1, 99),
        "module parameter prio (SCHED_FIFO priority of thr; default: the module's)")
    opt("--res-runtime-us", "RES_RUNTIME_US", None, cli.positive_int,
        "module parameter res_runtime_us (default: the module's)")
    opt("--res-period-us", "RES_PERIOD_US", None, cli.positive_int,
        "module parameter res_period_us (default: the module's)")
    opt("--rate", "RATE", None, int, "module parameter rate (default: the module's, 8000)",
        choices=[7200, 8000, 9600, 16000])
    opt("--ring-samples", "RING_SAMPLES", None, cli.int_range(64, 8192),
        "module parameter ring_samples (default: the module's, 512)")
    opt("--period-samples", "PERIOD_SAMPLES", None, cli.int_range(8, 4096),
        "module parameter period_samples (default: the module's, 100)")
    opt("--module-params", "MODULE_PARAMS", "", str, "further module parameters, as given to insmod")
    # "" (PREEMPT= given empty) keeps the kernel's own default: not env_option
    preempt = env.get("PREEMPT", "full")
    if preempt not in ("", "none", "voluntary", "full"):
        ap.error("PREEMPT=%s (the default of --preempt): choose from none, voluntary, "
                 "full or empty" % preempt)
    g.add_argument("--preempt", default=preempt, choices=["", "none", "voluntary", "full"],
                   help="kernel preempt= model ('' for the kernel's default, Debian 6.1: "
                   "voluntary; the study's kernel preempted its threads) [PREEMPT]")
    opt("--guest-append", "GUEST_APPEND", "", str, "extra guest kernel command line")
    opt("--smp", "SMP", 1, cli.positive_int,
        "guest CPUs; > 1 needs --clock real, pins the modem and the measurement to CPU 0")
    opt("--rtla", "RTLA", "auto", str,
        "rtla timerlat and osnoise after cyclictest in each run: auto (where the "
        "kernel's config has the tracers, e.g. the -rt flavour), on, off",
        choices=["auto", "on", "off"])
    opt("--rtla-duration", "RTLA_DURATION", None, cli.positive_int,
        "seconds of each rtla tracer per run (default: --duration)")
    g.add_argument("--no-control", action="store_true", help="skip the run without the module")
    opt("--load", "LOAD", "emulated", str,
        "emulated: load_us per period, no call (the study's emulation); pump: each "
        "context's emulated run, then a run with load_us=0 and calls through the window "
        "(the real data pump), and the pump once more on a guest slowed to the study's "
        "CPU (--slow-shift)", choices=["emulated", "pump"])
    pg = ap.add_argument_group("LOAD=pump")

    def popt(*a, **kw):
        return cli.env_option(ap, *a, env=env, group=pg, **kw)
    popt("--pump-duration", "PUMP_DURATION", 60, cli.positive_int,
         "seconds of cyclictest in each pump run; calls fill them")
    popt("--pump-bytes", "PUMP_BYTES", 1024, cli.positive_int,
         "bytes each way in every call")
    popt("--pump-far", "PUMP_FAR", "v22bis,v42", str,
         "the far modem's words in smline's route (modulations, v42, ...): "
         "whatever the engine negotiates with it runs")
    popt("--pump-line", "PUMP_LINE", "", str,
         "further smline options, as on its command line (--noise -50 --seed 1)")
    popt("--pump-at", "PUMP_AT", "AT\\N3+MS=V22B", str,
         "the AT command the guest sends before each dial (empty: none); the default names "
         "V.22bis, the default far modem's: the factory's +MS=V34 would also listen for V.32bis "
         "and run V.8, and the pump's cost per phase is measured on V.22bis")
    popt("--pump-onhook", "PUMP_ONHOOK_S", 2, cli.nonneg_int,
         "seconds on hook before the first call and between calls")
    popt("--pump-calls", "PUMP_CALLS", 0, cli.nonneg_int,
         "calls at most per run (0: as many as start within the window; the last "
         "one runs to its hang-up after it)")
    popt("--slow-shift", "SLOW_SHIFT", "1", _shift_or_none,
         "icount shift of the slowed run (2^N ns per guest instruction; 1: about a "
         "450 MHz Pentium II, doc/study-softmodem.md), or none")
    popt("--slow-context", "SLOW_CONTEXT", "int", _one_context,
         "the context of the slowed run")
    pg.add_argument("--no-emulated", action="store_true",
                    help="LOAD=pump: skip the contexts' emulated runs")
    return g


def _shift_or_none(text):
    if text.strip().lower() in ("none", "off", "-"):
        return None
    return cli.int_range(0, 10)(text)


def _one_context(text):
    names = contexts.parse(text)
    if len(names) != 1:
        raise argparse.ArgumentTypeError("one context, not %r" % text)
    return names[0]


def params(ap, a):
    """The run's parameters from parsed options (checked together)."""
    if a.smp > 1 and a.clock == "virtual":
        ap.error("--smp %d needs --clock real: QEMU's instruction counting does not "
                 "boot an SMP guest here" % a.smp)
    if a.kernel is None:
        ap.error("no 6.1 generic kernel installed: give --kernel (make deps)")
    if a.kernel not in available_kernels():
        ap.error("--kernel %s is not installed (have: %s)"
                 % (a.kernel, ", ".join(available_kernels())))
    p = {
        "contexts": list(a.contexts),
        "duration_s": a.duration,
        "load_us": a.load_us,
        "kernel": a.kernel,
        "clock": a.clock,
        "icount_shift": a.icount_shift,
        "out": a.out,
        "hw": a.hw,
        "prio": a.prio,
        "res_runtime_us": a.res_runtime_us,
        "res_period_us": a.res_period_us,
        "rate": a.rate,
        "ring_samples": a.ring_samples,
        "period_samples": a.period_samples,
        "module_params": a.module_params,
        # The study's kernel preempted its threads; Debian's 6.1 is
        # PREEMPT_DYNAMIC and boots "voluntary", where a SCHED_FIFO kthread
        # busy for 1.84 ms is not preempted even by cyclictest at 95.
        # PREEMPT=voluntary shows that; "" keeps the kernel's own default.
        "preempt": a.preempt,
        "cmdline_extra": a.guest_append,
        "smp": a.smp,
        "module": a.module,
        "rtla": a.rtla,
        "rtla_duration_s": a.rtla_duration or a.duration,
        "load": a.load,
    }
    if a.load == "pump":
        if a.clock != "virtual":
            ap.error("--load pump needs --clock virtual: the call runs on smline's "
                     "D-Bus line, locked to the instruction-counted clock")
        try:
            shlex.split(a.pump_line)
        except ValueError as e:
            ap.error("--pump-line: %s" % e)
        # the route sends and checks its own bytes each way (send=, expect=)
        bad = [w for w in a.pump_far.split(",")
               if w.split("=")[0] in ("echo", "send", "expect", "save")]
        if bad:
            ap.error("--pump-far %s: the calls send and check their own bytes each way; "
                     "leave out %s" % (a.pump_far, ",".join(bad)))
        p.update({"pump_duration_s": a.pump_duration, "pump_bytes": a.pump_bytes,
                  "pump_far": a.pump_far, "pump_line": a.pump_line, "pump_at": a.pump_at,
                  "pump_onhook_s": a.pump_onhook, "pump_calls": a.pump_calls,
                  "slow_shift": a.slow_shift,
                  "slow_context": a.slow_context, "no_emulated": a.no_emulated})
    try:
        p["rtla_run"], p["rtla_why_not"] = rtla_plan(p["kernel"], a.rtla)
    except FileNotFoundError as e:
        ap.error("--rtla on: %s" % e)
    if not p["module"]:
        p["module"] = str(ROOT / module_path(p["kernel"]))
    if p["contexts"] and not os.path.isfile(p["module"]):
        ap.error("module %s missing: make module KVER=%s" % (p["module"], p["kernel"]))
    if "usr" in p["contexts"] and not os.path.isfile(ROOT / SMODEMD):
        ap.error("context usr: %s missing: make smodemd" % SMODEMD)
    if a.load == "pump":
        if a.slow_shift is not None and a.slow_context == "usr" and not os.path.isfile(ROOT / SMODEMD):
            ap.error("--slow-context usr: %s missing: make smodemd" % SMODEMD)
        if not SMLINE.is_file():
            ap.error("--load pump: %s missing: make line" % SMLINE)
    return p


def run_one(ctx, p, idx, total, log=print, name=None):
    """One boot: ctx's run with parameters p (params(); p["load"] "pump"
    gives the real pump's run), its files in OUT/name (default ctx)."""
    name = name or ctx
    out = Path(p["out"]) / name
    out.mkdir(parents=True, exist_ok=True)
    pump = p.get("load") == "pump" and ctx != "control"
    stale = ["trace.dat", "stats.txt", "cyclictest.txt", "cyclictest.json", "stats-load.txt",
             "smodemd.log", "smodemd.rc", "smline-calls.jsonl", "smline-events.jsonl"]
    stale += ["rtla-%s.%s" % (t, x) for t in RTLA_TRACERS for x in ("txt", "rc", "cmd")]
    for f in stale:
        try:
            (out / f).unlink()
        except FileNotFoundError:
            pass
    shutil.rmtree(out / "calls", ignore_errors=True)
    mods = [] if ctx == "control" else [p["module"]]
    sha = file_digest(p["module"]) if mods else None
    t = time.monotonic()
    log("compare: [%d/%d] %s: booting %s (%s clock%s), %d s of measurement%s"
        % (idx, total, name, p["kernel"], p["clock"],
           ", icount shift %d" % p["icount_shift"] if p["clock"] == "virtual" else "",
           p["duration_s"], ", calls to smline (%s), load_us=0" % p["pump_far"] if pump else ""))
    # generous: virtual time runs at most a few times slower than wall here
    measured = p["duration_s"] + (2 * p["rtla_duration_s"] + 10 if p.get("rtla_run") else 0)
    if pump:
        measured += pump_tail_s(p["pump_bytes"], p["pump_onhook_s"])
    timeout = 120 + 12 * measured * (1 + p["icount_shift"])
    extra = dict(rtla_files()) if p.get("rtla_run") else {}
    if ctx == "usr":
        extra["usr/bin/smodemd"] = str(ROOT / SMODEMD)
    line = env = None
    if pump:
        (out / "pump-tx.bin").write_bytes(payload(PUMP_SEED_MODEM, p["pump_bytes"]))
        (out / "pump-rx.bin").write_bytes(payload(PUMP_SEED_LINE, p["pump_bytes"]))
        extra.update({"opt/pump/compare_calls.sh": str(PUMP_SCRIPT),
                      "opt/guest/chat.sh": str(PUMP_CHAT),
                      "opt/pump/tx.bin": str(out / "pump-tx.bin"),
                      "opt/pump/rx.bin": str(out / "pump-rx.bin")})
        env = {"DIAL": "T" + PUMP_NUMBER, "AT_SETUP": p["pump_at"],
               "NBYTES": str(p["pump_bytes"]), "ONHOOK_S": str(p["pump_onhook_s"]),
               "MAX_CALLS": str(p["pump_calls"]),
               "PUMP_TAIL_S": str(pump_tail_s(p["pump_bytes"], p["pump_onhook_s"]))}
        line = DbusLine(pump_line_args(p, out), out)
    res = run_guest(p["kernel"], guest_script(ctx, p), str(out), modules=mods,
                    clock=p["clock"], icount_shift=p["icount_shift"], smp=p["smp"],
                    timeout_s=timeout, audio="ac97", share="deferred",
                    extra_files=extra or None, env=env, line=line,
                    cmdline_extra=" ".join(
                        x for x in (("preempt=" + p["preempt"]) if p["preempt"] else "",
                                    p["cmdline_extra"]) if x),
                    progress=False)
    rate = p.get("rate") or 8000
    period = p.get("period_samples") or 100
    entry = {
        "context": ctx,
        "load": "pump" if pump else "emulated",
        "module_sha256": sha,
        "clock": p["clock"],
        "icount_shift": p["icount_shift"] if p["clock"] == "virtual" else None,
        "kernel": p["kernel"],
        "params": {k: v for k, v in p.items()
                   if k not in ("contexts", "out", "rtla_run", "rtla_why_not")},
        "guest": {"rc": res.rc, "timed_out": res.timed_out, "wall_s": round(res.wall_s, 2),
                  "boot_s": round(res.boot_s, 2) if res.boot_s else None,
                  "kvm": res.kvm, "console": os.path.relpath(res.console, p["out"])},
    }
    cyc, cyc_json = out / "cyclictest.txt", out / "cyclictest.json"
    entry["cyclictest_cmd"] = ((out / "cyclictest.cmd").read_text().strip()
                               if (out / "cyclictest.cmd").exists() else None)
    entry["module_args"] = ((out / "module.args").read_text().strip()
                            if (out / "module.args").exists() else None)
    entry["cyclictest"] = (parse_cyclictest(cyc_json.read_text(),
                                            cyc.read_text() if cyc.exists() else "")
                           if cyc_json.exists() else None)
    entry["rtla"] = rtla_results(out, p["kernel"], p.get(
        "rtla_why_not", {t: "not run" for t in RTLA_TRACERS}))
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
    if ctx == "usr":
        # the daemon's exit status (0: SIGTERM, its upcall finished) and log
        rcf, logf = out / "smodemd.rc", out / "smodemd.log"
        entry["smodemd"] = {
            "rc": int(rcf.read_text()) if rcf.exists() else None,
            "log": logf.read_text(errors="replace").strip() if logf.exists() else None}
    if pump:
        period_ns = int(round(1e9 * period / rate))
        tf = Path(out) / "calls" / "tail_s"
        entry["pump"] = {
            "route": pump_route(p), "smline_options": p["pump_line"],
            "period_ns": period_ns,
            "calls": pump_calls(out),
            "tail_s": int(tf.read_text()) if tf.exists() and tf.read_text().strip().isdigit()
            else None}
        try:
            entry["pump"].update(pump_trace(dat, period_ns) if dat.exists() else {})
        except (OSError, ValueError, subprocess.CalledProcessError) as e:
            entry["pump"]["trace_error"] = str(e)
        calls = entry["pump"]["calls"]
        log("compare: [%d/%d] %s: %d calls, %d connected (%s), %d with their data intact"
            % (idx, total, name, len(calls), sum(1 for c in calls if c["connect"]),
               ", ".join(sorted({c["connect"] for c in calls if c["connect"]})) or "-",
               sum(1 for c in calls if c["data_ok"])))
    c = entry["cyclictest"] or {}
    tr = entry["trace"] or {}
    log("compare: [%d/%d] %s: rc=%s in %.0f s; cyclictest max %s us, max gap %s us%s"
        % (idx, total, name, res.rc, time.monotonic() - t, c.get("max_us"),
           c.get("max_gap_us"),
           "; %d irqs, %d overruns" % (tr.get("irqs", 0), tr.get("overruns", 0))
           if tr else ""))
    rt = entry["rtla"]
    if rt.get("timerlat") or rt.get("osnoise"):
        tl = (rt.get("timerlat") or {}).get("thread") or {}
        on = rt.get("osnoise") or {}
        log("compare: [%d/%d] %s: rtla timerlat thread max %s us; osnoise max single %s us, "
            "%s %% CPU available" % (idx, total, ctx, tl.get("max_us"), on.get("max_single_us"),
                                     on.get("cpu_avail_pct")))
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
           "DPC min/avg/max", "thread min/avg/max", "wakeup avg/max", "slack min/avg", "pend",
           "ovr", "irqs")
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
        slk = t.get("slack_ns") or {}
        rows.append((
            ctx, _fmt(c.get("min_us")), _fmt(c.get("avg_us")), _fmt(c.get("p99_us")),
            _fmt(c.get("max_us")), _fmt(c.get("max_gap_us")), _fmt(c.get("skipped_periods")),
            mam("isr_elapsed_ns", 1000, 1), mam("dpc_elapsed_ns"), mam("thread_elapsed_ns"),
            "%s/%s" % (_fmt(wake.get("avg"), 1000, 1), _fmt(wake.get("max"), 1000, 1))
            if wake.get("n") else "-",
            "%s/%s" % (_fmt(slk.get("min"), 1000), _fmt(slk.get("avg"), 1000))
            if slk.get("n") else "-",
            _fmt((t.get("pending_after_process") or {}).get("max")),
            _fmt(t.get("overruns")) if t else "-",
            _fmt(t.get("irqs")) if t else "-"))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(hdr))]
    lines = ["  ".join(str(v).rjust(w) for v, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return ("cyclictest latencies in us (gap: max time between wakeups; skip: 1 ms periods "
            "missed); ISR/DPC/thread "
            "elapsed and wakeup latency in us\n(usr: thread = the upcall, hand-out to "
            "SMODEM_USR_DONE; wakeup = interrupt to hand-out); slack: end of processing to the "
            "next period interrupt, us;\npend: max samples pending after a "
            "processing call; ovr: overruns\n" + "\n".join(lines))


def rtla_table(summary):
    """rtla's figures beside cyclictest's, one row per run; where a kernel
    lacks a tracer (or rtla did not run) the row says so instead."""
    hdr = ("context", "cyc avg/p99/max", "timerlat IRQ avg/max", "timerlat thread avg/p99/max",
           "over", "osnoise %avail", "max noise", "max single", "irq/softirq/thread")
    rows, notes = [hdr], []
    for ctx, e in summary.items():
        c = e.get("cyclictest") or {}
        r = e.get("rtla") or {}
        st = r.get("status") or {}
        tl, on = r.get("timerlat"), r.get("osnoise")
        cyc = "/".join(_fmt(c.get(k)) for k in ("avg_us", "p99_us", "max_us"))
        if tl:
            irq, thr = tl.get("irq") or {}, tl.get("thread") or {}
            tcols = ("%s/%s" % (_fmt(irq.get("avg_us")), _fmt(irq.get("max_us"))),
                     "/".join(_fmt(thr.get(k)) for k in ("avg_us", "p99_us", "max_us")),
                     _fmt(thr.get("over")))
        else:
            tcols = ("-", "-", "-")
            notes.append("%s: timerlat: %s" % (ctx, st.get("timerlat", "not run")))
        if on:
            ocols = (_fmt(on.get("cpu_avail_pct"), 1, 2), _fmt(on.get("max_noise_us")),
                     _fmt(on.get("max_single_us")),
                     "/".join(_fmt(on.get(k)) for k in ("irq", "softirq", "thread")))
        else:
            ocols = ("-", "-", "-", "-")
            notes.append("%s: osnoise: %s" % (ctx, st.get("osnoise", "not run")))
        rows.append((ctx, cyc) + tcols + ocols)
    if all(r[2:] == ("-",) * (len(hdr) - 2) for r in rows[1:]):
        # no numbers at all: say why once per tracer
        why = sorted({n.split(": ", 2)[2] for n in notes})
        return "rtla: " + "; ".join(why)
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(hdr))]
    lines = ["  ".join(str(v).rjust(w) for v, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    e0 = next(iter(summary.values()))
    cmd = (e0.get("rtla") or {}).get("cmd") or {}
    head = ("rtla after cyclictest in the same boot, same load (us): timerlat's thread at "
            "SCHED_FIFO %d every %d us; osnoise's at SCHED_FIFO %d, %d of every %d us\n"
            % (CYCLIC_PRIO, INTERVAL_US, CYCLIC_PRIO, OSNOISE_RUNTIME_US, OSNOISE_PERIOD_US))
    tail = "".join("\n" + n for n in notes)
    tail += "".join("\n%s: %s" % (t, c) for t, c in sorted(cmd.items()) if c)
    return head + "\n".join(lines) + tail


# The study's processing (doc/studies.md): 1.84 ms of every 12.5 ms period
# once connected (14.7 %), 3.3 ms at worst, in training; a vendor's V.90 on
# a 450 MHz Pentium II
STUDY_PROC_US = 1840
STUDY_TRAIN_MAX_US = 3300


def _rows(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(v).rjust(w) for v, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def pump_rows(summary):
    """One row per LOAD=pump run, beside its context's emulated run and the
    study: (key, the pump entry's figures, the emulated entry or None)."""
    out = []
    for key, e in summary.items():
        if e.get("load") != "pump":
            continue
        emu = summary.get(e["context"])
        out.append((key, e, emu if emu and emu.get("load") == "emulated" else None))
    return out


def pump_table(summary):
    """The real pump's cost: per run a summary row (calls, the data phase
    and the costliest phase against the data phase, the emulated load and
    the study), then every phase's distribution."""
    rows = [("run", "shift", "calls ok/conn/all (whole in window)", "connect", "data p50/avg/p99/max",
             "data % of period", "data avg / study's", "costliest phase: max (vs data p50)",
             "emulated avg/max", "study avg (max)", "cyc max/gap pump", "cyc max/gap emulated")]
    detail = [("run", "phase", "periods", "first s", "min", "p50", "avg", "p99", "max",
               "% period", "max - data p50 (x data p50)")]
    notes = []
    for key, e, emu in pump_rows(summary):
        pu = e.get("pump") or {}
        costs = pu.get("phases") or {}
        calls = pu.get("calls") or []
        d = costs.get("connected") or {}
        worst = max(costs, key=lambda n: costs[n]["max_us"]) if costs else None
        sp = spike(costs, worst) if worst else None
        et = ((emu or {}).get("trace") or {}).get("process_elapsed_ns") or {}
        c, ce = e.get("cyclictest") or {}, (emu or {}).get("cyclictest") or {}
        rows.append((
            key, e.get("icount_shift"),
            "%d/%d/%d (%d)" % (sum(1 for x in calls if x["data_ok"] and x["expect_ok"]),
                               sum(1 for x in calls if x["connect"]), len(calls),
                               sum(1 for x in calls if x.get("in_window"))),
            ", ".join(sorted({x["connect"] for x in calls if x["connect"]})) or "-",
            "/".join(_fmt(d.get(k), 1, 1) for k in ("p50_us", "avg_us", "p99_us", "max_us"))
            if d else "-",
            _fmt(d.get("share_pct"), 1, 2) if d else "-",
            "%s %%" % _fmt(100.0 * d["avg_us"] / STUDY_PROC_US, 1, 1) if d else "-",
            "%s: %s (+%s, x%s)" % (worst, _fmt(costs[worst]["max_us"], 1, 1), sp[0], sp[1])
            if sp else (("%s: %s" % (worst, _fmt(costs[worst]["max_us"], 1, 1))) if worst else "-"),
            "%s/%s" % (_fmt(et.get("avg"), 1000, 1), _fmt(et.get("max"), 1000, 1))
            if et.get("n") else "-",
            "%d (max %d)" % (STUDY_PROC_US, STUDY_TRAIN_MAX_US),
            "%s/%s" % (_fmt(c.get("max_us")), _fmt(c.get("max_gap_us"))),
            "%s/%s" % (_fmt(ce.get("max_us")), _fmt(ce.get("max_gap_us"))) if ce else "-"))
        for n in ordered_phases(costs):
            x = costs[n]
            spn = spike(costs, n)
            detail.append((key, PHASE_LABEL.get(n, n), x["periods"], _fmt(x["first_s"], 1, 2),
                           _fmt(x["min_us"], 1, 1), _fmt(x["p50_us"], 1, 1),
                           _fmt(x["avg_us"], 1, 1), _fmt(x["p99_us"], 1, 1),
                           _fmt(x["max_us"], 1, 1), _fmt(x["share_pct"], 1, 2),
                           "%+.1f (x%.2f)" % spn if spn else "-"))
        if pu.get("trace_error"):
            notes.append("%s: trace not read: %s" % (key, pu["trace_error"]))
        bad = [x["tag"] for x in calls if x["connect"] and not (x["data_ok"] and x["expect_ok"])]
        if bad:
            notes.append("%s: calls connected but their data not intact both ways: %s (a call "
                         "still in progress when the window ended counts here if smline's "
                         "record lacks it)" % (key, " ".join(bad)))
    if len(rows) == 1:
        return "LOAD=pump: no pump run"
    e0 = pump_rows(summary)[0][1]
    pu0 = e0.get("pump") or {}
    head = ("The real data pump (load_us=0; calls to smline's far end, route %s%s), "
            "smodem_process's elapsed time per %.1f ms period, in us, per phase of the calls "
            "(smodem_phase); beside the context's emulated run (load_us=%s) and the study's "
            "vendor pump (1.84 ms per period, 3.3 ms in training, on a 450 MHz Pentium II). "
            "calls ok/conn/all: data intact both ways / connected / dialled (the last one dialled "
            "in the window runs to its hang-up past it; whole in window: dial to hang-up "
            "inside it); "
            "cyc: cyclictest's max latency / max gap between wakeups (us)\n"
            % (pu0.get("route"), (", smline " + pu0["smline_options"])
               if pu0.get("smline_options") else "", (pu0.get("period_ns") or 12500000) / 1e6,
               e0["params"].get("load_us")))
    return (head + _rows(rows) + "\n\nPer phase (us; data = connected):\n" + _rows(detail)
            + "".join("\n" + n for n in notes))


def pump_figures(summary, out):
    """pump-phases.png: per pump run, the per-period cost's distribution in
    each phase (20 us bins), with the study's 1.84 ms marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = [(k, (e.get("pump") or {}).get("phases") or {}) for k, e, _ in pump_rows(summary)]
    runs = [(k, c) for k, c in runs if c]
    if not runs:
        return []
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 3.2 * len(runs)), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    w = PHASE_BIN_US
    for ax, (k, costs) in zip(axes[:, 0], runs):
        for i, n in enumerate(ordered_phases(costs)):
            xs, ys = _binned(costs[n]["hist_us"], w)
            ax.step([max(x, 1) for x in xs] + [xs[-1] + w], ys + [ys[-1]], where="post",
                    label=PHASE_LABEL.get(n, n), linestyle=styles[i % len(styles)])
        ax.axvline(STUDY_PROC_US, color="k", linestyle=":", linewidth=1)
        ax.set_title("%s: the real pump per call phase (dotted: the study's 1.84 ms)" % k,
                     fontsize=9)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.5)
        ax.set_xlabel("processing per %.1f ms period (us, %d us bins)"
                      % (summary[k]["pump"]["period_ns"] / 1e6, w))
        ax.set_ylabel("periods")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    p = Path(out) / "pump-phases.png"
    fig.savefig(p, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return [p.name]


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
                linestyle=styles[i % len(styles)], linewidth=max(0.8, 2.4 - 0.3 * i))
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
    ap = cli.parser("smodem context comparison in a QEMU guest (make compare): the "
                    "control run and one boot per context, each with the spinning "
                    "competitor and cyclictest as the 1 ms periodic task. Every option "
                    "defaults to the variable in brackets when that is set, as make "
                    "compare passes them; see tools/lab/README.md.")
    add_arguments(ap, env)
    a = ap.parse_args(argv)
    return run(params(ap, a), no_control=a.no_control)


PUMP_KEYS = ("pump_duration_s", "pump_bytes", "pump_far", "pump_line", "pump_at",
             "pump_onhook_s", "pump_calls", "slow_shift", "slow_context", "no_emulated")


def plan_runs(p, no_control=False):
    """[(summary key, context, that run's parameters)] in the order they
    boot.  LOAD=emulated: control and the contexts, as always.  LOAD=pump:
    control, per context its emulated run (the same script and parameters
    as LOAD=emulated's, so the same figures on the virtual clock) and its
    pump run ("<ctx>+pump", DURATION from PUMP_DURATION), then the slowed
    pump run ("<ctx>+pump@shift<N>")."""
    base = {k: v for k, v in p.items() if k not in PUMP_KEYS}
    emu = dict(base, load="emulated")
    runs = [] if no_control else [("control", "control", emu)]
    if p.get("load") != "pump":
        return runs + [(c, c, emu) for c in p["contexts"]]
    pump = dict(p, load="pump", duration_s=p["pump_duration_s"])
    for c in p["contexts"]:
        if not p.get("no_emulated"):
            runs.append((c, c, emu))
        runs.append((c + "+pump", c, pump))
    if p.get("slow_shift") is not None:
        sc = p["slow_context"]
        runs.append(("%s+pump@shift%d" % (sc, p["slow_shift"]), sc,
                     dict(pump, icount_shift=p["slow_shift"])))
    return runs


def _dirname(key):
    return key.replace("+", "-").replace("@", "-")


def run(p, no_control=False):
    """The comparison with parameters p (params()); returns the exit status."""
    Path(p["out"]).mkdir(parents=True, exist_ok=True)
    runs = plan_runs(p, no_control)
    summary = {}
    t0 = time.monotonic()
    for i, (key, ctx, rp) in enumerate(runs, 1):
        summary[key] = run_one(ctx, rp, i, len(runs), name=_dirname(key))
    # the runs' record first: a figure that fails to draw loses no run
    with open(Path(p["out"]) / "summary.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    figs = figures(summary, p["out"])
    if p.get("load") == "pump":
        figs += pump_figures(summary, p["out"])
    for e in summary.values():
        e["figures"] = figs
    with open(Path(p["out"]) / "summary.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    text = table(summary) + "\n\n" + rtla_table(summary)
    if p.get("load") == "pump":
        text += "\n\n" + pump_table(summary)
    (Path(p["out"]) / "summary.txt").write_text(text + "\n")
    print(text)
    print("compare: %d runs in %.0f s; %s/summary.json, figures %s"
          % (len(runs), time.monotonic() - t0, p["out"], ", ".join(figs)))
    failed = [c for c, e in summary.items() if e["guest"]["rc"] != 0]
    failed += [c for c, e in summary.items() if e.get("load") == "pump" and c not in failed
               and not any(x["connect"] for x in e["pump"]["calls"])]
    if failed:
        print("compare: FAILED runs: %s" % " ".join(failed), file=sys.stderr)
        return 1
    return 0
