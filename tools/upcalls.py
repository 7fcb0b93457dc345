#!/usr/bin/env python3
"""make upcalls: the real-time upcall study's experiments (its Figure 7 and
its context switch comparison) with modems as the periodic work.

One guest boot of the 6.1 generic kernel per background load, on the
instruction-counted clock (tests/module/guest/upcalls_checks.sh): for each modem
count N, hw=vline devices=N vline_pairs=1 context=usr load_us=LOAD_US (the
study's V.90 pump, 1.84 ms every 12.5 ms: 14.7 % of the CPU per modem), one
smodemd serving all N, first with its single rate-monotonic thread (the
upcall study's scheme: a period's handler is never preempted by another
modem's), then with one thread per modem (the fully preemptive threads the
study compared against); the pairs call each other at once and move NBYTES
each way (an odd modem out serves its periods on-hook; its partner device
is loaded, not served).  The daemon runs
--no-admission: the admission test's answer, sum(C/T) + c_max(1/T_1 - 1/T_n)
<= n(2^(1/n) - 1), is computed here and set beside what happened.

Per (load, N, mode): periods missed (the daemon had not taken the previous
period when the next came: usr_missed) and ring overruns, the longest
response (interrupt to the end of the period's work, the kernel's resp_ns)
against the 12.5 ms period, calls that moved their bytes, the daemon's
voluntary context switches per period served, and its CPU time per period
against the period's useful work (the kernel's thr_ns: hand-out to done,
the handler and the pump), the rest being the daemon's overhead.

LOADS: none, spin (the study's spinning competitor), build (a compile's
shape: processes created one after another compressing and writing files;
the guest has no compiler), net (tools/netload's ICMP flood, answered,
one request every 50 us).  The boots are pieces of smlab.runner: JOBS at a
time here, or on a Dask scheduler's workers (SCHEDULER); a boot recorded
in UPCALLS_OUT/record.jsonl with the same settings is not run again unless
FORCE, one whose harness failed is tried again once, then reported
missing (no report is written while any is).  Writes
UPCALLS_OUT/{upcalls.md,upcalls.json,upcalls.png} and each boot's raw
results under UPCALLS_OUT/boots/.
"""
import json
import re
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOP / "tools" / "lab"))
sys.path.insert(0, str(TOP / "tools" / "analysis"))

from smlab import checks, cli, resume, runner  # noqa: E402

RATE, PERIOD = 8000, 100
T_US = PERIOD * 1e6 / RATE
LOADS = ("none", "spin", "build", "net")
MODES = ("rm", "threads")
COST_MARGIN_US = 100    # smodemd's --cost default: load_us + this
SCRIPT = "upcalls_checks.sh"
# The upcall study (its section 7): every deadline met below 80 %
# utilisation under every background load; delayed preemption cut context
# switches by up to 35 % and raised useful utilisation by about 12 %.
STUDY = {"first_miss_utilisation": 0.80, "ctx_switch_cut": 0.35, "useful_gain": 0.12}


log = cli.logger("upcalls")


def admitted(n, cost_us, period_us=T_US):
    """The largest modem count <= n the upcall study's test admits, modem
    after modem (equal periods: c_max's term is 0), and each step's
    (u, bound)."""
    u, steps, last = 0.0, [], 0
    for i in range(1, n + 1):
        u += cost_us / period_us
        bound = i * (2 ** (1.0 / i) - 1)
        steps.append((i, u, bound))
        if u > bound:
            break
        last = i
    return last, steps


def _int(d, k):
    v = d.get(k, 0)
    return v if isinstance(v, int) else 0


