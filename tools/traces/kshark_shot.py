#!/usr/bin/env python3
"""A screenshot of kernelshark showing a trace.dat, taken without a display.

Debian 12's kernelshark (2.2.1) cannot save a picture of itself, so this
starts a private X server (Xvfb, on a display it picks itself with
-displayfd), opens the trace in kernelshark there, enlarges its window
(xdotool: there is no window manager), waits until the window stops
changing, and saves it with ImageMagick's `import`.  Run as root,
kernelshark first shows a blocking "running with Root privileges" dialog,
so it runs as an unprivileged user (nobody) on a copy of the trace.

By default the picture shows a window of the trace (--start, --length,
cut out with `trace-cmd split`): at the whole trace's scale a 10 s run's
periods merge into one bar.  The window is written in trace file format 6
without compression (`trace-cmd convert`), the newest kernelshark 2.2.1
reads.

Fails (exit 1) unless kernelshark shows the file: its window title names
the file, no dialog (such as "contains no data") is open, and the picture
has the coloured task bars of the CPU graph.  Prints one JSON line with
what it checked.  Needs: kernelshark xvfb xdotool imagemagick trace-cmd
(tools/lab/packages.d/traces.txt).

Example:
  build/venv/bin/python tools/traces/kshark_shot.py out/compare/thr/trace.dat \\
      -o out/compare/thr/kernelshark.png --length 0.06
"""

import argparse
import json
import os
import pwd
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

TS = re.compile(r"^\s*\S.*?\[\d+\]\s+(?:\S+\s+)?(\d+\.\d+):\s+(\S+):")


def trace_events(dat, limit=None):
    """(timestamp s, event name) of the trace's events in order (at most
    limit), from `trace-cmd report`."""
    out = []
    p = subprocess.Popen(["trace-cmd", "report", "-i", dat], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True)
    try:
        for line in p.stdout:
            m = TS.match(line)
            if m:
                out.append((float(m.group(1)), m.group(2)))
                if limit and len(out) >= limit:
                    break
    finally:
        p.kill()
        p.wait()
    return out


