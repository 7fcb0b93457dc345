#!/usr/bin/env python3
"""make lab-worker: join this machine to a study's Dask scheduler as JOBS
workers (one guest each), after checking that it would compute the same
figures as the coordinator: the same project commit (and no local edits),
the same QEMU binary and kernel images, by content (smlab.runner's lab
identity, which a study publishes on its scheduler when it starts).  A
machine that differs refuses to join and says where.

  make lab-worker SCHEDULER=tcp://lab1:8786 JOBS=4
"""
import os
import shutil
import sys
from pathlib import Path

from smlab import cli, runner

TOP = Path(__file__).resolve().parents[2]


def main():
    ap = cli.parser(__doc__)
    cli.env_option(ap, "--scheduler", "SCHEDULER", None, str,
                   "the scheduler's address (tcp://host:8786)")
    cli.env_option(ap, "--jobs", "JOBS", os.cpu_count() or 1, cli.int_range(1, 256),
                   "worker processes (guests at a time)")
    ap.add_argument("--check-only", action="store_true",
                    help="check the identity and exit (0: would join)")
    a = ap.parse_args()
    if not a.scheduler:
        ap.error("no scheduler: SCHEDULER=tcp://host:8786 or --scheduler")
    from distributed import Client
    with Client(a.scheduler, timeout=30) as c:
        theirs = c.get_metadata(runner.LAB_KEY, None)
        kernels = [k[len("kernel "):] for k in (theirs or {}) if k.startswith("kernel ")]
        why = runner.mismatch(runner.lab_identity(kernels=kernels), theirs)
    if why:
        print("lab-worker: not joining %s: %s" % (a.scheduler, why), file=sys.stderr)
        return 2
    print("lab-worker: %s has this machine's lab identity" % a.scheduler)
    if a.check_only:
        return 0
    # the study tools' run_piece functions are shipped by module name
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(TOP / d) for d in runner.WORKER_PATH]
        + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.chdir(TOP)
    dask = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
    os.execv(dask, [dask, "worker", a.scheduler, "--nworkers", str(a.jobs),
                    "--nthreads", "1", "--name", os.uname().nodename])


if __name__ == "__main__":
    sys.exit(main())
