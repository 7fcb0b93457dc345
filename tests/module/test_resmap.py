"""make resmap (tools/resmap.py): the study's reservation boundary.

The model and the cell parser on their own, then a reduced map in a guest on
the virtual clock: a hard SCHED_DEADLINE reservation the model admits (2 ms
every 8 ms, the study's best) carries a call, and the report agrees with the
model.  Cells that fail, and one where Linux and the model disagree, are
make study's (tests/module/test_study.py), through the same cell_row and
explain.

Cost: 1 guest, 0.6 min of wall time (0.4 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools"))
import resmap  # noqa: E402


def test_model_is_the_studys_figure_17():
    # the study's cells that worked and failed for the model's reasons
    assert resmap.model_works(2, 8) and resmap.model_works(4, 16) and resmap.model_works(8, 20)
    assert not resmap.model_works(1, 8)          # 12.5 % < 14.7 %
    assert not resmap.model_works(7, 20)         # 35 % but 13 ms without the CPU
    assert not resmap.model_works(1, 7)          # 14.3 %: the study's one exception
    assert resmap.model_works(2, 13) and not resmap.model_works(2, 14)


def test_cells():
    assert resmap.parse_cells("study") == sorted(resmap.STUDY)
    sweep = resmap.parse_cells("sweep")
    assert len(sweep) == 121 and (1, 4) in sweep and (8, 20) in sweep and (4, 4) not in sweep
    assert resmap.parse_cells("2/8 1/16 2/8") == [(1, 16), (2, 8)]
    for bad, msg in (("8/4", "0 < X < Y"), ("2-8", "want X/Y"), ("", "no cells"), ("20/21", "95 %")):
        with pytest.raises(ValueError, match=msg):
            resmap.parse_cells(bad)


def test_bad_cells_refused_in_one_line(tmp_path):
    r = subprocess.run([str(TOP / "build/venv/bin/python"), str(TOP / "tools/resmap.py"),
                        "--cells", "9/3", "--out", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and "0 < X < Y" in r.stderr and "Traceback" not in r.stderr


@pytest.fixture(scope="module")
def reduced_map(tmp_path_factory):
    from smlab.guest import default_kernel
    kver = default_kernel()
    assert kver, "no 6.1 generic kernel installed: make deps"
    ko = TOP / "build" / kver / "smodem.ko"
    smline = TOP / "build" / "line" / "smline"
    assert ko.is_file() and smline.is_file(), "make module line first"
    out = tmp_path_factory.mktemp("resmap")
    r = subprocess.run([str(TOP / "build/venv/bin/python"), str(TOP / "tools/resmap.py"),
                        "--cells", "2/8", "--jobs", "1", "--nbytes", "1024", "--kernel", kver,
                        "--out", str(out)], capture_output=True, text=True, timeout=1500)
    print(r.stdout[-3000:], r.stderr[-3000:])
    assert r.returncode == 0, r.stderr
    return out, r.stdout


def test_reduced_map_agrees_with_the_model(reduced_map):
    out, stdout = reduced_map
    cells = {(c["x_ms"], c["y_ms"]): c for c in json.loads((out / "resmap.json").read_text())["cells"]}
    ok = cells[(2, 8)]
    assert ok["works"] and ok["model"] and ok["overruns"] == 0, ok
    assert "disagree: 0 of 1" in (out / "resmap.md").read_text()
    assert (out / "resmap.png").stat().st_size > 10_000
    assert "[runner] 1/1 done (0 reused)" in stdout
    rec = [json.loads(x) for x in (out / "record.jsonl").read_text().splitlines()]
    assert [x["key"] for x in rec] == ["res2_8"] and rec[0]["figures"]["data_ok"], rec


def test_finished_cells_are_not_run_again(reduced_map):
    out, _ = reduced_map
    from smlab.guest import default_kernel
    r = subprocess.run([str(TOP / "build/venv/bin/python"), str(TOP / "tools/resmap.py"),
                        "--cells", "2/8", "--nbytes", "1024", "--kernel", default_kernel(),
                        "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "[runner] 1/1 done (1 reused), 0 running, 0 left" in r.stdout, r.stdout
