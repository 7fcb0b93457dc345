"""efax (Debian's package, unchanged) in a guest, Class 1 on /dev/ttySM0,
against smline's SpanDSP fax terminal over the virtual line (QEMU's D-Bus
audio, instruction-counted clock): the guest side is
tests/module/guest/fax_efax.sh, one boot runs a list of steps.

Each step is a dict: kind (send: efax dials and sends the image; recv:
efax waits as `fax answer` does and smline's terminal calls and sends it),
tag, ctx (the module's context), load (the study's load: load_us=1840, the
spinner, cyclictest's 1 ms task), br (efax's bit-rate capability: 5 V.17
14400, 3 V.29 9600, 1 V.27ter 4800), modems (smline's faxmodems= word, or
None for all three).  run() returns a Run with the results directory,
smline's records by tag and the image comparisons."""
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import guestboot
from guestpkg import package_files

TOP = Path(__file__).resolve().parents[2]
FAXTIFF = TOP / "build" / "line" / "faxtiff"
ARGS = "engine=1 phase_periods=1 ring_samples=8192"
# an incoming call rings at this line time (seconds) or, after another
# call, as soon as the line is idle again; efax is waiting by then
INCOMING_S = 40


@dataclass
class Run:
    out: Path           # the boot's directory
    res: Path           # the guest's results
    recs: dict          # tag -> smline's call record
    compare: dict       # tag -> faxtiff compare's JSON (None: nothing to compare)

    def text(self, name):
        p = self.res / name
        return p.read_text(errors="replace") if p.exists() else ""


def faxtiff(*args):
    assert FAXTIFF.is_file(), "%s missing: make -f tools/line/line.mk line" % FAXTIFF
    return subprocess.run([str(FAXTIFF), *map(str, args)], capture_output=True, text=True)


def efax_pages(out, pages, rows=None):
    """The image as efax's users make it: one TIFF-F file a page, by efix
    (efax reads a TIFF's T.4 data up to its RTC, which efix writes and
    libtiff does not).  [guest path: host path]."""
    files = {}
    for k in range(1, pages + 1):
        mh = out / ("p%d.tif" % k)
        r = faxtiff("make", mh, "%d/%d" % (k, pages), "g3", *([rows] if rows else []))
        assert r.returncode == 0, r.stderr
        dst = out / ("page.%03d" % k)
        with open(dst, "wb") as f:
            subprocess.run(["efix", "-o", "tiffg3", str(mh)], stdout=f, check=True,
                           stderr=subprocess.DEVNULL)
        files["opt/fax/page.%03d" % k] = str(dst)
    return files


def number(i):
    return "55513%02d" % (i + 1)


def run(name, steps, pages=2, rows=None, kver=None, header="", timeout_s=2400,
        icount_shift=0):
    """One boot, the steps in order; cached for the session by name.
    icount_shift: the guest's virtual CPU (see smlab.guest.run_guest).
    rows: every page that long (default 640 and 440); header: efax's page
    header (-h; "" for none, so that what arrives is the image as made)."""
    kver = kver or guestboot.generic_kernel()

    def boot():
        assert kver, "no 6.1 generic kernel installed: make deps"
        out = guestboot.fresh_dir(TOP / "out" / "tests" / "efax" / kver / name)
        page = out / "page.tif"
        r = faxtiff("make", page, pages, *(["g3", rows] if rows else []))
        assert r.returncode == 0, r.stderr
        line, guest = [], []
        for i, s in enumerate(steps):
            words = ["fax", "ident=SMLINE"]
            if s.get("modems"):
                words.append("faxmodems=" + s["modems"])
            if s["kind"] == "send":
                words.append("faxrecv=%s" % (out / (s["tag"] + ".tif")))
                line += ["--route", "%s=answer:%s" % (number(i), ",".join(words))]
                guest.append("send:%s:%s:%d:%d:%s" % (s["tag"], s["ctx"], s.get("load", 0),
                                                     s.get("br", 5), number(i)))
            else:
                words.append("faxsend=%s" % page)
                line += ["--incoming", "%d=%s" % (INCOMING_S + i, ",".join(words))]
                guest.append("recv:%s:%s:%d:%d" % (s["tag"], s["ctx"], s.get("load", 0),
                                                  s.get("br", 5)))
        files = package_files("efax")
        files.update(efax_pages(out, pages, rows))
        if any(s["ctx"] == "usr" for s in steps):
            files["usr/bin/smodemd"] = str(guestboot.smodemd())
        res, recs = guestboot.line_run(kver, "fax_efax.sh", out / "guest", line,
                                       env={"SMODEM_ARGS": ARGS, "FAX_STEPS": " ".join(guest),
                                            "FAX_HDR": header},
                                       extra_files=files, timeout_s=timeout_s,
                                       icount_shift=icount_shift)
        by_tag, cmp = {}, {}
        # smline's records in call order: the steps' calls, one each
        for s, rec in zip(steps, recs):
            by_tag[s["tag"]] = rec
        for s in steps:
            if s["kind"] == "send":
                got = [out / (s["tag"] + ".tif")]
            else:
                got = sorted(res.glob(s["tag"] + ".[0-9][0-9][0-9]"))
            if not all(p.is_file() for p in got) or not got:
                cmp[s["tag"]] = None
                continue
            r = faxtiff("compare", page, *got)
            cmp[s["tag"]] = json.loads(r.stdout) if r.stdout.strip() else None
        (out / "compare.json").write_text(json.dumps(cmp, indent=1))
        return Run(out, res, by_tag, cmp)
    return guestboot.once(("efax-" + name, kver), boot)

