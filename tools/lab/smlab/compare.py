"""The comparison run: control (no module) and one guest boot per context,
each with the spinning competitor and cyclictest as the coexisting periodic
task (the study's 1 ms timer callback).  See tools/lab/README.md."""

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import smtrace

from . import cli, contexts
from .guest import available_kernels, default_kernel, run_guest, module_path, ROOT
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
    return g


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
    }
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
    return p


def run_one(ctx, p, idx, total, log=print):
    out = Path(p["out"]) / ctx
    out.mkdir(parents=True, exist_ok=True)
    stale = ["trace.dat", "stats.txt", "cyclictest.txt", "cyclictest.json", "stats-load.txt",
             "smodemd.log", "smodemd.rc"]
    stale += ["rtla-%s.%s" % (t, x) for t in RTLA_TRACERS for x in ("txt", "rc", "cmd")]
    for f in stale:
        try:
            (out / f).unlink()
        except FileNotFoundError:
            pass
    mods = [] if ctx == "control" else [p["module"]]
    sha = file_digest(p["module"]) if mods else None
    t = time.monotonic()
    log("compare: [%d/%d] %s: booting %s (%s clock%s), %d s of measurement"
        % (idx, total, ctx, p["kernel"], p["clock"],
           ", icount shift %d" % p["icount_shift"] if p["clock"] == "virtual" else "",
           p["duration_s"]))
    # generous: virtual time runs at most a few times slower than wall here
    measured = p["duration_s"] + (2 * p["rtla_duration_s"] + 10 if p.get("rtla_run") else 0)
    timeout = 120 + 12 * measured * (1 + p["icount_shift"])
    extra = dict(rtla_files()) if p.get("rtla_run") else {}
    if ctx == "usr":
        extra["usr/bin/smodemd"] = str(ROOT / SMODEMD)
    res = run_guest(p["kernel"], guest_script(ctx, p), str(out), modules=mods,
                    clock=p["clock"], icount_shift=p["icount_shift"], smp=p["smp"],
                    timeout_s=timeout, audio="ac97", share="deferred",
                    extra_files=extra or None,
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
    c = entry["cyclictest"] or {}
    tr = entry["trace"] or {}
    log("compare: [%d/%d] %s: rc=%s in %.0f s; cyclictest max %s us, max gap %s us%s"
        % (idx, total, ctx, res.rc, time.monotonic() - t, c.get("max_us"),
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
    ap = cli.parser("smodem context comparison in a QEMU guest (make compare): the "
                    "control run and one boot per context, each with the spinning "
                    "competitor and cyclictest as the 1 ms periodic task. Every option "
                    "defaults to the variable in brackets when that is set, as make "
                    "compare passes them; see tools/lab/README.md.")
    add_arguments(ap, env)
    a = ap.parse_args(argv)
    return run(params(ap, a), no_control=a.no_control)


def run(p, no_control=False):
    """The comparison with parameters p (params()); returns the exit status."""
    Path(p["out"]).mkdir(parents=True, exist_ok=True)
    runs = ([] if no_control else ["control"]) + p["contexts"]
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
    text = table(summary) + "\n\n" + rtla_table(summary)
    (Path(p["out"]) / "summary.txt").write_text(text + "\n")
    print(text)
    print("compare: %d runs in %.0f s; %s/summary.json, figures %s"
          % (len(runs), time.monotonic() - t0, p["out"], ", ".join(figs)))
    failed = [c for c, e in summary.items() if e["guest"]["rc"] != 0]
    if failed:
        print("compare: FAILED runs: %s" % " ".join(failed), file=sys.stderr)
        return 1
    return 0