def cut(dat, start, length, work):
    """The part [start, start + length) of dat as a format-6, uncompressed
    trace file in work (the whole trace when length is 0)."""
    src = dat
    if length:
        base = os.path.join(work, "part.dat")
        subprocess.run(["trace-cmd", "split", "-i", dat, "-o", base,
                        "%.6f" % start, "%.6f" % (start + length)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        src = base + ".1" if os.path.exists(base + ".1") else base
    dst = os.path.join(work, os.path.basename(dat).rsplit(".", 1)[0] + "-ks.dat")
    subprocess.run(["trace-cmd", "convert", "-i", src, "-o", dst, "--file-version", "6",
                    "--compression", "none"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return dst


class Xvfb:
    """A private X server on a free display (Xvfb -displayfd)."""

    def __init__(self, width, height, timeout=20):
        r, w = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(w), "-screen", "0", "%dx%dx24" % (width, height),
             "-ac", "-nolisten", "tcp"], pass_fds=(w,),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        num = b""
        end = time.monotonic() + timeout
        while not num.endswith(b"\n") and time.monotonic() < end:
            if select.select([r], [], [], 0.5)[0]:
                chunk = os.read(r, 16)
                if not chunk:
                    break
                num += chunk
        os.close(r)
        if not num.strip():
            self.stop()
            raise RuntimeError("Xvfb did not start")
        self.display = ":" + num.decode().strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def x(env, *cmd, check=False):
    return subprocess.run(list(cmd), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, universal_newlines=True,
                          check=check).stdout


def windows(env):
    """{window id: name} of the display's named top-level windows."""
    out = {}
    for line in x(env, "xwininfo", "-root", "-children").splitlines():
        m = re.match(r'^\s*(0x[0-9a-f]+) "(.*)": ', line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def picture_stats(png):
    """Pixels of the picture: total, not the background's colour, and
    coloured (the CPU graph's task bars; the UI itself is grey)."""
    import numpy as np
    import matplotlib.image as mpimg
    img = (mpimg.imread(png)[:, :, :3] * 255).astype(int)
    flat = img.reshape(-1, 3)
    vals, counts = np.unique(flat, axis=0, return_counts=True)
    bg = vals[counts.argmax()]
    nonbg = int((flat != bg).any(axis=1).sum())
    colored = int(((flat.max(axis=1) - flat.min(axis=1)) > 80).sum())
    return {"pixels": int(flat.shape[0]), "non_background": nonbg, "coloured": colored}


def shoot(dat, png, width=1400, height=900, timeout=90, user="nobody", dialog_s=15):
    """Open dat (already cut and converted) in kernelshark and save its
    window as png; returns what was checked (raises RuntimeError if the
    window never showed the file)."""
    work = os.path.dirname(dat)
    env = dict(os.environ)
    for k in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XAUTHORITY"):
        env.pop(k, None)
    run_as = []
    home = os.path.join(work, "home")
    os.makedirs(os.path.join(home, "run"), exist_ok=True)
    if os.geteuid() == 0:
        pw = pwd.getpwnam(user)
        for d in (work, home, os.path.join(home, "run")):
            os.chown(d, pw.pw_uid, pw.pw_gid)
        os.chown(dat, pw.pw_uid, pw.pw_gid)
        run_as = ["runuser", "-u", user, "--"]
    os.chmod(os.path.join(home, "run"), 0o700)
    xs = Xvfb(width + 100, height + 100)
    env["DISPLAY"] = xs.display
    ks = None
    try:
        klog = open(os.path.join(work, "kernelshark.log"), "w")
        ks = subprocess.Popen(run_as + ["env", "HOME=" + home,
                                        "XDG_RUNTIME_DIR=" + os.path.join(home, "run"),
                                        "DISPLAY=" + xs.display, "kernelshark", "-i", dat],
                              env=env, stdout=klog, stderr=subprocess.STDOUT, cwd=work)
        end = time.monotonic() + timeout
        wid = box = None
        title = "Kernel Shark (%s)" % dat
        while time.monotonic() < end:
            if ks.poll() is not None:
                raise RuntimeError("kernelshark exited (rc=%s), see %s"
                                   % (ks.returncode, klog.name))
            ws = windows(env)
            wid = next((w for w, n in ws.items() if n == title), None)
            if wid:
                break
            # a window titled "KernelShark" is the loading one, or a message
            # box (e.g. "... contains no data") if it stays
            box = box or (time.monotonic() if "KernelShark" in ws.values() else None)
            if "KernelShark" not in ws.values():
                box = None
            elif time.monotonic() - box > dialog_s:
                x(env, "import", "-window", "root", png)
                raise RuntimeError("kernelshark showed a dialog for %d s instead of the "
                                   "file (picture: %s)" % (dialog_s, png))
            time.sleep(0.5)
        if not wid:
            raise RuntimeError("no kernelshark window titled %r in %d s (windows: %s)"
                               % (title, timeout, sorted(set(windows(env).values()))))
        x(env, "xdotool", "windowsize", str(int(wid, 16)), str(width), str(height))
        # wait until two pictures a second apart are the same
        prev, same = None, 0
        tmp = png + ".tmp.png"
        while time.monotonic() < end:
            time.sleep(1)
            x(env, "import", "-window", wid, tmp)
            data = open(tmp, "rb").read() if os.path.exists(tmp) else None
            same = same + 1 if data and data == prev else 0
            prev = data
            if same >= 1:
                break
        if not prev:
            raise RuntimeError("import took no picture of window %s" % wid)
        os.replace(tmp, png)
        ws = windows(env)
        # kernelshark's message boxes are top-level windows titled "KernelShark"
        dialogs = sorted(n for n in ws.values() if n == "KernelShark")
        st = picture_stats(png)
        st.update({"png": png, "window": title, "stable": same >= 1, "dialogs": dialogs,
                   "display": xs.display, "size": [width, height]})
        return st
    finally:
        if ks is not None and ks.poll() is None:
            # runuser keeps kernelshark as its child: end both
            ks.terminate()
            try:
                ks.wait(5)
            except subprocess.TimeoutExpired:
                ks.kill()
                ks.wait()
        xs.stop()


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] + " Writes a PNG of kernelshark's window "
        "(CPU graph and event list) for a part of a trace.dat.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("trace", help="trace.dat (trace-cmd record/extract)")
    ap.add_argument("-o", "--out", help="PNG to write (default: kernelshark.png beside the trace)")
    ap.add_argument("--start", type=float, default=None,
                    help="trace time (s) the picture starts at (default: the first event "
                    "+ --skip)")
    ap.add_argument("--skip", type=float, default=1.0,
                    help="with no --start: seconds after the first event (default 1)")
    ap.add_argument("--length", type=float, default=0.05,
                    help="seconds of trace to show (default 0.05: four 12.5 ms periods); "
                    "0: the whole trace")
    ap.add_argument("--size", default="1400x900", help="window size WxH (default 1400x900)")
    ap.add_argument("--timeout", type=float, default=90, help="seconds to wait for kernelshark")
    ap.add_argument("--user", default="nobody", help="who runs kernelshark when we are root")
    ap.add_argument("--min-coloured", type=int, default=2000,
                    help="fail unless the picture has this many coloured pixels (the "
                    "CPU graph's bars; default 2000)")
    a = ap.parse_args(argv)
    for tool in ("kernelshark", "Xvfb", "xdotool", "import", "xwininfo", "trace-cmd"):
        if not shutil.which(tool):
            ap.error("%s not found: make deps (tools/lab/packages.d/traces.txt)" % tool)
    if not os.path.isfile(a.trace):
        ap.error("no such trace: %s" % a.trace)
    w, h = (int(v) for v in a.size.lower().split("x"))
    png = os.path.abspath(a.out or os.path.join(os.path.dirname(a.trace) or ".", "kernelshark.png"))
    work = tempfile.mkdtemp(prefix="kshark-")
    try:
        first = trace_events(a.trace, limit=1)
        if not first:
            print(json.dumps({"ok": False, "error": "no events in %s" % a.trace}))
            return 1
        start = a.start if a.start is not None else first[0][0] + a.skip
        try:
            part = cut(a.trace, start, a.length, work)
        except subprocess.CalledProcessError as e:
            print(json.dumps({"ok": False, "error": "trace-cmd failed: %s" % e}))
            return 1
        events = trace_events(part)
        try:
            st = shoot(part, png, w, h, a.timeout, a.user)
        except RuntimeError as e:
            print(json.dumps({"ok": False, "error": str(e), "events": len(events)}))
            return 1
        names = {}
        for _, n in events:
            names[n] = names.get(n, 0) + 1
        st.update({"trace": os.path.abspath(a.trace), "start_s": round(start, 6),
                   "length_s": a.length, "events": len(events), "event_counts": names})
        problems = []
        if st["dialogs"]:
            problems.append("a kernelshark dialog is open (e.g. 'contains no data')")
        if st["coloured"] < a.min_coloured:
            problems.append("only %d coloured pixels: no CPU graph drawn" % st["coloured"])
        if not events:
            problems.append("no events in the part shown")
        st["ok"] = not problems
        st["problems"] = problems
        st["png"] = png
        print(json.dumps(st, sort_keys=True))
        return 0 if st["ok"] else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
