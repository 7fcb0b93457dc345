"""A Dask scheduler and lab workers on 127.0.0.1 that share no paths with
this checkout (smlab/bundle.py): the scheduler as `dask scheduler`, the
workers as make lab-worker SHARED_FS=0 starts them (tools/lab/worker.py
--no-shared-fs), both in a temporary directory, the workers' bundles and
outputs in a SMODEM_CACHE of their own.  For tests/lab/test_bundle.py and
tests/module/test_study.py."""
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def workers(tmp, n=2):
    """Yields (scheduler address, a Client of it, the workers' cache)."""
    import distributed
    from smlab import runner
    tmp = Path(tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    cache = tmp / "cache"
    port = _port()
    addr = "tcp://127.0.0.1:%d" % port
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], cwd=str(tmp),
                              stdout=subprocess.DEVNULL, stderr=open(tmp / "scheduler.log", "w"))]
    client = None
    try:
        deadline = time.monotonic() + 60
        while client is None:
            try:
                client = distributed.Client(addr, timeout=5)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        # a study publishes its identity before the workers join
        runner.publish(client)
        env = dict(os.environ, SMODEM_CACHE=str(cache))
        env.pop("SMLAB_NO_SHARED_FS", None)
        procs.append(subprocess.Popen(
            [sys.executable, str(TOP / "tools/lab/worker.py"), "--scheduler", addr,
             "--jobs", str(n), "--no-shared-fs"], cwd=str(tmp), env=env,
            stdout=subprocess.DEVNULL, stderr=open(tmp / "worker.log", "w")))
        client.wait_for_workers(n, timeout=90)
        yield addr, client, cache
    finally:
        if client is not None:
            client.close()
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
