"""The first real call: the guest's /dev/ttySM0 (engine=1, AC'97, real
clock) dials smline on the host through a private JACK server.

    /usr/bin/python3 tests/module/call_real.py [insmod args...]

runs one call and prints the transcript, the phases and smline's record;
tests/module/test_call.py runs the same through run_call().
"""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import guestboot
from smlab import checks
from smlab.guest import available_kernels, run_guest
from smlab.jack import jack_server
from smlab.procs import Group

TOP = Path(__file__).resolve().parents[2]

OUT = TOP / "out" / "tests" / "call-real"
SMLINE = TOP / "build" / "line" / "smline"
ROUTE = "5551234=answer:v22bis,echo"
# A ring of 8192 holds the output lead QEMU's skew on JACK needs: its
# output engine ran up to 1700 frames ahead of its input engine there.
DEFAULT_ARGS = "hw=ac97 engine=1 ring_samples=8192"


def kernel():
    if os.environ.get("SMODEM_TTY_KERNEL"):
        return os.environ["SMODEM_TTY_KERNEL"]
    have = [k for k in available_kernels() if re.match(r"6\.1\.\d+-\d+-amd64$", k)]
    return have[0] if have else None


def run_call(args=DEFAULT_ARGS, nbytes=int(os.environ.get("CALL_BYTES", "512")), out=OUT, timeout_s=240):
    """One call; returns (guest result, results dir, smline records)."""
    kver = kernel()
    assert kver, "no 6.1 generic kernel installed: make deps"
    ko = checks.module(kver)
    assert SMLINE.is_file(), "%s missing: make line" % SMLINE
    out = Path(out)
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    exe = guestboot.build_ttyat(out)
    script = (TOP / "tests/module/guest/call_real.sh").read_text()
    calls = out / "calls.jsonl"
    # 21 ms JACK periods: with 5.3 ms ones (256) the loaded 2-core host
    # gave the dummy driver xruns, each a slip on the line (garbled data).
    period = int(os.environ.get("CALL_JACK_PERIOD", "1024"))
    with jack_server(timeout_s=timeout_s + 60, period=period,
                     log=str(out / "jackd.log")) as js, \
            open(out / "smline.log", "wb") as log:
        line = Group([str(SMLINE), "--transport", "jack", "--route", ROUTE,
                      "--json", str(calls), "-v"], timeout_s + 30, env=js.env,
                     stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            js.wait_ports(r"^smline:to_modem$", timeout_s=10)
            res = run_guest(kver, "sh -s <<'SMODEM_EOF'\n%s\nSMODEM_EOF\n" % script,
                            str(out), clock="real", audio="ac97", jack=js,
                            jack_ports={"in": "smline:to_modem",
                                        "out": "smline:from_modem"},
                            extra_files={"usr/bin/ttyat": str(exe),
                                         "opt/smodem/smodem.ko": str(ko)},
                            env={"SMODEM_ARGS": args, "CALL_BYTES": str(nbytes)},
                            timeout_s=timeout_s)
            time.sleep(0.5)
        finally:
            line.stop()
    recs = []
    if calls.exists():
        recs = [json.loads(x) for x in calls.read_text().splitlines() if x.strip()]
    return res, out / "results", recs


def main():
    args = " ".join(sys.argv[1:]) or DEFAULT_ARGS
    res, rdir, recs = run_call(args)
    print("guest ok=%s rc=%s wall=%.1f s" % (res.ok, res.rc, res.wall_s))
    for name in ("call.txt", "call.stats"):
        p = rdir / name
        if p.exists():
            print("==", name)
            print(p.read_text(errors="replace"))
    dat = rdir / "call.dat"
    if dat.exists():
        import smtrace
        for e in smtrace.events(dat):
            if e.name in ("smodem_phase", "smodem_overrun"):
                print("%.3f %s %s" % (e.ts_ns / 1e9, e.name, e.fields))
    for r in recs:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
