"""The modem's environment is an interface, not a shim: driver/smodem_modem.c
builds for smodemd (context=usr) as it is, with nothing but the driver's and
dsp/'s headers (the kernel's names from driver/smodem_compat.h, its link
through struct smodem_link_ops), no device of smodemd's own and no test
directory on the daemon's include path."""
import re
import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
MODEM = TOP / "driver/smodem_modem.c"


def test_modem_source_has_no_kernel_switch():
    text = MODEM.read_text()
    assert "__KERNEL__" not in text
    # every kernel-ism comes through the one compat header
    assert not re.findall(r"#include <linux/", text)
    assert text.index('#include "smodem_compat.h"') < text.index("#include <smdsp/")


def test_modem_builds_for_user_space_from_driver_headers_alone(tmp_path):
    obj = tmp_path / "smodem_modem.o"
    r = subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror",
                        "-Wno-unused-parameter", "-I", str(TOP / "driver"),
                        "-I", str(TOP / "dsp/include"), "-c", str(MODEM), "-o", str(obj)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # it asks nothing of a device: its world is the link it was given
    nm = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout
    assert not re.findall(r"\bsmodem_link_\w+|\btrace_smodem_\w+", nm), nm


def test_smodemd_has_no_device_or_test_includes_of_its_own():
    mk = (TOP / "tools/smodemd/smodemd.mk").read_text()
    flags = re.search(r"^SMODEMD_CFLAGS\s*:=(.*?)(?:\n\S|\Z)", mk, re.M | re.S).group(1)
    incs = re.findall(r"-I\s*(\S+)", flags)
    assert incs and not [d for d in incs if d.startswith(("tests", "tools/smodemd"))], incs
    for src in (TOP / "tools/smodemd").rglob("*.[ch]"):
        assert not re.search(r"^struct smodem_dev\s*\{", src.read_text(), re.M), src
