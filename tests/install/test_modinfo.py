"""What modinfo says of smodem.ko (build/<kver>/smodem.ko, `make modules`):
the version (driver/smodem_version.h, the version's one place, which debian/changelog
must repeat), licence, author, description, the AC'97 alias it autoloads
on, and every parameter with a description that names its range or values
and its default; the parameters modinfo lists are exactly the module_param
declarations in the sources, so a new parameter without a description, or
with a default its description does not give, fails here."""
import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
MODINFO = "/sbin/modinfo"
SOURCE_DIRS = ("driver", "contexts", "sched", "dsp")
PARAM_DECL = re.compile(r"\bmodule_param(?:_named|_array|_string|_cb|_unsafe)?"
                        r"\(\s*(\w+)\s*,")
# Every value of MODULE_DEVICE_TABLE(pci, ...): the 82801AA (QEMU's AC'97).
AC97_ALIAS = "pci:v00008086d00002415sv*sd*bc*sc*i*"


def kernels():
    """The installed kernel flavours with headers (the top Makefile's KVERS)."""
    return sorted(p.parent.name for p in Path("/lib/modules").glob("*/build"))


def sources():
    for d in SOURCE_DIRS:
        yield from sorted((TOP / d).glob("*.c"))


def declared_params():
    """{name: default as written in C} for every module_param in the sources."""
    out = {}
    for path in sources():
        text = path.read_text()
        for m in PARAM_DECL.finditer(text):
            name = m.group(1)
            decl = re.search(r"^static\s+[\w\s]+?\**\s*\b%s\s*(\[\w+\])?\s*(?:=\s*([^;]+))?;" % name,
                             text, re.M)
            assert decl, "%s: no static declaration of %s" % (path, name)
            default = (decl.group(2) or "0").strip().strip('"')
            if decl.group(1):
                # an array: every element's, { [0 ... N - 1] = V }
                m = re.fullmatch(r"\{\s*\[0 \.\.\. [^\]]+\]\s*=\s*(-?\w+)\s*\}", default)
                default = m.group(1) if m else "0"
            assert name not in out, "parameter %s declared twice" % name
            out[name] = default
    return out


def source_version():
    m = re.findall(r'^#define SMODEM_VERSION "([^"]+)"$',
                   (TOP / "driver/smodem_version.h").read_text(), re.M)
    assert len(m) == 1, "one SMODEM_VERSION in driver/smodem_version.h: %s" % m
    main = (TOP / "driver/smodem_main.c").read_text()
    assert "MODULE_VERSION(SMODEM_VERSION);" in main
    return m[0]


def modinfo(ko):
    r = subprocess.run([MODINFO, str(ko)], capture_output=True, text=True, check=True)
    fields = {}
    for line in r.stdout.splitlines():
        key, _, val = line.partition(":")
        fields.setdefault(key.strip(), []).append(val.strip())
    return fields


def parm_descs(fields):
    """{name: description} of modinfo's parm: lines ("name:desc (type)")."""
    out = {}
    for v in fields.get("parm", []):
        name, _, rest = v.partition(":")
        out[name] = re.sub(r"\s*\((charp|uint|int|ulong|long|ushort|short|bool|"
                           r"invbool|byte|hexint|array of \w+)\)$", "", rest).strip()
    return out


@pytest.fixture(scope="module", params=kernels())
def info(request):
    ko = TOP / "build" / request.param / "smodem.ko"
    assert ko.is_file(), "%s missing: make modules" % ko
    return modinfo(ko)


def test_identity(info):
    assert info["version"] == [source_version()]
    assert info["license"] == ["GPL"]
    assert info["author"] and all(info["author"])
    assert info["description"] and all(info["description"])


def test_autoloads_on_the_ac97(info):
    assert AC97_ALIAS in info.get("alias", [])


def test_parameters_are_the_declared_ones(info):
    # a module_param without MODULE_PARM_DESC still has a parm: line (its
    # type only), so this is every parameter the module has
    assert set(parm_descs(info)) == set(declared_params())


@pytest.mark.parametrize("name", sorted(declared_params()))
def test_parameter_description(info, name):
    """Non-empty, a range (a..b), a list of values (x, y or z) or a meaning
    per value (0: ..., 1: ...), and the default last in brackets, the one
    the source initialises it to."""
    desc = parm_descs(info).get(name, "")
    assert desc, "%s: no MODULE_PARM_DESC" % name
    assert re.search(r"\w\.\.\w|[\w)] or \w+|(^|; )\d+: ", desc), \
        "%s: the description names no range or values: %r" % (name, desc)
    m = re.search(r"\[([^\],= ]+)[^\]]*\]$", desc)
    assert m, "%s: the description does not end with its [default]: %r" % (name, desc)
    assert m.group(1) == declared_params()[name], \
        "%s: description says default %s, the source %s" % (
            name, m.group(1), declared_params()[name])


def test_debian_changelog_repeats_the_version():
    r = subprocess.run(["dpkg-parsechangelog", "-S", "Version", "-l",
                        str(TOP / "debian/changelog")],
                       capture_output=True, text=True, check=True)
    assert r.stdout.strip() == source_version()
