#!/usr/bin/python3
"""T.30 turnarounds of a Class 1 fax call, from the smodem_phase trace.

The fax pump's phases (driver/smodem_trace.h: fax-tx-hdlc, fax-rx-train,
...) mark what the modem does on the line.  A turnaround is the time from
the end of one signal (ours or the far end's: the phase going to fax-idle
or a commanded silence) to the start of the next one the DTE commands.  It
holds the DTE's reaction (efax reading the modem's OK, sending the next
command), the tty and the processing context's latency, and any +FTS/+FRS
silence the DTE asks for.  T.30 (5.3.2 and its timers) and T.31 bound it:

  tx -> tx  75 +- 20 ms: a signal that follows our own (DCS -> TCF, the
            page's RTC -> the post-page command): at most 95 ms
  tx -> rx, rx -> rx  the far end's next signal can start 75 - 20 = 55 ms
            after the end of the last one: the modem must listen by then
            (efax's manual: "respond ... within 55 milliseconds")
  rx -> tx  a response to the far end's command: before its T4 (3 s) runs
            out

Usage: faxturn.py TRACE.dat [...]   (a table; --json for the list)
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import smtrace  # noqa: E402

TX = {"fax-tx-hdlc", "fax-tx-train", "fax-tx-data", "fax-ced", "fax-cng"}
RX = {"fax-rx-hdlc", "fax-rx-train", "fax-rx-data"}
# not a signal: the turnaround goes on through them
GAP = {"fax-idle", "fax-tx-silence", "fax-rx-silence"}
LIMIT_MS = {"tx->tx": 95.0, "tx->rx": 55.0, "rx->rx": 55.0, "rx->tx": 3000.0}


def _side(phase):
    return "tx" if phase in TX else "rx" if phase in RX else None


def turnarounds(phases):
    """[(ts_ns, phase name)] in time order -> one dict per turnaround:
    kind, from, to (phases), at_ms (from the first phase), gap_ms, limit_ms,
    over (the gap beyond its limit)."""
    out = []
    t0 = phases[0][0] if phases else 0
    last = None          # (side, phase) of the signal before the gap
    end = None           # when that signal ended
    for ts, ph in phases:
        side = _side(ph)
        if side is None:
            if ph in GAP and last is not None and end is None:
                end = ts
            elif ph not in GAP:          # on hook, dialling: a new call
                last, end = None, None
            continue
        if last is not None and end is not None:
            kind = "%s->%s" % (last[0], side)
            gap = (ts - end) / 1e6
            out.append({"kind": kind, "from": last[1], "to": ph,
                        "at_ms": round((end - t0) / 1e6, 1), "gap_ms": round(gap, 1),
                        "limit_ms": LIMIT_MS[kind], "over": gap > LIMIT_MS[kind]})
        # (training then data: one signal, no gap between)
        last, end = (side, ph), None
    return out


def phases_of(dat_path):
    return [(e.ts_ns, e.fields["phase"]) for e in smtrace.events(dat_path)
            if e.name == "smodem_phase" and str(e.fields.get("phase", "")).startswith("fax-")]


def summary(turns):
    """Per kind: count, the largest gap, its limit, how many over it."""
    kinds = {}
    for t in turns:
        k = kinds.setdefault(t["kind"], {"n": 0, "max_ms": 0.0, "limit_ms": t["limit_ms"],
                                         "over": 0})
        k["n"] += 1
        k["max_ms"] = max(k["max_ms"], t["gap_ms"])
        k["over"] += t["over"]
    return kinds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dat", nargs="+", help="trace.dat files with smodem_phase")
    ap.add_argument("--json", action="store_true", help="the turnarounds as JSON")
    a = ap.parse_args(argv)
    res = {}
    for d in a.dat:
        if not Path(d).is_file():
            ap.error("%s: no such file" % d)
        turns = turnarounds(phases_of(d))
        res[d] = {"turnarounds": turns, "summary": summary(turns)}
    if a.json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return 0
    for d, r in res.items():
        print(d)
        print("  %-7s %4s %9s %9s %5s" % ("kind", "n", "max ms", "limit ms", "over"))
        for k, s in sorted(r["summary"].items()):
            print("  %-7s %4d %9.1f %9.0f %5d" % (k, s["n"], s["max_ms"], s["limit_ms"], s["over"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
