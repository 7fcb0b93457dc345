#!/usr/bin/python3
"""Deepest stack chain of the dsp library, from gcc -fcallgraph-info=su (.ci files).

Prints the deepest call chain below every public entry point (smdsp_*) and, with --json FILE, merges a
"stack" section into that JSON file (creating it if needed)."""
import argparse
import glob
import json
import os
import re
import sys

NODE = re.compile(r'node:\s*\{\s*title:\s*"([^"]+)"\s*label:\s*"([^"]*)"')
EDGE = re.compile(r'edge:\s*\{\s*sourcename:\s*"([^"]+)"\s*targetname:\s*"([^"]+)"'
                  r'\s*label:\s*"([^"]*)"')
BYTES = re.compile(r'(\d+) bytes? \((static|dynamic[^)]*)\)')


# gcc marks calls through function pointers as edges to "__indirect_call". The
# callbacks are wired by the engine (modem.c, modem_phase.c, modem_v8.c) and by
# the blocks that stack on each other, so the possible targets of an indirect
# call are known per file: every indirect call in that file is taken to reach
# the deepest of them.  A static callback is 'file.c:name', an extern one its
# bare name (gcc's node titles).
ENGINE_BITS = ['smdsp_modem_data_get_bit', 'smdsp_modem_data_put_bit']
INDIRECT = {
    'v22bis.c': ENGINE_BITS + ['modem_phase.c:v22_status'],
    'v22bis_rx.c': ['v22bis.c:rx_sym', 'v22bis.c:rx_status'],
    'v22bis_tx.c': ['v22bis.c:tx_sym_hook', 'v22bis.c:tx_get_bit'],
    'v32bis.c': ENGINE_BITS + ['modem_phase.c:v32_status'],
    'v32bis_rx.c': ['v32bis.c:put_bit', 'v32bis.c:rx_status'],
    'v32bis_tx.c': ['v32bis.c:get_bit'],
    'qam.c': ['v32bis.c:rx_status', 'v17_rx.c:acquire'],
    'fsk.c': ENGINE_BITS + ['modem_v8.c:v8_get_bit', 'modem_v8.c:v8_put_bit'],
    'async.c': ['modem.c:atx_get_byte', 'modem.c:arx_put_byte'],
    'hdlc_tx.c': ['v42.c:hdlc_next'],
    'hdlc_rx.c': ['v42.c:hdlc_frame'],
}


def resolve_indirect(calls, frames, sites):
    """Replaces each __indirect_call edge by edges to the callbacks its file may reach."""
    by_suffix = {}
    for title in frames:
        if ':' in title:
            by_suffix[title.rsplit('/', 1)[-1]] = title
    for src, dsts in calls.items():
        dsts.discard('__indirect_call')
    for src, fname in sites:
        for target in INDIRECT.get(fname, []):
            # a callback that is no node of its own was inlined away: nothing to add
            if target in by_suffix:
                calls.setdefault(src, set()).add(by_suffix[target])
            elif ':' not in target and target in frames:
                calls.setdefault(src, set()).add(target)


def load(objdir):
    frames, kinds, calls, sites = {}, {}, {}, set()
    for path in glob.glob(os.path.join(objdir, '*.ci')):
        text = open(path).read()
        for title, label in NODE.findall(text):
            m = BYTES.search(label)
            if m:
                frames[title] = int(m.group(1))
                kinds[title] = m.group(2)
            else:
                frames.setdefault(title, 0)
        for src, dst, site in EDGE.findall(text):
            calls.setdefault(src, set()).add(dst)
            if dst == '__indirect_call':
                sites.add((src, site.split(':')[0].rsplit('/', 1)[-1]))
    return frames, kinds, calls, sites


def deepest(fn, frames, calls, memo, stack):
    if fn in memo:
        return memo[fn]
    if fn in stack:
        return (float('inf'), [fn + ' (recursion)'])
    stack.add(fn)
    best = (0, [])
    for callee in calls.get(fn, ()):
        if callee not in frames:
            continue  # external (libc, kernel): not ours
        d = deepest(callee, frames, calls, memo, stack)
        if d[0] > best[0]:
            best = d
    stack.discard(fn)
    res = (frames.get(fn, 0) + best[0], [fn] + best[1])
    memo[fn] = res
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('objdir')
    ap.add_argument('--json')
    ap.add_argument('--limit', type=int, default=1024)
    ap.add_argument('--key', default='stack', help='JSON section to write')
    ap.add_argument('--what', default='user-space build (gcc -O2 -fcallgraph-info=su)')
    a = ap.parse_args()
    frames, kinds, calls, sites = load(a.objdir)
    if not frames:
        print('no .ci files in', a.objdir, file=sys.stderr)
        return 1
    resolve_indirect(calls, frames, sites)
    dynamic = sorted(f for f, k in kinds.items() if k != 'static')
    memo = {}
    rows = []
    for fn in sorted(frames):
        if fn.startswith('smdsp_') and ('process' in fn or fn.endswith(('_rx', '_tx'))):
            d, chain = deepest(fn, frames, calls, memo, set())
            rows.append((fn, d, chain))
    rows.sort(key=lambda r: -r[1])
    print('%-40s %8s  %s' % ('entry point', 'bytes', 'deepest chain'))
    for fn, d, chain in rows[:15]:
        print('%-40s %8s  %s' % (fn, d, ' > '.join(chain)))
    worst = rows[0] if rows else ('', 0, [])
    print('deepest per-buffer chain: %s bytes (%s); limit %d; dynamic frames: %s'
          % (worst[1], worst[0], a.limit, ', '.join(dynamic) or 'none'))
    if a.json:
        data = {}
        if os.path.exists(a.json):
            with open(a.json) as f:
                data = json.load(f)
        data[a.key] = {
            'deepest_bytes': worst[1], 'deepest_entry': worst[0], 'deepest_chain': worst[2],
            'limit_bytes': a.limit, 'dynamic_frames': dynamic,
            'entries': {fn: d for fn, d, _ in rows},
            'build': a.what,
        }
        with open(a.json, 'w') as f:
            json.dump(data, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
