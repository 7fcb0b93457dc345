#!/usr/bin/env python3
"""make resmap: the soft-modem study's reservation boundary (its Table 3 and
Figure 17) on Linux's SCHED_DEADLINE.

Each cell is a hard reservation of X ms every Y ms (context=res,
res_runtime_us=X000, res_period_us=Y000: SCHED_DEADLINE never runs the
thread beyond its runtime, as the study's hard reservations) holding the
study's processing (load_us=1840 every 12.5 ms period) with its spinning
competitor, in an 8192-sample ring (the study's 512 cannot carry a call on
this lab's line, see --ring), and the test is a call: one guest boot on
the instruction-counted clock, a V.22bis + V.42 call to smline
moving NBYTES each way (tools/guest/modem_calls.sh, as make bench-modem).
A cell works when the call moves both files intact.  One call per cell: on
the virtual clock a second call of the same cell is the same call.

The study's model: X/Y works iff X/Y >= 14.7 % (the load) and the longest
time without the CPU, Y - X, is at most the 12.5 ms interrupt period.  The
report draws the measured map over the model and names every cell where they
disagree, with what the modem saw there (overruns, the most samples pending).

CELLS: "study" (the study's twelve cells, default), "sweep" (X 1..8 ms,
Y 4..20 ms, X < Y: 121 cells, a benchmark of about an hour on 2 cores) or
cells as "X/Y X/Y ...".  The cells are pieces of smlab.runner: JOBS guests
at a time here, or on the workers of a Dask scheduler (SCHEDULER; the
results do not depend on where a cell ran).  A cell recorded in
RESMAP_OUT/record.jsonl with the same settings (kernel, module, line
program, guest script, bytes, ring) is not run again unless FORCE; a cell
whose harness failed (or whose guest timed out) is tried again once, then
reported missing, never recorded.  Writes RESMAP_OUT/{resmap.md,
resmap.json,resmap.png} and each cell's raw call under RESMAP_OUT/cells/.
"""
import json
import re
import sys
import time
from pathlib import Path

import bench_modem as bm
from smlab import cli, resume, runner

TOP = Path(__file__).resolve().parents[1]
LOAD_US = 1840
PERIOD_MS = 12.5
# The study's Table 3: hard reservations, successes out of ten.
STUDY = {(1, 7): 10, (1, 8): 0, (2, 13): 10, (2, 14): 2, (2, 15): 0, (3, 15): 10,
         (3, 16): 9, (3, 17): 0, (4, 16): 10, (4, 17): 0, (7, 20): 0, (8, 20): 10}


log = cli.logger("resmap")


def model_works(x, y, load_us=LOAD_US, period_ms=PERIOD_MS):
    """The study's Figure 17."""
    return x / y >= load_us / 1000 / period_ms and y - x <= period_ms


def parse_cells(text):
    text = text.strip()
    if text == "study":
        return sorted(STUDY)
    if text == "sweep":
        return [(x, y) for y in range(4, 21) for x in range(1, 9) if x < y]
    cells = []
    for tok in text.split():
        m = re.fullmatch(r"(\d+)/(\d+)", tok)
        if not m:
            raise ValueError("cell %r: want X/Y in ms (e.g. 2/8), 'study' or 'sweep'" % tok)
        x, y = int(m.group(1)), int(m.group(2))
        if not 0 < x < y:
            raise ValueError("cell %s: need 0 < X < Y (SCHED_DEADLINE wants runtime below period)" % tok)
        if x > 0.95 * y:
            raise ValueError("cell %s: above the kernel's 95 %% real-time bandwidth" % tok)
        cells.append((x, y))
    if not cells:
        raise ValueError("no cells")
    return sorted(set(cells))


def plan(cells, a, out):
    return [runner.Piece.make("resmap", a.kernel, "res%d_%d" % (x, y), x=x, y=y, out=str(out),
                              nbytes=a.nbytes, ring=a.ring, module=a.module, smline=a.smline,
                              guest_append=a.guest_append)
            for x, y in cells]


def run_piece(piece):
    """One cell: a boot, a call through the reservation X/Y (a function of
    this module, so that a Dask worker imports it by name)."""
    x, y = piece.get("x"), piece.get("y")
    args = ("res_runtime_us=%d" % (x * 1000), "res_period_us=%d" % (y * 1000),
            "ring_samples=%d" % piece.get("ring"))
    c = bm.one_call("virtual", piece.key, "res", LOAD_US, True, 0, Path(piece.get("out")) / "cells",
                    piece.get("nbytes"), piece.kernel, Path(piece.get("module")),
                    Path(piece.get("smline")), 0, args=args, quiet=True,
                    cmdline_extra=piece.get("guest_append"))
    if (c.get("boot") or {}).get("timed_out"):
        raise runner.PieceFailed("the guest timed out (%s)" % bm.failure(c))
    return c


