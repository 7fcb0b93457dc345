"""rtla (the kernel's timerlat and osnoise front end) in the comparison
(tools/lab/smlab/compare.py --rtla): its output parsers and the plan that
decides where it runs (no boot), and one comparison run on the PREEMPT_RT
kernel, which has the tracers, with the module in the interrupt: rtla's
numbers come back beside cyclictest's and tell the same story (one boot,
about a minute of wall time on an idle host).

Cost: 1 guest, 0.5 min of wall time (0.5 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smlab import compare
from smlab.image import MISSING_KERNEL, debian_kernels
from smlab.compare import (parse_rtla_timerlat_hist, parse_rtla_osnoise_top, rtla_plan,
                           rtla_results, rtla_table, kernel_tracers)

ROOT = Path(__file__).resolve().parents[2]
# Debian's present 6.1 ABI (make deps installs it): generic and PREEMPT_RT
GENERIC = next((k for k in debian_kernels(("6.1",)) if "-rt-" not in k), MISSING_KERNEL)
RT_KERNEL = next((k for k in debian_kernels(("6.1",)) if "-rt-" in k), "6.1.0-0-rt-amd64")
LOAD_US = 1840

# rtla 6.1 in the 6.1 rt guest, the module in the interrupt (load_us=1840),
# 3 s: rtla timerlat hist -c 0 -d 3 -p 1000 -P f:95 -b 1 -E 20000
TIMERLAT = """\
# RTLA timerlat histogram
# Time unit is microseconds (us)
# Duration:   0 00:00:03
Index   IRQ-000   Thr-000
0          2520         0 
4             0      2520 
1057         90         0 
1059         29         0 
1060          1         0 
1061          0        60 
1063          0        56 
1064          0         4 
1557        120         0 
1561          0        60 
1563          0        52 
1564          0         8 
over:         0         0 
count:     2760      2760 
min:          0         4 
avg:        113       117 
max:       1557      1564 
"""
# rtla osnoise top -q -c 0 -d 3 -p 10000 -r 5000 -P f:95 (colours and all)
OSNOISE = (
    "\x1b[2;37;40m                                          Operating System Noise         "
    "                                                                 \x1b[0;0;0m\n"
    "duration:   0 00:00:03 | time is in us\n"
    "\x1b[2;30;47mCPU Period       Runtime        Noise  % CPU Aval   Max Noise   Max Single  "
    "        HW          NMI          IRQ      Softirq       Thread\x1b[0;0;0m\n"
    "  0 #300         1500000       220245    85.31700        1853         1853           0  "
    "          0          567            0            0\n")


# -- parsers and plan, no boot -----------------------------------------------
def test_parse_timerlat_hist():
    r = parse_rtla_timerlat_hist(TIMERLAT)
    irq, thr = r["irq"], r["thread"]
    assert (irq["count"], irq["min_us"], irq["avg_us"], irq["max_us"]) == (2760, 0, 113, 1557)
    assert (thr["count"], thr["min_us"], thr["avg_us"], thr["max_us"]) == (2760, 4, 117, 1564)
    assert thr["cpu"] == 0 and thr["over"] == 0
    assert thr["histogram"] == {"4": 2520, "1061": 60, "1063": 56, "1064": 4,
                                "1561": 60, "1563": 52, "1564": 8}
    assert sum(irq["histogram"].values()) == 2760
    # 2520 of 2760 at 4 us: the median there, the 99th percentile in the
    # samples the ISR delayed
    assert thr["p50_us"] == 4 and thr["p99_us"] == 1563 and thr["p999_us"] == 1564


def test_parse_timerlat_overflow_and_empty():
    text = ("Index   IRQ-000   Thr-000\n3  1  1\nover:  3  3\ncount:  4  4\n"
            "min:  3  3\navg:  7000  7000\nmax:  25000  25000\n")
    r = parse_rtla_timerlat_hist(text)
    # samples past the histogram count as its end in the percentiles
    assert r["thread"]["over"] == 3 and r["thread"]["p99_us"] == compare.RTLA_HIST_ENTRIES
    assert r["thread"]["p50_us"] == compare.RTLA_HIST_ENTRIES
    # no samples: rtla prints "-" for min/avg/max
    text = ("Index   IRQ-000   Thr-000\nover:  0  0\ncount:  0  0\n"
            "min:  -  -\navg:  -  -\nmax:  -  -\n")
    r = parse_rtla_timerlat_hist(text)
    assert r["irq"]["count"] == 0 and r["irq"]["max_us"] is None and r["irq"]["p99_us"] is None
    with pytest.raises(ValueError):
        parse_rtla_timerlat_hist("rtla: could not create the timerlat instance\n")


def test_parse_osnoise_top():
    r = parse_rtla_osnoise_top(OSNOISE)
    assert r == {"cpu": 0, "periods": 300, "runtime_us": 1500000, "noise_us": 220245,
                 "cpu_avail_pct": 85.317, "max_noise_us": 1853, "max_single_us": 1853,
                 "hw": 0, "nmi": 0, "irq": 567, "softirq": 0, "thread": 0}
    with pytest.raises(ValueError):
        parse_rtla_osnoise_top("osnoise: not available\n")


def test_plan_from_kernel_config(tmp_path):
    cfg = tmp_path / "config-x"
    cfg.write_text("CONFIG_OSNOISE_TRACER=y\nCONFIG_TIMERLAT_TRACER=y\n")
    assert kernel_tracers("x", str(cfg)) == {"timerlat": True, "osnoise": True}
    if os.path.exists(compare.RTLA):
        assert rtla_plan("x", "auto", str(cfg)) == (True, {})
    cfg.write_text("# CONFIG_OSNOISE_TRACER is not set\n# CONFIG_TIMERLAT_TRACER is not set\n")
    run, why = rtla_plan("x", "auto", str(cfg))
    if os.path.exists(compare.RTLA):
        assert not run
        assert why["timerlat"] == ("kernel x has no timerlat tracer "
                                   "(CONFIG_TIMERLAT_TRACER not set)")
        # on: the guest tries and says what it lacks
        assert rtla_plan("x", "on", str(cfg)) == (True, {})
    assert rtla_plan("x", "off", str(cfg)) == (False, {"timerlat": "not run (--rtla off)",
                                                      "osnoise": "not run (--rtla off)"})
    # no config: let the guest look
    assert kernel_tracers("x", str(tmp_path / "none")) is None
    # the installed kernels: Debian's -rt flavour has them, generic 6.1 not
    if os.path.exists("/boot/config-" + RT_KERNEL):
        assert kernel_tracers(RT_KERNEL) == {"timerlat": True, "osnoise": True}
    if os.path.exists("/boot/config-" + GENERIC):
        assert kernel_tracers(GENERIC) == {"timerlat": False, "osnoise": False}


def test_results_and_table(tmp_path):
    (tmp_path / "rtla-timerlat.txt").write_text(TIMERLAT)
    (tmp_path / "rtla-timerlat.rc").write_text("0\n")
    (tmp_path / "rtla-timerlat.cmd").write_text("rtla timerlat hist ...\n")
    (tmp_path / "rtla-osnoise.rc").write_text("absent\n")   # the guest's own check
    r = rtla_results(tmp_path, "k", {})
    assert r["status"] == {"timerlat": "ok", "osnoise": "kernel k has no osnoise tracer"}
    assert r["timerlat"]["thread"]["max_us"] == 1564 and r["osnoise"] is None
    summary = {"int": {"cyclictest": {"avg_us": 128, "p99_us": 1693, "max_us": 1697},
                       "rtla": r}}
    t = rtla_table(summary)
    assert "117/1563/1564" in t and "113/1557" in t
    assert "int: osnoise: kernel k has no osnoise tracer" in t
    # failures say so instead of a number
    (tmp_path / "rtla-timerlat.rc").write_text("1\n")
    assert rtla_results(tmp_path, "k", {})["status"]["timerlat"].startswith("rtla failed (rc=1")
    # a kernel without the tracers: one line that says so, no numbers
    why = {"timerlat": "kernel g has no timerlat tracer (CONFIG_TIMERLAT_TRACER not set)",
           "osnoise": "kernel g has no osnoise tracer (CONFIG_OSNOISE_TRACER not set)"}
    r = rtla_results(tmp_path / "nothing", "g", why)
    assert r["status"] == why and r["timerlat"] is None
    t = rtla_table({"control": {"cyclictest": {}, "rtla": r}, "int": {"rtla": r}})
    assert t == "rtla: " + "; ".join(sorted(why.values()))


# -- one run on the rt kernel ------------------------------------------------------
@pytest.fixture(scope="module")
def rt_run(tmp_path_factory):
    assert RT_KERNEL in compare.available_kernels() and os.path.exists(compare.RTLA), (
        "needs %s and rtla: make deps" % RT_KERNEL)
    built = ROOT / "build" / RT_KERNEL / "smodem.ko"
    if not built.exists():
        subprocess.run(["make", "-C", str(ROOT), "module", "KVER=" + RT_KERNEL],
                       check=True, timeout=300)
    module = tmp_path_factory.mktemp("ko") / "smodem.ko"
    shutil.copyfile(built, module)
    out = ROOT / "out" / "test-rtla"
    env = dict(os.environ, KERNEL=RT_KERNEL, CONTEXTS="int", DURATION="1", RTLA="auto",
               RTLA_DURATION="1", CLOCK="virtual", ICOUNT_SHIFT="0", OUT=str(out),
               LOAD_US=str(LOAD_US), MODULE=str(module))
    for k in ("PRIO", "RES_RUNTIME_US", "RES_PERIOD_US", "RATE", "RING_SAMPLES",
              "PERIOD_SAMPLES", "MODULE_PARAMS", "GUEST_APPEND", "SMP", "HW", "PREEMPT"):
        env.pop(k, None)
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "lab" / "compare.py"),
                        "--no-control"], env=env, cwd=str(ROOT), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=900)
    print(p.stdout)
    assert p.returncode == 0, p.stdout[-3000:]
    with open(out / "summary.json") as f:
        return json.load(f), p.stdout, out


def test_rt_rtla_numbers(rt_run):
    summary, stdout, out = rt_run
    e = summary["int"]
    r = e["rtla"]
    assert r["status"] == {"timerlat": "ok", "osnoise": "ok"}, r["status"]
    assert r["cmd"]["timerlat"].startswith("rtla timerlat hist -c 0 -d 1 -p 1000 -P f:95")
    assert (out / "int" / "rtla-timerlat.txt").exists()
    thr, irq = r["timerlat"]["thread"], r["timerlat"]["irq"]
    # one sample per 1 ms period but those the ISR made it skip, like cyclictest
    assert 800 <= thr["count"] <= 1000, thr
    assert sum(thr["histogram"].values()) + thr["over"] == thr["count"]
    # the processing in the hard interrupt delays timerlat's interrupt and
    # thread as it delays cyclictest: by up to the 1.84 ms of processing
    c = e["cyclictest"]
    for m in (thr["max_us"], irq["max_us"], c["max_us"]):
        assert 1000 < m < LOAD_US + 200, (thr, irq, c)
    assert thr["min_us"] < 50 and thr["p50_us"] < 50
    # osnoise sees the ISR as interrupt noise: 1.84 ms of every 12.5 ms
    o = r["osnoise"]
    assert abs(o["cpu_avail_pct"] - 100.0 * (1 - LOAD_US / 12500.0)) < 3, o
    assert abs(o["max_single_us"] - LOAD_US) < 200, o
    assert o["irq"] > 0 and o["periods"] >= 90
    # beside cyclictest's in the table
    text = (out / "summary.txt").read_text()
    assert "timerlat thread avg/p99/max" in text and "osnoise %avail" in text
    assert "rtla timerlat thread max" in stdout
