"""Bundles: what a worker without the coordinator's file system needs to run
a piece, shipped once and kept by digest.

A study's pieces name files of the coordinator's checkout (build/<k>/
smodem.ko, build/line/smline, an output directory) and its code reads more
from there (the guest scripts, the base initramfs, the kernel under /boot).
A worker on another machine has none of it, or other builds at the same
paths.  So the coordinator makes, per kernel, a bundle: a small tree laid
out like the checkout --

  tools/...                      the lab's code and guest scripts (git's files,
  tests/module/guest/*.sh         and the guest checks' scripts)
  build/<k>/smodem.ko            and the other builds the pieces use
  build/line/smline, b2b         (smodemd, the netload module, the static
  build/smodemd/smodemd-static    guest tools: those that exist)
  build/initramfs/<k>/base.cpio  the base initramfs, as built here
  kernel/vmlinuz-<k>             the kernel image and the few modules the
  kernel/lib/modules/<k>/...     guests load (a kernel root, image.py's)
  <files the pieces name>        (outside the checkout: under abs/)

-- whose digest is the SHA-256 of its manifest (every file's path, mode and
SHA-256).  A worker keeps it under $SMODEM_CACHE/bundles/<digest>/
(~/.cache/smodem), fetched from the coordinator the first time a piece
needs it (runner.NeedBundle asks for it) and checked file by file against
the digest it was asked for; and runs the piece in a child Python whose
code is the bundle's (TOP is the bundle: every path the code derives from
its own place is the bundle's), with the piece's paths moved: a file the
bundle has to the bundle's copy, anything else (an output directory) under
$SMODEM_CACHE/out/.  The raw files a piece writes stay there, on the
worker; the figures come back to the coordinator's record.

A worker uses the coordinator's paths as they are (a shared file system)
only if they exist there with the bundle's contents and it was not told
otherwise: SMLAB_NO_SHARED_FS=1 (make lab-worker SHARED_FS=0) makes it use
the bundle always, as a machine without the checkout would.  A worker
refuses a piece, saying why, when its QEMU is not the coordinator's (by
content) or a bundle it received does not have the digest asked for.
"""
import fcntl
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]
# in-tree modules the lab's guests load beyond the base image's (netload's
# e1000, stolen_study's disks); those a kernel lacks or has built in are left out
KMODS = ("e1000", "ata_piix", "sd_mod", "sym53c8xx")
# builds the pieces' code uses by their place under TOP (those that exist)
BUILDS = ("build/line/smline", "build/line/b2b", "build/smodemd/smodemd",
          "build/smodemd/smodemd-static", "build/loadbound/lbprobe", "build/loadbound/lbtasks")
# where the child finds the code, under the bundle
CODE_PATH = ("tools/lab", "tools", "tools/loadbound", "tools/analysis")
# not moved: a piece naming one of these means the worker's own
SYSTEM = ("/dev/", "/proc/", "/sys/")


def cache_root():
    return Path(os.environ.get("SMODEM_CACHE") or Path.home() / ".cache" / "smodem")


def no_shared_fs():
    return os.environ.get("SMLAB_NO_SHARED_FS", "") not in ("", "0")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _manifest_digest(manifest):
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()


def qemu_digest():
    q = shutil.which("qemu-system-x86_64")
    return sha256(q) if q else None


@dataclass(frozen=True)
class Ref:
    """What a piece sent to a worker carries of its bundle: small (the
    bundle's bytes go only to a worker that asks, once)."""
    digest: str
    manifest: tuple     # sorted (rel, mode, sha256)
    top: str            # the coordinator's checkout
    named: tuple        # sorted (coordinator path, rel): the files the pieces name
    module: str         # run_piece's module, as the child imports it
    module_dir: str     # its directory, under the bundle
    qemu: str           # the coordinator's QEMU binary, by content


def fn_ref(fn):
    """(module, name, file) of a module-level function, as a child imports
    it: a tool run as a script (__main__) by its file's name."""
    mod = sys.modules[fn.__module__]
    f = Path(mod.__file__).resolve()
    name = f.stem if fn.__module__ == "__main__" else fn.__module__
    return name, fn.__name__, f


def _rel(path, top):
    p = Path(path)
    try:
        return str(p.relative_to(top))
    except ValueError:
        return "abs" + str(p)


def _code_files(top):
    """The lab's code and guest scripts: git's files under tools/ and the
    guest checks' scripts (tests/module/guest/*.sh, smlab.checks'), or all of
    them if this is no git checkout; those that exist here."""
    try:
        names = subprocess.run(["git", "-C", str(top), "ls-files", "--cached", "--others",
                                "--exclude-standard", "tools", "tests/module/guest/*.sh"],
                               check=True, capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(top)) for p in (top / "tools").rglob("*") if p.is_file()]
        names += [str(p.relative_to(top)) for p in (top / "tests/module/guest").glob("*.sh")]
    return {n: top / n for n in names
            if (top / n).is_file() and "__pycache__" not in n}


