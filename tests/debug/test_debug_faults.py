"""tests/module/test_faults.py's long form on the debug kernel (lockdep,
KASAN, kmemleak, DEBUG_OBJECTS, ...): every injection count and every
time SMODEM_FAULT_SCALE (default here 5) times longer, the hostile line's
signals 5 s each after a whole dial and a whole answer hearing only the
answer tone, in int, dpc, thr, res, oth and usr (vline) and irqt (ac97);
the same judgements, and kmemleak empty after both boots.  Its own output
directory, so that make check's results stay."""
import os
from pathlib import Path

os.environ.setdefault("SMODEM_FAULT_SCALE", "5")
os.environ.setdefault("SMODEM_FAULT_OUT", str(Path(__file__).resolve().parents[2] /
                                              "out" / "tests" / "faults-debug"))

from test_faults import *  # noqa: E402,F401,F403 - the same tests, collected here
from test_faults import BOOTS  # noqa: E402
import pytest  # noqa: E402


@pytest.mark.parametrize("hw", ["vline", "ac97"])
def test_no_leak(hw):
    res = BOOTS[hw]()
    leaks = (res / "kmemleak.txt").read_text(errors="replace")
    assert not leaks.strip(), leaks[:8000]
