#!/usr/bin/env python3
"""make stolen: the augmented-reservation study on Linux's
SCHED_DEADLINE, with the modem's processing as the reserved work.

The reserved work is context=res with load_us of processing every
interrupt period; the reservation has the same period.  Two works:
"study" (4 ms every 20 ms, the study's test application) and "modem" (the
soft-modem study's 1.84 ms every 12.5 ms).  Each guest boot first measures
what one period of the work costs on the idle machine: that is the
requested runtime R.  An over-reservation of X % reserves R (1 + X/100).

A deadline miss, the same for every variant: the work of an interrupt
period is not done when the next period completes (the module counts it at
the interrupt: more than one period of samples still waiting;
deadline_misses in its stats).  Misses are given in % of periods.

The stream: tools/netload's ICMP flood into the guest's second NIC, one
request every STREAM_NS, sent from the hrtimer softirq so that its receive
processing (the NIC's interrupt, NET_RX, the reply) lands inside whatever
runs, the reserved thread too, as a wire's frames would.

Experiments (the study's Figures 3 and 4 and its overhead figures):
  fig3      % of deadlines missed against % over-reservation for plain on
            the idle machine, and plain, catchup (Rez-C), feedback (Rez-FB)
            and reclaim (SCHED_FLAG_RECLAIM) with the stream; the least
            over-reservation that reaches no misses, beside the study's
            24 % (plain) and 6 % (Rez-C, Rez-FB)
  fig4      feedback at R through a 1 s burst of the stream: stolen %,
            runtime requested and time received per period, misses
  overhead  CPU left to a spinning task beside the reservation kept each
            way, against plain without accounting (the study: Rez-C
            0.012 %, Rez-FB 0.017 %)

One guest per (kernel, work, variant), and per kernel one for fig4 and one
for the overhead: the pieces of smlab.runner, JOBS at a time here or on a
Dask scheduler's workers (SCHEDULER; on the instruction-counted clock the
results do not depend on where or how many at once).  A boot recorded in
STOLEN_OUT/record.jsonl with the same settings is not run again unless
FORCE; a boot that failed is tried again once, then reported.  QUICK=1: the 6.1 generic kernel,
the study's work, five points, shorter runs (make check runs it).  Writes
STOLEN_OUT/{stolen.md,stolen.json,fig3-*.png,fig4-*.png} and each boot's
raw results under STOLEN_OUT/runs/.
"""
import json
import shutil
import sys
import time
from pathlib import Path

import smtrace
from smlab import cli, netload, resume, runner

TOP = Path(__file__).resolve().parents[1]

SCRIPT = TOP / "tools" / "guest" / "stolen_runs.sh"
WORKS = {
    # name: (load_us, period_samples at 8 kHz, reservation period us, what)
    "study": (4000, 160, 20000, "4 ms every 20 ms, the study's test application"),
    "modem": (1840, 100, 12500, "1.84 ms every 12.5 ms, the soft-modem study's processing"),
}
# name: (res_mode, stream)
VARIANTS = {
    "plain-idle": ("plain", 0),
    "plain": ("plain", 1),
    "catchup": ("catchup", 1),
    "feedback": ("feedback", 1),
    "reclaim": ("reclaim", 1),
}
POINTS = "-10 -5 0 2 4 6 8 10 15 20 25 30"
QUICK_POINTS = "-10 0 10 20 30"
STUDY_ZERO = {"plain": 24, "catchup": 6, "feedback": 6}
STUDY_OVERHEAD = {"catchup": 0.012, "feedback": 0.017}
OVERHEAD_WAYS = ("base", "plain", "catchup", "feedback", "reclaim")
# The study's section 5 (stolen from a reservation by each device); the
# disks on QEMU's PIIX IDE (ata_piix) and an LSI 53C895A SCSI HBA (sym53c8xx)
DEVICE_SOURCES = ("none", "nic", "ide", "scsi")
# slot 9: interrupt line 10, the NICs'; the AC'97 at slot 4 has 11, and on
# PREEMPT_RT smodem's IRQF_NO_THREAD handler shares no line with a threaded one
SCSI_PCI = "09"
DISK_MB = 64
STUDY_DEVICES = {"ide-pio": 49.0, "ide": 1.0}


