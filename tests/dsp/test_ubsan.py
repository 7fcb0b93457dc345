"""The dsp tests and fuzz targets under UBSan, gcc's and clang's (built by `make dsp-tests` into
build/dsp/ubsan-{gcc,clang}/ with -fsanitize=undefined -fno-sanitize-recover=all: the first undefined
operation, a signed overflow say, ends the program with an error). A short, seeded subset, on impaired
and hostile inputs: the C tests' own lines (noise, echo, clock offsets, clipping, DC, noise before the
signal: test_robust, test_qam_limits, ...), and the fuzz targets on a generated corpus (noise before a
signal, full-scale noise, DC, clipped square waves), once per input through tests/dsp/standalone_fuzz.c
with each compiler and, for clang, a bounded libFuzzer run (ASan as well) from that corpus.
About 40 s of CPU in all."""
import glob
import math
import os
import random
import re
import struct
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import ctest  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.path.join(TOP, os.environ.get('DSP_BUILD', 'build/dsp'))
CCS = ('gcc', 'clang')
FUZZ_RUNS = int(os.environ.get('UBSAN_FUZZ_RUNS', '150'))
ENV = dict(os.environ, UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1')

# test program: (arguments, compilers). The long ones run under one compiler each (both builds run the
# same library code; the checks they add differ little), the BER sweeps and test_hdlc_fer (statistics
# over minutes of line, on code the others reach) under neither.
PROGRAMS = {
    'test_async': ([], CCS),
    'test_callprog': ([], CCS),
    'test_echo': (['--quick'], CCS),
    'test_faxmodem': (['--quick'], CCS),
    'test_hdlc_hostile': ([], CCS),
    'test_liquid': ([], CCS),
    'test_modem': ([], CCS),
    'test_print': ([], CCS),
    'test_pump': ([], CCS),
    'test_qam_limits': ([], CCS),
    'test_robust': ([], CCS),
    'test_tones': ([], CCS),
    'test_v27ter': ([], CCS),
    'test_v42': ([], CCS),
    'test_v42bis': ([], CCS),
    'test_v8': ([], CCS),
    'test_v17_noise': ([], CCS),
    'test_v22bis_noise': ([], CCS),
    'test_v34_info': ([], CCS),
    'test_v34_shell': ([], CCS),
    'test_v34_data': ([], CCS),
    'test_v34_mod': ([], CCS),
    'test_v34_probe': ([], CCS),
    'test_v34_rtd': ([], CCS),
    'test_v34_phase2': ([], CCS),
    'test_v34_train': (['--quick'], CCS),
    'test_v34_duplex': ([], CCS),
    'test_v34_call': (['--quick'], CCS),
    'test_v34_rate': (['--quick'], ('gcc',)),
    'test_v34_path': (['--quick'], ('gcc',)),
    'test_v34_reneg': (['--quick'], ('gcc',)),
    'test_v34_loss': (['--quick'], ('clang',)),
    'test_v34_codes': ([], ('clang',)),
    'test_v34_md': (['--quick'], ('clang',)),
    'test_v34_shaping': (['--quick'], ('gcc',)),
    'test_v34_every_rate': ([], ('clang',)),
    'test_v32bis_reneg': ([], ('gcc',)),
    'test_v17': (['--quick'], ('gcc',)),
    'test_v32bis': (['--quick'], ('clang',)),
    'test_v32bis_call': ([], ('gcc',)),
    'test_v32bis_echo': (['--quick'], ('gcc',)),
    'test_v32bis_path': (['--quick'], ('clang',)),
    'test_v34_image': (['--quick'], ('gcc',)),
    'test_engine': ([], ('gcc',)),
    'test_modem_v32': ([], ('clang',)),
    'test_modem_v34': ([], CCS),
    'test_v29': ([], ('gcc',)),
    'test_viterbi': ([], ('clang',)),
    'test_hdlc': ([], ('clang',)),
    'test_v21': ([], ('clang',)),
    'test_v22bis': ([], ('clang',)),
}
# (dsp/dsp.mk's DSP_UB_SKIP: not built either); test_v42bis_far is smline's SpanDSP modem against the
# engine, whose V.42 and V.42bis test_v42 and test_engine run here
NOT_RUN = {'test_v17_ber', 'test_v32bis_ber', 'test_v22bis_ber', 'test_v27ter_ber', 'test_v29_ber', 'test_hdlc_fer',
           'test_v34_data_ber', 'test_v34_train_ber', 'test_v42bis_far'}


def _sources(kind):
    return sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(TOP, 'tests', 'dsp', kind + '_*.c')))


def test_every_program_is_placed():
    """A new tests/dsp/test_*.c must be put in PROGRAMS (or NOT_RUN): a program left out would be
    a test that never meets the sanitizer."""
    missing = [p for p in _sources('test') if p not in PROGRAMS and p not in NOT_RUN]
    assert not missing, 'add to PROGRAMS or NOT_RUN in %s: %s' % (__file__, missing)


