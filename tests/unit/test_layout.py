"""The test tree's own rule: pytest imports test files by basename (no
packages), so two test files of one name in two directories make the second
an import error at collection."""
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_file_names_are_unique():
    names = Counter(p.name for p in TESTS.rglob("*.py") if p.name != "conftest.py")
    assert not [n for n, k in names.items() if k > 1], sorted(n for n, k in names.items() if k > 1)
