"""The test tree's own rule: pytest imports test files by basename (no
packages), so two test files of one name in two directories make the second
an import error at collection."""
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_file_names_are_unique():
    names = Counter(p.name for p in TESTS.rglob("*.py") if p.name != "conftest.py")
    assert not [n for n, k in names.items() if k > 1], sorted(n for n, k in names.items() if k > 1)


def test_every_guest_test_file_states_its_cost():
    """make check's guard against a slow suite growing unseen: every file
    that boots a guest (tests/conftest.py's kind()) says in its docstring
    what its boots cost, in a line `Cost: ...` (guests, minutes), as the
    time-per-file table at the end of make check measures it."""
    import ast
    import importlib.util
    spec = importlib.util.spec_from_file_location("tests_conftest", TESTS / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    top = TESTS.parent
    missing = []
    for p in sorted(TESTS.rglob("test_*.py")):
        rel = str(p.relative_to(top))
        if rel.startswith(("tests/realtime/", "tests/debug/")) or conftest.kind(rel) != "guest":
            continue
        doc = ast.get_docstring(ast.parse(p.read_text())) or ""
        if not any(line.startswith("Cost: ") for line in doc.splitlines()):
            missing.append(rel)
    assert not missing, "no 'Cost: ...' line in the docstring of %s" % missing
