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
EDGE = re.compile(r'edge:\s*\{\s*sourcename:\s*"([^"]+)"\s*targetname:\s*"([^"]+)"')
BYTES = re.compile(r'(\d+) bytes? \((static|dynamic[^)]*)\)')


def load(objdir):
    frames, kinds, calls = {}, {}, {}
    for path in glob.glob(os.path.join(objdir, '*.ci')):
        text = open(path).read()
        for title, label in NODE.findall(text):
            m = BYTES.search(label)
            if m:
                frames[title] = int(m.group(1))
                kinds[title] = m.group(2)
            else:
                frames.setdefault(title, 0)
        for src, dst in EDGE.findall(text):
            calls.setdefault(src, set()).add(dst)
    return frames, kinds, calls


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
    frames, kinds, calls = load(a.objdir)
    if not frames:
        print('no .ci files in', a.objdir, file=sys.stderr)
        return 1
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
