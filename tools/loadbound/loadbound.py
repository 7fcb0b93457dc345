#!/usr/bin/env python3
"""loadbound: load-bound functions from interference traces (the
study; its figures: doc/studies.md).

    loadbound.py analyse TRACE... [--grid-min 10us] [--grid-max 1s] [--per-decade 10]
                 [--periodic E,P] [--out DIR]
    loadbound.py sched TASKS (--bound U,P,E[,PRIO] ... | --fit SUMMARY[:RUN]) [--out DIR]

TRACE: a gap trace of tools/loadbound/probe.c (lbprobe, text or binary) or of
tools/loadbound/osnoise.sh (the kernel's osnoise tracer).  For each window
length delta of a log grid, demand(delta) is the most interference in any
window of that length, computed exactly from the gaps; load(delta) =
demand/delta, made a non-increasing staircase; the study's hyperbolic bound
min(1, u (1 + (p - e)/delta)) is fitted to it (u from the right-most step,
e = u p, and the smallest p whose bound lies on or above the trace's exact
demand at EVERY window length, between and beyond the grid's points too:
fit_hyperbola, demand_excess).

sched: per periodic task (e, p, d, prio; microseconds) whether
e_k/d_k + sum_i load_i(d_k) <= 1 with the fitted bounds of the work above it
and the tasks of higher (or equal) priority, and the largest e it admits.

Every run writes a human table (table.md, also printed) and a JSON summary
(summary.json / sched.json) in --out.  Bad input: one line on stderr and
exit status 1 (2: usage).  Times on the command line take units: ns, us,
ms, s (a bare number is seconds).
"""
import argparse
import csv
import io
import json
import math
import os
import re
import struct
import sys
from pathlib import Path

import numpy as np

EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class LoadBoundError(Exception):
    """Bad input: the message is the one line the user sees."""


# ---------------------------------------------------------------- units

_UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "": 1e9}


def parse_time_ns(text):
    """'10us', '2.5ms', '1s', '500ns' or seconds -> int ns."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ns|us|ms|s|)\s*", str(text))
    if not m:
        raise LoadBoundError("bad time %r (a number with ns, us, ms or s)" % text)
    return int(round(float(m.group(1)) * _UNITS[m.group(2)]))


def fmt_ns(ns):
    ns = float(ns)
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= f:
            return "%.4g %s" % (ns / f, unit)
    return "%.4g ns" % ns


# ---------------------------------------------------------------- traces

class Trace:
    """Gaps (sorted, disjoint) of one run: starts and lengths in ns from the
    run's start, the run's duration, and the header's key/values."""

    def __init__(self, path, header, starts, lengths, duration_ns, kind):
        self.path = str(path)
        self.header = header
        self.starts = np.asarray(starts, dtype=np.int64)
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.duration_ns = int(duration_ns)
        self.kind = kind

    @property
    def n(self):
        return len(self.starts)

    @property
    def name(self):
        return Path(self.path).name.split(".")[0]


def _header_lines(text, path):
    header = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            continue
        parts = line[1:].strip().split(None, 1)
        if parts:
            header[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return header


def _int_field(header, key, path):
    try:
        return int(float(header[key]))
    except KeyError:
        raise LoadBoundError("%s: header has no %s: not an lbprobe trace" % (path, key)) from None
    except ValueError:
        raise LoadBoundError("%s: header %s %r is not a number" % (path, key, header[key])) from None


def _check_gaps(path, starts, lengths, duration):
    if duration <= 0:
        raise LoadBoundError("%s: empty run (duration %d ns): nothing was measured" % (path, duration))
    if len(starts) == 0:
        return
    if (lengths <= 0).any():
        i = int(np.argmax(lengths <= 0))
        raise LoadBoundError("%s: gap %d has length %d ns (must be > 0)" % (path, i + 1, lengths[i]))
    if (starts < 0).any():
        i = int(np.argmax(starts < 0))
        raise LoadBoundError("%s: gap %d starts before the run (%d ns)" % (path, i + 1, starts[i]))
    ends = starts + lengths
    bad = starts[1:] < ends[:-1]
    if bad.any():
        i = int(np.argmax(bad)) + 1
        raise LoadBoundError("%s: gap %d (start %d ns) is not after the end of gap %d (%d ns): "
                             "gaps must be sorted and disjoint" % (path, i + 1, starts[i], i, ends[i - 1]))


def _read_probe_text(path, text):
    header = _header_lines(text, path)
    duration = _int_field(header, "duration_ns", path)
    rows = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    starts = np.empty(len(rows), dtype=np.int64)
    lengths = np.empty(len(rows), dtype=np.int64)
    if rows:
        try:
            arr = np.loadtxt(io.StringIO("\n".join(rows)), dtype=np.int64, ndmin=2)
        except ValueError:
            for k, ln in enumerate(rows):
                f = ln.split()
                if len(f) != 2 or not all(re.fullmatch(r"-?\d+", x) for x in f):
                    raise LoadBoundError("%s: gap line %d is not 'start_ns length_ns': %r"
                                         % (path, k + 1, ln[:60])) from None
            raise LoadBoundError("%s: unreadable gap lines" % path) from None
        if arr.shape[1] != 2:
            raise LoadBoundError("%s: gap lines must be 'start_ns length_ns' (got %d columns)"
                                 % (path, arr.shape[1]))
        starts, lengths = arr[:, 0], arr[:, 1]
    if "gaps" in header and header["gaps"].isdigit() and int(header["gaps"]) != len(rows):
        raise LoadBoundError("%s: header says %s gaps, the file has %d: truncated file?"
                             % (path, header["gaps"], len(rows)))
    return header, starts, lengths, duration


def _read_probe_bin(path, data):
    if len(data) < 12:
        raise LoadBoundError("%s: truncated binary trace (no header)" % path)
    (hl,) = struct.unpack("<I", data[8:12])
    if 12 + hl > len(data):
        raise LoadBoundError("%s: truncated binary trace (header of %d bytes)" % (path, hl))
    text = data[12:12 + hl].decode("utf-8", "replace")
    header = _header_lines(text, path)
    duration = _int_field(header, "duration_ns", path)
    body = data[12 + hl:]
    if len(body) % 16:
        raise LoadBoundError("%s: truncated binary trace (%d bytes of gaps, not a multiple of 16)"
                             % (path, len(body)))
    arr = np.frombuffer(body, dtype="<i8").reshape(-1, 2)
    if "gaps" in header and header["gaps"].isdigit() and int(header["gaps"]) != len(arr):
        raise LoadBoundError("%s: header says %s gaps, the file has %d: truncated file?"
                             % (path, header["gaps"], len(arr)))
    return header, arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), duration


