"""Guest images: kernels, cached base initramfs, per-run archive."""

import fcntl
import glob
import hashlib
import lzma
import os
import re
import subprocess
from pathlib import Path

from .cpio import Cpio

ROOT = Path(__file__).resolve().parents[3]
BUILD = ROOT / "build"
GUEST_SRC = ROOT / "tools" / "guest"
GUEST_BIN = BUILD / "guest"

# bump when the layout of the base image changes
IMAGE_VERSION = 3

BUSYBOX = "/bin/busybox"
DYN_TOOLS = ["/usr/bin/trace-cmd", "/usr/bin/cyclictest"]
TRACEEVENT_PLUGINS = "/usr/lib/x86_64-linux-gnu/traceevent/plugins"
GUEST_C_TOOLS = ["spin", "fifohog"]
# what /init needs to mount the share; dependencies come from modules.dep
BASE_KMODS = ["virtio_pci", "9pnet_virtio", "9p"]


def kernel_roots():
    """Directories holding vmlinuz-V and lib/modules/V besides the installed
    kernels (/boot, /lib/modules): SMODEM_KERNEL_ROOT, colon-separated (e.g.
    the debug kernel's cache, tools/lab/debug-kernel.sh dir)."""
    return [d for d in os.environ.get("SMODEM_KERNEL_ROOT", "").split(":") if d]


def _kernels_in(boot, mods):
    out = {}
    for p in sorted(glob.glob(os.path.join(boot, "vmlinuz-*"))):
        ver = os.path.basename(p)[len("vmlinuz-"):]
        if os.path.isfile(os.path.join(mods, ver, "modules.dep")):
            out[ver] = (p, os.path.join(mods, ver))
    return out


def bundled():
    """Whether this process runs a piece from a bundle (smlab/bundle.py):
    its kernels are the bundle's kernel root's only, its base initramfs the
    bundle's as built on the coordinator."""
    return bool(os.environ.get("SMODEM_BUNDLE"))


def _kernels():
    """{kver: (vmlinuz, modules dir)}: the roots' (the first root wins), and
    the installed kernels over them (not in a bundle)."""
    found = {}
    for r in reversed(kernel_roots()):
        found.update(_kernels_in(r, os.path.join(r, "lib", "modules")))
    if not bundled():
        found.update(_kernels_in("/boot", "/lib/modules"))
    return found


def kernel_cmdline(kver):
    """What a kernel root asks the lab to add to kver's command line (its
    cmdline-V file, e.g. the debug kernel's acpi=noirq), or ""."""
    for r in kernel_roots():
        f = os.path.join(r, "cmdline-" + kver)
        if os.path.isfile(os.path.join(r, "vmlinuz-" + kver)) and os.path.isfile(f):
            with open(f) as fh:
                return " ".join(fh.read().split())
    return ""


def kernel_file(kver):
    """/boot/vmlinuz-V, or a kernel root's vmlinuz-V."""
    return _kernels().get(kver, ("/boot/vmlinuz-" + kver, None))[0]


def modules_dir(kver):
    """/lib/modules/V, or a kernel root's lib/modules/V."""
    return _kernels().get(kver, (None, "/lib/modules/" + kver))[1]


def available_kernels():
    """Kernels usable as guests: /boot/vmlinuz-V with /lib/modules/V (Debian's),
    and those of kernel_roots()."""
    return sorted(_kernels())


def default_kernel():
    """The 6.1 generic flavour (the Makefile's KVER_GEN), None if not installed."""
    return next((k for k in sorted(_kernels_in("/boot", "/lib/modules"))
                 if k.startswith("6.1.") and "-rt-" not in k), None)


# The name tests use at import when no 6.1 kernel is installed: collection
# still works, and the tests that need the kernel fail naming it (make deps).
MISSING_KERNEL = "6.1.0-0-amd64"