def cell_row(x, y, c):
    st = c.get("stats") or {}
    works = bm.call_ok(c)
    return {"x_ms": x, "y_ms": y, "share": x / y, "gap_ms": y - x, "works": works,
            "model": model_works(x, y), "study": STUDY.get((x, y)),
            "why": None if works else bm.failure(c),
            "setup_s": c.get("setup_s"), "transfer_s": c.get("transfer_s"),
            "overruns": st.get("overruns"), "pending_max": st.get("pending_max"),
            "tx_lead": (st.get("tx_lead") if "tx_lead" in st else None),
            "retransmissions": c.get("retransmissions")}


def explain(r, ring, rate=8000):
    """Why a cell disagrees with the model, from what the modem saw."""
    if r["works"]:
        if r["share"] < LOAD_US / 1000 / PERIOD_MS:
            return ("works with %.1f %% of the CPU, below the 14.7 %% load (at most %s samples pending)"
                    % (100 * r["share"], r["pending_max"]))
        return ("works with %d ms without the CPU, more than the %.1f ms period: smodem's processing "
                "catches up every complete period at each run (at most %s samples pending), and its output "
                "runs %s samples (%.0f ms) ahead, while the study's driver had to run once per period"
                % (r["gap_ms"], PERIOD_MS, r["pending_max"], r["tx_lead"],
                   1000.0 * (r["tx_lead"] or 0) / rate))
    if r["overruns"]:
        return "fails inside the model: the ring overran %s times (at most %s samples pending)" % (
            r["overruns"], r["pending_max"])
    return "fails inside the model: %s" % r["why"]


def markdown(rows, meta):
    lines = ["# The reservation boundary (the study's Table 3 and Figure 17) on SCHED_DEADLINE", "",
             "%s (%s), virtual clock, load_us=%d every 12.5 ms, ring %d samples, spinning competitor, "
             "one call of %d bytes each way per cell (%s)." % (
                 meta["kernel"], meta["guest_append"] or "no command line extra", LOAD_US, meta["ring"],
                 meta["nbytes"], meta["date"]), "",
             "| X/Y ms | share | gap | model | measured | study (of 10) | set-up s | transfer s | "
             "overruns | max pending | why not |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %d/%d | %.1f %% | %d ms | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["x_ms"], r["y_ms"], 100 * r["share"], r["gap_ms"], "works" if r["model"] else "fails",
            "**works**" if r["works"] else "**fails**", "-" if r["study"] is None else r["study"],
            bm._f(r["setup_s"]), bm._f(r["transfer_s"]), "-" if r["overruns"] is None else r["overruns"],
            "-" if r["pending_max"] is None else r["pending_max"], r["why"] or ""))
    dis = [r for r in rows if r["works"] != r["model"]]
    lines += ["", "Cells where measurement and model disagree: %d of %d." % (len(dis), len(rows))]
    lines += ["- %d/%d: %s" % (r["x_ms"], r["y_ms"], r["explained"]) for r in dis]
    st = [r for r in rows if r["study"] is not None]
    if st:
        agree = sum(1 for r in st if r["works"] == (r["study"] >= 5))
        lines += ["", "Against the study's own cells (works = at least 5 of 10 there): %d of %d agree."
                  % (agree, len(st))]
    return "\n".join(lines) + "\n"


