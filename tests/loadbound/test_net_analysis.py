"""tools/loadbound's network experiments (experiments 2 and 3):
the analysis of lbtasks results and the prediction on known inputs, lbtasks'
bad input, and the network load's pieces (tools/netload/netload.c built for
the installed 6.1 kernels with W=1, checkpatch-clean; the QEMU arguments)."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools" / "lab"))
_spec = importlib.util.spec_from_file_location("lb_net", TOP / "tools/loadbound/net_experiment.py")
nx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nx)
lb = nx.lb
from smlab import netload  # noqa: E402
from smlab.image import available_kernels  # noqa: E402

TASKS = """# lbtasks 1
# e1_us 2000
# period_us 10000
# seconds 1
# prio1 30
# prio2 20
# ns_per_iter 4.0
e2_us 1000 jobs1 100 missed1 0 jobs2 100 missed2 0 hb_sent 100 hb_received 100 hb_lost 0 max_resp1_us 2100 max_resp2_us 3200
e2_us 6000 jobs1 100 missed1 1 jobs2 100 missed2 25 hb_sent 100 hb_received 90 hb_lost 10 max_resp1_us 2100 max_resp2_us 12000
e2_us 9000 jobs1 100 missed1 0 jobs2 100 missed2 100 hb_sent 0 hb_received 0 hb_lost 0 max_resp1_us 2100 max_resp2_us 99000
"""


def test_tasks_result_is_read(tmp_path):
    p = tmp_path / "tasks.txt"
    p.write_text(TASKS)
    head, rows = nx.read_tasks_result(p)
    assert head["period_us"] == "10000" and len(rows) == 3
    assert [r["u2"] for r in rows] == [0.1, 0.6, 0.9]
    assert [r["miss2_pct"] for r in rows] == [0.0, 25.0, 100.0]
    assert [r["hb_lost_pct"] for r in rows] == [0.0, 10.0, 0.0]
    assert rows[1]["miss1_pct"] == 1.0
    assert nx.first_miss(rows) == 0.6
    assert nx.first_miss(rows[:1]) is None


@pytest.mark.parametrize("text", ["", "# lbtasks 1\n", "e2_us 1 jobs1\n", "# lbprobe 1\ne2_us 1 jobs1 1\n"])
def test_bad_tasks_result_is_refused(tmp_path, text):
    p = tmp_path / "t.txt"
    p.write_text(text)
    with pytest.raises(lb.LoadBoundError):
        nx.read_tasks_result(p)


def test_prediction_without_interference():
    """Nothing above the tasks: tau2 gets all tau1 leaves, 8 ms of 10."""
    r = nx.predict({"u": 0.0, "p_ns": 10**7, "e_ns": 0}, 40)
    assert r["tau1_admitted"] and r["max_e2_us"] == pytest.approx(8000)
    assert r["max_u2"] == pytest.approx(0.8)


def test_prediction_with_a_known_bound():
    """u=0.1, p=10 ms, e=1 ms: the hyperbola at d=10 ms is 0.1 (1 + 9/10)
    = 0.19, so tau2 <= 10 ms (1 - 0.2 - 0.19) = 6.1 ms."""
    r = nx.predict({"u": 0.1, "p_ns": 10**7, "e_ns": 10**6}, 40)
    assert r["load_above_tau2"] == pytest.approx(0.39)
    assert r["max_e2_us"] == pytest.approx(6100)


def test_prediction_when_tau1_does_not_fit():
    """A bound of 0.9 at 10 ms leaves tau1 (0.2) no room: nothing admitted."""
    r = nx.predict({"u": 0.9, "p_ns": 10**7, "e_ns": 9 * 10**6}, 40)
    assert not r["tau1_admitted"] and r["max_e2_us"] == 0


def test_a_bound_below_the_tasks_does_not_count():
    """The probe's priority is the bound's: work below the tasks (prio 10)
    takes nothing from them."""
    r = nx.predict({"u": 0.5, "p_ns": 10**7, "e_ns": 5 * 10**6}, 10)
    assert r["max_e2_us"] == pytest.approx(8000)


def test_prediction_from_the_measured_points():
    """The staircase at the largest grid window <= 10 ms is the load."""
    summ = {"grid_ns": [1_000_000, 5_000_000, 10_000_000, 20_000_000], "staircase": [0.5, 0.3, 0.25, 0.2]}
    r = nx.predict_measured(summ)
    assert r["load_at_d"] == 0.25 and r["max_u2"] == pytest.approx(0.55)
    summ["grid_ns"][2] = 12_000_000
    assert nx.predict_measured(summ)["load_at_d"] == 0.3


def test_counters():
    a = {"sent": 10, "rx_rx_packets": 5}
    b = {"sent": 25, "rx_rx_packets": 5, "late": 1}
    assert nx.counter_delta(a, b) == {"sent": 15, "rx_rx_packets": 0, "late": 1}


def test_counters_file(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("sent 12\nicmp_InEchos 7\nnoise\nx y\n")
    assert nx.read_counters(p) == {"sent": 12, "icmp_InEchos": 7}
    assert nx.read_counters(tmp_path / "none.txt") == {}


# ---------------------------------------------------------------- lbtasks

@pytest.fixture(scope="module")
def lbtasks(tmp_path_factory):
    exe = tmp_path_factory.mktemp("tasks") / "lbtasks"
    r = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe),
                        str(TOP / "tools/loadbound/tasks.c"), "-lpthread"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    exe.chmod(0o755)
    exe.parent.chmod(0o755)
    return exe


@pytest.mark.parametrize("args", [[], ["run"], ["run", "-1", "2000", "-P", "10000", "-d", "1", "-o", "x"],
                                  ["run", "-1", "20000", "-2", "1", "-P", "10000", "-d", "1", "-o", "x"],
                                  ["run", "-1", "2000", "-2", "1", "-P", "10000", "-d", "1", "-o", "x",
                                   "--prio1", "99"],
                                  ["setsched", "1", "rr", "5"], ["frob"]])
def test_lbtasks_usage_errors(lbtasks, args):
    r = subprocess.run([str(lbtasks)] + args, capture_output=True, text=True, timeout=10)
    assert r.returncode == 1, (args, r.returncode, r.stderr)
    assert r.stderr.strip() and "Traceback" not in r.stderr


def test_lbtasks_refuses_without_its_priority(lbtasks, tmp_path):
    from test_loadbound_tool import _as_nobody
    r = _as_nobody([str(lbtasks), "run", "-1", "100", "-2", "100", "-P", "10000", "-d", "0.1",
                    "-o", "/dev/null"])
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.startswith("lbtasks: cannot") and len(r.stderr.splitlines()) == 1, r.stderr


def test_lbtasks_getsched(lbtasks):
    r = subprocess.run([str(lbtasks), "getsched", "1"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and re.match(r"(policy \d+ nice -?\d+|fifo \d+|deadline \d+/\d+ us)$",
                                          r.stdout.strip()), r


# ---------------------------------------------------------------- the network load

def test_qemu_args_join_two_nics_on_one_hub():
    a = netload.qemu_args(hub=3)
    assert a.count("-netdev") == 2 and a.count("-device") == 2
    assert all("hubid=3" in x for x in a if x.startswith("hubport"))
    assert any(netload.TX_MAC in x for x in a) and any(netload.RX_MAC in x for x in a)


KVERS = [k for k in available_kernels() if re.match(r"6\.1\.\d+-\d+-(rt-)?amd64$", k)]


@pytest.mark.parametrize("kver", KVERS)
def test_netload_module_builds_without_warnings(kver, tmp_path):
    d = tmp_path / "nl"
    d.mkdir()
    (d / "netload.c").write_bytes((TOP / "tools/netload/netload.c").read_bytes())
    (d / "Kbuild").write_text("obj-m := netload.o\n")
    r = subprocess.run(["make", "-C", "/lib/modules/%s/build" % kver, "M=%s" % d, "W=1", "modules"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and (d / "netload.ko").exists(), r.stdout + r.stderr
    assert "warning:" not in r.stdout + r.stderr, r.stdout + r.stderr


def test_netload_checkpatch_clean():
    # the one extraction of checkpatch.pl from linux-source-6.1 (whichever
    # test file runs first does it)
    from test_kernel_build import _checkpatch
    cp = _checkpatch()
    r = subprocess.run(["perl", str(cp), "--no-tree", "--strict", "-f", str(TOP / "tools/netload/netload.c")],
                       capture_output=True, text=True, timeout=120)
    assert "total: 0 errors, 0 warnings, 0 checks" in r.stdout, r.stdout
