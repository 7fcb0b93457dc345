#!/usr/bin/env python3
"""Stolen time of the modem's processing, from a trace.dat.

For every activation of the processing (a thread's smodem_thread_wakeup ..
smodem_thread_done, a bottom half's smodem_dpc_entry .. smodem_dpc_exit), on
its CPU: how long it took (wall), how long the processing itself ran, and
what took the rest, split by taker: each hard interrupt (irq_handler_entry/
exit by handler name, the local timer from irq_vectors:local_timer_*), each
softirq (softirq_entry/exit by vector) and each other thread (sched_switch).
"Charged" is what a kernel without IRQ time accounting charges the thread:
the wall time minus the time other threads had the CPU, so the interrupts and
softirqs inside the window are stolen from it.

Record with:
    trace-cmd record -e smodem -e irq:irq_handler_entry -e irq:irq_handler_exit \\
        -e irq:softirq_entry -e irq:softirq_exit -e sched:sched_switch \\
        -e irq_vectors:local_timer_entry -e irq_vectors:local_timer_exit ...

    stolen.py trace.dat [--out DIR]    table on stdout, DIR/stolen.json

A trace without the events it needs is refused with one line (exit 1).
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import smtrace  # noqa: E402

START = {"smodem_thread_wakeup": "thread", "smodem_dpc_entry": "bh"}
END = {"smodem_thread_done": "thread", "smodem_dpc_exit": "bh"}
NEEDED = ("sched_switch", "irq_handler_entry", "softirq_entry")


class Refused(Exception):
    pass


def _taker_of(e):
    """The stack frame an entry event opens, or None."""
    if e.name == "irq_handler_entry":
        return "irq:%s" % e.fields.get("name", e.fields.get("irq"))
    if e.name == "local_timer_entry":
        return "irq:local_timer"
    if e.name == "softirq_entry":
        return "softirq:%s" % _vec_name(e)
    return None


# include/linux/interrupt.h's softirq vectors, in order (the raw events
# carry the number)
SOFTIRQS = ("HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
            "HRTIMER", "RCU")


def _vec_name(e):
    v = e.fields.get("vec")
    return SOFTIRQS[v] if isinstance(v, int) and 0 <= v < len(SOFTIRQS) else str(v)


def load(dat):
    """Every event of a trace.dat, fields raw (trace-cmd report -R: the
    sched_switch pids as key=value, softirq vectors as numbers)."""
    r = subprocess.run(["trace-cmd", "report", "-R", "-l", "-t", "-i", str(dat)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Refused("trace-cmd cannot read it (%s)" % (r.stderr.strip().splitlines() or ["?"])[-1])
    return smtrace.parse_report(r.stdout, prefix="")


EXITS = {"irq_handler_exit", "local_timer_exit", "softirq_exit"}


def activations(evs):
    """Per activation: dict(start, end, cpu, pid, kind, wall, ran, charged,
    stolen, takers={name: ns}).  Walks each CPU's events once, keeping who
    has the CPU: the task (from sched_switch) with a stack of interrupt and
    softirq frames on top; the time between two events goes to the top of
    it.  A bottom half runs in a softirq frame: that frame, the one it
    started in, is the processing's own."""
    if not evs:
        raise Refused("no events in the trace")
    names = {e.name for e in evs}
    missing = [n for n in NEEDED if n not in names]
    if missing:
        raise Refused("the trace has no %s events: record them (see --help)" % ", ".join(missing))
    if not names & set(START):
        raise Refused("no processing activations (smodem_thread_wakeup/smodem_dpc_entry) in the trace")
    out = []
    comms = {}
    by_cpu = {}
    for e in evs:
        by_cpu.setdefault(e.cpu, []).append(e)
    for cpu, cev in sorted(by_cpu.items()):
        task = None          # pid on the CPU, once a sched_switch says
        stack = []           # interrupt and softirq frames above it
        last = cev[0].ts_ns
        cur = None           # the open activation
        for e in cev:
            dt = e.ts_ns - last
            last = e.ts_ns
            if cur is not None and dt > 0:
                away = cur["kind"] == "thread" and task is not None and task != cur["pid"]
                if away:
                    # another thread's time, interrupts in it included:
                    # not charged to the processing thread
                    cur["away"] += dt
                if len(stack) > cur["depth"]:
                    who = stack[-1]
                elif away:
                    who = "thread:%s" % comms.get(task, task)
                else:
                    who = None
                if who is None:
                    cur["ran"] += dt
                else:
                    cur["takers"][who] = cur["takers"].get(who, 0) + dt
            frame = _taker_of(e)
            if frame:
                stack.append(frame)
            elif e.name in EXITS:
                if stack:
                    stack.pop()
            elif e.name == "sched_switch":
                comms[e.fields.get("prev_pid")] = e.fields.get("prev_comm")
                comms[e.fields.get("next_pid")] = e.fields.get("next_comm")
                task = e.fields.get("next_pid")
                # switches happen at task level: a frame still open here is
                # one the trace began inside of
                stack = []
            elif e.name in START:
                cur = {"start": e.ts_ns, "cpu": cpu, "pid": e.pid, "kind": START[e.name],
                       "ran": 0, "away": 0, "takers": {}, "depth": len(stack)}
            elif e.name in END and cur is not None and END[e.name] == cur["kind"]:
                cur["end"] = e.ts_ns
                cur["wall"] = cur["end"] - cur["start"]
                cur["charged"] = cur["wall"] - cur.pop("away")
                cur["stolen"] = cur["charged"] - cur["ran"]
                del cur["depth"]
                out.append(cur)
                cur = None
    if not out:
        raise Refused("no complete processing activation in the trace")
    return out