def _kernel_files(kver, top):
    """{rel: path or bytes}: kernel kver's image, the modules of KMODS it has
    (a modules.dep of them), its base initramfs and its builds here."""
    from . import image
    out = {}
    if kver not in image.available_kernels():
        return out
    out["kernel/vmlinuz-" + kver] = Path(image.kernel_file(kver))
    # which tracers it has (compare's rtla)
    config = Path(image.kernel_file(kver)).with_name("config-" + kver)
    if config.is_file():
        out["kernel/config-" + kver] = config
    cmdline = image.kernel_cmdline(kver)
    if cmdline:
        out["kernel/cmdline-" + kver] = (cmdline + "\n").encode()
    km = image.KernelModules(kver)
    mods = []
    for name in KMODS:
        try:
            mods += [m for m in km.resolve([name]) if m not in mods]
        except ValueError:
            pass
    base = "kernel/lib/modules/%s/" % kver
    for m in mods:
        out[base + m] = km.base / m
    out[base + "modules.dep"] = "".join(
        "%s: %s\n" % (m, " ".join(km.dep.get(m, []))) for m in mods).encode()
    builtin = km.base / "modules.builtin"
    out[base + "modules.builtin"] = builtin.read_bytes() if builtin.exists() else b""
    out["build/initramfs/%s/base.cpio" % kver] = Path(image.base_initramfs(kver))
    for rel in ("build/%s/smodem.ko" % kver, "build/%s/netload/netload.ko" % kver):
        if (top / rel).is_file():
            out[rel] = top / rel
    gb = top / "build" / "guest"
    for p in sorted(gb.glob("*")) if gb.is_dir() else []:
        if p.is_file() and not p.name.startswith("."):
            out[str(p.relative_to(top))] = p
    return out


class Bundle:
    """One kernel's bundle, on the coordinator: {rel: a file or bytes}."""

    def __init__(self, kver, pieces, fn, top=TOP):
        top = Path(top)
        files = _code_files(top)
        files.update(_kernel_files(kver, top))
        for rel in BUILDS:
            if (top / rel).is_file():
                files[rel] = top / rel
        named = {}
        for p in pieces:
            for _, v in p.settings:
                if isinstance(v, str) and v.startswith("/") and not v.startswith(SYSTEM) \
                        and os.path.isfile(v):
                    named[v] = _rel(v, top)
                    files[named[v]] = Path(v)
        module, _, mfile = fn_ref(fn)
        files[_rel(mfile, top)] = mfile
        self.files = files
        manifest = []
        for rel in sorted(files):
            src = files[rel]
            if isinstance(src, bytes):
                manifest.append((rel, 0o644, hashlib.sha256(src).hexdigest()))
            else:
                mode = 0o755 if os.access(src, os.X_OK) else 0o644
                manifest.append((rel, mode, sha256(src)))
        manifest = tuple(manifest)
        self.ref = Ref(digest=_manifest_digest(manifest), manifest=manifest, top=str(top),
                       named=tuple(sorted(named.items())), module=module,
                       module_dir=str(Path(_rel(mfile, top)).parent), qemu=qemu_digest())
        self._tar = None

    def tar(self):
        """The bundle as an uncompressed tar (the kernel image and modules
        are compressed already), its files' times kept: a build's make
        rules compare them with their sources."""
        if self._tar is None:
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as t:
                for rel, mode, _ in self.ref.manifest:
                    src = self.files[rel]
                    data = src if isinstance(src, bytes) else Path(src).read_bytes()
                    info = tarfile.TarInfo(rel)
                    info.size, info.mode = len(data), mode
                    info.mtime = 0 if isinstance(src, bytes) else int(os.stat(src).st_mtime)
                    t.addfile(info, io.BytesIO(data))
            self._tar = buf.getvalue()
        return self._tar


# -- on the worker ------------------------------------------------------------------------
class Refused(Exception):
    """This worker cannot run the piece (the reason in the message)."""


_shared_ok = {}     # (path, size, mtime_ns) -> sha256, this process's


def shared(ref):
    """Whether this worker sees the coordinator's files: not told otherwise,
    and the files the pieces name and the kernel image are here with the
    bundle's contents."""
    if no_shared_fs() or not Path(ref.top).is_dir():
        return False
    want = {rel: sha for rel, _, sha in ref.manifest}
    from . import image
    # the kernel too: a shared home need not mean a shared /boot
    kernels = [(image.kernel_file(rel[len("kernel/vmlinuz-"):]), rel) for rel in want
               if rel.startswith("kernel/vmlinuz-")]
    for path, rel in list(ref.named) + kernels:
        try:
            st = os.stat(path)
        except OSError:
            return False
        k = (path, st.st_size, st.st_mtime_ns)
        if k not in _shared_ok:
            _shared_ok[k] = sha256(path)
        if _shared_ok[k] != want.get(rel):
            return False
    return True


