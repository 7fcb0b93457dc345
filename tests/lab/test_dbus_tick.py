"""The virtual-time line's audio tick (tools/lab/smlab/dbusline.py,
tick_default): 1 ms unless $SMLAB_DBUS_TICK_US names another (make check:
4 ms), and a value that is not a whole number of us in range is refused
by name instead of reaching QEMU's -audiodev and smline.  A bench_modem
boot whose module runs phase_periods=1 (2.5 ms periods on hook) ticks
every 2 ms at most (tools/bench_modem.py, line_tick)."""
import sys
from pathlib import Path

import pytest

from smlab import dbusline

# any file stands in for smline: nothing is started here
SMLINE = sys.executable


def test_default_is_one_ms(monkeypatch):
    monkeypatch.delenv("SMLAB_DBUS_TICK_US", raising=False)
    assert dbusline.tick_default() == 1000


def test_the_variable_sets_the_tick_both_sides_see(monkeypatch, tmp_path):
    monkeypatch.setenv("SMLAB_DBUS_TICK_US", "2000")
    assert dbusline.tick_default() == 2000
    line = dbusline.DbusLine([], tmp_path, smline=SMLINE)
    assert "timer-period=2000," in line.audiodev()
    assert line.tick_us == 2000
    # an explicit tick wins over the variable
    assert dbusline.DbusLine([], tmp_path, tick_us=1000, smline=SMLINE).tick_us == 1000


@pytest.mark.parametrize("bad", ["abc", "0", "99", "20001", "-5", "2e3", " 2000"])
def test_bad_values_are_refused(monkeypatch, bad):
    monkeypatch.setenv("SMLAB_DBUS_TICK_US", bad)
    with pytest.raises(ValueError, match="SMLAB_DBUS_TICK_US"):
        dbusline.tick_default()


def test_a_phase_periods_boot_ticks_within_its_on_hook_period(monkeypatch):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import bench_modem
    phase = ["call:phase:thr:0:0:3:phase_periods=1"]
    plain = ["call:t:thr:1840:1:0:"]
    monkeypatch.setenv("SMLAB_DBUS_TICK_US", "4000")
    assert bench_modem.line_tick(phase) == 2000 and bench_modem.line_tick(plain) == 4000
    assert bench_modem.line_tick(plain + phase) == 2000
    # never longer than asked for
    monkeypatch.setenv("SMLAB_DBUS_TICK_US", "1000")
    assert bench_modem.line_tick(phase) == 1000
