"""/dev/ttySM0 in a QEMU guest: the AT interpreter, modem-control lines,
hang-ups and unloading (6.1 generic kernel, virtual clock, one boot).

tests/module/guest/tty_checks.sh runs in the guest with tests/module/guest/ttyat.c
(built here, static) and leaves transcripts in the share; the tests below
judge them.  The AC'97 is joined to smline (build/line/smline) through
QEMU's D-Bus audio on the instruction-counted clock: the calls are real
calls (the modem engine against SpanDSP), the same on every run.  The
calls' other results (V.21/V.22/V.8, incoming calls, +++/ATO, flow control)
are in test_scenarios.py, the per-context calls in test_modem.py.

SMODEM_KO overrides the module (default build/<kver>/smodem.ko, built by
`make modules`), SMODEM_TTY_KERNEL the kernel (e.g. the rt flavour).

Cost: 1 guest, 1.0 min of wall time (0.7 min of QEMU's CPU) in make check on the
2-core lab machine (2026-11-28).
"""
import re
from pathlib import Path


import guestboot

TOP = Path(__file__).resolve().parents[2]
OUT = TOP / "out" / "tests" / "tty"


ROUTES = ["--route", "5551234=answer:v22bis,v42,echo", "--route", "7=busy",
          "--route", "9=answer:v22bis,echo,hangup=20"]


def results():
    """Boot once; every test reads the same results."""
    return guestboot.line_results("tty", "tty_checks.sh", OUT, ROUTES)[0]


def _unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            c = s[i + 1]
            if c == "r":
                out.append("\r")
                i += 2
                continue
            if c == "n":
                out.append("\n")
                i += 2
                continue
            if c == "\\":
                out.append("\\")
                i += 2
                continue
            if c == "x":
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
        out.append(s[i])
        i += 1
    return "".join(out)


class Transcript:
    """ttyat output: steps as (sent, received) and the other record lines."""

    def __init__(self, path):
        self.text = Path(path).read_text(errors="replace")
        self.steps, self.records = [], []
        for line in self.text.splitlines():
            if line.startswith("> "):
                self.steps.append([_unesc(line[2:]), None])
            elif line.startswith("< "):
                if self.steps and self.steps[-1][1] is None:
                    self.steps[-1][1] = _unesc(line[2:])
                else:
                    self.records.append(line)
            else:
                self.records.append(line)

    def replies(self, sent):
        """Every reply to exactly `sent` (a command gets its CR added)."""
        want = [sent, sent + "\r"]
        return [r for s, r in self.steps if s in want]

    def reply(self, sent, nth=0):
        r = self.replies(sent)
        assert len(r) > nth, "no reply #%d to %r in:\n%s" % (nth, sent, self.text)
        return r[nth] or ""

    def record(self, prefix, nth=0):
        r = [line for line in self.records if line.startswith(prefix)]
        assert len(r) > nth, "no record %r #%d in:\n%s" % (prefix, nth, self.text)
        return r[nth]


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def _read(name):
    return (results() / name).read_text(errors="replace").strip()


def _clean_dmesg(name):
    bad = [line for line in _read(name).splitlines() if guestboot.BAD_DMESG.search(line)]
    assert not bad, bad


OK = "\r\nOK\r\n"
ERROR = "\r\nERROR\r\n"


def test_device_node():
    assert _read("insmod.rc") == "0"
    node = _read("node.txt")
    assert node.startswith("c"), node           # a character device
    assert node.endswith("/dev/ttySM0"), node
    assert _read("sysfs.txt") == "yes"
    assert "/dev/ttySM0" in _read("load.dmesg")


def test_udev_rule():
    """The guest has no udev: check the tty's rule matches the node the
    kernel made and gives it to the dialout group, 0660 (the file's other
    rule, for context=usr's /dev/smodem<n>, is checked by
    tests/install/test_make_install.py)."""
    import fnmatch
    rules = [line for line in (TOP / "tools/udev/60-smodem.rules").read_text()
             .splitlines() if line.strip() and not line.startswith("#")
             and 'SUBSYSTEM=="tty"' in line]
    assert len(rules) == 1, rules
    pairs = re.findall(r'([A-Z]+)(==|=)"([^"]*)"', rules[0])
    m = {k: v for k, _, v in pairs}
    ops = {k: op for k, op, _ in pairs}
    assert ops == {"SUBSYSTEM": "==", "KERNEL": "==", "GROUP": "=",
                   "MODE": "="}, rules[0]
    assert m["SUBSYSTEM"] == "tty", m
    node = _read("node.txt").split()[-1].rsplit("/", 1)[1]
    assert fnmatch.fnmatchcase(node, m["KERNEL"]), (node, m["KERNEL"])
    assert not fnmatch.fnmatchcase("ttyS0", m["KERNEL"])
    assert m["GROUP"] == "dialout" and m["MODE"] == "0660", m


