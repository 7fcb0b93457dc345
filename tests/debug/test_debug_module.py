"""tests/module/test_guest_module.py's checks (guest_checks.sh: every
context for 10 s with its trace, unload under a reader, a starved thread, a
DMA halt, a period change, a busy interrupt line, bad parameters, 50
load/unload cycles twice round the contexts), judged by that file's own tests, on the debug kernel
(SMODEM_DEBUG_KERNEL) instead of Debian's: the same module under lockdep,
KASAN, DEBUG_OBJECTS, ...  Its dmesg checks then also catch what the
detectors print, and kmemleak is read at the end."""
import os

import pytest

import test_guest_module as tgm
from test_debug_kernel import assert_no_new_leak

KVER = os.environ.get("SMODEM_DEBUG_KERNEL", "")
AC97 = [pytest.param(KVER, id=KVER)]
BOTH = [pytest.param(KVER, hw, id="%s-%s" % (KVER, hw)) for hw in ("ac97", "vline")]


@pytest.mark.parametrize("ctx", tgm.CONTEXTS)
@pytest.mark.parametrize("kver,hw", BOTH)
def test_context(kver, hw, ctx):
    tgm.test_context(kver, hw, ctx)


@pytest.mark.parametrize("kver,hw", BOTH)
def test_trace_parses(kver, hw):
    tgm.test_trace_parses(kver, hw)


@pytest.mark.parametrize("kver", AC97)
def test_no_device(kver):
    tgm.test_no_device(kver)


@pytest.mark.parametrize("kver", AC97)
def test_irq_line_busy(kver):
    tgm.test_irq_line_busy(kver)


@pytest.mark.parametrize("kver", AC97)
def test_starved_thread_overruns_and_recovers(kver):
    tgm.test_starved_thread_overruns_and_recovers(kver)


@pytest.mark.parametrize("kver", AC97)
def test_dma_halt_detected_and_recovered(kver):
    tgm.test_dma_halt_detected_and_recovered(kver)


@pytest.mark.parametrize("kver", AC97)
def test_period_change(kver):
    tgm.test_period_change(kver)


@pytest.mark.parametrize("kver", AC97)
def test_bad_parameters_rejected(kver):
    tgm.test_bad_parameters_rejected(kver)


@pytest.mark.parametrize("kver", AC97)
def test_load_unload_cycles(kver):
    tgm.test_load_unload_cycles(kver)


@pytest.mark.parametrize("kver,hw", BOTH)
def test_unload_while_reading_stats(kver, hw):
    tgm.test_unload_while_reading_stats(kver, hw)


@pytest.mark.parametrize("kver,hw", BOTH)
def test_no_leak(kver, hw):
    """kmemleak's automatic scan is off while the checks time the module
    (guest_checks.sh); two scans at the end find nothing new since boot."""
    assert_no_new_leak(tgm.boot(kver, hw))
