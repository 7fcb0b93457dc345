#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The V.34 receiver's companding detector (dsp/v34_train_rx.c, comp_acc()) in
floating point, for its line-power estimate p: what share of a pure codec's
noise each estimate measures, and gamma fitted.

A codec's error on each line sample has a variance proportional to that
sample's square, independent from sample to sample, so after the matched
filter g the noise's power half a symbol between two symbols, at t, is
V(t) = sum_n g(t - n)^2 x(n)^2, x the real line as the codec saw it (the
channel before it). That is computed exactly here (QPSK as TRN, the
receiver's root-raised-cosine pulse, beta 1/8, the line model's channels of
tests/dsp/common/chan.c), with the receiver's view of the line: the matched
filter's outputs y at t and at the symbol instants either side. The share an
estimate p measures of noise that is all companding is cov(p, V) E[p] /
(var(p) E[V]): 100 % when p is proportional to V's expectation.

Printed per channel and symbol rate: that share and p's correlation with V for
the flat pulse's fixed weights (the detector before) and for p = |y(t)|^2 +
gamma (|y(t - T/2)|^2 + |y(t + T/2)|^2) with gamma the least-squares fit on
the flat line (the detector now: 137/256). Takes about 20 s.

Usage: build/venv/bin/python dsp/tools/comp_share.py
"""
import argparse

import numpy as np
import scipy.signal as ss

FS = 8000.0
BETA = 1 / 8
RATES = ((2400, 1800), (3200, 1829), (3429, 1959))  # baud, carrier Hz
CHANNELS = ("flat", "telephone", "bass cut", "long loop")


def rrc(t):
    """The root-raised-cosine pulse at t symbols, tapered over its last two of +-10 as v34_mod.c's."""
    t = np.asarray(t, float)
    out = np.empty_like(t)
    zero = np.abs(t) < 1e-9
    edge = np.abs(np.abs(t) - 1 / (4 * BETA)) < 1e-9
    out[zero] = 1 - BETA + 4 * BETA / np.pi
    out[edge] = BETA / np.sqrt(2) * ((1 + 2 / np.pi) * np.sin(np.pi / (4 * BETA))
                                     + (1 - 2 / np.pi) * np.cos(np.pi / (4 * BETA)))
    m = ~(zero | edge)
    x = t[m]
    out[m] = (np.sin(np.pi * x * (1 - BETA)) + 4 * BETA * x * np.cos(np.pi * x * (1 + BETA))) / \
        (np.pi * x * (1 - (4 * BETA * x) ** 2))
    a = np.abs(t)
    w = np.where(a > 8, 0.5 * (1 + np.cos(np.pi * (a - 8) / 2)), 1.0)
    w[a >= 10] = 0
    return out * w


def channel(kind):
    """chan.c's sections: Butterworth high- and low-passes (bilinear, pre-warped), the long loop's pole."""
    def butter(hp, fc, order):
        return [ss.butter(order, fc / (FS / 2), "high" if hp else "low")]

    if kind == "telephone":
        return butter(1, 200, 2) + butter(0, 3600, 4)
    if kind == "bass cut":
        return butter(1, 600, 2) + butter(0, 3700, 4)
    if kind == "long loop":
        k = np.tan(np.pi * 1000 / FS)
        return butter(1, 300, 2) + butter(0, 3400, 4) + [([k / (1 + k)] * 2, [1, (k - 1) / (k + 1)])]
    return []


def simulate(baud, fc, kind, nsym=5000, seed=1):
    """Decisions d, |y|^2 at t - T/2, t, t + T/2 (columns) and V(t), t half a symbol before each symbol."""
    rng = np.random.default_rng(seed)
    T = FS / baud
    d = (2 * rng.integers(0, 2, nsym) - 1) + 1j * (2 * rng.integers(0, 2, nsym) - 1)
    n = int(nsym * T) + 40
    tn = np.arange(n)
    s = np.zeros(n, complex)
    for k in range(nsym):
        c = k * T + 20
        lo, hi = max(0, int(c - 10 * T)), min(n, int(c + 10 * T) + 1)
        s[lo:hi] += d[k] * rrc((tn[lo:hi] - c) / T)
    w = 2 * np.pi * fc / FS
    x = np.real(s * np.exp(1j * w * tn))
    for b, a in channel(kind):
        x = ss.lfilter(b, a, x)

    def at(tau):
        lo, hi = int(tau - 10 * T), int(tau + 10 * T) + 1
        m = tn[lo:hi]
        g = rrc((tau - m) / T)
        return 2 * np.sum(g * x[lo:hi] * np.exp(-1j * w * m)), np.sum(g * g * x[lo:hi] ** 2)

    # the symbol instants: the delay where the outputs correlate best with the decisions
    offs = np.arange(0, 4 * T, T / 16)
    corr = [abs(np.vdot(d[100:300], [at(k * T + 20 + o)[0] for k in range(100, 300)])) for o in offs]
    off = offs[int(np.argmax(corr))]
    ks = np.arange(60, nsym - 60)
    y = np.zeros((len(ks), 3))
    v = np.zeros(len(ks))
    for i, k in enumerate(ks):
        t = k * T + 20 + off - T / 2
        for j in range(3):
            yv, vv = at(t + (j - 1) * T / 2)
            y[i, j] = abs(yv) ** 2
            if j == 1:
                v[i] = vv
    return d, ks, y, v


def share(p, v):
    return 100 * np.cov(p, v)[0, 1] * np.mean(p) / (np.var(p) * np.mean(v))


def fixed_p(d, ks):
    """The flat pulse's weights over the four nearest decisions' products (the detector before)."""
    def c(i, j):
        return np.real(d[i] * np.conj(d[j])) / 2
    a, b = ks - 1, ks
    return 593 + 2 * (119 * c(a, b) - 45 * (c(a - 1, a) + c(b, b + 1)) - 36 * (c(a - 1, b) + c(a, b + 1))
                      - 8 * c(a - 1, b + 1))


def main():
    runs = {(kind, baud): simulate(baud, fc, kind) for kind in CHANNELS for baud, fc in RATES}
    # gamma: V against |y(t)|^2 and the two either side on the flat line, no constant (V is all companding)
    a = np.vstack([np.c_[y[:, 1], y[:, 0] + y[:, 2]] for (kind, _), (_, _, y, _) in runs.items() if kind == "flat"])
    b = np.concatenate([v for (kind, _), (_, _, _, v) in runs.items() if kind == "flat"])
    coef = np.linalg.lstsq(a, b, rcond=None)[0]
    gamma = coef[1] / coef[0]
    print(f"gamma fitted on the flat line: {gamma:.3f} ({gamma * 256:.0f}/256; the detector's 137/256)")
    print(f"{'channel':10} {'baud':>5}  {'fixed weights: share, corr':>27}  {'line p: share, corr':>20}")
    for (kind, baud), (d, ks, y, v) in runs.items():
        pf = fixed_p(d, ks)
        pl = y[:, 1] + 137 / 256 * (y[:, 0] + y[:, 2])
        print(f"{kind:10} {baud:5}  {share(pf, v):19.0f} % {np.corrcoef(pf, v)[0, 1]:5.2f}"
              f"  {share(pl, v):12.0f} % {np.corrcoef(pl, v)[0, 1]:5.2f}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
