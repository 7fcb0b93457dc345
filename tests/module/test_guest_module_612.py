"""test_guest_module.py's tests on Debian's 6.12 kernels, generic
(PREEMPT_DYNAMIC, voluntary by default) and PREEMPT_RT (mainline's since
6.12; Debian boots it "lazy").

The same guest_checks.sh boots, judged by the same test functions: every
test of test_guest_module.py parametrized by kernel is cloned here with its
6.1 kernels swapped for the 6.12 ones (generic for generic, rt for rt), its
other parameters and marks kept.  A file of its own so that pytest-xdist
(--dist loadfile) runs these boots on the other worker: the 6.1 file's four
boots already take about 11 minutes of wall time.  test_guest_module.py's
test_all_four_kernels_installed fails if the 6.12 kernels are missing (here
every test would then be skipped for an empty parameter set).

Cost: 4 guests, 6.2 min of wall time (6.0 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import functools

import pytest

import test_guest_module as tgm

KERNELS = tgm.kernels("6.12")
# 6.1 kernel -> the 6.12 kernel of the same flavour
SWAP = {k: n for k, n in zip(tgm.KERNELS, KERNELS)
        if ("-rt-" in k) == ("-rt-" in n)}


def _swap_param(p):
    if not isinstance(p, type(pytest.param(None))):
        p = pytest.param(*(p if isinstance(p, tuple) else (p,)))
    old = next((v for v in p.values if v in tgm.KERNELS), None)
    if old not in SWAP:
        return None
    values = tuple(SWAP.get(v, v) if isinstance(v, str) else v for v in p.values)
    pid = p.id.replace(old, SWAP[old]) if p.id else None
    return pytest.param(*values, marks=p.marks, id=pid)


def _swap_mark(m):
    """A parametrize mark over kernels, over the 6.12 ones instead."""
    names = m.args[0] if isinstance(m.args[0], str) else ",".join(m.args[0])
    if m.name != "parametrize" or "kver" not in [n.strip() for n in names.split(",")]:
        return m, False
    params = [q for q in (_swap_param(p) for p in m.args[1]) if q is not None]
    return pytest.mark.parametrize(m.args[0], params, *m.args[2:], **m.kwargs).mark, True


def _clone(fn):
    marks, by_kernel = [], False
    for m in getattr(fn, "pytestmark", []):
        m, swapped = _swap_mark(m)
        marks.append(m)
        by_kernel |= swapped
    if not by_kernel:
        return None

    @functools.wraps(fn)
    def test(*args, **kwargs):
        return fn(*args, **kwargs)
    test.pytestmark = marks
    return test


for _name, _fn in sorted(vars(tgm).items()):
    if _name.startswith("test_") and callable(_fn):
        _t = _clone(_fn)
        if _t is not None:
            globals()[_name] = _t