_EV = re.compile(r"\s(\d+)\.(\d+):\s+(\w+):\s*(.*)$")
_SAMPLE = re.compile(r"start\s+(\d+)\.(\d+)\s+duration\s+(\d+)\s*ns")


def _read_osnoise(path, text):
    """osnoise.sh's file: sample_threshold events between the two markers."""
    header = _header_lines(text, path)
    t_start = t_stop = None
    samples = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _EV.search(line)
        if not m:
            continue
        ts = int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, "0")[:9])
        ev, rest = m.group(3), m.group(4)
        if ev in ("tracing_mark_write", "print"):
            if "lbosnoise start" in rest:
                t_start = ts
            elif "lbosnoise stop" in rest:
                t_stop = ts
        elif ev == "sample_threshold":
            s = _SAMPLE.search(rest)
            if not s:
                raise LoadBoundError("%s: unreadable sample_threshold event: %r" % (path, line[:80]))
            samples.append((int(s.group(1)) * 10**9 + int(s.group(2).ljust(9, "0")[:9]),
                            int(s.group(3))))
    if t_start is None or t_stop is None:
        raise LoadBoundError("%s: no 'lbosnoise start'/'stop' markers: not a complete osnoise.sh run"
                             % path)
    samples = sorted(x for x in samples if t_start <= x[0] < t_stop)
    starts = np.array([s - t_start for s, _ in samples], dtype=np.int64)
    lengths = np.array([d for _, d in samples], dtype=np.int64)
    # noise the tracer reports back to back can touch: join what overlaps
    if len(starts):
        keep_s, keep_l = [int(starts[0])], [int(lengths[0])]
        for s, ln in zip(starts[1:].tolist(), lengths[1:].tolist()):
            end = keep_s[-1] + keep_l[-1]
            if s < end:
                keep_l[-1] = max(end, s + ln) - keep_s[-1]
            else:
                keep_s.append(s)
                keep_l.append(ln)
        starts, lengths = np.array(keep_s, dtype=np.int64), np.array(keep_l, dtype=np.int64)
    header["duration_ns"] = str(t_stop - t_start)
    return header, starts, lengths, t_stop - t_start


def read_trace(path):
    """Read an lbprobe (text or binary) or osnoise.sh trace; LoadBoundError
    with one line saying what is wrong otherwise."""
    path = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise LoadBoundError("cannot read trace %s: %s" % (path, e.strerror or e)) from None
    if not data.strip():
        raise LoadBoundError("%s: empty file: an empty run" % path)
    if data.startswith(b"LBPROBE1"):
        header, s, ln, dur = _read_probe_bin(path, data)
        kind = "lbprobe"
    else:
        if b"\0" in data[:4096]:
            raise LoadBoundError("%s: not a trace (binary, no LBPROBE1 magic)" % path)
        text = data.decode("utf-8", "replace")
        first = text.lstrip().split("\n", 1)[0].strip()
        if first.startswith("# lbprobe"):
            header, s, ln, dur = _read_probe_text(path, text)
            kind = "lbprobe"
        elif first.startswith("# lbosnoise"):
            header, s, ln, dur = _read_osnoise(path, text)
            kind = "osnoise"
        else:
            raise LoadBoundError("%s: not a trace (first line %r; expected '# lbprobe' or "
                                 "'# lbosnoise')" % (path, first[:40]))
    _check_gaps(path, s, ln, dur)
    if len(s):
        dur = max(dur, int(s[-1] + ln[-1]))
    return Trace(path, header, s, ln, dur, kind)