def _check_run(r, what):
    out = (r.stdout or '')[-3000:] + '\n' + (r.stderr or '')[-5000:]
    assert 'runtime error' not in r.stderr, '%s: undefined behaviour\n%s' % (what, out)
    assert r.returncode == 0, '%s failed (rc %d)\n%s' % (what, r.returncode, out)


RUNS = [(cc, p) for p in sorted(PROGRAMS) if p in _sources('test') for cc in PROGRAMS[p][1]]


@pytest.mark.parametrize('cc,prog', RUNS, ids=['%s-%s' % r for r in RUNS])
def test_ubsan_program(cc, prog):
    exe = os.path.join(BUILD, 'ubsan-' + cc, 'tests', prog)
    assert os.path.exists(exe), '%s not built (make dsp-tests)' % exe
    r = subprocess.run([exe] + PROGRAMS[prog][0], cwd=TOP, capture_output=True, text=True, timeout=600,
                       env=ENV)
    _check_run(r, '%s (%s UBSan)' % (prog, cc))
    ctest.judge(prog, r)


# -- the fuzz targets on hostile inputs ---------------------------------------------------------------

RATE = 8000


def _tone(n, freq, amp, phase0=0.0):
    return [amp * math.cos(2 * math.pi * freq * i / RATE + phase0) for i in range(n)]


def _clip(x):
    return [max(-32768, min(32767, int(round(v)))) for v in x]


def _noise(rng, n, rms):
    return [rng.gauss(0, rms) for _ in range(n)]


