"""smlab.contexts.ALL is the module's own list of contexts (the names
insmod's context= accepts, driver/smodem_params.c), in its order, and the
tools take their names from it: no tool types out a context list of its
own beyond a default selection of those names."""
import re
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools" / "lab"))
from smlab import contexts  # noqa: E402


def module_contexts():
    text = (TOP / "driver/smodem_params.c").read_text()
    table = re.search(r"smodem_context_names\[SMODEM_CTX_COUNT\] = \{(.*?)\};", text, re.S)
    assert table, "smodem_context_names not found"
    return tuple(re.findall(r'\[SMODEM_CTX_\w+\] = "(\w+)"', table.group(1)))


def test_all_is_the_modules_list():
    assert contexts.ALL == module_contexts()


def test_parse():
    assert contexts.parse("int thr") == ["int", "thr"]
    assert contexts.parse("none", none_ok=True) == []
    assert contexts.parse("control int", extra=("control",)) == ["control", "int"]
    with pytest.raises(ValueError, match="unknown context.*xyz.*choose from int thr"):
        contexts.parse("int xyz", allowed=("int", "thr"))
    with pytest.raises(ValueError, match="not contexts of the module"):
        contexts.parse("int", allowed=("int", "foo"))


@pytest.mark.parametrize("tool", ["tools/study.py", "tools/bench_modem.py", "tools/bench_module.py",
                                  "tools/lab/smlab/compare.py", "tools/loadbound/experiment.py"])
def test_tools_name_contexts_from_the_one_list(tool):
    """Every context name a tool writes in a list literal is one of ALL."""
    text = (TOP / tool).read_text()
    for lst in re.findall(r"[\[(]((?:\s*\"[a-z]{3,4}\",?)+)\s*[\])]", text):
        names = re.findall(r'"(\w+)"', lst)
        if {"int", "thr"} & set(names) or {"dpc", "res"} & set(names):
            assert set(names) <= set(contexts.ALL), (tool, names)