# ---------------------------------------------------------------- demand

def window_grid(min_ns, max_ns, per_decade=10):
    """Window lengths (int ns) on a log grid from min to max inclusive."""
    if min_ns <= 0 or max_ns <= 0:
        raise LoadBoundError("window grid bounds must be > 0")
    if min_ns >= max_ns:
        raise LoadBoundError("window grid: minimum %s is not below maximum %s"
                             % (fmt_ns(min_ns), fmt_ns(max_ns)))
    if per_decade < 1:
        raise LoadBoundError("window grid: --per-decade must be >= 1")
    # decade-aligned points (10 us, 12.59 us, ... 1 ms, ...) and both ends
    lo = math.ceil(math.log10(min_ns) * per_decade - 1e-9)
    hi = math.floor(math.log10(max_ns) * per_decade + 1e-9)
    pts = [min_ns, max_ns] + [10 ** (x / per_decade) for x in range(lo, hi + 1)]
    g = np.unique(np.round(pts).astype(np.int64))
    g = g[(g >= min_ns) & (g <= max_ns)]
    return g


def demand(starts, lengths, deltas):
    """Exact max interference in any window of each length in deltas.

    The overlap of a window [t, t + delta] with the gaps is piecewise linear in
    t, slope (right edge in a gap) - (left edge in a gap).  Slide a window
    whose left edge is in no gap to the right: it loses nothing until the
    left edge reaches a gap start; one whose left edge is inside a gap, to
    the left: it loses nothing until the left edge is at that gap's start.
    So some optimal window starts at a gap start; by symmetry (sliding by the
    right edge) one also ends at a gap end.  Windows that stick out of the run
    see nothing there, so a window inside the run (delta <= run) does as
    well.  For each gap start s_i: the gaps i..k-1 lie wholly in [s_i, s_i +
    delta) (prefix sums), gap k = the last starting before s_i + delta
    partly (binary search).  O(n log n) per window length, in numpy.
    """
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    deltas = np.asarray(deltas, dtype=np.int64)
    out = np.zeros(len(deltas), dtype=np.int64)
    n = len(starts)
    if n == 0:
        return out
    prefix = np.concatenate(([0], np.cumsum(lengths)))
    # with k the last gap starting before q = s_i + delta:
    #   overlap = prefix[k] - prefix[i] + min(len_k, q - s_k)
    #           = min(prefix[k + 1], (prefix[k] - s_k) + q) - prefix[i]
    before = prefix[:-1] - starts
    upto = prefix[1:]
    q = np.empty(n, dtype=np.int64)
    t = np.empty(n, dtype=np.int64)
    for j, d in enumerate(deltas.tolist()):
        np.add(starts, d, out=q)
        k = np.searchsorted(starts, q, side="left")
        k -= 1                                          # >= i: s_i < q
        np.take(before, k, out=t)
        t += q
        np.minimum(t, np.take(upto, k), out=t)
        t -= prefix[:-1]
        out[j] = min(int(t.max()), d)
    return out


def demand_bruteforce(starts, lengths, deltas):
    """O(n^2) reference: every window anchored at a gap start or end (either
    edge), overlaps summed gap by gap.  For tests."""
    ends = [s + ln for s, ln in zip(starts, lengths)]
    res = []
    for d in deltas:
        best = 0
        anchors = [a for s, e in zip(starts, ends) for a in (s, e, s - d, e - d)]
        for a in anchors:
            b = a + d
            tot = sum(max(0, min(e, b) - max(s, a)) for s, e in zip(starts, ends))
            best = max(best, tot)
        res.append(best)
    return np.array(res, dtype=np.int64)


def staircase(load):
    """Each value replaced by the largest value at or to its right (the
    study's step 1): non-increasing."""
    load = np.asarray(load, dtype=float)
    return np.maximum.accumulate(load[::-1])[::-1]


# ---------------------------------------------------------------- bounds

def hyperbolic_load(u, p, e, delta):
    """The study's hyperbolic load bound min(1, u (1 + (p - e)/delta))."""
    delta = np.asarray(delta, dtype=float)
    if u <= 0:
        return np.zeros_like(delta)
    return np.minimum(1.0, u * (1.0 + (p - e) / delta))


def periodic_demand(e, p, delta):
    """Refined demand bound of a periodic task (p, e): j e + min(e, delta - j p),
    j = floor(delta / p)."""
    delta = np.asarray(delta)
    j = np.floor_divide(delta, p)
    return j * e + np.minimum(e, delta - j * p)


def periodic_load(e, p, delta):
    return periodic_demand(e, p, delta) / np.asarray(delta, dtype=float)


