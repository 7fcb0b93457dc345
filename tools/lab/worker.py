#!/usr/bin/env python3
"""make lab-worker: join this machine to a study's Dask scheduler as JOBS
workers (one guest each), after checking that it would compute the same
figures as the coordinator: the same project commit (and no local edits),
the same QEMU binary and kernel images, by content (smlab.runner's lab
identity, which a study publishes on its scheduler when it starts).  A
machine that differs refuses to join and says where.

  make lab-worker SCHEDULER=tcp://lab1:8786 JOBS=4

A machine that does not share the coordinator's file system needs no
builds and no kernels of its own: the pieces bring a bundle per kernel
(smlab/bundle.py), fetched once and kept in ~/.cache/smodem/bundles
(SMODEM_CACHE).  A worker tells by itself (the coordinator's paths are not
there, or hold other files); SHARED_FS=0 (--no-shared-fs) says it: the
kernel images are not checked, the workers run in SMODEM_CACHE/out, not in
the checkout, and every piece runs from its bundle.
"""
import os
import sys
import time
from pathlib import Path

from smlab import bundle, cli, runner

TOP = Path(__file__).resolve().parents[2]


def main():
    ap = cli.parser(__doc__)
    cli.env_option(ap, "--scheduler", "SCHEDULER", None, str,
                   "the scheduler's address (tcp://host:8786)")
    cli.env_option(ap, "--jobs", "JOBS", os.cpu_count() or 1, cli.int_range(1, 256),
                   "worker processes (guests at a time)")
    cli.env_option(ap, "--shared-fs", "SHARED_FS", 1, cli.int_range(0, 1),
                   "0: this machine does not share the coordinator's files (every piece "
                   "from its bundle)")
    ap.add_argument("--no-shared-fs", dest="shared_fs", action="store_const", const=0,
                    help="as SHARED_FS=0")
    cli.env_option(ap, "--wait", "WAIT_S", 0, cli.int_range(0, 7 * 86400),
                   "seconds to wait for a study to publish its identity on the scheduler "
                   "(0: refuse at once if none has)")
    ap.add_argument("--check-only", action="store_true",
                    help="check the identity and exit (0: would join)")
    a = ap.parse_args()
    if not a.scheduler:
        ap.error("no scheduler: SCHEDULER=tcp://host:8786 or --scheduler")
    if not a.shared_fs:
        os.environ["SMLAB_NO_SHARED_FS"] = "1"
    from distributed import Client
    with Client(a.scheduler, timeout=30) as c:
        theirs = c.get_metadata(runner.LAB_KEY, None)
        deadline = time.monotonic() + a.wait
        if theirs is None and a.wait:
            print("lab-worker: waiting up to %d s for a study on %s" % (a.wait, a.scheduler))
        while theirs is None and time.monotonic() < deadline:
            time.sleep(2)
            theirs = c.get_metadata(runner.LAB_KEY, None)
        if theirs and bundle.no_shared_fs():
            # the bundles bring the kernels
            theirs = {k: v for k, v in theirs.items() if not k.startswith("kernel ")}
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
    if bundle.no_shared_fs():
        work = bundle.cache_root() / "out"
        work.mkdir(parents=True, exist_ok=True)
        os.chdir(work)
    else:
        os.chdir(TOP)
    # this Python's dask, whatever a script's #! line says
    os.execv(sys.executable, [sys.executable, "-m", "dask", "worker", a.scheduler,
                              "--nworkers", str(a.jobs), "--nthreads", "1",
                              "--name", os.uname().nodename])


if __name__ == "__main__":
    sys.exit(main())