def parse_daemon(text):
    """smodemd -v's closing lines: per device (periods, longest us, sum us)
    and the (mode, n, seconds, voluntary, involuntary, cpu s) line."""
    per = {m.group(1): (int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in re.finditer(
        r"^smodemd: (\S+): (\d+) periods, .* longest handler (\d+) us, handlers (\d+) us in all$",
        text, re.M)}
    m = re.search(r"^smodemd: (\w+), (\d+) modems?, ([\d.]+) s: voluntary context switches (\d+) "
                  r"\([\d.]+/s\), involuntary (\d+) \([\d.]+/s\), cpu user ([\d.]+) s system ([\d.]+) s$",
                  text, re.M)
    if not m:
        return per, None
    return per, {"mode": m.group(1), "n": int(m.group(2)), "secs": float(m.group(3)),
                 "voluntary": int(m.group(4)), "involuntary": int(m.group(5)),
                 "cpu_s": float(m.group(6)) + float(m.group(7))}


def call_ok(caller, answerer, nbytes):
    m = re.search(r"^DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+) writer=(\d+)", caller, re.M)
    e = re.search(r"^ECHO n=(\d+) got=(\d+) bad=(\d+) back=(\d+)", answerer, re.M)
    return bool(m and e and m.groups() == (str(nbytes), str(nbytes), "0", "0")
                and e.groups() == (str(nbytes), str(nbytes), "0", str(nbytes)))


def cell(res, n, mode, nbytes):
    """One (N, mode) of a boot's results directory: the figures."""
    name = "n%d-%s" % (n, mode)

    def text(f):
        p = res / f
        return p.read_text(errors="replace") if p.exists() else ""

    def stats(f):
        return checks.stats_by_device(res / f) if (res / f).exists() else {}
    per, summ = parse_daemon(text(name + ".smodemd"))
    st0, st1 = stats(name + ".start.stats"), stats(name + ".stats")
    # an odd N's unserved partner device is not one of the N
    st1 = {d: s for d, s in st1.items() if s.get("usr_attached") == 1}
    missed = overruns = late = 0
    resp_max = thr_sum = thr_n = 0
    for dev, s in st1.items():
        s0 = st0.get(dev, {})
        missed += _int(s, "usr_missed") - _int(s0, "usr_missed")
        overruns += _int(s, "overruns")
        late += _int(s, "tx_late")
        resp_max = max(resp_max, _int(s, "resp_ns_max"))
        thr_n += _int(s, "thr_ns_n")
        thr_sum += _int(s, "thr_ns_avg") * _int(s, "thr_ns_n")
    pairs = (n - n % 2) // 2
    calls = sum(1 for k in range(0, 2 * pairs, 2)
                if call_ok(text("%s-%d.txt" % (name, k)), text("%s-%d.txt" % (name, k + 1)), nbytes))
    periods = sum(p for p, _, _ in per.values())
    c = {"n": n, "mode": mode, "devices_seen": len(st1), "daemon_rc": text(name + ".rc").strip(),
         "attached": text(name + "-attached.rc").strip() == "0",
         "missed": missed, "overruns": overruns, "tx_late": late,
         "resp_max_us": resp_max / 1e3, "slack_min_us": T_US - resp_max / 1e3,
         "work_us": thr_sum / thr_n / 1e3 if thr_n else None,
         "pairs": pairs, "calls_ok": calls, "periods": periods,
         "longest_handler_us": max((x for _, x, _ in per.values()), default=None)}
    if summ and periods:
        c.update({"secs": summ["secs"], "ctx_voluntary": summ["voluntary"],
                  "ctx_involuntary": summ["involuntary"],
                  "ctx_per_period": summ["voluntary"] / periods,
                  "ctx_per_s": summ["voluntary"] / summ["secs"],
                  "cpu_per_period_us": summ["cpu_s"] * 1e6 / periods})
        if c["work_us"]:
            c["useful"] = min(1.0, c["work_us"] / c["cpu_per_period_us"])
    c["utilisation"] = n * c["work_us"] / T_US if c["work_us"] else None
    c["held"] = (c["attached"] and missed == 0 and overruns == 0 and calls == pairs
                 and c["devices_seen"] == n)
    return c


def guest_steps(out, load):
    """(N, mode) steps a running boot has begun, from its console."""
    con = out / "boots" / load / "console.log"
    try:
        return len(re.findall(r"^\[guest\] n\d+-\w+ \(", con.read_text(errors="replace"), re.M))
    except OSError:
        return 0


def plan(loads, a, out):
    return [runner.Piece.make("upcalls", a.kernel, load, load=load, ns=a.ns, modes=a.modes,
                              load_us=a.load_us, nbytes=a.nbytes, module=a.module, out=str(out))
            for load in loads]


def run_piece(piece):
    """One boot: every N and mode under one background load (a function of
    this module, so that a Dask worker imports it by name)."""
    load, out = piece.get("load"), Path(piece.get("out"))
    ns, modes = list(piece.get("ns")), list(piece.get("modes"))
    bdir = out / "boots" / load
    checks.fresh_dir(bdir)
    exe = checks.build_ttyat(bdir)
    files = {"usr/bin/ttyat": str(exe), "usr/bin/smodemd": str(checks.smodemd()),
             "opt/smodem/smodem.ko": piece.get("module")}
    kw = {}
    if load == "net":
        from smlab import netload
        files.update(netload.guest_files(piece.kernel))
        kw = {"kmods": list(netload.KMODS), "qemu_extra": netload.qemu_args()}
    env = {"NS": " ".join(map(str, ns)), "MODES": " ".join(modes),
           "LOAD_US": str(piece.get("load_us")), "CALL_BYTES": str(piece.get("nbytes")), "BG": load}
    # a call is about 40 s of guest time, an overloaded one up to its timeouts
    res = checks.run_checks(piece.kernel, SCRIPT, bdir, share="deferred", env=env,
                               extra_files=files, timeout_s=300 + 240 * len(ns) * len(modes),
                               progress=False, **kw)
    cells = []
    for n in ns:
        bg = res / ("bg-n%d.txt" % n)
        for mode in modes:
            c = cell(res, n, mode, piece.get("nbytes"))
            c["load"] = load
            c["insmod_ok"] = (res / ("n%d-insmod.rc" % n)).read_text().strip() == "0"
            c["background"] = bg.read_text(errors="replace").strip()[:400] if bg.exists() else None
            dm = (res / ("n%d.dmesg" % n))
            c["bad_dmesg"] = [x for x in (dm.read_text(errors="replace") if dm.exists() else "").splitlines()
                              if checks.BAD_DMESG.search(x)]
            cells.append(c)
    return {"cells": cells}


def summarise(cells, ns, load_us):
    """Per (load, mode): the largest N that held (every smaller N held too),
    the admission test's answers; per (load, N): rm against threads."""
    out = {}
    loads = sorted({c["load"] for c in cells}, key=lambda x: LOADS.index(x) if x in LOADS else 99)
    base = [c["work_us"] for c in cells if c["n"] == min(ns) and c["work_us"] and c["load"] == "none"]
    cost_measured = max(base) if base else None
    for load in loads:
        for mode in MODES:
            cs = sorted((c for c in cells if c["load"] == load and c["mode"] == mode), key=lambda c: c["n"])
            if not cs:
                continue
            held = 0
            for c in cs:
                if not c["held"]:
                    break
                held = c["n"]
            first_fail = next((c for c in cs if not c["held"]), None)
            out[(load, mode)] = {
                "load": load, "mode": mode, "largest_held": held,
                "first_failed_utilisation": first_fail["utilisation"] if first_fail else None,
                "admitted_default": admitted(max(ns), load_us + COST_MARGIN_US)[0],
                "admitted_measured": admitted(max(ns), cost_measured)[0] if cost_measured else None}
    pairs = []
    for load in loads:
        for n in ns:
            rm = next((c for c in cells if c["load"] == load and c["n"] == n and c["mode"] == "rm"), None)
            th = next((c for c in cells if c["load"] == load and c["n"] == n and c["mode"] == "threads"), None)
            if rm and th and rm.get("ctx_per_period") and th.get("ctx_per_period"):
                pairs.append({"load": load, "n": n,
                              "ctx_cut": 1 - rm["ctx_per_period"] / th["ctx_per_period"],
                              "useful_gain": (rm["useful"] - th["useful"]) if rm.get("useful") and th.get("useful")
                              else None})
    return list(out.values()), pairs, cost_measured


def _f(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def markdown(cells, limits, pairs, cost, meta):
    L = ["# The real-time upcall study's experiments, with modems (make upcalls)", "",
         "%s, virtual clock, context=usr, hw=vline, load_us=%d every %.1f ms (%.1f %% per modem), "
         "pairs calling each other with %d bytes each way, smodemd --fifo 50 --no-admission (%s)." % (
             meta["kernel"], meta["load_us"], T_US / 1e3, 100 * meta["load_us"] / T_US, meta["nbytes"],
             meta["date"]), "",
         "Useful work per period: the kernel's thr_ns (hand-out to done: the handler and the pump); "
         "CPU per period: the daemon's user + system time over the periods it served; useful = the first "
         "over the second. Held: no period missed, no overrun, every call moved its bytes.", "",
         "| load | N | mode | utilisation | missed | overruns | longest response ms | calls | "
         "ctx sw / period | ctx sw / s | CPU / period us | useful | held |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        L.append("| %s | %d | %s | %s | %d | %d | %s | %d/%d | %s | %s | %s | %s | %s |" % (
            c["load"], c["n"], c["mode"], _f(c["utilisation"] and 100 * c["utilisation"], "%.0f %%"),
            c["missed"], c["overruns"], _f(c["resp_max_us"] / 1e3, "%.2f"), c["calls_ok"], c["pairs"],
            _f(c.get("ctx_per_period"), "%.3f"), _f(c.get("ctx_per_s"), "%.0f"),
            _f(c.get("cpu_per_period_us"), "%.0f"), _f(c.get("useful") and 100 * c["useful"], "%.1f %%"),
            "yes" if c["held"] else "**no**"))
    L += ["", "## The admission test against what held", "",
          "C measured: the longest mean useful work per period of one modem alone with no load (%s us); "
          "C default: smodemd's, load_us + %d us." % (_f(cost, "%.0f"), COST_MARGIN_US), "",
          "| load | mode | largest N that held | utilisation of the first that failed | "
          "admitted (C default) | admitted (C measured) |", "|---|---|---|---|---|---|"]
    for s in limits:
        L.append("| %s | %s | %d | %s | %d | %s |" % (
            s["load"], s["mode"], s["largest_held"],
            _f(s["first_failed_utilisation"] and 100 * s["first_failed_utilisation"], "%.0f %%"),
            s["admitted_default"], _f(s["admitted_measured"], "%d")))
    L += ["", "## The single rate-monotonic thread against one thread per modem", "",
          "| load | N | context switches per period, cut by rm | useful, rm minus threads |", "|---|---|---|---|"]
    for p in pairs:
        L.append("| %s | %d | %.0f %% | %s |" % (p["load"], p["n"], 100 * p["ctx_cut"],
                                                _f(p["useful_gain"] and 100 * p["useful_gain"], "%+.1f points")))
    L += ["", "The study (NetBSD, 100 MHz Pentium, synthetic handlers): every deadline met below %.0f %% "
          "utilisation under every background load; context switches cut by up to %.0f %%, useful "
          "utilisation up about %.0f %%." % (100 * STUDY["first_miss_utilisation"],
                                             100 * STUDY["ctx_switch_cut"], 100 * STUDY["useful_gain"])]
    return "\n".join(L) + "\n"


def plot(cells, png, meta):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axs = plt.subplots(1, 3, figsize=(14, 4.2))
    loads = [x for x in LOADS if any(c["load"] == x for c in cells)]
    for li, load in enumerate(loads):
        for mode, ls in (("rm", "-"), ("threads", "--")):
            cs = sorted((c for c in cells if c["load"] == load and c["mode"] == mode), key=lambda c: c["n"])
            if not cs:
                continue
            lab = "%s, %s" % (load, mode)
            col = "C%d" % li
            axs[0].plot([c["n"] for c in cs], [c.get("ctx_per_period") for c in cs], ls, color=col,
                        marker="o", label=lab)
            axs[1].plot([100 * (c["utilisation"] or 0) for c in cs], [c["slack_min_us"] / 1e3 for c in cs], ls,
                        color=col, marker="o", label=lab)
            axs[2].plot([c["n"] for c in cs], [c["missed"] + c["overruns"] for c in cs], ls, color=col,
                        marker="o", label=lab)
    axs[0].set_xlabel("modems")
    axs[0].set_ylabel("daemon's voluntary context switches per period")
    axs[1].set_xlabel("utilisation (%)")
    axs[1].set_ylabel("least slack: period - longest response (ms)")
    axs[1].axhline(0, color="k", lw=0.8)
    axs[1].axvline(100 * STUDY["first_miss_utilisation"], color="0.5", ls=":", lw=1)
    axs[2].set_xlabel("modems")
    axs[2].set_ylabel("periods missed + overruns")
    for ax in axs:
        ax.grid(True, alpha=0.3)
    axs[0].legend(fontsize=7)
    fig.suptitle("Upcalls with modems: %s, load_us=%d per %.1f ms period, virtual clock" % (
        meta["kernel"], meta["load_us"], T_US / 1e3), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def parse_ns(text):
    ns = sorted({int(x) for x in text.split()})
    if not ns or ns[0] < 1 or ns[-1] > 8:
        raise ValueError("NS %r: modem counts 1..8 (hw=vline's devices)" % text)
    return ns


def main(argv=None):
    from smlab.guest import available_kernels
    ap = cli.parser(__doc__)
    opt = (lambda *x, **kw: cli.env_option(ap, *x, **kw))
    opt("--kernel", "KERNEL", checks.generic_kernel(), str, "guest kernel", choices=available_kernels())
    opt("--loads", "LOADS", " ".join(LOADS), str, "background loads: none spin build net")
    opt("--ns", "NS", "1 2 3 4 5 6 7 8", str, "modem counts")
    opt("--modes", "MODES", " ".join(MODES), str, "rm threads")
    opt("--load-us", "LOAD_US", 1840, cli.int_range(0, 12000), "each modem's work per period (us)")
    opt("--nbytes", "NBYTES", 1024, cli.positive_int, "bytes each way in every call")
    opt("--jobs", "JOBS", 2, cli.int_range(1, 64), "guests at a time")
    opt("--scheduler", "SCHEDULER", None, str,
        "a Dask scheduler (tcp://host:8786) whose workers run the boots (make lab-worker)")
    opt("--out", "UPCALLS_OUT", str(TOP / "out" / "upcalls"), str, "output directory")
    opt("--module", "MODULE", None, str, "smodem.ko (default: build/<kernel>/smodem.ko)")
    ap.add_argument("--force", action="store_true", help="run every boot again")
    a = ap.parse_args(argv)
    if a.kernel is None:
        ap.error("no 6.1 generic kernel installed: make deps")
    try:
        a.ns = parse_ns(a.ns)
    except ValueError as e:
        ap.error(str(e))
    loads = a.loads.split()
    bad = [x for x in loads if x not in LOADS] + [m for m in a.modes.split() if m not in MODES]
    if bad or not loads or not a.modes.split():
        ap.error("unknown load or mode %s (loads: %s; modes: %s)" % (" ".join(bad), " ".join(LOADS),
                                                                     " ".join(MODES)))
    a.modes = [m for m in MODES if m in a.modes.split()]
    a.module = a.module or str(TOP / "build" / a.kernel / "smodem.ko")
    if not Path(a.module).is_file():
        ap.error("%s missing: make module KVER=%s" % (a.module, a.kernel))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = {"kernel": a.kernel, "module": resume.file_digest(a.module),
                "smodemd": resume.file_digest(checks.smodemd()),
                "script": resume.file_digest(TOP / "tests/module/guest" / SCRIPT),
                "guestlib": resume.file_digest(TOP / "tests/module/guest/guestlib.sh"),
                "ns": a.ns, "modes": a.modes, "load_us": a.load_us, "nbytes": a.nbytes}
    t0 = time.monotonic()
    log("%d boots (%s) on %s, %d at a time; modems %s, modes %s" % (
        len(loads), " ".join(loads), a.kernel, a.jobs, " ".join(map(str, a.ns)), " ".join(a.modes)))
    steps = len(a.ns) * len(a.modes)
    record = out / "record.jsonl"
    if a.force:
        record.unlink(missing_ok=True)

    def held(p, r):
        cs = r["cells"]
        log("%s: held up to %s" % (p.key, ", ".join(
            "%s N=%d" % (m, max([c["n"] for c in cs if c["mode"] == m and c["held"]] or [0]))
            for m in a.modes)))

    rep = runner.run(plan(loads, a, out), run_piece, record, runner.digest(settings), jobs=a.jobs,
                     retries=1, scheduler=a.scheduler, say=log, on_result=held,
                     tick=lambda running: log("%.0f s: %s" % (time.monotonic() - t0, ", ".join(
                         "%s %d/%d" % (p.key, guest_steps(out, p.key), steps) for p in running))))
    if not rep.complete:
        for k, why in sorted(rep.missing.items()):
            log("MISSING %s: %s" % (k, why))
        log("%d of %d boots missing: no report (run again to retry them)" % (len(rep.missing), len(loads)))
        return 1
    cells = [c for load in loads for c in rep.figures[load]["cells"]]
    cells.sort(key=lambda c: (LOADS.index(c["load"]), c["n"], MODES.index(c["mode"])))
    limits, pairs, cost = summarise(cells, a.ns, a.load_us)
    meta = {"kernel": a.kernel, "load_us": a.load_us, "nbytes": a.nbytes, "ns": a.ns, "period_us": T_US,
            "date": time.strftime("%Y-%m-%d"), "clock": "virtual", "wall_s": round(time.monotonic() - t0, 1),
            "study": STUDY}
    (out / "upcalls.json").write_text(json.dumps(
        {"meta": meta, "cells": cells, "limits": limits, "rm_vs_threads": pairs, "cost_measured_us": cost},
        indent=1) + "\n")
    md = markdown(cells, limits, pairs, cost, meta)
    (out / "upcalls.md").write_text(md)
    plot(cells, out / "upcalls.png", meta)
    sys.stdout.write(md)
    log("wrote %s/{upcalls.md,upcalls.json,upcalls.png} in %.0f s" % (out, meta["wall_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