def demand_excess(starts, lengths, u):
    """sup over EVERY window length w > 0 of demand(w) - u w, exactly, and a
    window length where it is attained: (excess_ns, w_ns).

    The demand is the upper envelope of f_i(w) = the busy time in [s_i, s_i +
    w] (some optimal window starts at a gap start, see demand()), and f_i is
    piecewise linear with slopes 1 (its right edge in a gap) and 0, so f_i(w)
    - u w (0 < u < 1) has its local maxima where the slope falls from 1 to 0:
    at w = e_j - s_i, a window from the start of gap i to the end of gap j >=
    i, holding gaps i..j whole.  The supremum over w of a maximum over i is
    the maximum over i of the suprema, so

        excess = max over i <= j of (P[j+1] - P[i]) - u (e_j - s_i)
               = max over j of (P[j+1] - u e_j) + max over i <= j of (u s_i - P[i])

    (P: prefix sums of the lengths): a running maximum, O(n) in numpy, no
    window grid.  Windows of every length count, longer than the run too;
    the maximum is attained within the windows up to the grid's longest when
    u = demand(w_max) / w_max (demand is subadditive)."""
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    n = len(starts)
    if n == 0:
        return 0.0, 0
    u = float(u)
    prefix = np.concatenate(([0], np.cumsum(lengths)))
    t0 = int(starts[0])
    s = (starts - t0).astype(float)
    e = (starts + lengths - t0).astype(float)
    left = u * s - prefix[:-1]                     # the window's start at gap i
    run = np.maximum.accumulate(left)
    # the latest i <= j whose left value is the running maximum
    arg = np.maximum.accumulate(np.where(left >= run, np.arange(n), 0))
    val = (prefix[1:] - u * e) + run               # the window's end at gap j
    j = int(np.argmax(val))
    i = int(arg[j])
    w = int(starts[j] + lengths[j] - starts[i])
    # the winner once more with a single rounding
    return float(int(prefix[j + 1] - prefix[i]) - u * w), w


def bound_shortfall(starts, lengths, u, p, e):
    """The most the bound min(1, u (1 + (p - e)/delta)), as a demand
    delta * load, falls short of the trace's demand at any window length
    delta > 0 (ns; 0: on or above it everywhere).  As a demand the bound is
    min(delta, u delta + u (p - e)): delta is never below the demand, and the
    linear part is checked against demand_excess's exact supremum."""
    if len(starts) == 0 or u >= 1:
        return 0.0
    if u <= 0:
        return float(np.sum(lengths))
    exc, _ = demand_excess(starts, lengths, u)
    return max(0.0, exc - u * (p - e))


def fit_hyperbola(deltas, load, starts=None, lengths=None):
    """The study's fit: u = the right-most step of the staircase; then the
    smallest p whose hyperbola min(1, u (1 + (p - e)/delta)), e = u p, lies
    on or above every point (and so touches the one that decides p).

    With the trace's gaps (starts, lengths), p is also the smallest that
    lies above the trace's exact demand at EVERY window length delta > 0, not
    only at the grid's points: as a demand the bound is min(delta, u delta +
    u p (1 - u)), so p = sup_delta (demand(delta) - u delta) / (u (1 - u))
    (demand_excess), rounded up by a part in 10^9 plus 1 ns per 1000 s of
    trace against floating point.  The bound then touches the demand at a
    corner of it (touch_ns), which a grid rarely lands on.

    Returns dict u, p_ns, e_ns, touch_ns (the window that decides p),
    exact (whether the trace's gaps were used)."""
    deltas = np.asarray(deltas, dtype=float)
    load = np.asarray(load, dtype=float)
    if len(deltas) == 0:
        raise LoadBoundError("no points to fit")
    exact = starts is not None
    u = float(staircase(load)[-1])
    if u <= 0:
        return {"u": 0.0, "p_ns": 0.0, "e_ns": 0.0, "touch_ns": float(deltas[-1]), "exact": exact}
    if u >= 1:
        return {"u": 1.0, "p_ns": 0.0, "e_ns": 0.0, "touch_ns": float(deltas[-1]), "exact": exact}
    # u + u (1 - u) p / delta >= load  <=>  p >= (load - u) delta / (u (1 - u))
    need = (np.minimum(load, 1.0) - u) * deltas / (u * (1.0 - u))
    i = int(np.argmax(need))
    p = max(0.0, float(need[i]))
    if p == 0.0:
        i = len(deltas) - 1
    touch = float(deltas[i])
    # floating point: never a hair below the point it touches
    p *= 1 + 1e-12
    if exact and len(starts):
        exc, w = demand_excess(starts, lengths, u)
        span = float(np.asarray(starts)[-1] + np.asarray(lengths)[-1] - np.asarray(starts)[0])
        c = max(0.0, exc) * (1 + 1e-9) + 1e-12 * span
        pe = c / (u * (1.0 - u))
        if pe >= p:
            p, touch = pe, float(w)
    return {"u": u, "p_ns": p, "e_ns": u * p, "touch_ns": touch, "exact": exact}


# ---------------------------------------------------------------- analyse