def default_kernel_name():
    """default_kernel(), or MISSING_KERNEL."""
    return default_kernel() or MISSING_KERNEL


# Debian bookworm's kernel series the lab boots (tools/lab/packages.txt):
# 6.1 (6.1.0-N-amd64) and the backports-style 6.12 (6.12.M+debN-amd64), each
# generic (PREEMPT_DYNAMIC) and PREEMPT_RT (-rt-amd64).
DEBIAN_SERIES = ("6.1", "6.12")


def debian_kernels(series=DEBIAN_SERIES):
    """Debian's installed kernels of each series, the generic flavour before
    the PREEMPT_RT one: [6.1 generic, 6.1 rt, 6.12 generic, 6.12 rt] once
    make deps has installed them all (missing ones are left out)."""
    have = sorted(_kernels_in("/boot", "/lib/modules"))
    out = []
    for s in series:
        pat = re.escape(s) + r"\.\d+[-+]\S*-amd64$"
        mine = [k for k in have if re.match(pat, k)]
        out += [k for k in mine if "-rt-" not in k][:1]
        out += [k for k in mine if k.endswith("-rt-amd64")][:1]
    return out


def module_path(kver):
    """Where the top-level Makefile builds smodem.ko for kernel kver."""
    return str(Path("build") / kver / "smodem.ko")


def _norm(name):
    return name.replace("-", "_")


class KernelModules:
    """modules.dep / modules.builtin of one installed kernel."""

    def __init__(self, kver):
        self.kver = kver
        self.base = Path(modules_dir(kver))
        self.dep = {}
        self.byname = {}
        with open(self.base / "modules.dep") as f:
            for line in f:
                if ":" not in line:
                    continue
                mod, deps = line.split(":", 1)
                mod = mod.strip()
                self.dep[mod] = deps.split()
                self.byname[_norm(self.modname(mod))] = mod
        self.builtin = set()
        bpath = self.base / "modules.builtin"
        if bpath.exists():
            for line in bpath.read_text().split():
                self.builtin.add(_norm(self.modname(line)))

    @staticmethod
    def modname(path):
        return re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", os.path.basename(path))

    def resolve(self, names):
        """Module files (relative to /lib/modules/V) in load order."""
        order, seen = [], set()

        def visit(mod):
            if mod in seen:
                return
            seen.add(mod)
            for d in self.dep.get(mod, []):
                visit(d)
            order.append(mod)

        for name in names:
            n = _norm(name)
            if n in self.builtin:
                continue
            if n not in self.byname:
                raise ValueError("kernel %s has no module %s" % (self.kver, name))
            visit(self.byname[n])
        return order

    def read(self, rel):
        """Uncompressed contents of a module file (busybox insmod wants .ko)."""
        path = self.base / rel
        data = path.read_bytes()
        if rel.endswith(".xz"):
            return lzma.decompress(data)
        if rel.endswith(".zst"):
            return subprocess.run(["zstd", "-dc", str(path)], check=True,
                                  stdout=subprocess.PIPE).stdout
        if rel.endswith(".gz"):
            import gzip
            return gzip.decompress(data)
        return data


def add_kmods(cpio, km, names, listpath, dirpath):
    """Put modules for names (with dependencies) and their load list."""
    lines = []
    for i, rel in enumerate(km.resolve(names)):
        dest = "%s/%02d-%s.ko" % (dirpath, i, km.modname(rel))
        cpio.file(dest, km.read(rel))
        lines.append(dest)
    cpio.file(listpath, "".join(l + "\n" for l in lines))
    return lines


# -- dynamic executables ------------------------------------------------------
def ldd(path):
    out = subprocess.run(["ldd", path], check=True, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    libs = []
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"\S+ => (/\S+) \(", line)
        if m:
            libs.append(m.group(1))
            continue
        m = re.match(r"(/\S+) \(", line)
        if m:
            libs.append(m.group(1))
    return libs


