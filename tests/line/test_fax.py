# SPDX-License-Identifier: GPL-2.0
"""smline's far-end fax terminal (route word `fax`, tools/line/fax.c).

Both parties are SpanDSP's T.30 with its fax modems: smline's far end on one
side of the pipe transport, the test modem (testmodem --fax) on the other.
The image is tests/line/faxtiff.c's two-page 1728-pixel TIFF; what arrives
is decoded and compared with what was sent, row by row.

Run: /usr/bin/python3 -m pytest -q tests/line/test_fax.py
"""
import json
import os
import subprocess

import pytest

from test_line import NUMBER, OUT, RATE, SMLINE, build, call  # noqa: F401 (build: fixture)

FAXTIFF = os.path.join(OUT, "faxtiff")
PAGES, WIDTH, LAST_LENGTH = 2, 1728, 440      # faxtiff make: 640 and 440 rows
RES = (8031, 7700)                            # 204 x 196 dpi in pixels per metre
MODEMS = {"v17": ("V.17", 14400), "v29": ("V.29", 9600), "v27ter": ("V.27ter", 4800)}


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "sent.tif"
    r = subprocess.run([FAXTIFF, "make", str(path)], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    return path


def compare(a, b):
    r = subprocess.run([FAXTIFF, "compare", str(a), str(b)], capture_output=True,
                       text=True, timeout=30)
    return json.loads(r.stdout)


def fax_call(tmp_path, image, line_sends, line_words="", modem_words="", wire=(),
             events=None):
    """One fax call; the received file is compared with the sent one."""
    got = tmp_path / "received.tif"
    if got.exists():
        got.unlink()
    line_role = "faxsend=%s" % image if line_sends else "faxrecv=%s" % got
    modem_role = "faxrecv=%s" % got if line_sends else "faxsend=%s" % image
    words = ",".join(w for w in ("fax", line_role, "ident=SMLINE", line_words) if w)
    mwords = ",".join(w for w in (modem_role, "ident=GUEST", modem_words) if w)
    if line_sends:      # an incoming call: smline's fax calls, the modem answers
        line_args = ["--incoming", "1=%s,from=5550001" % words]
        modem_args = ["--answer", "1", "--fax", mwords]
    else:               # the modem dials smline's fax
        line_args = ["--route", "%s=answer:%s" % (NUMBER, words)]
        modem_args = ["--dial", NUMBER, "--fax", mwords]
    if events:
        line_args += ["--events", str(events)]
    c = call(list(wire) + line_args, modem_args, timeout=60)
    return c, compare(image, got) if got.exists() else None


def assert_fax(c, cmp, line_sends, mod="V.17", rate=14400, ecm=False):
    r, m = c.rec, c.modem
    f, mf = r["fax"], m["fax"]
    assert r["result"] == "connected", c.line_err
    assert r["direction"] == ("incoming" if line_sends else "outgoing")
    assert (r["modulation"], r["rate"]) == (mod, rate)
    assert m["result"] == "FAX OK", c.modem_err
    for x in (f, mf):
        assert (x["completion"], x["completion_text"]) == (0, "OK")
        assert (x["modem"], x["bit_rate"], x["ecm"]) == (mod, rate, ecm)
        assert (x["width"], x["length"]) == (WIDTH, LAST_LENGTH)
        assert (x["x_resolution"], x["y_resolution"]) == RES
        assert x["pages"] == PAGES and x["bad_rows"] == 0
    assert (f["pages_tx"], f["pages_rx"]) == ((PAGES, 0) if line_sends else (0, PAGES))
    frames = (f["ecm_frames_tx"], f["ecm_frames_rx"])
    assert (frames[0] > 10 and frames[1] == 0) if ecm and line_sends else \
        (frames[0] == 0 and frames[1] > 10) if ecm else frames == (0, 0)
    assert (mf["pages_tx"], mf["pages_rx"]) == ((0, PAGES) if line_sends else (PAGES, 0))
    assert f["remote_ident"] == "GUEST" and mf["remote_ident"] == "SMLINE"
    assert "failure" not in r
    # the record's times: DCS is the data phase, phase E ends it
    assert r["data_sample"] == f["dcs_sample"]
    assert r["answer_sample"] < f["dcs_sample"] < f["end_sample"]
    # a sender still waiting after its DCN gets phase E when the modem's
    # on-hook is decided, --hangup-ms (300) after the record's end_sample
    assert f["end_sample"] <= r["end_sample"] + 300 * RATE // 1000 + 80
    assert r["transfer_s"] == pytest.approx((f["end_sample"] - f["dcs_sample"]) / RATE)
    # T.30, in order: the receiver's DIS, the sender's DCS, CFR after TCF, MPS
    # and EOP answered with MCF, DCN; phase E last
    t30 = f["t30"]
    assert [e["t"] for e in t30] == sorted(e["t"] for e in t30)
    frames = [(e["dir"], e["text"]) for e in t30 if e["kind"] == "frame"]
    me, far = ("tx", "rx") if not line_sends else ("rx", "tx")    # me: the receiver
    # ECM: partial pages (PPS-MPS, PPS-EOP) and their image frames counted apart
    pps = "PPS-" if ecm else ""
    for want in [(me, "DIS"), (far, "DCS"), (me, "CFR"), (far, pps + "MPS"), (me, "MCF"),
                 (far, pps + "EOP"), (me, "MCF"), (far, "DCN")]:
        assert want in frames, (want, frames)
        frames = frames[frames.index(want) + 1:]
    assert t30[-1]["kind"] == "phase-e" and t30[-1]["t"] == f["end_sample"]
    assert any(e["kind"] == "phase-b" for e in t30)
    # phase D once a page: the sender's is the receiver's answer, the receiver's the command
    assert [e["text"] for e in t30 if e["kind"] == "phase-d"] == (
        ["MCF", "MCF"] if line_sends else ["MPS", "EOP"])
    # what arrived: every page, every row, every pixel
    assert cmp is not None and cmp["same"] is True, cmp
    assert cmp["pages"] == [PAGES, PAGES] and cmp["diff_rows"] == 0


@pytest.mark.parametrize("line_sends", [False, True], ids=["modem-sends", "line-sends"])
@pytest.mark.parametrize("modems", ["v17", "v29", "v27ter"])
def test_fax(tmp_path, image, line_sends, modems):
    """Two SpanDSP terminals through the exchange: smline's far end receives
    (the modem dials it) or sends (an incoming call: smline calls, the modem
    answers), at V.17 14400 or forced down to V.29 9600 or V.27ter 4800."""
    words = "" if modems == "v17" else "faxmodems=" + modems
    c, cmp = fax_call(tmp_path, image, line_sends, line_words=words)
    assert_fax(c, cmp, line_sends, *MODEMS[modems])
    assert c.wall < 10


def test_fax_events(tmp_path, image):
    """--events: the fax's T.30 frames and phases, as in the record, with
    CED from the answerer, then the far end hangs up after phase E."""
    ev_path = tmp_path / "events.jsonl"
    c, cmp = fax_call(tmp_path, image, False, events=ev_path)
    assert_fax(c, cmp, False)
    ev = [json.loads(x) for x in ev_path.read_text().splitlines()]
    fax = [e for e in ev if e["event"] == "fax"]
    assert all(e["source"] == "far" and e["call"] == 1 for e in fax)
    assert [(e["sample"], e["kind"], e["text"]) for e in fax] == [
        (x["t"], x["kind"], x["text"]) for x in c.rec["fax"]["t30"]]
    assert all(e["dir"] in ("rx", "tx") for e in fax if e["kind"] == "frame")
    names = [e["event"] for e in ev]
    assert names.index("service-done") < names.index("hang-up") < names.index("call-end")
    hang = next(e for e in ev if e["event"] == "hang-up")
    assert hang["by"] == "far" and c.rec["end"] == "remote-hangup"
    assert any("far fax: CED" in e["event"] for e in c.rec["events"])


def test_fax_ecm_impaired_line(tmp_path, image):
    """ECM on both sides over noise, loss, echo (20 dB down: --echo is the echo's gain, and a
    louder echo than the signal is refused now) and delay: every pixel arrives."""
    wire = ["--noise", "-40", "--atten", "6", "--echo", "-20", "--echo-ms", "5",
            "--delay", "20"]
    c, cmp = fax_call(tmp_path, image, True, line_words="ecm", modem_words="ecm",
                      wire=wire)
    assert_fax(c, cmp, True, ecm=True)
    assert c.rec["wire"]["noise_dbm0"] == -40


def test_fax_noise_without_ecm(tmp_path, image):
    """-33 dBm0 of noise, V.29 without ECM: the fax still goes through (with
    SpanDSP's fixed carrier cutoffs the noise was a carrier that never ended
    and T.30 never answered), but rows arrive damaged: the receiver counts
    them and the decoded image shows them."""
    c, cmp = fax_call(tmp_path, image, False, line_words="faxmodems=v29",
                      wire=["--noise", "-33"])
    r, f = c.rec, c.rec["fax"]
    assert r["result"] == "connected" and c.modem["result"] == "FAX OK"
    assert (f["modem"], f["bit_rate"], f["completion"], f["pages_rx"]) == ("V.29", 9600, 0, 2)
    assert cmp["pages"] == [2, 2]
    assert 0 < f["bad_rows"] <= cmp["page"][-1]["diff_rows"] <= 20


def test_fax_deterministic(tmp_path, image):
    a, _ = fax_call(tmp_path, image, False, wire=["--noise", "-40"])
    b, _ = fax_call(tmp_path, image, False, wire=["--noise", "-40"])
    assert a.rec == b.rec and a.modem == b.modem


@pytest.mark.parametrize("word,reason", [
    ("faxsend=%(tmp)s/missing.tif", "faxsend=%(tmp)s/missing.tif: No such file or directory"),
    ("faxsend=%(tmp)s/text.tif", "faxsend=%(tmp)s/text.tif: not a TIFF file"),
    ("faxrecv=%(tmp)s/no/such/dir/got.tif", "faxrecv=%(tmp)s/no/such/dir/got.tif: cannot write "
                                             "in %(tmp)s/no/such/dir: No such file or directory"),
    ("faxrecv=%(tmp)s", "faxrecv=%(tmp)s: is a directory"),
], ids=["missing", "not-tiff", "unwritable", "directory"])
@pytest.mark.parametrize("how", ["route", "incoming"])
def test_fax_bad_files(tmp_path, word, reason, how):
    """A fax file smline could not use: refused at start, one line saying why."""
    (tmp_path / "text.tif").write_text("this is not a TIFF file\n")
    w = word % {"tmp": tmp_path}
    spec = ["--route", "%s=answer:fax,%s" % (NUMBER, w)] if how == "route" else \
        ["--incoming", "1=fax,%s" % w]
    r = subprocess.run([SMLINE, "--transport", "pipe:fd=0"] + spec, capture_output=True,
                       text=True, timeout=10, stdin=subprocess.DEVNULL)
    assert r.returncode != 0
    assert r.stderr.splitlines() == ["smline: " + reason % {"tmp": tmp_path}], r.stderr


@pytest.mark.parametrize("word", ["faxmodems=v34", "faxmodems=", "ident=" + "x" * 21,
                                  "faxsend="])
def test_fax_bad_words(word):
    r = subprocess.run([SMLINE, "--transport", "pipe:fd=0", "--route",
                        "%s=answer:fax,%s" % (NUMBER, word)], capture_output=True,
                       text=True, timeout=10, stdin=subprocess.DEVNULL)
    assert r.returncode != 0 and "bad fax word '%s'" % word in r.stderr, r.stderr
