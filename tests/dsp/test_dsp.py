"""Runs the C test programs of the dsp pump (built by `make check-dsp`) and source-level rules."""
import glob
import os
import re
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.path.join(TOP, os.environ.get('DSP_BUILD', 'build/dsp'))
PROGS = sorted(glob.glob(os.path.join(BUILD, 'tests', 'test_*')))
FUZZ = sorted(glob.glob(os.path.join(BUILD, 'fuzz', 'fuzz_*')))
FUZZ_CHECK_SECONDS = int(os.environ.get('FUZZ_CHECK_SECONDS', '5'))


def test_programs_were_built():
    srcs = glob.glob(os.path.join(TOP, 'tests', 'dsp', 'test_*.c'))
    assert srcs, 'no C tests found'
    built = {os.path.basename(p) for p in PROGS}
    missing = [s for s in srcs if os.path.basename(s)[:-2] not in built]
    assert not missing, 'not built (run make check-dsp): %s' % missing


@pytest.mark.parametrize('prog', PROGS, ids=[os.path.basename(p) for p in PROGS])
def test_c_program(prog):
    r = subprocess.run([prog], cwd=TOP, capture_output=True, text=True, timeout=900)
    print(r.stdout)
    print(r.stderr)
    assert r.returncode == 0, '%s failed (rc %d):\n%s\n%s' % (prog, r.returncode, r.stdout[-4000:],
                                                                r.stderr[-4000:])
    assert 'FAIL' not in r.stdout


@pytest.mark.parametrize('prog', FUZZ, ids=[os.path.basename(p) for p in FUZZ])
def test_fuzz_short(prog, tmp_path):
    r = subprocess.run([prog, '-max_total_time=%d' % FUZZ_CHECK_SECONDS, '-rss_limit_mb=1024',
                        '-timeout=10', '-artifact_prefix=%s/' % tmp_path, str(tmp_path)], cwd=TOP, capture_output=True, text=True,
                       timeout=FUZZ_CHECK_SECONDS + 120)
    assert r.returncode == 0, r.stderr[-4000:]
    assert 'Done' in r.stderr


def _dsp_sources():
    return sorted(glob.glob(os.path.join(TOP, 'dsp', '*.c')) +
                  glob.glob(os.path.join(TOP, 'dsp', 'include', 'smdsp', '*.h')))


def _strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


@pytest.mark.parametrize('src', _dsp_sources(), ids=lambda p: os.path.relpath(p, TOP))
def test_kernel_safe_source(src):
    code = _strip_comments(open(src).read())
    assert not re.search(r'\b(float|double|long\s+double)\b', code), 'floating point in ' + src
    if os.path.basename(src) == 'compat.h':
        return  # the one place that maps kernel and libc
    for inc in re.findall(r'#\s*include\s*[<"]([^>"]+)[>"]', code):
        assert inc.startswith('smdsp/'), '%s includes %s (only smdsp/*.h allowed)' % (src, inc)
    assert not re.search(r'\b(printf|malloc|calloc|free|sin|cos|sqrt|exp|log)\s*\(', code), src