def _add_lib(cpio, lib):
    # keep the path the loader will look for; store the resolved contents
    if not cpio.exists(lib):
        cpio.host_file(lib, os.path.realpath(lib), 0o755)


# -- guest helper programs -------------------------------------------------
def build_guest_tools(progress=None):
    """Compile tools/guest/*.c statically into build/guest/."""
    GUEST_BIN.mkdir(parents=True, exist_ok=True)
    out = {}
    # one compiler at a time, threads of one process too (a study's JOBS
    # guests start together on a fresh tree: two threads once shared a
    # .tmp<pid> name and one lost its file)
    with _locked(GUEST_BIN / ".lock"):
        for name in GUEST_C_TOOLS:
            src = GUEST_SRC / (name + ".c")
            dst = GUEST_BIN / name
            if not dst.exists() or dst.stat().st_mtime_ns < src.stat().st_mtime_ns:
                if progress:
                    progress("compiling %s" % src.relative_to(ROOT))
                tmp = str(dst) + ".tmp%d" % os.getpid()
                subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra",
                                "-Werror", "-s", "-o", tmp, str(src)], check=True)
                os.replace(tmp, dst)
            out[name] = dst
    return out


# -- base image --------------------------------------------------------------
def _inputs(kver):
    files = [BUSYBOX, __file__, str(Path(__file__).with_name("cpio.py")),
             str(GUEST_SRC / "init.sh"), str(GUEST_SRC / "lspci.sh"),
             os.path.join(modules_dir(kver), "modules.dep")]
    files += [str(GUEST_SRC / (n + ".c")) for n in GUEST_C_TOOLS]
    for exe in DYN_TOOLS:
        files.append(exe)
        files += ldd(exe)
    files += sorted(glob.glob(TRACEEVENT_PLUGINS + "/*.so"))
    return files


def _key(kver):
    h = hashlib.sha256()
    h.update(("v%d %s\n" % (IMAGE_VERSION, kver)).encode())
    for f in _inputs(kver):
        st = os.stat(f)
        h.update(("%s %d %d\n" % (f, st.st_size, st.st_mtime_ns)).encode())
    return h.hexdigest()