def analyse_trace(tr, grid, periodic=None):
    """The summary of one trace: demand, load, staircase, fit."""
    if grid[-1] > tr.duration_ns:
        raise LoadBoundError("%s: the window grid goes up to %s but the run lasted %s: "
                             "lower --grid-max (or measure longer)"
                             % (tr.path, fmt_ns(grid[-1]), fmt_ns(tr.duration_ns)))
    dem = demand(tr.starts, tr.lengths, grid)
    load = dem / grid.astype(float)
    stair = staircase(load)
    fit = fit_hyperbola(grid, load, tr.starts, tr.lengths)
    hyp = hyperbolic_load(fit["u"], fit["p_ns"], fit["e_ns"], grid)
    short = bound_shortfall(tr.starts, tr.lengths, fit["u"], fit["p_ns"], fit["e_ns"])
    summ = {
        "name": tr.name, "trace": tr.path, "kind": tr.kind, "header": tr.header,
        "duration_ns": tr.duration_ns, "gaps": tr.n,
        "interference_ns": int(tr.lengths.sum()) if tr.n else 0,
        "utilisation": (float(tr.lengths.sum()) / tr.duration_ns) if tr.n else 0.0,
        "max_gap_ns": int(tr.lengths.max()) if tr.n else 0,
        "grid_ns": grid.tolist(), "demand_ns": dem.tolist(), "load": load.tolist(),
        "staircase": stair.tolist(),
        "fit": {"u": fit["u"], "p_ns": fit["p_ns"], "e_ns": fit["e_ns"],
                "touch_ns": int(round(fit["touch_ns"]))},
        # on or above the exact demand at every window length (not only the grid's)
        "fit_above_all": bool((hyp >= load * (1 - 1e-9)).all()) and short == 0.0,
        "fit_checked": "every window length",
    }
    if periodic:
        e, p = periodic
        summ["periodic"] = {"e_ns": e, "p_ns": p,
                            "demand_ns": periodic_demand(e, p, grid).tolist()}
    return summ


def subtract_baseline(summ, base):
    """The study's subtractive step: the driver's own demand is the run's
    demand less that of the same system without the driver's work (base),
    window by window (never below zero), then the staircase and the fit as
    for a measured run.  Both summaries must share the window grid.  It is an
    estimate, not a bound: the worst windows of the two runs need not fall
    at the same place.  Adds summ["driver"]."""
    if summ["grid_ns"] != base["grid_ns"]:
        raise LoadBoundError("%s and its baseline %s were analysed on different window grids"
                             % (summ["name"], base["name"]))
    grid = np.asarray(summ["grid_ns"], dtype=float)
    dem = np.maximum(0, np.asarray(summ["demand_ns"]) - np.asarray(base["demand_ns"]))
    load = dem / grid
    fit = fit_hyperbola(grid, load)
    hyp = hyperbolic_load(fit["u"], fit["p_ns"], fit["e_ns"], grid)
    summ["driver"] = {
        "baseline": base["name"], "demand_ns": dem.tolist(), "load": load.tolist(),
        "staircase": staircase(load).tolist(),
        "fit": {"u": fit["u"], "p_ns": fit["p_ns"], "e_ns": fit["e_ns"],
                "touch_ns": int(round(fit["touch_ns"]))},
        # a difference of two demands has no trace to take corners from: the grid's points only
        "fit_above_all": bool((hyp >= load * (1 - 1e-9)).all()),
        "fit_checked": "grid points",
    }
    return summ


