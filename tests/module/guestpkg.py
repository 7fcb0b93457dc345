"""Debian packages of this machine, unchanged, in a test guest: the files
each package installs (programs, libraries, configuration; not its
documentation) and the shared objects its programs need, at their own paths,
as run_guest(extra_files=...) takes them."""
import os
import re
import subprocess

# what a program in the guest never reads
_SKIP = re.compile(r"^/usr/share/(doc|man|info|locale|lintian|applications|"
                   r"bug|menu|pixmaps|icons)/")


def _is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def _ldd(path):
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    return [m.group(1) for m in re.finditer(r"(/\S+) \(0x", out)]


def package_files(*packages, rename=None):
    """{guest path: host path} for the packages' files and their programs'
    shared objects.  rename maps a host directory to where the package's
    maintainer scripts would put its contents (e.g. mgetty's templates
    into /etc/mgetty)."""
    out = {}
    listed = subprocess.run(["dpkg", "-L", *packages], check=True,
                            capture_output=True, text=True).stdout.split()
    for path in listed:
        if _SKIP.match(path) or not os.path.isfile(path):
            continue
        dest = path
        for src, dst in (rename or {}).items():
            if path.startswith(src.rstrip("/") + "/"):
                dest = dst.rstrip("/") + path[len(src.rstrip("/")):]
        real = os.path.realpath(path)
        out[dest.lstrip("/")] = real
        if _is_elf(real):
            for lib in _ldd(real):
                out[lib.lstrip("/")] = os.path.realpath(lib)
    return out
