#!/usr/bin/env python3
"""Prints the V.29 pulse tables of dsp/v29_tx.c (root-raised-cosine, beta 0.25, 2400 baud).

Transmitter: 10 rows (baud phases of 1/3 sample), 9 symbols each, Q14 / 2.
Receiver (matched filter): 12 fractional delays of 1/12 sample, 48 taps, DC gain 2 in Q13.
Also prints the constants the code derives from them: the transmit rows' mean sum of squares,
and the mean square of the T/2 samples of the matched filter's output during segment 2
(ABAB) relative to the symbols' mean square, for each rate.
"""
import math

BETA = 0.25


def rrc(t, beta=BETA):
    """Root-raised-cosine at t symbols, peak 1 - beta + 4 beta / pi."""
    if abs(t) < 1e-9:
        return 1 - beta + 4 * beta / math.pi
    if abs(abs(4 * beta * t) - 1) < 1e-9:
        return beta / math.sqrt(2) * ((1 + 2 / math.pi) * math.sin(math.pi / (4 * beta)) +
                                      (1 - 2 / math.pi) * math.cos(math.pi / (4 * beta)))
    return (math.sin(math.pi * t * (1 - beta)) + 4 * beta * t * math.cos(math.pi * t * (1 + beta))) / \
        (math.pi * t * (1 - (4 * beta * t) ** 2))


def tx_rows(baud_len=10, syms=9):
    return [[round(rrc(k + bp / baud_len - (syms - 1) / 2) * 8192) for k in range(syms)]
            for bp in range(baud_len)]


def rx_rows(baud=2400, taps=48, phases=12):
    rows = []
    for f in range(phases):
        h = [rrc((k - (taps - 1) / 2 - f / phases) * baud / 8000) for k in range(taps)]
        s = sum(h)
        rows.append([round(v / s * 2 * 8192) for v in h])
    return rows


def table(name, rows, per_line):
    out = ['const int16_t %s[%d][%d] = {' % (name, len(rows), len(rows[0]))]
    for r in rows:
        out.append('\t{')
        for i in range(0, len(r), per_line):
            out.append('\t\t' + ' '.join('%d,' % v for v in r[i:i + per_line]))
        out.append('\t},')
    out.append('};')
    return '\n'.join(out)


if __name__ == '__main__':
    tx = tx_rows()
    print(table('smdsp_v29_tx_rrc', tx, 9))
    print(table('smdsp_v29_rx_rrc', rx_rows(), 9))
    print('/* TX_POWER %d */' % round(sum(sum(v * v for v in r) for r in tx) / len(tx)))
