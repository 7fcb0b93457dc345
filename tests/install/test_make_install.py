"""make install / make uninstall and make install-dkms / uninstall-dkms
(mk/install.mk) into a DESTDIR: what lands where (the man pages of man/
included), and that uninstall takes it all back.  The module is
build/<KVER>/smodem.ko, rebuilt by make if need be (the 6.1 generic
flavour, the Makefile's default KVER); smodemd is
build/smodemd/smodemd, and its unit tools/systemd/smodemd@.service.in with
the paths filled in, checked by systemd-analyze verify where it exists."""
import fnmatch
import re
import shutil
import subprocess
import tempfile
from pathlib import Path


from test_modinfo import declared_params, modinfo, source_version

TOP = Path(__file__).resolve().parents[2]


def make(*args):
    r = subprocess.run(["nice", "make", "-s", "--no-print-directory"] + list(args),
                       cwd=TOP, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def default_kver():
    """The top Makefile's KVER_GEN: the installed 6.1 generic flavour."""
    gen = [k.name for k in sorted(Path("/lib/modules").glob("6.1.*")) if
           (k / "build").exists() and not k.name.endswith("-rt-amd64")]
    assert gen, "no 6.1 generic headers: make deps"
    return gen[0]


def files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if not p.is_dir())


def test_install_and_uninstall(tmp_path):
    k = default_kver()
    make("install", "DESTDIR=%s" % tmp_path)
    ko = tmp_path / "lib/modules" / k / "updates/smodem.ko"
    assert files(tmp_path) == sorted([
        str(ko.relative_to(tmp_path)), "lib/udev/rules.d/60-smodem.rules",
        "usr/share/doc/smodem/README.md", "usr/sbin/smodemd",
        "lib/systemd/system/smodemd@.service", "usr/share/man/man4/smodem.4",
        "usr/share/man/man8/smodemd.8", "usr/share/man/man1/smline.1"])
    assert (tmp_path / "usr/share/man/man4/smodem.4").read_bytes() == \
        (TOP / "man/smodem.4").read_bytes()
    assert (tmp_path / "usr/sbin/smodemd").stat().st_mode & 0o777 == 0o755
    unit = (tmp_path / "lib/systemd/system/smodemd@.service").read_text()
    assert "ExecStart=/usr/sbin/smodemd --device /dev/%i --fifo 50\n" in unit
    assert "file:/usr/share/doc/smodem/README.md" in unit and "@" + "SBINDIR@" not in unit
    check_unit(tmp_path)
    info = modinfo(ko)
    assert info["version"] == [source_version()]
    assert {p.split(":")[0] for p in info["parm"]} == set(declared_params())
    # no debug info (stripped as DKMS and Debian's own modules are), symbols kept
    sections = subprocess.run(["readelf", "-SW", str(ko)], capture_output=True,
                              text=True, check=True).stdout
    assert ".debug_info" not in sections and ".symtab" in sections
    assert (tmp_path / "lib/udev/rules.d/60-smodem.rules").read_bytes() == \
        (TOP / "tools/udev/60-smodem.rules").read_bytes()
    make("uninstall", "DESTDIR=%s" % tmp_path)
    assert files(tmp_path) == []
    assert not (tmp_path / "usr/share/doc/smodem").exists()


def test_install_prefix(tmp_path):
    make("install", "DESTDIR=%s" % tmp_path, "PREFIX=/usr/local",
         "UDEVRULESDIR=/etc/udev/rules.d")
    assert (tmp_path / "usr/local/share/doc/smodem/README.md").is_file()
    assert (tmp_path / "etc/udev/rules.d/60-smodem.rules").is_file()
    assert (tmp_path / "usr/local/sbin/smodemd").is_file()
    assert (tmp_path / "usr/local/share/man/man8/smodemd.8").is_file()
    unit = (tmp_path / "lib/systemd/system/smodemd@.service").read_text()
    assert "ExecStart=/usr/local/sbin/smodemd " in unit
    make("uninstall", "DESTDIR=%s" % tmp_path, "PREFIX=/usr/local",
         "UDEVRULESDIR=/etc/udev/rules.d")
    assert files(tmp_path) == []


