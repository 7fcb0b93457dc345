"""make install / make uninstall and make install-dkms / uninstall-dkms
(mk/install.mk) into a DESTDIR: what lands where, and that uninstall takes
it all back.  The module is build/<KVER>/smodem.ko, rebuilt by make if need
be (the 6.1 generic flavour, the Makefile's default KVER)."""
import subprocess
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
        "usr/share/doc/smodem/README.md"])
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
