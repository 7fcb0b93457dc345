"""Fuzzing /dev/ttySM0 from a QEMU guest: random bytes, AT-ish
lines, escapes, modem-control lines, termios, flushes, drains, breaks,
queue ioctls, hang-ups and reopens through the real tty, from several
processes at once, in command mode and in data mode during calls over the
line (smline's SpanDSP modem through QEMU's D-Bus audio, virtual clock).

tests/module/guest/fuzz_checks.sh runs tests/module/guest/ttyfuzz.c (built static here)
with the module loaded in each of CONTEXTS (command mode, then data mode
during a call: to 5551239 in the first, whose far end hangs up 3 s into the
call, to 5551234 in the others; then a plain AT and a clean call with data)
and in each of QUICK_CONTEXTS (command mode only, phase_periods=1, three
processes).  Fails on a kernel splat, a hung fuzzer (ttyfuzz's own
watchdog or the script's bound), a module that does not unload, or a tty
that no longer answers AT or carries a call.

SMODEM_FUZZ_SECONDS: each fuzz phase's length (default 6); SMODEM_FUZZ_SEED
(default 1; "random" picks one, printed); SMODEM_FUZZ_CONTEXTS,
SMODEM_FUZZ_QUICK: the contexts; SMODEM_FUZZ_OUT: the output directory
(default out/tests/tty_fuzz; another one lets two runs go at once); SMODEM_KO, SMODEM_TTY_KERNEL as for the
other guest tests.  Reproduce a failure with the seed in the report.

Cost: 1 guest, 1.2 min of wall time (0.9 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import os
import random
import re
from pathlib import Path

import pytest

import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("SMODEM_FUZZ_OUT") or TOP / "out" / "tests" / "tty_fuzz")
SECONDS = int(os.environ.get("SMODEM_FUZZ_SECONDS", "6"))
_seed = os.environ.get("SMODEM_FUZZ_SEED", "1")
SEED = random.randrange(1, 1 << 31) if _seed == "random" else int(_seed)
CONTEXTS = os.environ.get("SMODEM_FUZZ_CONTEXTS", "int thr").split()
QUICK = os.environ.get("SMODEM_FUZZ_QUICK", "dpc res").split()
ROUTES = ["--route", "5551234=answer:v22bis,v42,echo",
          "--route", "5551239=answer:v22bis,v42,echo,hangup=3"]


def results():
    def build():
        bindir = OUT / "bin"
        bindir.mkdir(parents=True, exist_ok=True)
        return guestboot.build_static(bindir, "tests/module/guest/ttyfuzz.c")
    print("fuzz seed %d, %d s per phase" % (SEED, SECONDS))
    per_ctx = 2 * SECONDS + 120
    return guestboot.line_results(
        "tty_fuzz", "fuzz_checks.sh", OUT, ROUTES,
        args="%d %d '%s' '%s'" % (SECONDS, SEED, " ".join(CONTEXTS), " ".join(QUICK) or "none"),
        extra_files={"usr/bin/ttyfuzz": str(build())},
        timeout_s=240 + per_ctx * len(CONTEXTS) + (SECONDS + 40) * len(QUICK))


def _path(name):
    return results()[0] / name


def _read(name):
    return _path(name).read_text(errors="replace").strip()


PHASES = [(c, "cmd") for c in CONTEXTS] + [(c, "data") for c in CONTEXTS] + \
    [(c, "cmd") for c in QUICK]


@pytest.mark.parametrize("ctx,phase", PHASES, ids=["%s-%s" % p for p in PHASES])
def test_fuzzer_never_hangs(ctx, phase):
    name = "%s-%s" % (ctx, phase)
    assert _read(ctx + "-insmod.rc") == "0"
    assert not _path(name + ".stuck").exists(), _read(name + ".stuck")
    text = _read(name + ".txt")
    assert "HUNG" not in text, text
    assert text.splitlines()[-1] == "RESULT ok", text
    assert _read(name + ".rc") == "0", text
    # it really ran: every opener did something, all of them a lot
    ops = [int(x) for x in re.findall(r"^WORKER \d+ ops=(\d+)", text, re.M)]
    assert ops and min(ops) >= 3 and sum(ops) >= 50, text


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_modem_kept_up_under_the_fuzz(ctx):
    """Whatever the tty does, the modem's processing is never starved:
    no overrun, no halted DMA (counters reset after the load), in command
    mode and through the call."""
    for phase in ("cmd", "data"):
        st = dict(x.split(None, 1) for x in _read("%s-%s.stats" % (ctx, phase)).splitlines()
                  if len(x.split(None, 1)) == 2)
        assert st.get("overruns") == "0" and st.get("dma_halts") == "0", (phase, st)


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_data_mode_was_fuzzed_in_a_call(ctx):
    text = _read(ctx + "-data.txt")
    assert re.search(r"^DIAL number=\d+ result=CONNECT", text, re.M), text


def test_far_end_hung_up_during_the_fuzz():
    if not CONTEXTS:
        pytest.skip("no full context")
    recs = results()[1]
    far = [r for r in recs if r["number"] == "5551239"]
    assert far and far[0]["result"] == "connected", recs
    if far[0]["end"] != "remote-hangup":
        # the fuzz may drop DTR (or ATH) before the far end's 3 s: then
        # that must be why (with the default seed the far end hangs up)
        data_s = (far[0]["end_sample"] - far[0]["data_sample"]) / 8000.0
        assert far[0]["end"] == "local-hangup" and data_s < 3.5, far[0]
        pytest.skip("seed %d: the fuzz hung up %.1f s into the call, before "
                    "the far end" % (SEED, data_s))


@pytest.mark.parametrize("ctx", CONTEXTS + QUICK)
def test_no_kernel_splat(ctx):
    bad = [x for x in _read(ctx + ".dmesg").splitlines() if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


def test_no_kernel_splat_whole_boot():
    log = results()[0].parent / "dmesg.log"
    bad = [x for x in log.read_text(errors="replace").splitlines()
           if guestboot.BAD_DMESG.search(x)]
    assert not bad, bad


@pytest.mark.parametrize("ctx", CONTEXTS + QUICK)
def test_module_unloads(ctx):
    assert _read(ctx + "-rmmod.rc") == "0", _read(ctx + "-rmmod.err")
    assert _read(ctx + ".loaded") == "0"


@pytest.mark.parametrize("ctx", CONTEXTS + QUICK)
def test_at_answers_after_fuzz(ctx):
    text = _read(ctx + "-at.txt")
    assert _read(ctx + "-at.rc") == "0", text
    oks = re.findall(r"^< (.*)$", text, re.M)
    assert oks and oks[-1] == "\\r\\nOK\\r\\n", text


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_clean_call_after_fuzz(ctx):
    text = _read(ctx + "-call.txt")
    assert "CONNECT" in text, text
    m = re.search(r"DATA n=(\d+) pause=\d+ got=(\d+) bad=(\d+)", text)
    assert m and m.group(1) == m.group(2) and m.group(3) == "0", text