def test_basic_commands():
    t = Transcript(results() / "basic.txt")
    assert _read("basic.rc") == "0"
    # Echo on after load: the command comes back first.
    assert t.reply("AT") == "AT\r" + OK
    assert "\r\nsmodem\r\n" in t.reply("ATI")
    assert "\r\nsmodem\r\n" in t.reply("ATI0")
    assert "V.22bis" in t.reply("ATI1")
    assert t.reply("ATI2") == "ATI2\r" + OK
    assert "smodem 0.1" in t.reply("ATI3")
    assert t.reply("ATI4") == "ATI4\r" + OK     # I4-I9: nothing to tell
    assert t.reply("ATI10").endswith(ERROR)
    assert t.reply("ATE0") == "ATE0\r" + OK
    assert t.reply("AT", 1) == OK                     # no echo now


def test_numeric_result_codes():
    t = Transcript(results() / "basic.txt")
    assert t.reply("ATV0") == "0\r"
    assert t.reply("AT", 2) == "0\r"
    assert t.reply("ATS7?", 0) == "050\r\n0\r"
    assert t.reply("ATX9") == "4\r"
    assert t.reply("ATV1") == OK


def test_s_registers():
    t = Transcript(results() / "basic.txt")
    assert t.reply("ATS7=200") == OK
    assert t.reply("ATS7?", 1) == "\r\n200\r\n" + OK
    assert t.reply("ATS7=300") == ERROR
    assert t.reply("ATS7?", 2) == "\r\n200\r\n" + OK      # unchanged
    assert t.reply("ATS12=0") == OK
    assert t.reply("ATS12=256") == ERROR
    # A/ repeats the last line at once.
    assert t.reply("ATS7?", 3) == "\r\n200\r\n" + OK
    assert t.reply("A/") == "\r\n200\r\n" + OK


def test_modulation_and_error_control():
    t = Transcript(results() / "basic.txt")
    # the factory's: V.34 with its automode over every rate
    assert t.reply("AT+MS?") == "\r\n+MS: V34,1,0,0\r\n" + OK
    assert t.reply("AT+MS=V22") == OK
    assert t.reply("AT+MS?", 1) == "\r\n+MS: V22,1,0,0\r\n" + OK
    assert t.reply("AT+MS=V99") == ERROR
    assert t.reply("AT\\N0") == OK
    assert t.reply("AT\\N9") == ERROR
    assert t.reply("AT+ES=3,0,2") == OK
    assert t.reply("ATX3") == OK
    assert t.reply("AT%Q") == ERROR
    v = t.reply("AT&V")
    assert "S07:200" in v and " X3 " in v and "+MS=V22," in v and v.endswith(OK)


def test_bad_input():
    t = Transcript(results() / "basic.txt")
    big = [r for s, r in t.steps if s == "(big line of 4096)"]
    assert big and big[0] == ERROR, big
    assert t.reply("AT", 3) == OK                       # still works
    rnd = [i for i, (s, _) in enumerate(t.steps) if s == "(8192 random bytes)"]
    assert rnd, t.text
    # After 8 KiB of random bytes and a CR, a plain AT is answered OK.
    after = [r for s, r in t.steps[rnd[0] + 2:] if s == "AT\r"]
    assert after and after[0].endswith(OK), after


def test_lines_and_no_engine():
    t = Transcript(results() / "basic.txt")
    tiocm = fields(t.record("TIOCM"))
    assert tiocm == {"CAR": "0", "RNG": "0", "DSR": "1", "CTS": "1",
                     "DTR": "1", "RTS": "1"}, tiocm
    # engine=0 (no data pump engine): every call attempt fails at once.
    assert t.reply("ATD5551234").endswith("\r\nNO CARRIER\r\n")
    assert t.reply("ATA").endswith("\r\nNO CARRIER\r\n")
    assert t.reply("ATO").endswith("\r\nNO CARRIER\r\n")
    assert t.reply("ATH") == OK
    # ATZ: factory settings, echo on again.
    assert t.reply("ATZ") == OK
    assert t.reply("AT", len(t.replies("AT")) - 1) == "AT\r" + OK
    assert fields(t.record("END"))["sighup"] == "0"


