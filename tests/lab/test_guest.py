"""Guest lab (tools/lab/smlab): real QEMU boots of the installed Debian
kernels (6.1 and 6.12, generic and PREEMPT_RT).  About three minutes in total
on TCG.

Cost: 8 guests, 1.8 min of wall time (1.6 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""

import json
import os
import secrets
import subprocess
import time
from pathlib import Path

import pytest

from smlab.guest import run_guest, available_kernels, module_path
from smlab.image import KernelModules, debian_kernels
from smlab.cpio import Cpio
from smlab.jack import jack_server

ROOT = Path(__file__).resolve().parents[2]

# 6.1 generic, 6.1 rt, 6.12 generic, 6.12 rt (KERNELS[0], the 6.1 generic
# flavour, is the one the single-kernel tests boot)
KERNELS = debian_kernels()
OUT = ROOT / "out" / "test-lab"


def procs_mentioning(text):
    """(pid, cmdline) of live processes whose command line contains text."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmd:
            found.append((int(pid), cmd))
    return found


def report(dat):
    p = subprocess.run(["trace-cmd", "report", "-i", str(dat)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


# -- no boot -----------------------------------------------------------------
def test_kernel_list_and_module_path():
    ks = available_kernels()
    assert len(KERNELS) == 4, "need 6.1 and 6.12, generic and rt: make deps (have %s)" % KERNELS
    assert KERNELS[0].startswith("6.1.") and "-rt-" not in KERNELS[0]
    for k in KERNELS:
        assert k in ks
    assert module_path("6.1.0-56-amd64") == "build/6.1.0-56-amd64/smodem.ko"


def test_kernel_root_and_its_command_line(tmp_path, monkeypatch):
    """A kernel root (SMODEM_KERNEL_ROOT) adds its kernels, and its
    cmdline-V file is what the lab appends to V's command line (the debug
    kernel's acpi=noirq); nothing for a kernel of another root or none."""
    from smlab import image
    for r, v, args in ((tmp_path / "a", "9.9.9-a", "acpi=noirq\n"), (tmp_path / "b", "9.9.9-b", None)):
        (r / "lib/modules" / v).mkdir(parents=True)
        (r / "lib/modules" / v / "modules.dep").write_text("")
        (r / ("vmlinuz-" + v)).write_bytes(b"")
        if args:
            (r / ("cmdline-" + v)).write_text(args)
    monkeypatch.setenv("SMODEM_KERNEL_ROOT", "%s:%s" % (tmp_path / "a", tmp_path / "b"))
    assert {"9.9.9-a", "9.9.9-b"} <= set(available_kernels())
    assert image.kernel_file("9.9.9-b") == str(tmp_path / "b/vmlinuz-9.9.9-b")
    assert image.kernel_cmdline("9.9.9-a") == "acpi=noirq"
    assert image.kernel_cmdline("9.9.9-b") == ""
    assert image.kernel_cmdline(KERNELS[0]) == ""


def test_guest_tools_built_by_threads_at_once(tmp_path, monkeypatch):
    """make study starts JOBS guests at once on a fresh tree: every thread
    must get the guest's static tools (two once shared a temporary name)."""
    import threading
    import smlab.image as im
    monkeypatch.setattr(im, "GUEST_BIN", tmp_path)
    errors, got = [], []

    def build():
        try:
            got.append(im.build_guest_tools())
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 4
    for tools in got:
        for path in tools.values():
            assert os.access(path, os.X_OK), path


@pytest.mark.parametrize("kver", KERNELS)
def test_9p_modules_in_dependency_order(kver):
    km = KernelModules(kver)
    order = km.resolve(["virtio_pci", "9pnet_virtio", "9p"])
    names = [km.modname(m) for m in order]
    assert names[-1] == "9p"
    for i, m in enumerate(order):
        for dep in km.dep[m]:
            assert dep in order[:i], "%s before its dependency %s" % (m, dep)
    with pytest.raises(ValueError):
        km.resolve(["no_such_module_smlab"])


def test_cpio_is_readable_by_cpio_tool(tmp_path):
    c = Cpio()
    c.file("etc/x/hello", "hi\n", 0o644)
    c.symlink("bin/sh", "/bin/busybox")
    c.chardev("dev/console", 5, 1)
    p = subprocess.run(["cpio", "-itv"], input=c.bytes(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=10)
    listing = p.stdout.decode()
    assert p.returncode == 0, p.stderr
    for name in ("etc/x/hello", "bin/sh -> /bin/busybox", "dev/console"):
        assert name in listing
    assert listing.splitlines()[0].startswith("d")   # parent dir created first


# -- boots -----------------------------------------------------------------------
GUEST_SCRIPT = r"""
cat /share/host2guest.txt > /share/guest2host.txt || exit 10
echo "kernel $(uname -r)" >> /share/guest2host.txt
lspci -n > /share/lspci.txt
echo "[guest] cyclictest"
cyclictest -m -p 95 -i 1000 -l 500 -q -h 2000 --json=/share/cyclic.json > /share/cyclic.txt || exit 11
echo "[guest] 12.50 trace-cmd"
trace-cmd record -e sched:sched_switch -o /tmp/rec.dat sleep 0.3 || exit 12
cp /tmp/rec.dat /share/rec.dat
trace-cmd start -e sched:sched_switch || exit 13
sleep 0.3
trace-cmd stop
trace-cmd extract -o /share/ext.dat || exit 14
ls /opt/smodem > /share/opt.txt
echo done-before-exit
exit 3
"""


@pytest.fixture(scope="module", params=KERNELS)
def booted(request, tmp_path_factory):
    kver = request.param
    out = OUT / ("boot-" + kver)
    out.mkdir(parents=True, exist_ok=True)
    for f in out.iterdir():
        if f.is_file():
            f.unlink()
    token = secrets.token_hex(8)
    (out / "host2guest.txt").write_text(token + "\n")
    # a stand-in "module" to check the /opt/smodem copy (never loaded)
    fake = tmp_path_factory.mktemp("mod") / "fake.ko"
    fake.write_bytes(b"not a module\n")
    res = run_guest(kver, GUEST_SCRIPT, str(out), modules=[str(fake)],
                    timeout_s=150, progress=True)
    return kver, res, token, out


def test_guest_rc_propagated(booted):
    kver, res, _, out = booted
    assert not res.timed_out
    assert res.rc == 3, res.console_text()[-2000:]
    assert not res.ok
    assert "done-before-exit" in res.log()
    assert "done-before-exit" in res.console_text()
    assert res.kvm is False
    print("%s: boot %.1f s wall (%.2f s guest), total %.1f s"
          % (kver, res.boot_s, res.guest_boot_s, res.wall_s))


def test_steps_costed(booted):
    """The script's progress lines split QEMU's CPU and the wall time into
    steps (make check's costliest-steps table): the guest's uptime in front
    of a step's name is not part of it."""
    _, res, _, _ = booted
    names = [s["section"] for s in res.sections]
    assert names == ["(script start)", "cyclictest", "trace-cmd"], res.sections
    for s in res.sections:
        assert s["wall_s"] >= 0 and s["cpu_s"] is not None and s["cpu_s"] >= 0, s


def test_share_both_ways(booted):
    kver, res, token, out = booted
    text = (out / "guest2host.txt").read_text()
    assert text.splitlines() == [token, "kernel " + kver]
    assert (out / "opt.txt").read_text().split() == ["fake.ko"]


def test_ac97_present(booted):
    _, _, _, out = booted
    lines = (out / "lspci.txt").read_text().splitlines()
    assert any(" 0401: 8086:2415" in l and l.startswith("00:04.0") for l in lines), lines


def test_cyclictest_ran(booted):
    """Its --json summary (what the comparison reads) reaches the 9p share."""
    _, _, _, out = booted
    th = json.loads((out / "cyclic.json").read_text())["thread"]["0"]
    assert th["cycles"] == 500, th
    assert 0 < th["min"] <= th["avg"] <= th["max"], th
    hist = {int(k): v for k, v in th["histogram"].items()}
    assert sum(hist.values()) <= 500 and min(hist) == th["min"], th


def test_trace_record_and_extract(booted):
    _, _, _, out = booted
    for name in ("rec.dat", "ext.dat"):
        text = report(out / name)
        assert text.count("sched_switch:") >= 2, text[:2000]


def test_hang_is_killed_at_timeout():
    kver = KERNELS[0]
    out = OUT / "hang"
    script = "lspci -n > /share/lspci.txt\necho spinning\nwhile :; do :; done\n"
    t = time.monotonic()
    # long enough for a boot on a busy machine (make check runs two guests
    # at once) to reach the loop
    res = run_guest(kver, script, str(out), audio="none", timeout_s=40)
    took = time.monotonic() - t
    assert res.timed_out
    assert res.rc is None
    assert not res.ok
    assert took < 40 + 12, took
    assert "spinning" in res.console_text()
    assert procs_mentioning(str(out)) == []
    # audio="none": no AC'97 on the bus
    assert "8086:2415" not in (out / "lspci.txt").read_text()


def test_virtual_clock_is_deterministic():
    """Two identical boots in deferred-share mode give identical cyclictest
    figures, guest time, random pool and dmesg (timestamps included).  The
    last two were once only reported: the boot-time TSC refinement had come
    out 1 ppm apart (999.999 vs 1000.000 MHz) on a loaded host, which
    QEMU's warp race can explain (ICOUNT in smlab/guest.py)."""
    kver = KERNELS[0]
    script = ("cyclictest -m -p 95 -i 1000 -l 1000 -q > /share/c.txt\n"
              "head -c 16 /dev/urandom | xxd -p > /share/rand.txt\n"
              "cat /proc/uptime > /share/up.txt\n")
    outs = []
    for i in range(2):
        out = OUT / ("det-%d" % i)
        res = run_guest(kver, script, str(out), share="deferred", timeout_s=120)
        assert res.ok, res.console_text()[-2000:]
        outs.append(out)
    for name in ("c.txt", "up.txt", "rand.txt", "dmesg.log"):
        a, b = [(o / name).read_text() for o in outs]
        assert a and a == b, name


def test_real_clock_jack_ports_appear():
    kver = KERNELS[0]
    out = OUT / "jack"
    seen = {}

    def during(res, js):
        seen["ports"] = js.wait_ports(r"qemu:", count=4, timeout_s=20)
        seen["server"] = js.name

    with jack_server() as js:
        res = run_guest(kver, "lspci -n; sleep 4", str(out), clock="real", jack=js,
                        timeout_s=90, on_running=during)
        assert js.running()
    assert res.ok, res.console_text()[-2000:]
    assert sorted(seen["ports"]) == ["in-qemu:input 0", "in-qemu:input 1",
                                     "out-qemu:output 0", "out-qemu:output 1"]
    assert "8086:2415" in res.log()
    assert procs_mentioning(seen["server"]) == []
    assert procs_mentioning(str(out)) == []