log = cli.logger("stolen")


def parse_points(text):
    pts = []
    for tok in text.split():
        try:
            x = int(tok)
        except ValueError:
            raise ValueError("point %r: want whole percents, e.g. '-10 0 10'" % tok) from None
        if not -50 <= x <= 100:
            raise ValueError("point %d: over-reservation -50..100 %%" % x)
        pts.append(x)
    if not pts:
        raise ValueError("no points")
    return sorted(set(pts))


def tasks(kernels, works, points, devices=True):
    out = []
    for k in kernels:
        for w in works:
            for v in VARIANTS:
                out.append({"kernel": k, "work": w, "job": "sweep", "variant": v, "points": points})
        out.append({"kernel": k, "work": works[0], "job": "burst"})
        out.append({"kernel": k, "work": works[0], "job": "overhead"})
        if devices:
            out.append({"kernel": k, "work": works[0], "job": "devices", "variant": "dma",
                        "sources": list(DEVICE_SOURCES), "scsi_pci": SCSI_PCI})
            out.append({"kernel": k, "work": works[0], "job": "devices", "variant": "pio",
                        "sources": ["ide"], "scsi_pci": SCSI_PCI})
    return out


def tag(t):
    return "-".join([t["kernel"], t["work"], t["job"]] + ([t["variant"]] if "variant" in t else []))


def variant_env(t):
    """VARIANT and STREAM for the guest: a sweep's variant, else none."""
    if t["job"] != "sweep":
        return "", "0"
    mode, stream = VARIANTS[t["variant"]]
    return mode, str(stream)


def _stats_file(p):
    return smtrace.stats(p.read_text()) if p.exists() else None


def collect(t, rdir, a):
    """What one boot's results directory says, as JSON-able data."""
    res = {"requested_us": int((rdir / "requested_us").read_text())}
    if t["job"] == "sweep":
        pts = []
        for x in t["points"]:
            p = rdir / ("point_%d.stats" % x)
            if p.exists() and p.read_text().strip() == "refused":
                pts.append({"x": x, "refused": True})
                continue
            st = _stats_file(p)
            if st is None:
                raise RuntimeError("%s: point %d left no stats" % (tag(t), x))
            irqs = st.get("irqs", 0)
            wall = st.get("stolen_wall_ns", 0)
            stolen = st.get("stolen_irq_ns", 0) + st.get("stolen_softirq_ns", 0)
            pts.append({
                "x": x, "refused": False, "periods": irqs, "misses": st.get("deadline_misses", 0),
                "miss_pct": 100.0 * st.get("deadline_misses", 0) / irqs if irqs else None,
                "overruns": st.get("overruns", 0), "stolen_ns": stolen,
                "net_rx_ns": st.get("stolen_softirq_net_rx_ns", 0),
                # per period, in % of the requested runtime (the study's Figure 4)
                "stolen_pct": 100.0 * stolen / irqs / (res["requested_us"] * 1000) if irqs else 0.0,
                "wall_ns": wall,
                "ran_ns": st.get("stolen_ran_ns", 0), "activations": st.get("stolen_activations", 0),
                "ceiling_hits": st.get("res_ceiling_hits"), "deferrals": st.get("res_deferrals"),
                "refusals": st.get("res_refusals"), "pending_max": st.get("pending_max")})
        res["points"] = pts
    elif t["job"] == "burst":
        res["periods"] = burst_periods(rdir / "burst.dat", WORKS[t["work"]][1])
        st = _stats_file(rdir / "burst.stats")
        res["deadline_misses"] = st.get("deadline_misses")
        res["ceiling_hits"] = st.get("res_ceiling_hits")
    elif t["job"] == "devices":
        rows = {}
        for src in t["sources"]:
            st = _stats_file(rdir / ("dev_%s.stats" % src))
            irq, soft, ran = st["stolen_irq_ns"], st["stolen_softirq_ns"], st["stolen_ran_ns"]
            charged = ran + irq + soft
            name = src + ("-pio" if t["variant"] == "pio" else "")
            rows[name] = {"stolen_pct": 100.0 * (irq + soft) / charged if charged else None,
                          "irq_pct": 100.0 * irq / charged if charged else None,
                          "softirq_pct": 100.0 * soft / charged if charged else None,
                          "other_ns": st["stolen_other_ns"], "activations": st["stolen_activations"],
                          "softirqs": {k[len("stolen_softirq_"):-3]: v for k, v in st.items()
                                       if k.startswith("stolen_softirq_") and k != "stolen_softirq_ns"
                                       and v}}
        disks = rdir / "disks"
        res["devices"] = rows
        res["disks"] = disks.read_text().split("\n") if disks.exists() else []
        xm = rdir / "xfer_mode"
        res["xfer_mode"] = xm.read_text().strip() if xm.exists() else None
        # each count since boot, less what the line had before the source's
        # run (the SCSI HBA shares the NICs' line)
        res["interrupts"] = {}
        before = None
        for src in t["sources"]:
            if src in ("ide", "scsi"):
                f = rdir / ("dev_%s.interrupts" % src)
                res["interrupts"][src] = _disk_irqs(f, src) - (_disk_irqs(before, src) if before else 0)
                before = f
    else:
        ways = {}
        for w in OVERHEAD_WAYS:
            spin = (rdir / ("overhead_%s.spin" % w)).read_text().split()
            st = _stats_file(rdir / ("overhead_%s.stats" % w))
            ways[w] = {"iterations": int(spin[1]), "misses": st.get("deadline_misses"),
                       "activations": st.get("runs")}
        res["ways"] = ways
    return res