def summary(acts):
    takers = {}
    for a in acts:
        for k, v in a["takers"].items():
            takers[k] = takers.get(k, 0) + v
    wall = sum(a["wall"] for a in acts)
    charged = sum(a["charged"] for a in acts)
    ran = sum(a["ran"] for a in acts)
    stolen = [a["stolen"] for a in acts]
    return {
        "activations": len(acts),
        "wall_ns": wall, "charged_ns": charged, "ran_ns": ran,
        "stolen_ns": charged - ran,
        "stolen_pct_of_charged": round(100.0 * (charged - ran) / charged, 3) if charged else 0.0,
        "stolen_max_ns": max(stolen), "stolen_mean_ns": (charged - ran) // len(acts),
        "activations_with_stolen_time": sum(1 for s in stolen if s > 0),
        "takers_ns": dict(sorted(takers.items(), key=lambda kv: -kv[1])),
    }


def table(s):
    lines = ["activations %d: wall %.3f ms, charged %.3f ms, ran %.3f ms, stolen %.3f ms (%.2f %% of "
             "charged; max %.1f us in one, %d with any)" % (
                 s["activations"], s["wall_ns"] / 1e6, s["charged_ns"] / 1e6, s["ran_ns"] / 1e6,
                 s["stolen_ns"] / 1e6, s["stolen_pct_of_charged"], s["stolen_max_ns"] / 1e3,
                 s["activations_with_stolen_time"]),
             "", "| taker | time (us) | % of wall |", "|---|---|---|"]
    for k, v in s["takers_ns"].items():
        lines.append("| %s | %.1f | %.3f |" % (k, v / 1e3, 100.0 * v / s["wall_ns"]))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", help="trace.dat (trace-cmd record)")
    ap.add_argument("--out", help="write stolen.json and stolen.md there")
    a = ap.parse_args(argv)
    if not os.path.isfile(a.trace):
        print("stolen: %s: no such file" % a.trace, file=sys.stderr)
        return 1
    try:
        acts = activations(load(a.trace))
    except Refused as e:
        print("stolen: %s: %s" % (a.trace, e), file=sys.stderr)
        return 1
    s = summary(acts)
    print(table(s))
    if a.out:
        d = Path(a.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "stolen.json").write_text(json.dumps({"summary": s, "activations": acts}, indent=1))
        (d / "stolen.md").write_text(table(s) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
