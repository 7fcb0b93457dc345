"""Builds and runs the user-space tests of the driver's pure logic."""
import pathlib
import re
import subprocess

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]


# Kbuild's probe of the headers: with and without BH workqueues (6.9+).
@pytest.mark.parametrize("probe", [[], ["-DSMODEM_HAVE_BH_WQ"]], ids=["6.1", "bh_wq"])
def test_driver_logic(tmp_path, probe):
    exe = tmp_path / "test_driver_logic"
    subprocess.run(
        ["gcc", "-std=gnu11"] + probe + ["-O1", "-g", "-Wall", "-Wextra", "-Werror",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver"),
         "-I", str(TOP / "dsp/include"),
         str(TOP / "tests/unit/test_driver_logic.c"),
         str(TOP / "driver/smodem_params.c"), "-o", str(exe)],
        check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m and int(m.group(1)) >= 100 and m.group(2) == "0", r.stdout
    # The gap fill's simulation ran for every seed.
    assert r.stdout.count("gap fill, seed") == 4, r.stdout


# The overrun count from the hard IRQ and the processing on two CPUs at once.
def test_overrun_two_cpus(tmp_path):
    exe = tmp_path / "test_overrun"
    subprocess.run(
        ["gcc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
         "-fsanitize=thread", "-pthread",
         "-I", str(TOP / "tests/unit/shim"), "-I", str(TOP / "driver"),
         str(TOP / "tests/unit/test_overrun.c"), "-o", str(exe)],
        check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    print(r.stdout)
    assert "ThreadSanitizer" not in r.stderr, r.stderr
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m and int(m.group(1)) >= 10 and m.group(2) == "0", r.stdout