def test_tiocmiwait():
    t = Transcript(results() / "miwait.txt")
    assert t.record("MIWAIT waiting") == "MIWAIT waiting=1"
    f = fields(t.record("MIWAIT child"))
    assert f == {"child": "0", "mask0_einval": "1", "dcd_changes": "2"}, f
    # AT&C0: DCD on without carrier; AT&C1: off again.
    assert fields(t.record("TIOCM", 0))["CAR"] == "1"
    assert fields(t.record("TIOCM", 1))["CAR"] == "0"


def test_blocking_open_waits_for_dcd():
    assert _read("blockopen.txt").splitlines()[-1] == \
        "BLOCKOPEN blocked=1 opened_after_dcd=1"


def test_open_close_cycles():
    assert _read("cycles.txt") == "CYCLES n=20 ok=20"
    _clean_dmesg("cycles.dmesg")


def test_unload_with_port_open():
    res = results()
    assert not (res / "hold.err").exists(), _read("hold.err")
    # The open tty pins the module: rmmod is refused, nothing breaks.
    assert _read("rmmod-open.rc") != "0"
    assert _read("rmmod-open.loaded") == "1"
    assert Transcript(res / "after-refused.txt").reply("AT") == OK
    # Removing the device under it hangs the session up.
    assert _read("unbind.rc") == "0" and _read("unbind.dev").startswith("0000:")
    t = Transcript(res / "hold.txt")
    assert "READY" in t.records
    assert t.record("MIWAIT") == "MIWAIT rc=-1 errno=5"      # EIO
    hup = fields(t.record("HUP"))
    assert hup["ended"] == "1" and int(hup["sighup"]) >= 1, hup
    assert _read("hold.rc") == "0"
    assert not (res / "node-after-unbind.txt").exists()
    # Closed: the module unloads.
    assert _read("rmmod-after.rc") == "0"
    assert _read("rmmod-after.loaded") == "0"
    _clean_dmesg("unplug.dmesg")


def test_call_results_over_the_line():
    t = Transcript(results() / "line.txt")
    assert _read("insmod-line.rc") == "0"
    assert fields(t.record("TIOCM", 0))["CAR"] == "0"
    assert t.reply("ATD7", 0) + t.reply("(read 15000 ms)", 0) == "\r\nBUSY\r\n"
    # ATX0
    assert t.reply("ATD7", 1) + t.reply("(read 15000 ms)", 1) == "\r\nNO CARRIER\r\n"
    assert t.reply("ATDT5551234;") == OK                 # stays in command mode
    assert t.reply("ATH") == OK
    assert t.reply("(read 30000 ms)", 0).endswith("\r\nCONNECT 2400\r\n"), t.text
    assert fields(t.record("TIOCM", 1))["CAR"] == "1"
    # AT&D2 (the default): dropping DTR hangs up.
    assert t.reply("(read 1000 ms)") == "\r\nNO CARRIER\r\n"
    assert t.reply("AT") == OK
    last = fields(t.record("TIOCM", 2))
    assert last["CAR"] == "0" and last["DTR"] == "1", last


def test_remote_hangup_with_clocal():
    c = Transcript(results() / "hup-clocal.txt")
    got = c.reply("(read 30000 ms)") + c.reply("(read 15000 ms)")
    # the far end hangs up 20 s into the data phase: NO CARRIER after
    # CONNECT (and maybe some noise decoded as the carrier faded)
    assert got.startswith("\r\nCONNECT 2400\r\n"), c.text
    assert got.endswith("\r\nNO CARRIER\r\n"), c.text
    assert c.reply("AT") == OK
    assert fields(c.record("TIOCM"))["CAR"] == "0"
    assert fields(c.record("END"))["sighup"] == "0"


def test_close_hangs_up():
    a = Transcript(results() / "close-call-1.txt")
    assert a.reply("(read 30000 ms)").endswith("\r\nCONNECT 2400\r\n"), a.text
    b = Transcript(results() / "close-call-2.txt")
    assert fields(b.record("TIOCM"))["CAR"] == "0"
    assert b.reply("AT") == OK
    assert b.reply("ATO") == "\r\nNO CARRIER\r\n"
    assert _read("rmmod-line.rc") == "0"
    _clean_dmesg("line.dmesg")
