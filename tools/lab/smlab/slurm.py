"""SCHEDULER=slurm:N: a study's pieces on a Slurm cluster, through
dask-jobqueue (pip install dask-jobqueue; nothing else of the project needs
it).  The coordinator (make study ...) runs the Dask scheduler itself and
asks Slurm for N jobs, each a node's worth of JOBS worker processes (one
guest each, one thread each), started in the checkout with the study
tools on PYTHONPATH, as make lab-worker starts them.

The nodes must see the checkout and its venv at the coordinator's path (a
shared home): that is where the workers' Python comes from.  Builds,
kernels and the base initramfs need not be there: a node whose files
differ gets each kernel's bundle (smlab/bundle.py).  The partition,
account, walltime and the like are dask-jobqueue's configuration
(~/.config/dask/jobqueue.yaml, section jobqueue.slurm) or the
SMLAB_SLURM_* variables below, which win over it.
"""
import os
import sys
from pathlib import Path

from . import runner

TOP = Path(__file__).resolve().parents[3]
# a guest is 1 GiB of RAM and QEMU's own
GIB_PER_GUEST = 2


def parse(spec):
    """slurm:N -> N (jobs to ask for); ValueError if spec is not that."""
    head, _, n = spec.partition(":")
    if head != "slurm" or not n.isdigit() or int(n) < 1:
        raise ValueError("SCHEDULER=slurm:N, N the Slurm jobs (nodes) to ask for, not %r" % spec)
    return int(n)


def cluster(jobs, **kw):
    """A SLURMCluster whose jobs each run `jobs` lab workers."""
    from dask_jobqueue import SLURMCluster
    env = os.environ
    opts = dict(cores=jobs, processes=jobs, memory="%dGB" % (GIB_PER_GUEST * jobs),
                python=sys.executable,
                job_name="smodem-lab",
                job_script_prologue=[
                    "cd %s" % TOP,
                    "export PYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH}"
                    % ":".join(str(TOP / d) for d in runner.WORKER_PATH)],
                scheduler_options={"dashboard_address": ":0"})
    for key, var in (("queue", "SMLAB_SLURM_PARTITION"), ("account", "SMLAB_SLURM_ACCOUNT"),
                     ("walltime", "SMLAB_SLURM_WALLTIME"), ("interface", "SMLAB_SLURM_INTERFACE")):
        if env.get(var):
            opts[key] = env[var]
    if env.get("SMLAB_SLURM_INTERFACE"):
        opts["scheduler_options"]["interface"] = env["SMLAB_SLURM_INTERFACE"]
    opts.update(kw)
    return SLURMCluster(**opts)


def client(spec, jobs=None):
    """A distributed Client of a SLURMCluster of parse(spec) jobs of `jobs`
    (JOBS, default this machine's cores) workers; closing the runner's
    engine closes the cluster too (its jobs end)."""
    from distributed import Client
    n = parse(spec)
    jobs = jobs or int(os.environ.get("JOBS") or os.cpu_count() or 1)
    c = cluster(jobs)
    c.scale(jobs=n)
    cl = Client(c)
    cl._smlab_cluster = c
    return cl
