"""smodem installs like a driver: `make deb` builds smodem-dkms, which is
installed with dpkg into a clean Debian 12 (debootstrap --variant=minbase,
plus dkms and the headers of the lab's 6.1 generic and PREEMPT_RT kernels,
from the mirror apt uses here); its postinst has DKMS build and install the
module for both flavours, and each DKMS-built smodem.ko is then loaded in a
guest booting that very kernel (tests/install/install_checks.sh).

The base chroot (debootstrap + dkms + headers, before our package) is cached
as a directory in SMODEM_CHROOT_CACHE (default /var/cache/smodem), keyed on
the suite, the apt sources and the package list (a new kernel ABI or mirror
makes a new one), and never written again: the package goes into an overlay
on it, mounted in a mount namespace of its own, so nothing outlives the test
and a warm run copies nothing.  Needs root (chroot, unshare), debootstrap and the network the
first time.  Wall times of each phase: out/tests/install/times.json.

Cost: 2 guests, 0.2 min of wall time (0.2 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_modinfo import declared_params, modinfo, parm_descs, source_version

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests" / "module"))
import guestboot  # noqa: E402
from smlab.guest import available_kernels  # noqa: E402

OUT = TOP / "out" / "tests" / "install"
WORK = TOP / "build" / "install-test"
CACHE = Path(os.environ.get("SMODEM_CHROOT_CACHE", "/var/cache/smodem"))
SUITE = "bookworm"
CHROOT_ENV = "export LC_ALL=C DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin; "


def flavours():
    """The 6.1 generic and PREEMPT_RT kernels the lab boots."""
    have = available_kernels()
    return ([k for k in have if re.match(r"6\.1\.\d+-\d+-amd64$", k)][:1] +
            [k for k in have if re.match(r"6\.1\.\d+-\d+-rt-amd64$", k)][:1])


FLAVOURS = flavours()


def apt_sources():
    """deb lines for SUITE and its updates/security suites, from this
    machine's apt sources (one-line and deb822 files alike)."""
    lines = []
    for f in [Path("/etc/apt/sources.list")] + sorted(Path("/etc/apt/sources.list.d").glob("*")):
        if not f.is_file():
            continue
        text = f.read_text()
        if f.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                kv = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
                if "deb" not in kv.get("Types", "").split():
                    continue
                for uri in kv.get("URIs", "").split():
                    for suite in kv.get("Suites", "").split():
                        lines.append((uri, suite, kv.get("Components", "main")))
        else:
            for m in re.finditer(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)$", text, re.M):
                lines.append(m.groups())
    ours = [(u.rstrip("/"), s, c) for u, s, c in lines
            if s == SUITE or s.startswith(SUITE + "-")]
    assert any(s == SUITE for _, s, _ in ours), "no apt source for %s here" % SUITE
    return ours


def mirror(sources):
    return [u for u, s, _ in sources if s == SUITE][0]


def packages():
    return ["dkms"] + ["linux-headers-%s" % k for k in FLAVOURS]


def host_kernel_version(kver):
    """The Debian version of the installed image of kver (signed or not)."""
    for pkg in ("linux-image-%s" % kver, "linux-image-%s-unsigned" % kver):
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout:
            return r.stdout
    return None


# In its own mount and pid namespaces, so that nothing stays mounted or
# running afterwards: with $4 given, the chroot is an overlay of the cached
# base ($1, never written) and an upper directory ($2); always a /proc of its own.
NAMESPACED = """set -e
root=$1
if [ -n "$2" ]; then
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4"
	root=$4
fi
mount -t proc proc "$root/proc"
exec chroot "$root" /bin/sh -c "$5"
"""


class Chroot:
    """A chroot at base, or an overlay on it (upper/work/merged in WORK)."""

    def __init__(self, base, overlay=False):
        self.base = base
        self.dirs = ["", "", ""]
        if overlay:
            self.dirs = [str(WORK / d) for d in ("upper", "work", "root")]
            for d in self.dirs:
                Path(d).mkdir(parents=True)

    def written(self, path):
        """Where a file the chroot wrote at path lies on this side."""
        return Path(self.dirs[0] or self.base) / path.lstrip("/")

    def run(self, cmd, log=None, timeout=1800):
        argv = (["unshare", "--mount", "--pid", "--fork", "--kill-child",
                 "sh", "-c", NAMESPACED, "sh", str(self.base)] + self.dirs +
                [CHROOT_ENV + cmd])
        if log is None:
            return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, timeout=timeout).stdout
        with open(log, "a") as f:
            f.write("### %s\n" % cmd)
            f.flush()
            return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode


