"""tools/analysis/stolen.py: stolen time per processing activation, on
synthetic event streams with known answers, and its refusals."""
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "analysis"))
import stolen  # noqa: E402
from smtrace import Event  # noqa: E402

TOP = Path(__file__).resolve().parents[2]
THR = 50


def ev(ts, event, pid=THR, **fields):
    return Event(event, ts, 0, "x", pid, "....", fields)


def switch(ts, prev, nxt, nxt_comm="other"):
    return ev(ts, "sched_switch", prev, prev_pid=prev, prev_comm="p%d" % prev,
              next_pid=nxt, next_comm=nxt_comm)


def test_thread_activation_split_by_taker():
    evs = [switch(0, 1, THR, "smodem/thr"),
           ev(1000, "smodem_thread_wakeup"),
           ev(1100, "irq_handler_entry", irq=11, name="eth0"),
           ev(1150, "irq_handler_exit", irq=11),
           ev(1150, "softirq_entry", vec=3),
           ev(1300, "softirq_exit", vec=3),
           switch(1500, THR, 77, "netload"),
           ev(1550, "local_timer_entry", pid=77, vector=236),
           ev(1560, "local_timer_exit", pid=77, vector=236),
           switch(1700, 77, THR, "smodem/thr"),
           ev(2000, "smodem_thread_done"),
           # after the activation: nothing counts
           ev(2100, "irq_handler_entry", irq=11, name="eth0"),
           ev(2200, "irq_handler_exit", irq=11)]
    (a,) = stolen.activations(evs)
    assert (a["wall"], a["ran"], a["charged"], a["stolen"]) == (1000, 600, 800, 200)
    assert a["takers"] == {"irq:eth0": 50, "softirq:NET_RX": 150, "thread:netload": 190,
                           "irq:local_timer": 10}
    s = stolen.summary([a])
    assert s["stolen_pct_of_charged"] == 25.0 and s["activations_with_stolen_time"] == 1
    assert "softirq:NET_RX" in stolen.table(s)


def test_bottom_half_runs_in_its_softirq():
    evs = [switch(0, 1, 9),
           ev(0, "softirq_entry", pid=9, vec=6),
           ev(10, "smodem_dpc_entry", pid=9),
           ev(20, "irq_handler_entry", pid=9, irq=10, name="smodem"),
           ev(30, "irq_handler_exit", pid=9, irq=10),
           ev(50, "smodem_dpc_exit", pid=9),
           ev(60, "softirq_exit", pid=9, vec=6)]
    (a,) = stolen.activations(evs)
    assert (a["kind"], a["wall"], a["ran"], a["stolen"]) == ("bh", 40, 30, 10)
    assert a["takers"] == {"irq:smodem": 10}


def test_nothing_taken_is_nothing_stolen():
    evs = [switch(0, 1, THR), ev(10, "smodem_thread_wakeup"), ev(20, "softirq_entry", pid=2, vec=1),
           ev(30, "softirq_exit", pid=2, vec=1), ev(40, "irq_handler_entry", pid=2, irq=1, name="a")]
    with pytest.raises(stolen.Refused, match="no complete"):
        stolen.activations(evs)
    evs = [switch(0, 1, THR), ev(5, "softirq_entry", vec=1), ev(6, "softirq_exit", vec=1),
           ev(7, "irq_handler_entry", irq=1, name="a"), ev(10, "smodem_thread_wakeup"),
           ev(90, "smodem_thread_done")]
    (a,) = stolen.activations(evs)
    assert (a["ran"], a["stolen"], a["takers"]) == (80, 0, {})


@pytest.mark.parametrize("evs,why", [
    ([], "no events"),
    ([ev(0, "smodem_thread_wakeup"), ev(1, "smodem_thread_done")], "sched_switch"),
    ([switch(0, 1, 2), ev(1, "irq_handler_entry", irq=1, name="a"),
      ev(2, "softirq_entry", vec=1)], "no processing activations"),
])
def test_refuses_a_trace_it_cannot_use(evs, why):
    with pytest.raises(stolen.Refused, match=why):
        stolen.activations(evs)


def test_cli_bad_input(tmp_path):
    tool = [sys.executable, str(TOP / "tools/analysis/stolen.py")]
    r = subprocess.run(tool + [str(tmp_path / "none.dat")], capture_output=True, text=True)
    assert r.returncode == 1 and "no such file" in r.stderr
    junk = tmp_path / "junk.dat"
    junk.write_bytes(b"not a trace")
    r = subprocess.run(tool + [str(junk)], capture_output=True, text=True)
    assert r.returncode == 1 and "cannot read" in r.stderr and "Traceback" not in r.stderr