def _disk_irqs(p, src):
    """A /proc/interrupts copy's count for src's controller's line."""
    want = {"ide": "ata_piix", "scsi": "sym53c8xx"}[src]
    return sum(int(line.split()[1]) for line in (p.read_text().splitlines() if p.exists() else [])
               if want in line)


def burst_periods(dat, period_samples):
    """Per reservation period: the controller's smodem_res_ctl and the
    deadline misses counted from smodem_irq with the module's rule."""
    evs = smtrace.events(dat)
    ctl = [e for e in evs if e.name == "smodem_res_ctl"]
    if not ctl:
        raise RuntimeError("%s: no smodem_res_ctl events" % dat)
    t0 = ctl[0].ts_ns
    misses = [e.ts_ns for e in evs if e.name == "smodem_irq"
              and e.fields["pending"] >= period_samples + period_samples // 2]
    rows = []
    for i, e in enumerate(ctl):
        f = e.fields
        end = ctl[i + 1].ts_ns if i + 1 < len(ctl) else float("inf")
        rows.append({"t_ms": round((e.ts_ns - t0) / 1e6, 3), "requested_ns": f["requested_ns"],
                     "received_ns": f["received_ns"], "stolen_ns": f["stolen_ns"],
                     "runtime_ns": f["runtime_ns"], "saturated": f["saturated"],
                     "misses": sum(1 for m in misses if e.ts_ns <= m < end)})
    return rows


def disk_args(ddir, scsi_pci):
    """QEMU arguments for the two disks (sparse raw images: the guest only
    reads them), made in ddir: one on the machine's PIIX IDE, one behind an
    LSI SCSI HBA."""
    ddir.mkdir(parents=True, exist_ok=True)
    args = []
    for name in ("ide", "scsi"):
        img = ddir / (name + ".img")
        if not img.exists() or img.stat().st_size != DISK_MB << 20:
            with open(img, "wb") as f:
                f.truncate(DISK_MB << 20)
    for name in ("ide", "scsi"):
        args += ["-drive", "file=%s,if=none,id=%s,format=raw" % (ddir / (name + ".img"), name)]
    args += ["-device", "ide-hd,drive=ide,bus=ide.0",
             "-device", "lsi53c895a,id=scsi0,addr=0x%s" % scsi_pci,
             "-device", "scsi-hd,drive=scsi,bus=scsi0.0"]
    return args


def plan(todo, a, out):
    """The boots as runner pieces: a task and the run's settings."""
    return [runner.Piece.make("stolen", t["kernel"], tag(t), stream_ns=a.stream_ns, run_s=a.run_s,
                              spin_s=a.spin_s, guest_append=a.guest_append, out=str(out),
                              **{k: v for k, v in t.items() if k != "kernel"})
            for t in todo]


TASK_KEYS = ("work", "job", "variant", "points", "sources", "scsi_pci")


def run_piece(piece):
    """One boot (a function of this module, so that a Dask worker imports it
    by name)."""
    import argparse
    t = {"kernel": piece.kernel}
    t.update({k: list(v) if isinstance(v, tuple) else v
              for k, v in piece.settings if k in TASK_KEYS})
    a = argparse.Namespace(**{k: piece.get(k) for k in ("stream_ns", "run_s", "spin_s",
                                                         "guest_append")})
    return run_boot(t, a, Path(piece.get("out")))


def run_boot(t, a, out):
    """Boot for task t, return what its results directory says."""
    from smlab.guest import run_guest
    d = out / "runs" / tag(t)
    # nothing of an earlier try (its error file above all) may stay
    shutil.rmtree(d, ignore_errors=True)
    load_us, ps, rp, _ = WORKS[t["work"]]
    mode, stream = variant_env(t)
    env = {"JOB": t["job"], "LOAD_US": str(load_us), "PERIOD_SAMPLES": str(ps),
           "RES_PERIOD_US": str(rp), "STREAM_NS": str(a.stream_ns), "RUN_S": str(a.run_s),
           "SPIN_S": str(a.spin_s), "POINTS": " ".join(map(str, t.get("points", []))),
           "VARIANT": mode, "STREAM": stream}
    budget = 120 + len(t.get("points", [])) * (a.run_s + 4) * 6 + a.spin_s * 5 * 6
    kmods, qemu, cmdline = list(netload.KMODS), netload.qemu_args(), a.guest_append
    clock = "virtual"
    if t["job"] == "devices":
        env["SOURCES"] = " ".join(t["sources"])
        env["DISK_SCSI_PCI"] = t["scsi_pci"]
        budget += len(t["sources"]) * (a.run_s + 4) * 20
        kmods += ["ata_piix", "sd_mod", "sym53c8xx"]
        qemu += disk_args(out / "runs" / (tag(t) + ".disks"), t["scsi_pci"])
        env["ATA_DMA"] = "0" if t["variant"] == "pio" else "1"
        # Real time, not the instruction count: under QEMU's record/replay
        # (the lab's virtual clock) IDE and SCSI commands never complete, and
        # on the count alone a disk's I/O takes no time, so its interrupts
        # come before the thread runs, never inside it.  Not repeatable run
        # to run: the table gives shares, measured within one boot.
        clock = "real"
    res = run_guest(t["kernel"], SCRIPT.read_text(), str(d),
                    modules=[str(TOP / "build" / t["kernel"] / "smodem.ko")], audio="ac97",
                    kmods=kmods, qemu_extra=qemu,
                    extra_files=dict(netload.guest_files(t["kernel"])),
                    cmdline_extra=cmdline, env=env, share="deferred", progress=False, clock=clock,
                    timeout_s=budget)
    r = d / "results"
    err = r / "error"
    if not res.ok or err.exists():
        raise RuntimeError("%s: %s" % (tag(t), err.read_text().strip() if err.exists()
                                       else res.console_text()[-2000:]))
    return collect(t, r, a)


def zero_at(points):
    """The least over-reservation from which no point misses."""
    ok = None
    for p in sorted(points, key=lambda p: -p["x"]):
        if p.get("refused") or p["misses"]:
            break
        ok = p["x"]
    return ok


def overhead_rows(ways):
    base = ways["base"]["iterations"]
    return {w: {"iterations": v["iterations"], "lost_pct": 100.0 * (base - v["iterations"]) / base}
            for w, v in ways.items()}


def _pct(v, nd=1):
    return "-" if v is None else ("%.*f" % (nd, v))


def markdown(report):
    m = report["meta"]
    L = ["# Stolen time and augmented reservations (the study's Figures 3 and 4) on SCHED_DEADLINE", "",
         "Virtual clock, guest command line `%s`, the stream: an ICMP echo request every %d us from the "
         "hrtimer softirq, answered; %s s per point.  A deadline miss: the work of an interrupt period not done "
         "when the next period completes (the module's `deadline_misses`), in %% of periods." % (
             m["guest_append"], m["stream_ns"] // 1000, m["run_s"]), ""]
    for k, kd in report["kernels"].items():
        for w, wd in kd["works"].items():
            L += ["## %s, %s (%s): R = %d us" % (k, w, WORKS[w][3], wd["requested_us"]), ""]
            xs = sorted({p["x"] for v in wd["variants"].values() for p in v["points"]})
            L.append("| variant | " + " | ".join("%+d %%" % x for x in xs) +
                     " | no misses from | study | stolen a period, % of R (at 0 %) |")
            L.append("|---" * (len(xs) + 4) + "|")
            for v, vd in wd["variants"].items():
                by = {p["x"]: p for p in vd["points"]}
                cells = []
                for x in xs:
                    p = by.get(x)
                    cells.append("-" if p is None else "refused" if p["refused"] else _pct(p["miss_pct"]))
                z = vd["zero_at"]
                p0 = by.get(0)
                L.append("| %s | %s | %s | %s | %s |" % (
                    v, " | ".join(cells), "-" if z is None else "%+d %%" % z,
                    "%d %%" % STUDY_ZERO[v] if v in STUDY_ZERO else "-",
                    _pct(p0["stolen_pct"], 2) if p0 and not p0["refused"] else "-"))
            L.append("")
        if kd.get("burst"):
            b = kd["burst"]
            L += ["Figure 4 (%s, feedback at R): %d periods, %d deadline misses, %d at the ceiling; stolen up to "
                  "%.1f %% of R in a period." % (k, len(b["periods"]), b["deadline_misses"], b["ceiling_hits"],
                                                  max(100.0 * p["stolen_ns"] / p["requested_ns"]
                                                      for p in b["periods"])), ""]
        if kd.get("devices"):
            L += ["Stolen from the reservation by each device (%s, the reserved thread with room to spare, a "
                  "reader of the disk or the stream beside it): %% of the thread's charged time that interrupts "
                  "and softirqs took" % k, "", "| source | stolen % | hard IRQ % | softirq % | by softirq (ns) | "
                  "study |", "|---|---|---|---|---|---|"]
            for src, d in kd["devices"].items():
                L.append("| %s | %s | %s | %s | %s | %s |" % (
                    src, _pct(d["stolen_pct"], 2), _pct(d["irq_pct"], 2), _pct(d["softirq_pct"], 2),
                    ", ".join("%s %d" % kv for kv in sorted(d["softirqs"].items())) or "-",
                    "%g %%" % STUDY_DEVICES[src] if src in STUDY_DEVICES else "-"))
            L += ["", "The IDE disk's transfer mode: %s (booted with DMA), %s (libata loaded with `dma=0`). Measured in real "
                  "time (TCG), not on the instruction count: the shares vary from run to run." % (
                      kd["xfer_modes"].get("dma") or "-", kd["xfer_modes"].get("pio") or "-"), ""]
        if kd.get("overhead"):
            o = kd["overhead"]
            L += ["Overhead (%s, no stream, R + 30 %%, spin %s s beside it): CPU lost against plain without "
                  "accounting: " % (k, m["spin_s"]) +
                  ", ".join("%s %.4f %%%s" % (w, o[w]["lost_pct"],
                                              " (study %.3f %%)" % STUDY_OVERHEAD[w] if w in STUDY_OVERHEAD
                                              else "")
                            for w in OVERHEAD_WAYS if w != "base"), ""]
    return "\n".join(L) + "\n"


def plot_fig3(k, w, wd, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (v, vd) in enumerate(wd["variants"].items()):
        pts = [p for p in vd["points"] if not p["refused"]]
        ax.plot([p["x"] for p in pts], [p["miss_pct"] for p in pts], "o-", color="C%d" % i,
                label="%s%s" % (v, "" if v == "plain-idle" else " + stream"))
    for z, what in ((24, "study: plain 24 %"), (6, "study: Rez-C, Rez-FB 6 %")):
        ax.axvline(z, ls=":", color="0.6", lw=1)
        ax.annotate(what, (z, 50), fontsize=7, rotation=90, va="center", ha="right", color="0.4")
    ax.set_xlabel("% over-reservation")
    ax.set_ylabel("% deadlines missed")
    ax.set_ylim(-3, 103)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Figure 3 on SCHED_DEADLINE: %s, %s (R = %d us)" % (k, w, wd["requested_us"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def plot_fig4(k, b, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ps = b["periods"]
    t = [p["t_ms"] for p in ps]
    fig, axs = plt.subplots(3, 1, figsize=(7, 6), sharex=True)
    axs[0].plot(t, [100.0 * p["stolen_ns"] / p["requested_ns"] for p in ps], lw=1)
    axs[0].set_ylabel("% stolen (of R)")
    axs[1].plot(t, [p["runtime_ns"] / 1e6 for p in ps], lw=1)
    axs[1].set_ylabel("ms requested")
    axs[2].plot(t, [p["received_ns"] / 1e6 for p in ps], lw=1)
    axs[2].axhline(ps[0]["requested_ns"] / 1e6, ls=":", color="0.5")
    miss = [p for p in ps if p["misses"]]
    axs[2].plot([p["t_ms"] for p in miss], [p["received_ns"] / 1e6 for p in miss], "x", color="C3",
                label="deadline missed (%d)" % sum(p["misses"] for p in ps))
    axs[2].set_ylabel("ms received")
    axs[2].set_xlabel("time (ms)")
    axs[2].legend(fontsize=7)
    for ax in axs:
        ax.grid(True, alpha=0.3)
    axs[0].set_title("Figure 4 on SCHED_DEADLINE: feedback (G = 0.5) through a 1 s burst, %s" % k, fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def build_report(results, meta):
    rep = {"meta": meta, "kernels": {}}
    for t, r in results:
        kd = rep["kernels"].setdefault(t["kernel"], {"works": {}})
        if t["job"] == "sweep":
            wd = kd["works"].setdefault(t["work"], {"requested_us": r["requested_us"], "variants": {}})
            wd["variants"][t["variant"]] = {"points": r["points"], "zero_at": zero_at(r["points"])}
        elif t["job"] == "burst":
            kd["burst"] = r
        elif t["job"] == "devices":
            kd.setdefault("devices", {}).update(r["devices"])
            kd.setdefault("disks", []).extend(x for x in r["disks"] if x)
            kd.setdefault("xfer_modes", {})[t["variant"]] = r["xfer_mode"]
            kd.setdefault("disk_interrupts", {})[t["variant"]] = r["interrupts"]
        else:
            kd["overhead"] = overhead_rows(r["ways"])
    for kd in rep["kernels"].values():
        for wd in kd["works"].values():
            wd["variants"] = {v: wd["variants"][v] for v in VARIANTS if v in wd["variants"]}
    return rep


def main(argv=None):
    from smlab.guest import available_kernels, default_kernel
    ap = cli.parser(__doc__)
    opt = (lambda *a, **kw: cli.env_option(ap, *a, **kw))
    have = available_kernels()
    gen = default_kernel()
    rt = next((k for k in have if k.startswith("6.1.") and "-rt-" in k), None)
    opt("--kernels", "KERNELS", " ".join(k for k in (gen, rt) if k), str,
        "guest kernels, space-separated (default: 6.1 generic and PREEMPT_RT)")
    opt("--works", "WORKS", "study modem", str, "reserved works: study (4/20 ms), modem (1.84/12.5 ms)")
    opt("--points", "POINTS", POINTS, str, "over-reservations, %")
    opt("--run-s", "RUN_S", None, cli.int_range(1, 600), "seconds per point (default 3, QUICK's 2)")
    opt("--spin-s", "SPIN_S", None, cli.int_range(1, 600),
        "seconds the overhead's spinner runs per way (default 10, QUICK's 4)")
    opt("--stream-ns", "STREAM_NS", 70000, cli.int_range(20000, 10 ** 9),
        "the stream: one ICMP echo request every STREAM_NS")
    opt("--guest-append", "GUEST_APPEND", "preempt=full", str, "guest kernel command line extra")
    opt("--quick", "QUICK", 0, cli.int_range(0, 1),
        "1: the 6.1 generic kernel, the study's work, points %s, 2 s a point, spin 4 s" % QUICK_POINTS)
    opt("--devices", "DEVICES", 1, cli.int_range(0, 1), "1: the devices table too")
    opt("--jobs", "JOBS", 2, cli.int_range(1, 64), "guests at a time")
    opt("--scheduler", "SCHEDULER", None, str,
        "a Dask scheduler (tcp://host:8786) whose workers run the boots (make lab-worker)")
    opt("--out", "STOLEN_OUT", str(TOP / "out" / "stolen"), str, "output directory")
    ap.add_argument("--force", action="store_true", help="run every boot again")
    a = ap.parse_args(argv)
    if a.quick:
        a.kernels, a.works, a.points = gen or "", "study", QUICK_POINTS
    # QUICK's lengths unless given (make check's shorter ones)
    if a.run_s is None:
        a.run_s = 2 if a.quick else 3
    if a.spin_s is None:
        a.spin_s = 4 if a.quick else 10
    kernels = a.kernels.split()
    works = a.works.split()
    if not kernels:
        ap.error("no kernel: make deps")
    for k in kernels:
        if k not in have:
            ap.error("kernel %s not installed (have: %s)" % (k, " ".join(have)))
        if not (TOP / "build" / k / "smodem.ko").is_file():
            ap.error("build/%s/smodem.ko missing: make modules" % k)
    for w in works:
        if w not in WORKS:
            ap.error("work %r: one of %s" % (w, ", ".join(WORKS)))
    try:
        points = parse_points(a.points)
    except ValueError as e:
        ap.error(str(e))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = tasks(kernels, works, points, bool(a.devices))
    settings = {"script": resume.file_digest(SCRIPT), "run_s": a.run_s, "spin_s": a.spin_s,
                "stream_ns": a.stream_ns, "guest_append": a.guest_append,
                "netload": resume.file_digest(netload.SRC / "netload.c"),
                "modules": {k: resume.file_digest(TOP / "build" / k / "smodem.ko") for k in kernels}}
    t0 = time.monotonic()
    log("%d guest boots, %s" % (len(todo), a.scheduler or "%d at a time" % a.jobs))
    record = out / "record.jsonl"
    if a.force:
        record.unlink(missing_ok=True)
    pieces = plan(todo, a, out)
    rep = runner.run(pieces, run_piece, record, runner.digest(settings), jobs=a.jobs, retries=1,
                     scheduler=a.scheduler, say=log)
    results = {i: rep.figures[p.key] for i, p in enumerate(pieces) if p.key in rep.figures}
    failed = sorted(rep.missing.items())
    meta = {"kernels": kernels, "works": works, "points": points, "run_s": a.run_s, "spin_s": a.spin_s,
            "stream_ns": a.stream_ns, "guest_append": a.guest_append, "clock": "virtual",
            "date": time.strftime("%Y-%m-%d"), "wall_s": round(time.monotonic() - t0, 1),
            "miss": "the work of an interrupt period not done when the next period completes",
            "failed": failed}
    rep = build_report([(todo[i], results[i]) for i in sorted(results)], meta)
    (out / "stolen.json").write_text(json.dumps(rep, indent=1) + "\n")
    md = markdown(rep)
    (out / "stolen.md").write_text(md)
    for k, kd in rep["kernels"].items():
        for w, wd in kd["works"].items():
            plot_fig3(k, w, wd, out / ("fig3-%s-%s.png" % (k, w)))
        if kd.get("burst"):
            plot_fig4(k, kd["burst"], out / ("fig4-%s.png" % k))
    sys.stdout.write(md)
    log("wrote %s/{stolen.md,stolen.json,fig3-*.png,fig4-*.png} in %.0f s" % (out, meta["wall_s"]))
    if failed:
        log("%d boots failed: %s" % (len(failed), ", ".join(n for n, _ in failed)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
