"""A guest that dies silently is booted once more by the guest tests' once()
(tests/module/guestboot.py); one that says why it died, timed out, or dies
silently twice is not; make check's closing lines count the second boots
(tools/lab/testsum.py --retries).  No guest is booted: the deaths are
GuestResults over console files written here."""
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tests" / "module"))
import guestboot  # noqa: E402
from smlab import guest  # noqa: E402


def result(tmp_path, console, timed_out=False, name="console.log"):
    p = tmp_path / name
    p.write_text(console)
    return guest.GuestResult(rc=None, console=str(p), out_dir=str(tmp_path), wall_s=1.0,
                             timed_out=timed_out, kvm=False, qemu_rc=0)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setattr(guestboot, "_CACHE", {})
    monkeypatch.setattr(guestboot, "RETRY_LOG", tmp_path / "retries.log")
    monkeypatch.setattr(guest, "SILENT_DEATHS", [])
    return tmp_path


@pytest.mark.parametrize("console,silent", [
    ("SMLAB: phase script-start up=1.80\n[guest] flood\n", True),
    ("", True),
    ("[guest] flood\n[   12.1] Kernel panic - not syncing: Fatal exception\n", False),
    ("[   12.1] BUG: kernel NULL pointer dereference, address: 0000000000000008\n", False),
    ("[   12.1] general protection fault, probably for non-canonical address\n", False),
    ("[   12.1] watchdog: BUG: soft lockup - CPU#0 stuck for 22s!\n", False),
])
def test_what_counts_as_a_silent_death(fresh, capsys, console, silent):
    res = result(fresh, console)
    guest.note_unreported(res, "6.1.0-57-amd64")
    assert (guest.SILENT_DEATHS == [res]) == silent
    # the console's end goes to stderr, where CI keeps it
    err = capsys.readouterr().err
    for ln in console.splitlines():
        assert "  | " + ln in err


def test_a_timed_out_guest_is_not_silent(fresh, capsys):
    guest.note_unreported(result(fresh, "[guest] flood\n", timed_out=True), "k")
    assert guest.SILENT_DEATHS == []


def test_the_console_tail_is_bounded(fresh, capsys):
    guest.note_unreported(result(fresh, "".join("line %d\n" % i for i in range(500))), "k")
    err = capsys.readouterr().err
    assert "  | line 499" in err and "  | line %d\n" % (500 - guest.CONSOLE_TAIL) in err
    assert "  | line %d\n" % (499 - guest.CONSOLE_TAIL) not in err


def booter(tmp_path, deaths):
    """A boot() whose first len(deaths) calls fail, each after recording a
    guest death whose console is deaths[i]; then it returns 'results'."""
    calls = []

    def boot():
        calls.append(1)
        i = len(calls) - 1
        if i < len(deaths):
            guest.note_unreported(result(tmp_path, deaths[i], name="c%d.log" % i), "k")
            raise AssertionError("boot %d failed" % i)
        return "results"
    return boot, calls


def test_a_silent_death_is_booted_once_more_and_logged(fresh, capsys):
    boot, calls = booter(fresh, ["[guest] flood\n"])
    assert guestboot.once("stolen", boot) == "results"
    assert guestboot.once("stolen", boot) == "results"
    assert len(calls) == 2
    log = guestboot.RETRY_LOG.read_text().splitlines()
    assert len(log) == 1 and "'stolen'" in log[0] and "c0.log" in log[0], log
    assert "booting it once more" in capsys.readouterr().err


def test_a_kernel_that_says_why_is_not_booted_again(fresh):
    boot, calls = booter(fresh, ["[   9.0] Kernel panic - not syncing: Fatal exception\n"])
    for _ in range(2):
        with pytest.raises(AssertionError, match="boot k failed: boot 0 failed"):
            guestboot.once("k", boot)
    assert len(calls) == 1 and not guestboot.RETRY_LOG.exists()


def test_a_second_silent_death_fails(fresh):
    boot, calls = booter(fresh, ["", ""])
    with pytest.raises(AssertionError, match="boot 1 failed"):
        guestboot.once("k", boot)
    assert len(calls) == 2 and len(guestboot.RETRY_LOG.read_text().splitlines()) == 1


def test_a_failure_without_a_death_is_not_retried(fresh):
    calls = []

    def boot():
        calls.append(1)
        raise AssertionError("insmod failed")
    with pytest.raises(AssertionError, match="insmod failed"):
        guestboot.once("k", boot)
    assert len(calls) == 1


def junit(path, tests, failures=0):
    path.write_text('<testsuites><testsuite tests="%d" failures="%d" errors="0" skipped="0"/>'
                    '</testsuites>' % (tests, failures))
    return str(path)


@pytest.mark.parametrize("lines,said", [(0, None), (2, 2)])
def test_testsum_counts_the_second_boots(tmp_path, lines, said):
    log = tmp_path / "guest-retries.log"
    if lines:
        log.write_text("x\n" * lines)
    r = subprocess.run([sys.executable, str(TOP / "tools/lab/testsum.py"), "--retries", str(log),
                        junit(tmp_path / "a.xml", 5), junit(tmp_path / "b.xml", 3, 1)],
                       capture_output=True, text=True)
    out = r.stdout.splitlines()
    assert r.returncode == 1 and out[-1] == "check: 7 passed, 1 failed", out
    assert ("died silently" in r.stdout) == bool(said)
    if said:
        assert out[0].startswith("check: %d guest boot(s) died silently" % said), out