def make_base(base, sources, log):
    """debootstrap, dkms and the headers into base, which appears whole or
    not at all."""
    tmp = base.with_name(base.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    with open(log, "a") as f:
        subprocess.run(["nice", "debootstrap", "--variant=minbase", SUITE, str(tmp),
                        mirror(sources)], stdout=f, stderr=subprocess.STDOUT,
                       check=True, timeout=1800)
    (tmp / "etc/apt/sources.list").write_text(
        "".join("deb %s %s %s\n" % x for x in sources))
    shutil.copy("/etc/resolv.conf", tmp / "etc/resolv.conf")
    rc = tmp / "usr/sbin/policy-rc.d"
    rc.write_text("#!/bin/sh\nexit 101\n")
    rc.chmod(0o755)
    assert Chroot(tmp).run("apt-get update -qq && INITRD=No nice apt-get install -y -q "
                           "--no-install-recommends %s && apt-get clean" %
                           " ".join(packages()), log) == 0, \
        "apt-get in the chroot failed, see %s" % log
    tmp.rename(base)


@pytest.fixture(scope="module")
def installed():
    """The package installed in a clean chroot; returns a dict of what the
    tests judge.  The chroot is removed afterwards."""
    assert os.geteuid() == 0, "needs root (chroot, mount)"
    assert len(FLAVOURS) == 2, "need the 6.1 generic and rt kernels: make deps"
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    log = OUT / "chroot.log"
    times = {}

    t = time.monotonic()
    with open(OUT / "deb.log", "w") as f:
        subprocess.run(["nice", "make", "-s", "--no-print-directory", "deb"], cwd=TOP,
                       stdout=f, stderr=subprocess.STDOUT, check=True, timeout=900)
    debs = sorted((TOP / "build/deb").glob("smodem-dkms_*_all.deb"))
    assert len(debs) == 1, debs
    times["make deb"] = time.monotonic() - t

    sources = apt_sources()
    key = hashlib.sha256(json.dumps([SUITE, "minbase", sources, packages()]).encode())
    CACHE.mkdir(parents=True, exist_ok=True)
    base = CACHE / ("chroot-%s-%s" % (SUITE, key.hexdigest()[:16]))
    shutil.rmtree(WORK, ignore_errors=True)
    try:
        if not base.exists():
            t = time.monotonic()
            make_base(base, sources, log)
            times["base chroot (debootstrap, apt-get)"] = time.monotonic() - t
        root = Chroot(base, overlay=True)
        tmp = root.written("/tmp")
        tmp.mkdir(mode=0o1777)
        tmp.chmod(0o1777)
        shutil.copy(debs[0], tmp)

        t = time.monotonic()
        rc = root.run("nice dpkg -i /tmp/%s" % debs[0].name, log)
        times["dpkg -i (DKMS builds %d flavours)" % len(FLAVOURS)] = time.monotonic() - t
        res = {"deb": debs[0], "dpkg_rc": rc, "log": log.read_text(), "kos": {},
               "status": root.run("dkms status"),
               "headers": {k: root.run("dpkg-query -W -f '${Version}' "
                                       "linux-headers-%s" % k) for k in FLAVOURS}}
        for k in FLAVOURS:
            # out through /tmp, a directory of the upper layer (/lib is a
            # link into /usr there)
            root.run("mkdir -p /tmp/out/%s && cp /lib/modules/%s/updates/dkms/smodem.ko "
                     "/tmp/out/%s/" % (k, k, k))
            ko = root.written("/tmp/out/%s/smodem.ko" % k)
            if ko.is_file():
                (OUT / k).mkdir()
                res["kos"][k] = Path(shutil.copy(ko, OUT / k / "smodem.ko"))
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    res["times"] = times
    (OUT / "times.json").write_text(json.dumps(times, indent=1) + "\n")
    print("install test wall times (s): %s" % json.dumps(times))
    return res


def test_dpkg_install_builds_the_module(installed):
    assert installed["dpkg_rc"] == 0, installed["log"][-3000:]
    assert "Building for %s" % " and ".join(FLAVOURS) in installed["log"]


@pytest.mark.parametrize("kver", FLAVOURS)
def test_dkms_status_installed(installed, kver):
    assert re.search(r"^smodem/%s, %s, x86_64: installed$" % (
        re.escape(source_version()), re.escape(kver)), installed["status"], re.M), \
        installed["status"]
    assert kver in installed["kos"], "no /lib/modules/%s/updates/dkms/smodem.ko" % kver


@pytest.mark.parametrize("kver", FLAVOURS)
def test_headers_are_the_guest_kernels(installed, kver):
    """The chroot's headers come from the same Debian upload as the kernel
    the guest boots, so the module's vermagic and symbol CRCs are its."""
    assert installed["headers"][kver] == host_kernel_version(kver)


def intree_vermagic(kver):
    for ko in sorted(Path("/lib/modules", kver, "kernel/drivers").rglob("*.ko*")):
        return subprocess.run(["/sbin/modinfo", "-F", "vermagic", str(ko)],
                              capture_output=True, text=True, check=True).stdout.strip()
    raise AssertionError("no in-tree module of %s" % kver)


@pytest.mark.parametrize("kver", FLAVOURS)
def test_modinfo_of_the_dkms_module(installed, kver):
    info = modinfo(installed["kos"][kver])
    assert info["vermagic"] == [intree_vermagic(kver)]
    assert info["version"] == [source_version()]
    descs = parm_descs(info)
    assert set(descs) == set(declared_params())
    assert all(descs.values()), descs


@pytest.mark.parametrize("kver", FLAVOURS)
def test_guest_loads_the_dkms_module(installed, kver):
    out = guestboot.fresh_dir(OUT / kver / "guest")
    t = time.monotonic()
    res = guestboot.run_checks(kver, "../../install/install_checks.sh", out, audio="ac97",
                               extra_files={"opt/smodem/smodem.ko": str(installed["kos"][kver])},
                               timeout_s=300)
    print("guest %s: %.0f s wall" % (kver, time.monotonic() - t))

    def read(name):
        return (res / name).read_text().strip()
    assert read("insmod.rc") == "0", read("dmesg.txt")
    assert read("ttySM0") == "yes"
    assert read("version") == source_version()
    assert set(read("parameters").split()) == set(declared_params())
    # busybox's modinfo in the guest reads the same file
    assert read("modinfo.rc") == "0"
    bb = read("modinfo.txt")
    assert re.search(r"^version:\s+%s$" % re.escape(source_version()), bb, re.M), bb
    assert read("rmmod.rc") == "0"
    assert read("loaded-after") == "0"
    dmesg = read("dmesg.txt")
    assert not guestboot.BAD_DMESG.search(dmesg), dmesg