def _build_base(kver, tools):
    c = Cpio()
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "etc/smlab", "proc", "sys",
              "dev", "tmp", "root", "mnt", "opt/smodem", "share", "run", "var/tmp"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    c.chardev("dev/null", 1, 3, 0o666)
    c.chardev("dev/ttyS0", 4, 64)
    c.host_file("bin/busybox", BUSYBOX, 0o755)
    applets = subprocess.run([BUSYBOX, "--list-full"], check=True,
                             stdout=subprocess.PIPE,
                             universal_newlines=True).stdout.split()
    for a in applets:
        if a.endswith("/lspci") or c.exists(a):
            continue
        c.symlink(a, "/bin/busybox")
    if not c.exists("bin/sh"):
        c.symlink("bin/sh", "/bin/busybox")
    c.host_file("init", str(GUEST_SRC / "init.sh"), 0o755)
    c.host_file("usr/bin/lspci", str(GUEST_SRC / "lspci.sh"), 0o755)
    for name, path in tools.items():
        c.host_file("usr/bin/" + name, str(path), 0o755)
    for exe in DYN_TOOLS:
        c.host_file(exe, exe, 0o755)
        for lib in ldd(exe):
            _add_lib(c, lib)
    for plugin in sorted(glob.glob(TRACEEVENT_PLUGINS + "/*.so")):
        c.host_file(plugin, plugin, 0o755)
        for lib in ldd(plugin):
            _add_lib(c, lib)
    c.file("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    c.file("etc/group", "root:x:0:\n")
    c.file("etc/smlab/kver", kver + "\n")
    km = KernelModules(kver)
    add_kmods(c, km, BASE_KMODS, "etc/smlab/kmods.base", "lib/modules/smlab")
    return c.bytes()


def _locked(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    f = open(path, "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def base_initramfs(kver, progress=None):
    """Path of the cached base image for kver, rebuilt when inputs change."""
    d = BUILD / "initramfs" / kver
    img, keyf = d / "base.cpio", d / "base.key"
    if bundled():
        # the coordinator's, by digest: its inputs (busybox, trace-cmd and
        # their libraries) need not be on this machine
        return img
    tools = build_guest_tools(progress)
    with _locked(d / ".lock"):
        key = _key(kver)
        if img.exists() and keyf.exists() and keyf.read_text().strip() == key:
            return img
        if progress:
            progress("building initramfs for %s" % kver)
        data = _build_base(kver, tools)
        tmp = d / ("base.cpio.tmp%d" % os.getpid())
        tmp.write_bytes(data)
        os.replace(tmp, img)
        keyf.write_text(key + "\n")
    return img


# -- kernel ---------------------------------------------------------------------
def _decompress_vmlinux(bz):
    """The ELF vmlinux inside a bzImage (xz or zstd payload)."""
    data = Path(bz).read_bytes()
    pos = data.find(b"\xfd7zXZ\x00")
    if pos >= 0:
        d = lzma.LZMADecompressor()
        try:
            out = d.decompress(data[pos:])
        except lzma.LZMAError:
            out = None
        if out and out[:4] == b"\x7fELF":
            return out
    pos = data.find(b"\x28\xb5\x2f\xfd")
    while pos >= 0:
        p = subprocess.run(["zstd", "-dc"], input=data[pos:],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.stdout[:4] == b"\x7fELF":
            return p.stdout
        pos = data.find(b"\x28\xb5\x2f\xfd", pos + 1)
    return None


def kernel_image(kver, boot="vmlinux", progress=None):
    """Kernel file to give QEMU: the extracted ELF vmlinux (PVH entry, skips
    the decompressor, which is slow under TCG) or the bzImage itself.
    SMODEM_GUEST_BOOT=bzimage forces the latter (the debug kernel: KASAN's
    early shadow is not there yet at the PVH entry, it triple-faults)."""
    bz = kernel_file(kver)
    if boot == "bzimage" or os.environ.get("SMODEM_GUEST_BOOT") == "bzimage":
        return bz
    d = BUILD / "initramfs" / kver
    out, keyf = d / "vmlinux", d / "vmlinux.key"
    st = os.stat(bz)
    key = "%d %d" % (st.st_size, st.st_mtime_ns)
    with _locked(d / ".lock-vmlinux"):
        if out.exists() and keyf.exists() and keyf.read_text().strip() == key:
            return str(out)
        if progress:
            progress("extracting vmlinux from %s" % bz)
        elf = _decompress_vmlinux(bz)
        if elf is None:
            return bz
        tmp = d / ("vmlinux.tmp%d" % os.getpid())
        tmp.write_bytes(elf)
        os.replace(tmp, out)
        keyf.write_text(key + "\n")
    return str(out)


# -- per-run archive -------------------------------------------------------------
def run_archive(kver, script, modules=(), kmods=(), share="live", extra_files=None,
                env=None):
    c = Cpio()
    conf = ["SMLAB_SHARE=%s" % share]
    for k, v in sorted((env or {}).items()):
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k):
            raise ValueError("bad env name %r" % k)
        conf.append("export %s='%s'" % (k, str(v).replace("'", "'\\''")))
    c.file("etc/smlab/run.conf", "\n".join(conf) + "\n")
    c.file("etc/smlab/script.sh", script, 0o755)
    for m in modules:
        c.host_file("opt/smodem/" + os.path.basename(m), m, 0o644)
    if kmods:
        add_kmods(c, KernelModules(kver), kmods, "etc/smlab/kmods.run",
                  "lib/modules/smlab-run")
    for dest, src in sorted((extra_files or {}).items()):
        c.host_file(dest, src)
    return c.bytes()