def plot(summ, png, title=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    g = np.array(summ["grid_ns"], dtype=float)
    x = g / 1e3
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(x, np.array(summ["load"]) * 100, "o", ms=3.5, color="C0", label="measured load (demand / window)")
    ax.step(x, np.array(summ["staircase"]) * 100, where="post", color="C0", alpha=0.5, label="staircase")
    f = summ["fit"]
    xs = np.logspace(np.log10(g[0]), np.log10(g[-1]), 400)
    ax.plot(xs / 1e3, hyperbolic_load(f["u"], f["p_ns"], f["e_ns"], xs) * 100, "-", color="C3",
            label="fit: u=%.4f p=%s e=%s" % (f["u"], fmt_ns(f["p_ns"]), fmt_ns(f["e_ns"])))
    if "driver" in summ:
        dv = summ["driver"]
        df = dv["fit"]
        ax.plot(x, np.array(dv["load"]) * 100, "x", ms=3.5, color="C1",
                label="minus %s (the study's subtraction)" % dv["baseline"])
        ax.plot(xs / 1e3, hyperbolic_load(df["u"], df["p_ns"], df["e_ns"], xs) * 100, "-", color="C1",
                alpha=0.7, label="its fit: u=%.4f p=%s e=%s" % (df["u"], fmt_ns(df["p_ns"]), fmt_ns(df["e_ns"])))
    if "periodic" in summ:
        e, p = summ["periodic"]["e_ns"], summ["periodic"]["p_ns"]
        ax.plot(xs / 1e3, periodic_load(e, p, xs.astype(np.int64)) * 100, ":", color="C2",
                label="periodic (e=%s, p=%s), refined" % (fmt_ns(e), fmt_ns(p)))
        ax.plot(xs / 1e3, hyperbolic_load(e / p, p, e, xs) * 100, "--", color="C2", alpha=0.6,
                label="periodic, hyperbolic")
    ax.set_xscale("log")
    ax.set_xlabel("window length delta (us)")
    ax.set_ylabel("max interference / delta (%)")
    pos = [v for v in summ["load"] if v > 0]
    if f["u"] < 0.02 and pos:
        # little interference: a log axis shows the long windows' load too
        ax.set_yscale("log")
        ax.set_ylim(max(1e-4, 50 * min(pos)), 150)
    else:
        ax.set_ylim(0, min(105, max(5, 110 * max(summ["load"] + [f["u"]]))))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    h = summ.get("header", {})
    ax.set_title(title or "%s: %s %s, %s prio %s" % (summ["name"], summ["kind"], h.get("kernel", "?"),
                                                      h.get("policy", "?"), h.get("prio", "?")),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


DECADES = [10**4, 10**5, 10**6, 10**7, 10**8, 10**9]


def demand_at(summ, d):
    """demand at grid point d (the largest grid point <= d), None if off-grid."""
    g = summ["grid_ns"]
    i = int(np.searchsorted(g, d, side="right")) - 1
    return summ["demand_ns"][i] if i >= 0 and g[i] >= d * 0.999 else None


def table(summaries):
    lines = ["| run | kernel | probe | duration | gaps | interference | max gap | u | p | e |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        h = s["header"]
        f = s["fit"]
        lines.append("| %s | %s | %s %s %s | %s | %d | %.3f %% | %s | %.4f | %s | %s |" % (
            s["name"], h.get("kernel", "?"), s["kind"], h.get("policy", "?"), h.get("prio", "?"),
            fmt_ns(s["duration_ns"]), s["gaps"], 100 * s["utilisation"], fmt_ns(s["max_gap_ns"]),
            f["u"], fmt_ns(f["p_ns"]), fmt_ns(f["e_ns"])))
    lines += ["", "demand (max interference in any window of that length):", "",
              "| run | " + " | ".join(fmt_ns(d) for d in DECADES) + " |",
              "|---|" + "---|" * len(DECADES)]
    for s in summaries:
        cells = []
        for d in DECADES:
            v = demand_at(s, d)
            cells.append("-" if v is None else fmt_ns(v))
        lines.append("| %s | %s |" % (s["name"], " | ".join(cells)))
    drv = [s for s in summaries if "driver" in s]
    if drv:
        lines += ["", "the driver's own, the baseline's demand subtracted window by window (the study's method):",
                  "", "| run | baseline | u | p | e | " + " | ".join(fmt_ns(d) for d in DECADES) + " |",
                  "|---|---|---|---|---|" + "---|" * len(DECADES)]
        for s in drv:
            dv, f = s["driver"], s["driver"]["fit"]
            cells = []
            for d in DECADES:
                v = demand_at(dict(s, demand_ns=dv["demand_ns"]), d)
                cells.append("-" if v is None else fmt_ns(v))
            lines.append("| %s | %s | %.4f | %s | %s | %s |" % (
                s["name"], dv["baseline"], f["u"], fmt_ns(f["p_ns"]), fmt_ns(f["e_ns"]), " | ".join(cells)))
    return "\n".join(lines) + "\n"


def cmd_analyse(a):
    grid = window_grid(parse_time_ns(a.grid_min), parse_time_ns(a.grid_max), a.per_decade)
    periodic = None
    if a.periodic:
        try:
            e, p = [parse_time_ns(x) for x in a.periodic.split(",")]
        except ValueError:
            raise LoadBoundError("--periodic wants E,P (e.g. 1840us,12.5ms)") from None
        if not 0 < e <= p:
            raise LoadBoundError("--periodic: need 0 < e <= p")
        periodic = (e, p)
    traces = [read_trace(t) for t in a.traces]
    names = [t.name for t in traces]
    if len(set(names)) != len(names):
        for i, t in enumerate(traces):
            t.path_name = "%d-%s" % (i + 1, t.name)
    summaries = []
    for t in traces:
        s = analyse_trace(t, grid, periodic)
        s["name"] = getattr(t, "path_name", t.name)
        summaries.append(s)
    if a.baseline:
        base = analyse_trace(read_trace(a.baseline), grid)
        base["name"] = "baseline-" + base["name"]
        for s in summaries:
            subtract_baseline(s, base)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for s in summaries:
        png = out / ("%s.png" % s["name"])
        plot(s, png)
        s["png"] = str(png)
    tab = table(summaries)
    (out / "table.md").write_text(tab)
    (out / "summary.json").write_text(json.dumps({"runs": summaries}, indent=1) + "\n")
    sys.stdout.write(tab)
    for s in summaries:
        f = s["fit"]
        print("%s: u=%.6f p=%.1f us e=%.1f us" % (s["name"], f["u"], f["p_ns"] / 1e3, f["e_ns"] / 1e3))
    print("wrote %s/{table.md,summary.json,*.png}" % out)
    return 0


# ---------------------------------------------------------------- sched

class Task:
    def __init__(self, name, e, p, d, prio):
        self.name, self.e, self.p, self.d, self.prio = name, e, p, d, prio


class Bound:
    """A fitted hyperbolic load bound of interfering work; prio: the
    priority it runs above (the probe's: it bounds what a task at or below
    that priority sees), None: above every task."""

    def __init__(self, name, u, p, e, prio=None):
        self.name, self.u, self.p, self.e, self.prio = name, u, p, e, prio


def _num(v, what):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise LoadBoundError("%s: %r is not a number" % (what, v)) from None
    if not math.isfinite(x):
        raise LoadBoundError("%s: %r is not a finite number" % (what, v))
    return x


def read_tasks(path):
    """Tasks from JSON ([{name,e,p,d,prio}] or {"tasks": [...]}) or CSV with a
    header row name,e,p,d,prio; times in microseconds, d defaults to p,
    prio: larger is higher (SCHED_FIFO's order)."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise LoadBoundError("cannot read tasks %s: %s" % (path, e.strerror or e)) from None
    except UnicodeDecodeError:
        raise LoadBoundError("%s: not a JSON or CSV task file" % path) from None
    if not text.strip():
        raise LoadBoundError("%s: no tasks (empty file)" % path)
    if text.lstrip()[:1] in "[{":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise LoadBoundError("%s: bad JSON: %s" % (path, e)) from None
        rows = data.get("tasks") if isinstance(data, dict) else data
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise LoadBoundError("%s: want a list of {name, e, p, d, prio} objects" % path)
    else:
        rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        raise LoadBoundError("%s: no tasks" % path)
    tasks = []
    for i, r in enumerate(rows):
        r = {str(k).strip(): v for k, v in r.items() if k is not None}
        name = str(r.get("name") or "task%d" % (i + 1)).strip()
        for k in ("e", "p", "prio"):
            if r.get(k) in (None, ""):
                raise LoadBoundError("%s: task %s has no %s" % (path, name, k))
        e = _num(r["e"], "task %s e" % name) * 1e3
        p = _num(r["p"], "task %s p" % name) * 1e3
        d = _num(r["d"], "task %s d" % name) * 1e3 if r.get("d") not in (None, "") else p
        prio = _num(r["prio"], "task %s prio" % name)
        if e <= 0 or p <= 0 or d <= 0:
            raise LoadBoundError("%s: task %s: e, p and d must be > 0" % (path, name))
        if e > d:
            raise LoadBoundError("%s: task %s has e (%g us) > d (%g us): it can never meet its deadline"
                                 % (path, name, e / 1e3, d / 1e3))
        if e > p:
            raise LoadBoundError("%s: task %s has e (%g us) > p (%g us)" % (path, name, e / 1e3, p / 1e3))
        tasks.append(Task(name, e, p, d, prio))
    return tasks


def parse_bound(text):
    f = text.split(",")
    if len(f) not in (3, 4):
        raise LoadBoundError("--bound %r: want U,P,E[,PRIO] (P, E with units, e.g. 0.15,12.5ms,1.84ms)" % text)
    u = _num(f[0], "--bound u")
    p, e = parse_time_ns(f[1]), parse_time_ns(f[2])
    if not 0 <= u <= 1:
        raise LoadBoundError("--bound %r: u must be within 0..1" % text)
    if e > p:
        raise LoadBoundError("--bound %r: e > p" % text)
    prio = _num(f[3], "--bound prio") if len(f) == 4 else None
    return Bound(text, u, float(p), float(e), prio)


def bounds_from_summary(spec):
    path, _, run = spec.partition(":")
    try:
        data = json.loads(Path(path).read_text())
        runs = data["runs"]
    except OSError as e:
        raise LoadBoundError("cannot read %s: %s" % (path, e.strerror or e)) from None
    except (ValueError, KeyError, TypeError):
        raise LoadBoundError("%s: not a loadbound summary.json" % path) from None
    if run:
        runs = [r for r in runs if r.get("name") == run]
        if not runs:
            raise LoadBoundError("%s: no run named %s" % (path, run))
    elif len(runs) != 1:
        raise LoadBoundError("%s holds %d runs: name one (--fit %s:NAME)" % (path, len(runs), path))
    r = runs[0]
    prio = r.get("header", {}).get("prio")
    try:
        prio = float(prio) if prio is not None and r["header"].get("policy") == "fifo" else None
    except ValueError:
        prio = None
    f = r["fit"]
    return Bound("%s:%s" % (path, r["name"]), f["u"], f["p_ns"], f["e_ns"], prio)


def schedulability(tasks, bounds):
    """Per task: the test's sum, whether it admits the task, the largest e."""
    res = []
    for t in tasks:
        terms = []
        for b in bounds:
            if b.prio is None or t.prio <= b.prio:
                terms.append((b.name, float(hyperbolic_load(b.u, b.p, b.e, t.d))))
        for o in tasks:
            if o is not t and o.prio >= t.prio:
                terms.append((o.name, float(periodic_load(o.e, o.p, t.d))))
        inter = sum(v for _, v in terms)
        total = t.e / t.d + inter
        emax = max(0.0, min(t.d, t.p, t.d * (1.0 - inter)))
        res.append({"task": t.name, "e_us": t.e / 1e3, "p_us": t.p / 1e3, "d_us": t.d / 1e3,
                    "prio": t.prio, "interference": dict(terms), "load_above": inter,
                    "total": total, "admitted": total <= 1.0 + 1e-12, "max_e_us": emax / 1e3})
    return res


def cmd_sched(a):
    tasks = read_tasks(a.tasks)
    bounds = [parse_bound(b) for b in a.bound or []]
    bounds += [bounds_from_summary(f) for f in a.fit or []]
    if not bounds:
        raise LoadBoundError("no interference bounds: give --bound U,P,E[,PRIO] or --fit SUMMARY[:RUN]")
    res = schedulability(tasks, bounds)
    lines = ["| task | prio | e (us) | p (us) | d (us) | load above at d | e/d + load | admitted | largest e (us) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in res:
        lines.append("| %s | %g | %g | %g | %g | %.4f | %.4f | %s | %.1f |" % (
            r["task"], r["prio"], r["e_us"], r["p_us"], r["d_us"], r["load_above"], r["total"],
            "yes" if r["admitted"] else "NO", r["max_e_us"]))
    tab = "\n".join(lines) + "\n"
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sched.md").write_text(tab)
    (out / "sched.json").write_text(json.dumps({
        "bounds": [{"name": b.name, "u": b.u, "p_ns": b.p, "e_ns": b.e, "prio": b.prio} for b in bounds],
        "tasks": res}, indent=1) + "\n")
    sys.stdout.write(tab)
    print("wrote %s/{sched.md,sched.json}" % out)
    return 0


# ---------------------------------------------------------------- main

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: error: %s\n" % (self.prog, message))
        sys.exit(EXIT_USAGE)


def build_parser():
    p = _Parser(prog="loadbound.py", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="Exit status: 0 ok, 1 bad input (one line on stderr), 2 usage.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    an = sub.add_parser("analyse", aliases=["analyze"], help="demand, load, fit and PNG of gap traces",
                        description="For each trace: demand(delta) on a log grid, exactly; load and "
                        "its staircase; the study's hyperbolic fit (u, p, e); a PNG; table.md and "
                        "summary.json in --out.")
    an.add_argument("traces", nargs="+", metavar="TRACE", help="lbprobe or osnoise.sh trace files")
    an.add_argument("--grid-min", default="10us", help="shortest window (default 10us)")
    an.add_argument("--grid-max", default="1s", help="longest window, at most the run's length (default 1s)")
    an.add_argument("--per-decade", type=int, default=10, help="grid points per decade (default 10)")
    an.add_argument("--periodic", metavar="E,P", help="draw the analytical bounds of a periodic task "
                    "(e.g. 1840us,12.5ms) beside the measured one")
    an.add_argument("--baseline", metavar="TRACE",
                    help="the same system without the driver's work: its demand is subtracted window by "
                    "window from each trace's and the difference fitted too (the study's method)")
    an.add_argument("--out", default="out/loadbound/analysis", help="output directory (default %(default)s)")
    sc = sub.add_parser("sched", help="schedulability of periodic tasks under fitted bounds",
                        description="Per task (e, p, d in us; prio: larger is higher): "
                        "e/d + sum of the load bounds above it at d <= 1? and the largest e it admits. "
                        "Bounds apply to tasks at or below their PRIO (every task without one); "
                        "tasks of higher or equal priority count with their refined periodic bound.")
    sc.add_argument("tasks", help="JSON ([{name,e,p,d,prio}]) or CSV (header name,e,p,d,prio)")
    sc.add_argument("--bound", action="append", metavar="U,P,E[,PRIO]",
                    help="a fitted bound, P and E with units (repeatable)")
    sc.add_argument("--fit", action="append", metavar="SUMMARY[:RUN]",
                    help="the fit of a run in an analyse summary.json (its probe's priority as PRIO)")
    sc.add_argument("--out", default="out/loadbound/sched", help="output directory (default %(default)s)")
    return p


def main(argv=None):
    a = build_parser().parse_args(argv)
    try:
        if a.cmd in ("analyse", "analyze"):
            return cmd_analyse(a)
        return cmd_sched(a)
    except LoadBoundError as e:
        sys.stderr.write("loadbound: error: %s\n" % e)
        return EXIT_INPUT
    except OSError as e:
        sys.stderr.write("loadbound: error: %s\n" % e)
        return EXIT_INPUT
    except Exception as e:  # noqa: BLE001 - the promise: never a traceback
        if os.environ.get("LOADBOUND_DEBUG"):
            raise
        sys.stderr.write("loadbound: internal error: %s: %s (LOADBOUND_DEBUG=1 for the traceback)\n"
                         % (type(e).__name__, e))
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