def _locked(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    f = open(path, "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def have(ref):
    return (cache_root() / "bundles" / ref.digest / ".complete").is_file()


def unpack(ref, data):
    """The bundle's directory in this machine's cache: (dir, "cached") if it
    was there, (dir, "received") after unpacking data (the tar) and
    checking every file against ref's manifest; Refused if data is not the
    bundle asked for.  One worker process unpacks, the others wait."""
    root = cache_root() / "bundles"
    d = root / ref.digest
    with _locked(root / (ref.digest + ".lock")):
        if (d / ".complete").is_file():
            return d, "cached"
        if data is None:
            raise Refused("bundle %s is not in %s and was not sent" % (ref.digest[:12], root))
        tmp = root / (ref.digest + ".tmp%d" % os.getpid())
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            _extract(data, tmp)
            got = []
            for p in sorted(x for x in tmp.rglob("*") if x.is_file()):
                mode = 0o755 if os.access(p, os.X_OK) else 0o644
                got.append((str(p.relative_to(tmp)), mode, sha256(p)))
            got = tuple(sorted(got))
            if _manifest_digest(got) != ref.digest:
                bad = sorted(set(got) ^ set(ref.manifest))[:3]
                raise Refused("the bundle received is not %s (differs in %s)"
                              % (ref.digest[:12], ", ".join(x[0] for x in bad) or "?"))
            (tmp / ".complete").write_text(ref.digest + "\n")
            os.replace(tmp, d)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return d, "received"


def _extract(data, dest):
    """The tar's regular files under dest, nothing outside it (this
    Python's tarfile has no extraction filter yet)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as t:
        for m in t:
            parts = Path(m.name).parts
            if not m.isfile() or m.name.startswith("/") or ".." in parts or not parts:
                raise Refused("the bundle received holds %r" % m.name)
            out = dest.joinpath(*parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            with t.extractfile(m) as src, open(out, "wb") as f:
                shutil.copyfileobj(src, f)
            os.chmod(out, 0o755 if m.mode & 0o111 else 0o644)
            os.utime(out, (m.mtime, m.mtime))


def moved(piece, ref, d):
    """piece with its paths moved to this worker: the bundle's files to its
    copies, other paths (outputs) under $SMODEM_CACHE/out/."""
    from .runner import Piece
    named = dict(ref.named)
    out = cache_root() / "out"
    st = {}
    for k, v in piece.settings:
        if isinstance(v, str) and v.startswith("/") and not v.startswith(SYSTEM):
            v = str(d / named[v]) if v in named else str(out / _rel(v, ref.top))
        st[k] = v
    return Piece.make(piece.kind, piece.kernel, piece.key, **st)


def run(fn, piece, ref, data=None):
    """Run piece with fn ((module, name)) from its bundle, in a child
    Python: (result dict, host notes)."""
    mine = qemu_digest()
    if ref.qemu and mine != ref.qemu:
        raise Refused("%s's QEMU is not the coordinator's (%s, the coordinator's %s)"
                      % (os.uname().nodename, str(mine)[:12], ref.qemu[:12]))
    d, how = unpack(ref, data)
    p = moved(piece, ref, d)
    work = cache_root() / "out"
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SMODEM_BUNDLE=str(d), SMODEM_KERNEL_ROOT=str(d / "kernel"),
               PYTHONPATH=os.pathsep.join([str(d / ref.module_dir)]
                                          + [str(d / x) for x in CODE_PATH]))
    result = work / (".result-%d.json" % os.getpid())
    req = json.dumps({"module": fn[0], "name": fn[1], "piece": p.as_dict(),
                      "result": str(result)}, default=str)
    proc = subprocess.run([sys.executable, "-c", "from smlab import bundle; bundle.child()"],
                          input=req, text=True, env=env, cwd=str(work), capture_output=True,
                          preexec_fn=_die_with_parent)
    try:
        out = json.loads(result.read_text())
    except (OSError, ValueError):
        raise Refused("the piece's process ended (rc %s) without a result: %s"
                      % (proc.returncode, proc.stderr.strip()[-500:]))
    finally:
        result.unlink(missing_ok=True)
    if "raised" in out:
        from .runner import PieceFailed
        raise PieceFailed(out["raised"])
    return out["value"], {"bundle": ref.digest, "bundle_was": how,
                          "worker": os.uname().nodename}


def _die_with_parent():
    # a worker killed mid-piece takes its piece's process with it
    import ctypes
    import signal
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except OSError:
        pass


def child():
    """The piece's process: the code is the bundle's, or it says no."""
    req = json.loads(sys.stdin.read())
    res = Path(req["result"])
    try:
        import importlib
        d = Path(os.environ["SMODEM_BUNDLE"]).resolve()
        mod = importlib.import_module(req["module"])
        for m in (mod, sys.modules[__name__]):
            if d not in Path(m.__file__).resolve().parents:
                raise Refused("%s came from %s, not the bundle" % (m.__name__, m.__file__))
        from .runner import Piece
        pd = req["piece"]
        piece = Piece.make(pd["kind"], pd["kernel"], pd["key"], **pd["settings"])
        value = getattr(mod, req["name"])(piece)
        out = {"value": value}
    except Exception as e:  # noqa: BLE001: the coordinator judges it
        out = {"raised": "%s: %s" % (type(e).__name__, e)}
    res.write_text(json.dumps(out, default=str))
