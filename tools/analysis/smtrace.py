#!/usr/bin/env python3
"""Read what smodem leaves behind: trace-cmd captures and debugfs stats.

One parser for the tests, the comparison run and the reports:
  events(dat_path)       -> list of Event(name, ts_ns, cpu, flags, fields)
  stats(text)            -> dict of the debugfs stats file
  summarize(values)      -> dict(n, min, avg, p50, p99, max)

As a command (python -m smtrace --help, with the project's venv): the
summary of trace.dat files (events per name, each numeric field's
n/min/avg/p50/p99/max) or of debugfs stats files, as JSON.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass

# `trace-cmd report -l -t`: "  <comm>-<pid>  0d.h1.  12.345678901: smodem_irq: k=v ..."
# (CPU number glued to the latency flags: irqs-off, need-resched, hardirq/
# softirq, preempt depth).
_LINE = re.compile(
    r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+(?P<cpu>\d+)(?P<flags>\S*)\s+"
    r"(?P<ts>\d+\.\d+):\s+(?P<name>[\w]+):\s*(?P<rest>.*)$")
_FIELD = re.compile(r"(\w+)=(\S+)")


@dataclass
class Event:
    name: str
    ts_ns: int
    cpu: int
    comm: str
    pid: int
    flags: str
    fields: dict


def _num(v):
    try:
        return int(v)
    except ValueError:
        return v


def parse_report(text, prefix="smodem_"):
    """Events from `trace-cmd report -l -t` text (nanosecond timestamps)."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m or not m.group("name").startswith(prefix):
            continue
        sec, frac = m.group("ts").split(".")
        ts = int(sec) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
        fields = {k: _num(v) for k, v in _FIELD.findall(m.group("rest"))}
        out.append(Event(m.group("name"), ts, int(m.group("cpu")),
                         m.group("comm"), int(m.group("pid")),
                         m.group("flags"), fields))
    return out


def report_text(dat_path):
    r = subprocess.run(["trace-cmd", "report", "-l", "-t", "-i", str(dat_path)],
                       capture_output=True, text=True, check=True)
    return r.stdout


def events(dat_path, prefix="smodem_"):
    return parse_report(report_text(dat_path), prefix)


def stats(text):
    """The debugfs stats file: one 'name value' per line."""
    out = {}
    for line in text.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            out[parts[0]] = _num(parts[1].strip())
    return out


def stats_words(line):
    """One stats line's values: '{name} 12 -3 data' -> ('name', [12, -3, 'data'])."""
    w = line.split()
    return (w[0], [_num(x) for x in w[1:]]) if len(w) >= 2 else (None, None)


def v34_timekeeping(st):
    """How well a V.34 call in data mode keeps its time, from one stats
    sample ({name: stats_words() values}, with engine_v34_clock and
    engine_v34_bits): since the data at the present rates began (phase 4's
    end, a renegotiation's or a retrain's), each direction's data bits less
    its rate times its samples.  A call that keeps its time holds these
    within a data frame, however long it runs.  None outside data mode."""
    if st.get("engine_v34_state") != ["data"] or "engine_v34_clock" not in st:
        return None
    now, tx_at, rx_at, run_at = st["engine_v34_clock"]
    sent, received, run_sent, run_received = st["engine_v34_bits"]
    tx, rx = st["engine_tx_rate"][0], st["engine_rx_rate"][0]
    if not tx_at or not rx_at or not run_at:
        return None
    return {"data_s": round((now - tx_at) / 8000, 1),
            "run_samples": now - run_at, "tx_rate": tx, "rx_rate": rx,
            "tx_bits_off": sent - run_sent - (now - run_at) * tx // 8000,
            "rx_bits_off": received - run_received - (now - run_at) * rx // 8000}


def by_name(evs):
    """Events grouped by name, each list in trace order."""
    by = {}
    for e in evs:
        by.setdefault(e.name, []).append(e)
    return by


def field_values(by, name, field):
    """The field's values of every `name` event that has it (by: by_name())."""
    return [e.fields[field] for e in by.get(name, []) if field in e.fields]


def summarize(values):
    vals = sorted(values)
    if not vals:
        return {"n": 0, "min": None, "avg": None, "p50": None, "p99": None,
                "max": None}

    def pct(p):
        return vals[min(len(vals) - 1, int(p / 100.0 * len(vals)))]
    return {"n": len(vals), "min": vals[0], "avg": sum(vals) / len(vals),
            "p50": pct(50), "p99": pct(99), "max": vals[-1]}


def trace_summary(evs):
    """{event name: {"count": n, field: summarize(values)}} of numeric fields."""
    out = {}
    for e in evs:
        out.setdefault(e.name, {"count": 0, "_v": {}})
        d = out[e.name]
        d["count"] += 1
        for k, v in e.fields.items():
            if isinstance(v, int):
                d["_v"].setdefault(k, []).append(v)
    for d in out.values():
        for k, vals in d.pop("_v").items():
            d[k] = summarize(vals)
    return dict(sorted(out.items()))


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="smtrace", description="Summaries of smodem's trace captures "
        "(trace-cmd record/extract -e smodem) or debugfs stats files, as JSON.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("files", nargs="+", metavar="FILE",
                    help="trace.dat files (or stats files with --stats)")
    ap.add_argument("--stats", action="store_true",
                    help="the files are debugfs stats files, not traces")
    ap.add_argument("--prefix", default="smodem_",
                    help="only the events whose name starts with this")
    a = ap.parse_args(argv)
    out = {}
    for f in a.files:
        if not os.path.isfile(f):
            ap.error("%s: no such file" % f)
        try:
            if a.stats:
                with open(f) as fh:
                    out[f] = stats(fh.read())
            else:
                out[f] = trace_summary(events(f, a.prefix))
        except OSError as e:
            ap.error("%s: %s" % (f, e.strerror or e))
        except subprocess.CalledProcessError as e:
            ap.error("%s: trace-cmd report failed: %s" % (f, (e.stderr or "").strip()))
    json.dump(out if len(out) > 1 else out[a.files[0]], sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
