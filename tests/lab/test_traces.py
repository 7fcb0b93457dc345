"""The tools people open these traces with: kernelshark (Debian's 2.2.1) on
a trace.dat recorded from the module in a guest, headless
(tools/traces/kshark_shot.py: Xvfb, a screenshot of its window).  One
guest boot and three kernelshark starts, about a minute.

Cost: 1 guest, 0.2 min of wall time (0.1 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smlab.guest import run_guest, module_path
from smlab.image import default_kernel_name

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "traces" / "kshark_shot.py"
KERNEL = default_kernel_name()
OUT = ROOT / "out" / "test-traces"

# the module in a thread, as the comparison records it (trace-cmd start /
# extract: record's reader is slow under TCG)
SCRIPT = r"""
insmod /opt/smodem/smodem.ko context=thr hw=ac97 load_us=1840 || exit 20
trace-cmd start -e smodem -b 4096 > /dev/null 2>&1 || exit 21
sleep 1
trace-cmd stop
trace-cmd extract -o /share/trace.dat > /dev/null 2>&1 || exit 22
rmmod smodem || exit 23
"""

def test_tools_installed():
    """make deps installs them (tools/lab/packages.d/traces.txt)."""
    missing = [t for t in ("kernelshark", "Xvfb", "xdotool", "import") if not shutil.which(t)]
    assert not missing, "missing %s: make deps" % " ".join(missing)


@pytest.fixture(scope="module")
def guest_trace():
    built = ROOT / module_path(KERNEL)
    if not built.exists():
        subprocess.run(["make", "-C", str(ROOT), "module", "KVER=" + KERNEL],
                       check=True, timeout=300)
    OUT.mkdir(parents=True, exist_ok=True)
    # a copy: the tree may be rebuilt while the test runs
    ko = OUT / "smodem.ko"
    shutil.copyfile(built, ko)
    res = run_guest(KERNEL, SCRIPT, str(OUT / "guest"), modules=[str(ko)],
                    clock="virtual", share="deferred", timeout_s=240, progress=False)
    assert res.ok, (res.rc, res.console_text()[-2000:])
    dat = OUT / "guest" / "trace.dat"
    assert dat.stat().st_size > 0
    return dat


def shot(*args):
    p = subprocess.run([sys.executable, str(TOOL)] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=240)
    print(p.stdout, p.stderr)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    return p.returncode, (json.loads(lines[-1]) if lines else None)


def no_leftovers():
    """Neither kernelshark nor an Xvfb of ours is left running."""
    return [l for l in subprocess.run(["ps", "-eo", "pid,stat,args"], stdout=subprocess.PIPE,
                                      universal_newlines=True).stdout.splitlines()
            if "kshark-" in l and "Z" not in l.split()[1]]


def test_help():
    p = subprocess.run([sys.executable, str(TOOL), "--help"], stdout=subprocess.PIPE,
                       universal_newlines=True, timeout=30)
    assert p.returncode == 0
    assert "kernelshark" in p.stdout and "--length" in p.stdout


def test_kernelshark_shows_guest_trace(guest_trace):
    png = OUT / "kernelshark.png"
    if png.exists():
        png.unlink()
    # four of the module's 12.5 ms periods, 0.5 s into the recording
    rc, st = shot(guest_trace, "-o", png, "--skip", 0.5, "--length", 0.05)
    assert rc == 0 and st["ok"], st
    assert png.stat().st_size > 10000
    # kernelshark loaded that file: its window is titled with it, no dialog
    assert st["window"].startswith("Kernel Shark (") and st["window"].endswith("-ks.dat)")
    assert st["dialogs"] == [] and st["stable"]
    # the module's events are in the part shown, one of each per period
    ev = st["event_counts"]
    for name in ("smodem_irq", "smodem_thread_wakeup", "smodem_process", "smodem_thread_done"):
        assert 3 <= ev.get(name, 0) <= 5, ev
    # the picture is not blank: the CPU graph's coloured bars and the list
    assert st["coloured"] > 5000, st
    assert st["non_background"] > 0.1 * st["pixels"], st
    assert not no_leftovers()


def test_kernelshark_check_can_fail(guest_trace):
    # a part of the trace with no events: kernelshark says "contains no
    # data" and the tool must fail
    rc, st = shot(guest_trace, "-o", OUT / "empty.png", "--start", 1e6, "--length", 0.05)
    assert rc == 1 and st and not st["ok"], st
    assert not no_leftovers()
