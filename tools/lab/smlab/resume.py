"""Resuming long runs: a finished piece of work is kept beside the settings
it was made with (file contents by digest), and is not made again while
they are the same."""
import hashlib
import json
from pathlib import Path


def file_digest(path):
    """SHA-256 of a file's contents, hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reuse(stamp, settings, force=False):
    """What keep() stored at stamp with exactly these settings, else None."""
    stamp = Path(stamp)
    if force or not stamp.exists():
        return None
    old = json.loads(stamp.read_text())
    # compared as stored: a tuple in the settings is a list in the stamp
    same = old.get("settings") == json.loads(json.dumps(settings, default=str))
    return old.get("result") if same else None


def keep(stamp, settings, result):
    """Store result at stamp (JSON), with the settings it was made with."""
    stamp = Path(stamp)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"settings": settings, "result": result}, indent=1,
                                default=str) + "\n")
