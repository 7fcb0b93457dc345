"""tools/analysis/faxturn.py: T.30 turnarounds from the fax phases."""
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools" / "analysis"))
import faxturn  # noqa: E402

MS = 1_000_000


def test_sender_sequence():
    """DIS heard, DCS (+FTS=8 silence) then TCF: tx->tx; CFR heard; the
    page (training then data is one signal); the post-page command."""
    ph = [(0, "fax-cng"), (100 * MS, "fax-rx-hdlc"), (1500 * MS, "fax-idle"),
          (1512 * MS, "fax-tx-hdlc"), (3500 * MS, "fax-idle"),
          (3520 * MS, "fax-tx-silence"), (3600 * MS, "fax-idle"),
          (3610 * MS, "fax-tx-train"), (5000 * MS, "fax-tx-data"), (6500 * MS, "fax-idle"),
          (6560 * MS, "fax-rx-hdlc"), (8000 * MS, "fax-idle"), (8013 * MS, "fax-tx-train"),
          (8150 * MS, "fax-tx-data"), (20000 * MS, "fax-idle"), (20120 * MS, "fax-tx-hdlc"),
          (21000 * MS, "fax-on-hook")]
    t = faxturn.turnarounds(ph)
    assert [(x["kind"], x["from"], x["to"], x["gap_ms"]) for x in t] == [
        ("rx->tx", "fax-rx-hdlc", "fax-tx-hdlc", 12.0),
        ("tx->tx", "fax-tx-hdlc", "fax-tx-train", 110.0),
        ("tx->rx", "fax-tx-data", "fax-rx-hdlc", 60.0),
        ("rx->tx", "fax-rx-hdlc", "fax-tx-train", 13.0),
        ("tx->tx", "fax-tx-data", "fax-tx-hdlc", 120.0)]
    assert [x["over"] for x in t] == [False, True, True, False, True]
    s = faxturn.summary(t)
    assert s["tx->tx"] == {"n": 2, "max_ms": 120.0, "limit_ms": 95.0, "over": 2}
    assert s["rx->tx"]["over"] == 0 and s["tx->rx"]["n"] == 1


def test_a_new_call_is_no_turnaround():
    ph = [(0, "fax-rx-hdlc"), (10 * MS, "fax-idle"), (20 * MS, "fax-on-hook"),
          (5000 * MS, "fax-dialing"), (9000 * MS, "fax-cng"), (9100 * MS, "fax-rx-hdlc")]
    assert faxturn.turnarounds(ph) == []
    assert faxturn.turnarounds([]) == []


def test_cli_refuses_a_missing_file(tmp_path):
    r = subprocess.run([sys.executable, str(TOP / "tools/analysis/faxturn.py"),
                        str(tmp_path / "no.dat")], capture_output=True, text=True)
    assert r.returncode == 2 and "no.dat: no such file" in r.stderr
