"""efax (Debian's package, unchanged, Class 1) on /dev/ttySM0 in a guest,
against smline's SpanDSP fax terminal over the virtual line
(instruction-counted clock), both ways, at V.17 14400 and at the V.29 9600
and V.27ter 4800 fallbacks:

  - sending: efax dials smline's terminal, whose route offers all three
    image modems (V.17) or only V.29 or V.27ter (faxmodems=); the pages
    efax sends (made by efix from the test image, as `fax make` makes
    them) must decode, row by row, to the image under efax's header band
    (20 white rows with an empty header);
  - receiving: smline's terminal calls; efax waits as `fax answer` runs it
    (the modem answers after a ring, S0=1) with its capability limited to
    14400, 9600 or 4800 bit/s (-c); the pages it writes must decode to the
    image exactly.

One boot for each direction (tests/module/efaxrun.py, fax_efax.sh).
The same in every context under the study's load: test_fax_contexts.py.

Cost: 2 guests, 4.1 min of wall time (2.8 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import re
import sys
from pathlib import Path

import pytest

import efaxrun
import guestboot

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "analysis"))
import faxturn  # noqa: E402

PAGES = 2
WIDTH, LENGTHS = 1728, (640, 440)
HEADER_ROWS = 20        # efax's header band: "sent 20+640 lines"
MODES = {"v17": ("V.17", 14400, None, 5), "v29": ("V.29", 9600, "v29", 3),
         "v27ter": ("V.27ter", 4800, "v27ter", 1)}


def send_run():
    return efaxrun.run("send", [{"kind": "send", "tag": "send-" + m, "ctx": "thr",
                                 "modems": MODES[m][2]} for m in MODES], pages=PAGES)


def recv_run():
    return efaxrun.run("recv", [{"kind": "recv", "tag": "recv-" + m, "ctx": "thr",
                                 "br": MODES[m][3]} for m in MODES], pages=PAGES)


def _check_call(run, tag, mode, line_sends):
    rec = run.recs.get(tag)
    log = run.text(tag + ".log")
    assert rec, (tag, log[-3000:])
    f = rec["fax"]
    mod, rate = MODES[mode][:2]
    assert run.text(tag + ".rc").strip() == "0", log[-3000:]
    assert rec["result"] == "connected" and "failure" not in rec, rec
    assert (rec["modulation"], rec["rate"]) == (mod, rate), rec
    assert (f["completion"], f["completion_text"]) == (0, "OK"), f
    assert (f["modem"], f["bit_rate"], f["ecm"]) == (mod, rate, False), f
    assert (f["pages_tx"], f["pages_rx"]) == ((PAGES, 0) if line_sends else (0, PAGES)), f
    assert f["bad_rows"] == 0, f
    assert f["remote_ident"] == "+1 555 0100", f
    # efax's own account: the session at the rate, success
    speed = {14400: "14.4kbps", 9600: "9600bps", 4800: "4800bps"}[rate]
    assert re.search(r"session 196lpi +%s " % re.escape(speed), log), log[-3000:]
    assert log.count("done, returning 0 (success)") == 1, log[-2000:]
    return rec


@pytest.mark.parametrize("mode", list(MODES))
def test_efax_sends(mode):
    run = send_run()
    rec = _check_call(run, "send-" + mode, mode, False)
    log = run.text("send-%s.log" % mode)
    for n in LENGTHS:
        assert "sent %d+%d lines" % (HEADER_ROWS, n) in log, log[-3000:]
    cmp = run.compare["send-" + mode]
    assert cmp and cmp["pages"] == [PAGES, PAGES], cmp
    assert all(p["width"] == [WIDTH, WIDTH] for p in cmp["page"]), cmp
    assert rec["fax"]["length"] == LENGTHS[-1] + HEADER_ROWS


@pytest.mark.parametrize("mode", list(MODES))
def test_efax_sends_the_image(mode):
    """What smline's terminal decoded: efax's header band (white), then
    every row of the image as it was made."""
    run = send_run()
    cmp = run.compare["send-" + mode]
    assert [p["length"] for p in cmp["page"]] == [[n, n + HEADER_ROWS] for n in LENGTHS], cmp
    band = efaxrun.faxtiff("compare", "--skip", HEADER_ROWS, run.out / "page.tif",
                           run.out / ("send-%s.tif" % mode))
    assert band.returncode == 0, band.stdout + band.stderr


@pytest.mark.parametrize("mode", list(MODES))
def test_efax_receives(mode):
    run = recv_run()
    _check_call(run, "recv-" + mode, mode, True)
    cmp = run.compare["recv-" + mode]
    assert cmp and cmp["same"] is True and cmp["pages"] == [PAGES, PAGES], cmp
    assert [p["length"] for p in cmp["page"]] == [[n, n] for n in LENGTHS], cmp


@pytest.mark.parametrize("which", ["send", "recv"])
def test_module_clean(which):
    run = send_run() if which == "send" else recv_run()
    for m in MODES:
        tag = "%s-%s" % (which, m)
        assert run.text(tag + "-insmod.rc").strip() == "0", tag
        assert run.text(tag + "-rmmod.rc").strip() == "0", tag
        bad = [x for x in run.text(tag + ".dmesg").splitlines() if guestboot.BAD_DMESG.search(x)]
        assert not bad, (tag, bad)


@pytest.mark.parametrize("which", ["send", "recv"])
def test_turnarounds_traced(which):
    """Each call's T.30 turnarounds from its smodem_phase trace: the ones
    T.30 bounds are inside their limits on an unloaded guest."""
    run = send_run() if which == "send" else recv_run()
    for m in MODES:
        tag = "%s-%s" % (which, m)
        turns = faxturn.turnarounds(faxturn.phases_of(run.res / (tag + ".dat")))
        kinds = {t["kind"] for t in turns}
        assert {"tx->rx", "rx->tx"} <= kinds, (tag, turns)
        over = [t for t in turns if t["over"]]
        print(tag, faxturn.summary(turns))
        assert not over, (tag, over)
