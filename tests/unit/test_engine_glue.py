"""Builds and runs the user-space tests of what the driver asks of the modem
engine (dsp/modem.c): ',' pauses and 'W' waits in the dial string, the
transmitter going on when the output lead grows (smdsp_modem_tx_fill), and
V.42's detection pattern echoed by a peer without V.42 (the driver's default
\\N3 dials with V.42 now), under AddressSanitizer and UBSan."""
import pathlib
import re
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests/common"))
import ctest  # noqa: E402


def test_engine_dial_and_fill(tmp_path):
    exe = ctest.build(
        tmp_path / "test_engine",
        ["tests/unit/test_engine.c"] + sorted(str(p) for p in (TOP / "dsp").glob("*.c")),
        ["-O2", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-I", str(TOP / "dsp/include")])
    out = ctest.run(exe, least=90, timeout=300)
    # Every case of the fill ran: two link types, four gap sizes, three ways.
    fills = re.findall(r"^(async|V\.42) (fill|hole) (\d+) (from the start|in data): "
                       r"connected (\d), (\d+)/(\d+) bytes intact", out, re.M)
    assert len(fills) == 24, fills
    for link, kind, gap, when, conn, ab, ba in fills:
        if kind == "fill":
            assert (conn, ab, ba) == ("1", "2048", "2048"), (link, gap, when)
    # An echoing peer without V.42 gives back our ODP: none of it is data.
    m = re.search(r"echoing answerer without V.42: link 1, 0 bytes in front, "
                  r"2048 of 2048 echoed intact, (\d+) ODP echoes dropped", out)
    assert m and int(m.group(1)) > 10, out
