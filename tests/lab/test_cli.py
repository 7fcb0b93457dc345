"""Every tool's --help prints its options (argparse %-formats help texts:
stolen_study.py's "over-reservations, %" once stopped it with a
traceback) and names the variable each option defaults to."""
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
PY = str(TOP / "build/venv/bin/python")
TOOLS = sorted(p for p in (TOP / "tools").glob("*.py")
               if "--help" in p.read_text() or "cli.parser" in p.read_text())


def test_the_tools_are_found():
    names = {p.name for p in TOOLS}
    assert {"study.py", "stolen_study.py", "resmap.py", "bench_modem.py"} <= names


@pytest.mark.parametrize("tool", TOOLS, ids=lambda p: p.name)
def test_help(tool):
    r = subprocess.run([PY, str(tool), "--help"], capture_output=True, text=True, timeout=60,
                       cwd=str(TOP))
    assert r.returncode == 0, r.stderr[-1500:]
    assert "usage:" in r.stdout and "Traceback" not in r.stderr


def test_a_percent_in_an_options_help():
    import argparse
    from smlab import cli
    ap = argparse.ArgumentParser()
    cli.env_option(ap, "--points", "POINTS", "0 10", str, "over-reservations, %", env={})
    assert "over-reservations, % [POINTS]" in ap.format_help()