def _ab(n, baud=2400, carrier=1800, amp=6000):
    """V.17/V.29-like segment 1: the carrier turning by 90 degrees at every symbol (A, B, A, ...)."""
    return [amp * math.cos(2 * math.pi * carrier * i / RATE + (math.pi / 2) * ((i * baud // RATE) & 1))
            for i in range(n)]


def _fsk(rng, n, f0, f1, baud=300, amp=6000):
    x, ph, bit = [], 0.0, 0
    for i in range(n):
        if i % (RATE // baud) == 0:
            bit = rng.getrandbits(1)
        ph += 2 * math.pi * (f1 if bit else f0) / RATE
        x.append(amp * math.cos(ph))
    return x


def _signals(seed):
    """Named hostile lines, about 1 s each, as int16 samples."""
    rng = random.Random(seed)
    n = RATE
    lead = rng.randrange(RATE // 4, RATE // 2)
    rms = 6000 / math.sqrt(2) * 10 ** (-rng.uniform(20, 30) / 20)   # 20-30 dB below the signal
    sigs = {}
    for name, sig in (('ab', _ab(n - lead)), ('ans', _tone(n - lead, 2100, 6000)),
                      ('fsk', _fsk(rng, n - lead, 1650, 1850)), ('v22', _tone(n - lead, 2250, 6000))):
        noise = _noise(rng, n, rms)
        sigs['noise-first-' + name] = _clip([w + (sig[i - lead] if i >= lead else 0) for i, w in enumerate(noise)])
    sigs['full-scale-noise'] = [rng.randrange(-32768, 32768) for _ in range(n)]
    sigs['dc+'] = [32767] * n
    sigs['dc-'] = [-32768] * n
    sigs['square'] = [32767 if (i // 4) & 1 else -32768 for i in range(n)]
    sigs['clipped-ab'] = _clip([8 * v for v in _ab(n)])
    sigs['clipped-ans'] = _clip([30000 * 4 * math.sin(2 * math.pi * 2100 * i / RATE) for i in range(n)])
    return sigs


def _pcm(x):
    return struct.pack('<%dh' % len(x), *x)


def _records(head, x, rec):
    """x in records of up to 255 samples, each after its header rec(i) (bytes that end in the count)."""
    out, i, k = bytearray(head), 0, 0
    while i < len(x):
        m = min(255, len(x) - i)
        out += rec(k, m) + _pcm(x[i:i + m])
        i += m
        k += 1
    return bytes(out)


def _corpus(target, seed):
    """target's input format (tests/dsp/fuzz_*.c) around each hostile line."""
    out = {}
    sigs = _signals(seed)
    rng = random.Random(seed)
    for name, x in sigs.items():
        if target == 'fuzz_pump':
            # byte 0: dial (1) or answer (2), NA or ETSI plan, every modulation; byte 1: flags
            for mode in (1, 2):
                out['%s-%d' % (name, mode)] = _records(bytes([mode | (rng.getrandbits(1) << 2), rng.randrange(16)]),
                                                        x, lambda k, m: bytes([m]))
        elif target == 'fuzz_v22bis':
            for cfg in (0x00, 0xe1, 0x7f, 0xa2):
                out['%s-%02x' % (name, cfg)] = bytes([cfg]) + _pcm(x)
        elif target == 'fuzz_v34_info':
            # byte 0: the role (bit 0), the frame kinds looked for (bits 1-3), phase 2 listening (bit 4);
            # then the line
            for cfg in (0x00, 0x01, 0x0e, 0x0f, 0x10, 0x11):
                out['%s-%02x' % (name, cfg)] = bytes([cfg]) + _pcm(x)
        elif target == 'fuzz_faxmodem':
            # AT+FRM at V.17 14400, 12000 (short), V.29 9600, V.27ter 4800, and AT+FRH (V.21): then the line
            for op, mod in ((3, 11), (3, 10), (3, 7), (3, 2), (1, 0)):
                out['%s-%d-%d' % (name, op, mod)] = _records(b'', x, lambda k, m, op=op, mod=mod:
                                                             bytes([op if k == 0 else 15, mod, m]))
    if target == 'fuzz_v42bis':
        # P1, P2, flags, then: text, a compressed-looking stream (ESC ECM and codewords), runs, noise
        text = open(os.path.join(TOP, 'dsp', 'README.md'), 'rb').read()[:6000]
        heads = [bytes([0x80, 0x00, 0, 0]), bytes([0x07, 0xff, 26, 1]), bytes([0x0f, 0xff, 244, 0x7e]),
                 bytes([0x81, 0x20, 0, 2])]
        for k, h in enumerate(heads):
            out['text-%d' % k] = h + text
            out['ecm-%d' % k] = h + b'\x00\x00' + bytes(rng.getrandbits(8) for _ in range(2048))
            out['runs-%d' % k] = h + b'\x00' * 3000 + b'A' * 3000
            out['noise-%d' % k] = h + bytes(rng.getrandbits(8) for _ in range(rng.randrange(64, 4096)))
    if target == 'fuzz_v42':
        # no samples: garbage records, all ones, all zeros, flags
        for k in range(6):
            out['garbage-%d' % k] = bytes(rng.getrandbits(8) for _ in range(rng.randrange(64, 2048)))
        out['ones'] = b'\x01' + b'\xff' * 1024
        out['zeros'] = b'\x00' * 1024
        out['flags'] = b'\x03' + b'\x7e' * 1024
        # V.42bis negotiated (the top bit), some text across, then a frame its decoder cannot take
        talk = (b'\x02\xff' + b'\x00' * 255) * 20
        text = open(os.path.join(TOP, 'README.md'), 'rb').read()[:200]
        out['v42bis'] = (b'\x81' + talk + b'\x03\xc8' + text + talk[:2560] +
                         b'\x00\x05\x03\x00\x00\x00\x07' + talk[:2560])
    return out


FUZZ_TARGETS = _sources('fuzz')


def _write_corpus(target, path, seed=1):
    path.mkdir()
    corpus = _corpus(target, seed)
    assert corpus, 'no corpus for %s: teach _corpus() its input format' % target
    for name, data in corpus.items():
        (path / name).write_bytes(data)
    return len(corpus)


@pytest.mark.parametrize('cc', CCS)
@pytest.mark.parametrize('target', FUZZ_TARGETS)
def test_ubsan_fuzz_corpus(cc, target, tmp_path):
    """Every input of the hostile corpus once, through the UBSan build of the target."""
    exe = os.path.join(BUILD, 'ubsan-' + cc, 'fuzz', target)
    assert os.path.exists(exe), '%s not built (make dsp-tests)' % exe
    n = _write_corpus(target, tmp_path / 'corpus')
    r = subprocess.run([exe, str(tmp_path / 'corpus')], cwd=TOP, capture_output=True, text=True, timeout=600,
                       env=ENV)
    _check_run(r, '%s (%s UBSan) on the hostile corpus' % (target, cc))
    assert 'ran %d inputs' % n in r.stdout, r.stdout


@pytest.mark.parametrize('target', FUZZ_TARGETS)
def test_libfuzzer_hostile_seeds(target, tmp_path):
    """libFuzzer (clang, ASan and UBSan, build/dsp/fuzz/) from the hostile corpus, FUZZ_RUNS mutations."""
    exe = os.path.join(BUILD, 'fuzz', target)
    assert os.path.exists(exe), '%s not built (make dsp-fuzz-build)' % exe
    _write_corpus(target, tmp_path / 'corpus', seed=2)
    r = subprocess.run([exe, '-runs=%d' % FUZZ_RUNS, '-seed=1', '-rss_limit_mb=1024', '-timeout=30',
                        '-artifact_prefix=%s/' % tmp_path, str(tmp_path / 'corpus')], cwd=TOP, capture_output=True,
                       text=True, timeout=600, env=ENV)
    _check_run(r, '%s (libFuzzer, hostile seeds)' % target)
    # every mutation asked for ran (on a busy machine libFuzzer counts a few more: 153 and 157
    # of 150 were seen, e.g. inputs it runs again to look for a leak when a run's mallocs and
    # frees, the RSS watcher thread's included, do not balance)
    done = re.search(r'^Done (\d+) runs', r.stderr, re.M)
    assert done and int(done.group(1)) >= FUZZ_RUNS, r.stderr[-3000:]
