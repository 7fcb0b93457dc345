"""Resuming long runs: a finished piece of work is kept beside the settings
it was made with (file contents by digest), and is not made again while
they are the same.  A failed piece (a result with "error", or one that
timed out) is never kept, and a stamp that cannot be read (a run killed
while writing it, before writes were atomic) counts as not done.
smlab/runner.py is the one runner these stamps are moving into."""
import hashlib
import json
import os
from pathlib import Path


def file_digest(path):
    """SHA-256 of a file's contents, hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reuse(stamp, settings, force=False):
    """What keep() stored at stamp with exactly these settings, else None."""
    stamp = Path(stamp)
    if force or not stamp.exists():
        return None
    try:
        old = json.loads(stamp.read_text())
    except ValueError:
        return None
    # compared as stored: a tuple in the settings is a list in the stamp
    same = old.get("settings") == json.loads(json.dumps(settings, default=str))
    result = old.get("result")
    return result if same and not failed(result) else None


def failed(result):
    """Whether a piece's result says it failed (and so must not be kept)."""
    return isinstance(result, dict) and ("error" in result or bool(result.get("timed_out")))


def keep(stamp, settings, result):
    """Store result at stamp (JSON), with the settings it was made with,
    atomically; a failed result is not stored (and an older stamp goes).
    Returns whether it was stored."""
    stamp = Path(stamp)
    if failed(result):
        stamp.unlink(missing_ok=True)
        return False
    stamp.parent.mkdir(parents=True, exist_ok=True)
    tmp = stamp.with_name(stamp.name + ".tmp%d" % os.getpid())
    tmp.write_text(json.dumps({"settings": settings, "result": result}, indent=1,
                              default=str) + "\n")
    os.replace(tmp, stamp)
    return True
