"""Out-of-tree helper modules for lab guests (tools/netload, the tests'
irqhog), built against one kernel's headers (Debian's, or a kernel root's
such as the debug kernel's) into build/<kver>/<name>/."""
import subprocess
import threading
from pathlib import Path

from .image import BUILD, modules_dir

_LOCK = threading.Lock()


def build(kver, src, name=None):
    """build/<kver>/<name>/<name>.ko from the single C file src (W=1),
    rebuilt when missing or older than src; name defaults to src's stem."""
    src = Path(src)
    name = name or src.stem
    with _LOCK:
        d = BUILD / kver / name
        ko = d / (name + ".ko")
        if ko.exists() and ko.stat().st_mtime >= src.stat().st_mtime:
            return ko
        kdir = Path(modules_dir(kver)) / "build"
        if not kdir.is_dir():
            raise RuntimeError("no headers for %s (make deps)" % kver)
        d.mkdir(parents=True, exist_ok=True)
        (d / (name + ".c")).write_bytes(src.read_bytes())
        (d / "Kbuild").write_text("obj-m := %s.o\n" % name)
        r = subprocess.run(["make", "-s", "-C", str(kdir), "M=%s" % d, "W=1", "modules"],
                           capture_output=True, text=True)
        if r.returncode != 0 or not ko.exists():
            raise RuntimeError("building %s.ko for %s failed:\n%s%s"
                               % (name, kver, r.stdout, r.stderr))
        return ko