def plot(rows, png, meta):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    fig, ax = plt.subplots(figsize=(7.5, 5))
    ys = np.linspace(3.5, 20.5, 200)
    share = LOAD_US / 1000 / PERIOD_MS
    # the model's region: x >= share * y and x >= y - 12.5
    lo = np.maximum(share * ys, ys - PERIOD_MS)
    ax.fill_between(ys, lo, np.minimum(ys, 8.5), where=lo <= np.minimum(ys, 8.5), color="C2", alpha=0.15,
                    label="model: works (X/Y >= 14.7 %, Y - X <= 12.5 ms)")
    ax.plot(ys, share * ys, "--", color="C2", lw=1)
    ax.plot(ys, ys - PERIOD_MS, ":", color="C2", lw=1)
    for r in rows:
        ok = r["works"]
        ax.plot(r["y_ms"], r["x_ms"], "o" if ok else "x", color="C2" if ok else "C3", ms=8,
                mew=2, mfc="none" if ok else None)
        if r["study"] is not None:
            ax.annotate(str(r["study"]), (r["y_ms"], r["x_ms"]), textcoords="offset points",
                        xytext=(5, 5), fontsize=7, color="0.3")
        if ok != r["model"]:
            ax.plot(r["y_ms"], r["x_ms"], "s", ms=14, mfc="none", mec="k", mew=1)
    ax.plot([], [], "o", color="C2", mfc="none", mew=2, label="measured: the call worked")
    ax.plot([], [], "x", color="C3", mew=2, label="measured: the call failed")
    ax.plot([], [], "s", mfc="none", mec="k", label="disagrees with the model")
    ax.set_xlabel("reservation period Y (ms)")
    ax.set_ylabel("reservation runtime X (ms)")
    ax.set_xlim(3.5, 20.5)
    ax.set_ylim(0.5, 8.5)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Hard SCHED_DEADLINE reservations X/Y with the study's load (%s, %s)\n"
                 "grey: the study's successes out of 10" % (meta["kernel"], meta["guest_append"] or "-"),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv=None):
    from smlab.guest import available_kernels, default_kernel
    ap = cli.parser(__doc__)
    opt = (lambda *a, **kw: cli.env_option(ap, *a, **kw))
    opt("--kernel", "KERNEL", default_kernel(), str, "guest kernel", choices=available_kernels())
    opt("--cells", "CELLS", "study", str, "study, sweep, or cells 'X/Y X/Y ...' (ms)")
    opt("--nbytes", "NBYTES", 2048, cli.positive_int, "bytes each way in every call")
    opt("--ring", "RING", 8192, cli.int_range(64, 8192),
        "ring_samples; the study's 512 cannot carry a call on QEMU's D-Bus line, whose output "
        "engine reads 1015 frames ahead of the input (the driver says so in dmesg)")
    opt("--guest-append", "GUEST_APPEND", "preempt=full", str,
        "guest kernel command line extra; preempt=full makes the reservation hard (with Debian's "
        "default voluntary preemption the time a throttled thread runs on before its next "
        "preemption point is charged to nobody)")
    opt("--jobs", "JOBS", 2, cli.int_range(1, 64), "guests at a time")
    opt("--scheduler", "SCHEDULER", None, str,
        "a Dask scheduler (tcp://host:8786) whose workers run the cells (make lab-worker)")
    opt("--out", "RESMAP_OUT", str(TOP / "out" / "resmap"), str, "output directory")
    opt("--module", "MODULE", None, str, "smodem.ko (default: build/<kernel>/smodem.ko)")
    opt("--smline", "SMLINE", str(bm.SMLINE), str, "the line program")
    ap.add_argument("--force", action="store_true", help="run every cell again")
    a = ap.parse_args(argv)
    if a.kernel is None:
        ap.error("no kernel installed: make deps")
    try:
        cells = parse_cells(a.cells)
    except ValueError as e:
        ap.error(str(e))
    a.module = a.module or str(TOP / "build" / a.kernel / "smodem.ko")
    for f, hint in ((a.module, "make module KVER=%s" % a.kernel), (a.smline, "make line")):
        if not Path(f).is_file():
            ap.error("%s missing: %s" % (f, hint))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = {"kernel": a.kernel, "module": resume.file_digest(a.module),
                "smline": resume.file_digest(a.smline),
                "guest_append": a.guest_append,
                "script": bm.script_digest(), "nbytes": a.nbytes, "ring": a.ring,
                "smodem_args": bm.SMODEM_ARGS, "load_us": LOAD_US}
    t0 = time.monotonic()
    record = out / "record.jsonl"
    if a.force:
        record.unlink(missing_ok=True)
    pieces = plan(cells, a, out)
    log("%d cells on %s, %s: %s" % (len(cells), a.kernel, a.scheduler or "%d at a time" % a.jobs,
                                    " ".join("%d/%d" % xy for xy in cells)))
    rep = runner.run(pieces, run_piece, record, runner.digest(settings), jobs=a.jobs, retries=1,
                     scheduler=a.scheduler, say=log,
                     on_result=lambda p, c: log("%s: %s" % (p.key, "works" if bm.call_ok(c) else
                                                            "FAILS (%s)" % bm.failure(c))))
    rows = {}
    for p, (x, y) in zip(pieces, cells):
        if p.key in rep.figures:
            rows[(x, y)] = cell_row(x, y, rep.figures[p.key])
    if not rep.complete:
        for k, why in sorted(rep.missing.items()):
            log("MISSING %s: %s" % (k, why))
        log("%d of %d cells missing: no report (run again to retry them)" % (len(rep.missing), len(cells)))
        return 1
    rows = [rows[xy] for xy in cells]
    for r in rows:
        r["explained"] = explain(r, a.ring) if r["works"] != r["model"] else None
    meta = {"kernel": a.kernel, "guest_append": a.guest_append, "ring": a.ring, "nbytes": a.nbytes,
            "load_us": LOAD_US,
            "date": time.strftime("%Y-%m-%d"), "clock": "virtual", "wall_s": round(time.monotonic() - t0, 1)}
    (out / "resmap.json").write_text(json.dumps({"meta": meta, "cells": rows}, indent=1) + "\n")
    md = markdown(rows, meta)
    (out / "resmap.md").write_text(md)
    plot(rows, out / "resmap.png", meta)
    sys.stdout.write(md)
    log("wrote %s/{resmap.md,resmap.json,resmap.png} in %.0f s" % (out, meta["wall_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
