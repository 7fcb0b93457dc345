"""Builds and runs the user-space tests of the driver's pure logic."""
import pathlib
import subprocess
import sys

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests/common"))
import ctest  # noqa: E402


# Kbuild's probe of the headers: with and without BH workqueues (6.9+).
@pytest.mark.parametrize("probe", [[], ["-DSMODEM_HAVE_BH_WQ"]], ids=["6.1", "bh_wq"])
def test_driver_logic(tmp_path, probe):
    exe = ctest.build(
        tmp_path / "test_driver_logic", ["tests/unit/test_driver_logic.c", "driver/smodem_params.c"],
        probe + ["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                 "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver"),
                 "-I", str(TOP / "dsp/include")])
    out = ctest.run(exe, least=100)
    # The gap fill's simulation ran for every seed.
    assert out.count("gap fill, seed") == 4, out


# The overrun count from the hard IRQ and the processing on two CPUs at once.
def test_overrun_two_cpus(tmp_path):
    exe = ctest.build(tmp_path / "test_overrun", ["tests/unit/test_overrun.c"],
                      ["-O1", "-fsanitize=thread", "-pthread", "-I", str(TOP / "tests/unit/shim"),
                       "-I", str(TOP / "driver")])
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    print(r.stdout)
    assert "ThreadSanitizer" not in r.stderr, r.stderr
    ctest.judge("test_overrun", r, least=10)