def test_install_dkms_tree(tmp_path):
    """The DKMS source tree: dkms.conf with the version filled in, and the
    files the lab's own build compiles, as plain files."""
    v = source_version()
    make("install-dkms", "DESTDIR=%s" % tmp_path)
    src = tmp_path / "usr/src" / ("smodem-" + v)
    conf = (src / "dkms.conf").read_text()
    assert 'PACKAGE_VERSION="%s"' % v in conf and "#MODULE_VERSION#" not in conf
    assert 'BUILT_MODULE_NAME[0]="smodem"' in conf and 'AUTOINSTALL="yes"' in conf
    for f in ("Kbuild", "driver/smodem_main.c", "dsp/modem.c", "sched/smodem_sched.c"):
        assert (src / f).is_file() and not (src / f).is_symlink(), f
    assert not list(src.rglob("*.o"))
    make("uninstall-dkms", "DESTDIR=%s" % tmp_path)
    assert not src.exists()


def unit_settings(text):
    """{(section, key): [values]} of a unit file."""
    out, sec = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            sec = line.strip("[]")
            continue
        k, v = line.split("=", 1)
        out.setdefault((sec, k), []).append(v)
    return out


def check_unit(tmp_path):
    """smodemd@<device>.service as installed in tmp_path: bound to its
    device, restarted on failure (not when the modem has another daemon:
    exit 2), SCHED_FIFO and mlock allowed (the two capabilities,
    RestrictRealtime off), the rest closed; systemd-analyze verify finds
    nothing to say (where it exists)."""
    unit = tmp_path / "lib/systemd/system/smodemd@.service"
    u = unit_settings(unit.read_text())
    assert u[("Unit", "BindsTo")] == ["dev-%i.device"] and u[("Unit", "After")] == ["dev-%i.device"]
    assert u[("Install", "WantedBy")] == ["dev-%i.device"]
    assert u[("Service", "Restart")] == ["on-failure"]
    assert u[("Service", "RestartPreventExitStatus")] == ["2"]
    assert set(u[("Service", "CapabilityBoundingSet")][0].split()) == {"CAP_SYS_NICE",
                                                                       "CAP_IPC_LOCK"}
    assert u[("Service", "RestrictRealtime")] == ["no"]
    assert u[("Service", "DeviceAllow")] == ["/dev/%i rw"]
    for k in ("NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateNetwork",
              "ProtectKernelModules", "ProtectKernelTunables", "MemoryDenyWriteExecute"):
        assert u[("Service", k)] == ["yes"], k
    assert u[("Service", "ProtectSystem")] == ["strict"]
    # the smodemd options it uses exist
    help_text = subprocess.run([str(tmp_path / "usr/sbin/smodemd"), "--help"],
                               capture_output=True, text=True, check=True).stdout
    assert "--device" in help_text and "--fifo" in help_text
    if not shutil.which("systemd-analyze"):
        print("no systemd-analyze here: unit not verified")
        return
    # an instance, with the installed smodemd (ExecStart must exist)
    with tempfile.TemporaryDirectory() as d:
        inst = Path(d) / "smodemd@smodem0.service"
        inst.write_text(unit.read_text().replace("ExecStart=/usr/sbin/smodemd",
                                                 "ExecStart=%s/usr/sbin/smodemd" % tmp_path))
        r = subprocess.run(["systemd-analyze", "verify", str(inst)], capture_output=True,
                           text=True, timeout=120)
    # verify only warns about unknown keys or bad values: no output at all
    assert r.returncode == 0 and not (r.stdout + r.stderr).strip(), r.stdout + r.stderr


def test_udev_rule_covers_the_devices():
    """ttySM<n>: dialout, 0660; smodem<n> (context=usr): tagged for systemd,
    no group or mode of its own (root's, smodem.ko's usr_mode=)."""
    rules = []
    for line in (TOP / "tools/udev/60-smodem.rules").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rules.append(dict(re.findall(r'(\w+(?:\{\w+\})?)\+?[=!]=?"([^"]*)"', line)))

    def match(subsystem, name):
        return [r for r in rules if r["SUBSYSTEM"] == subsystem and
                fnmatch.fnmatchcase(name, r["KERNEL"])]
    for n in ("ttySM0", "ttySM15"):
        (r,) = match("tty", n)
        assert (r["GROUP"], r["MODE"]) == ("dialout", "0660")
    for n in ("smodem0", "smodem7", "smodem12"):
        (r,) = match("misc", n)
        assert r["TAG"] == "systemd" and "GROUP" not in r and "MODE" not in r
    assert not match("misc", "ttySM0") and not match("tty", "smodem0")
    assert not match("misc", "smodemX")
