"""Pieces without QEMU for tests/lab/test_runner.py, in a module of their
own so that Dask's worker processes import them by name."""
import os
import time
from pathlib import Path


def figures(piece):
    """What a piece computes: a function of its settings alone."""
    x = piece.get("x", 0)
    return {"square": x * x, "kernel": piece.kernel}


def run_piece(piece):
    """Sleeps, then computes; tells which process ran it (pid file) and
    counts its tries (a file per try under piece's dir)."""
    d = Path(piece.get("dir"))
    d.mkdir(parents=True, exist_ok=True)
    (d / ("%s.pid" % piece.key)).write_text(str(os.getpid()))
    with open(d / ("%s.tries" % piece.key), "a") as f:
        f.write("x")
    time.sleep(piece.get("sleep_s", 0.0))
    fail = piece.get("fail")
    tries = len((d / ("%s.tries" % piece.key)).read_text())
    if fail == "raise" or (fail == "once" and tries == 1):
        raise RuntimeError("piece %s fails" % piece.key)
    if fail == "timeout":
        return {"timed_out": True}
    if fail == "error":
        return {"error": "guest said no"}
    out = figures(piece)
    if piece.get("read"):
        # a file the coordinator named: here, the copy the piece was given
        out["read"] = Path(piece.get("read")).read_text()
    # where this code and the piece's files were: a worker without the
    # coordinator's files runs it from a bundle (smlab/bundle.py)
    return dict(out, host={"hostname": os.uname().nodename, "code": __file__, "dir": str(d),
                           "cwd": os.getcwd(), "read": piece.get("read")})
