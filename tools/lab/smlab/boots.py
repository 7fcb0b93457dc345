"""What a tool whose guest boots are smlab.runner pieces shares with the
others (tools/loadbound's two experiments): the options that say where and
how often the boots run, the run itself against OUT/record.jsonl, a boot's
results checked, and the report written.

A boot is run again only when its settings changed (runner.Record), so the
options and the record file are the same in every such tool: a user who
learnt --force, --jobs or --scheduler on one knows them on the next.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from smlab import runner


def env_default(var, default):
    """The environment's value of var, or default where it is unset or empty
    (make passes every variable, set or not)."""
    return os.environ.get(var) or default


def build_static(src, exe, libs=()):
    """A static guest program from one C file, built only when the source is
    newer: a worker without the coordinator's build calls this again."""
    src, exe = Path(src), Path(exe)
    exe.parent.mkdir(parents=True, exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-s", "-o", str(exe),
                        str(src)] + list(libs), check=True)
    return exe


def add_run_options(p, timeout, out_var, out_default):
    """The options every boot-running tool takes: the guests' kernel command
    line, how many boots at a time and where, each boot's time limit, --force
    and the output directory (its environment variable out_var)."""
    p.add_argument("--guest-append", default=env_default("GUEST_APPEND", "preempt=full"),
                   help="kernel command line extra [GUEST_APPEND]")
    p.add_argument("--jobs", type=int, default=int(env_default("JOBS", str(os.cpu_count() or 1))),
                   help="guests at a time [JOBS]")
    p.add_argument("--scheduler", default=env_default("SCHEDULER", None),
                   help="a Dask scheduler (tcp://host:8786) whose workers run the boots "
                   "(make lab-worker) [SCHEDULER]")
    p.add_argument("--timeout", type=float, default=timeout, help="wall seconds per guest")
    p.add_argument("--force", action="store_true", default=bool(os.environ.get("FORCE")),
                   help="run every boot again, even one recorded with the same settings [FORCE]")
    p.add_argument("--out", default=env_default(out_var, out_default), help="[%s]" % out_var)


def run(a, out, pieces, run_piece, settings, say):
    """The pieces not yet in out/record.jsonl with their settings (all of them
    with --force), each retried once: (the record, runner.run's report)."""
    if a.force:
        (out / "record.jsonl").unlink(missing_ok=True)
    record = runner.Record(out / "record.jsonl")
    rep = runner.run(pieces, run_piece, record, settings, jobs=a.jobs, retries=1,
                     scheduler=a.scheduler, say=say)
    return record, rep


def fresh_dir(out):
    """out, empty: nothing of an earlier try (its error file above all) may
    stay to be read as this boot's."""
    out = Path(out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return out


def results(res, out, needed, what):
    """The results directory of run_guest's result res (booted into out),
    which must hold needed; else runner.PieceFailed naming what, the guest's
    error file and its console."""
    r = Path(out) / "results"
    if not res.ok or not (r / needed).exists():
        err = (r / "error").read_text() if (r / "error").exists() else ""
        raise runner.PieceFailed("%s: guest failed (rc=%s timed_out=%s) %s see %s"
                                 % (what, res.rc, res.timed_out, err.strip(), res.console))
    return r


def write_report(out, table, summary, say, default=None):
    """out/table.md and out/summary.json, the table on stdout too."""
    (out / "table.md").write_text(table)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=default) + "\n")
    sys.stdout.write(table)
    say("wrote %s/{summary.json,table.md,*.png}" % out)
