"""The documentation's own checks, no guest and no kernel build:

- the man pages (man/*.[1-8]) render without a warning (groff -man -ww);
- smodem(4)'s PARAMETERS are exactly the module's parameters, each with the
  default the source gives it (the module_param declarations of driver/,
  contexts/, sched/ and dsp/, as tests/install/test_modinfo.py reads them),
  and, where a module is built (build/<kver>/smodem.ko), what modinfo says;
- smodemd(8) and smline(1) name every option of the programs' --help;
- make help lists every target the Makefile and its fragments define;
- README.md keeps the two commands (.ci/run runs its test command) and the
  fast loop, every `make TARGET` in README.md and doc/ is a target, and no
  page points outside the repository: no path beside the checkout, no
  tracker numbers, every relative link and its #anchor resolves."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
MAN = TOP / "man"
PAGES = sorted(MAN.glob("*.[1-8]"))
SOURCE_DIRS = ("driver", "contexts", "sched", "dsp")
PARAM_DECL = re.compile(r"\bmodule_param(?:_named|_array|_string|_cb|_unsafe)?\(\s*(\w+)\s*,")
# the hand-written pages; doc/study/report/ is tools/study.py's output
DOCS = [TOP / "README.md", TOP / "dsp/README.md"] + sorted(
    p for p in (TOP / "doc").glob("*.md"))


def declared_params():
    """{name: default as written in C} of every module_param in the sources."""
    out = {}
    for d in SOURCE_DIRS:
        for path in sorted((TOP / d).glob("*.c")):
            text = path.read_text()
            for m in PARAM_DECL.finditer(text):
                name = m.group(1)
                decl = re.search(r"^static\s+[\w\s]+?\**\s*\b%s\s*(\[\w+\])?\s*(?:=\s*([^;]+))?;"
                                 % name, text, re.M)
                assert decl, "%s: no static declaration of %s" % (path, name)
                default = (decl.group(2) or "0").strip().strip('"')
                if decl.group(1):
                    a = re.fullmatch(r"\{\s*\[0 \.\.\. [^\]]+\]\s*=\s*(-?\w+)\s*\}", default)
                    default = a.group(1) if a else "0"
                if default in ("false", "true"):
                    default = str(int(default == "true"))
                assert name not in out, "parameter %s declared twice" % name
                out[name] = default
    return out


def unroff(s):
    """Text of a roff fragment: escapes and font changes out."""
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(+-", "+-")
    return re.sub(r"\\f[BIRP]", "", s)


def section(page, name):
    text = page.read_text()
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH )" % re.escape(name), text, re.M | re.S)
    assert m, "%s: no .SH %s" % (page.name, name)
    return m.group(1)


def man_params():
    """{name: default} of smodem(4)'s PARAMETERS: a .TP entry per parameter,
    its tag `.BI name= value`, its text ending in `Default:` and the value."""
    out = {}
    for entry in section(MAN / "smodem.4", "PARAMETERS").split(".TP\n")[1:]:
        tag = re.match(r"\.BI? (\w+)=", entry)
        assert tag, "an entry without a `.BI name=` tag: %r" % entry[:60]
        d = re.search(r"Default:\n\.BR? (\S+)", entry)
        assert d, "%s: no `Default:` line" % tag.group(1)
        assert tag.group(1) not in out, "%s listed twice" % tag.group(1)
        out[tag.group(1)] = unroff(d.group(1))
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_man_page_renders_without_warnings(page):
    assert shutil.which("groff"), "no groff: apt-get install groff-base"
    r = subprocess.run(["groff", "-man", "-ww", "-z", str(page)], capture_output=True, text=True)
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr
    th = re.search(r"^\.TH (\S+) (\d)", page.read_text(), re.M)
    assert th and (th.group(1).lower(), th.group(2)) == (page.stem, page.suffix[1:]), \
        "%s: its .TH names another page" % page.name


def test_the_three_pages_exist():
    assert {p.name for p in PAGES} >= {"smodem.4", "smodemd.8", "smline.1"}


def test_smodem4_lists_the_declared_parameters():
    src, man = declared_params(), man_params()
    assert sorted(man) == sorted(src), \
        "smodem(4) lacks %s, has extra %s" % (sorted(set(src) - set(man)),
                                             sorted(set(man) - set(src)))
    wrong = {n: (man[n], src[n]) for n in src if man[n] != src[n]}
    assert not wrong, "defaults (smodem(4), source) differ: %s" % wrong


def built_modules():
    return sorted((TOP / "build").glob("*/smodem.ko"))


def test_smodem4_against_modinfo():
    """modinfo's parameters of every built module (names, and the [default]
    that ends each description) against smodem(4)."""
    kos = built_modules()
    modinfo = shutil.which("modinfo") or "/sbin/modinfo"
    if not kos or not Path(modinfo).exists():
        pytest.skip("no build/<kver>/smodem.ko (make modules) or no modinfo")
    man = man_params()
    for ko in kos:
        r = subprocess.run([modinfo, "-F", "parm", str(ko)], capture_output=True, text=True,
                           check=True)
        info = {}
        for line in r.stdout.splitlines():
            name, _, desc = line.partition(":")
            d = re.search(r"\[(-?\w+)[^\]]*\] \([\w ]+\)$", desc)
            info[name] = d.group(1) if d else None
        assert sorted(info) == sorted(man), "%s: modinfo %s, smodem(4) %s" % (
            ko, sorted(info), sorted(man))
        wrong = {n: (man[n], info[n]) for n in info if info[n] != man[n]}
        assert not wrong, "%s: defaults (smodem(4), modinfo) differ: %s" % (ko, wrong)


@pytest.mark.parametrize("prog,page", [("build/smodemd/smodemd", "smodemd.8"),
                                       ("build/line/smline", "smline.1")])
def test_man_page_names_every_option(prog, page):
    exe = TOP / prog
    if not exe.exists():
        pytest.skip("%s not built (make smodemd line)" % prog)
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=30)
    opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", r.stdout + r.stderr))
    assert len(opts) > 5, r.stdout + r.stderr
    text = unroff((MAN / page).read_text())
    missing = sorted(o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o),
                                                      text))
    assert not missing, "%s does not describe %s" % (page, missing)


def make_targets():
    """Every target the Makefile (with its included fragments) defines, other
    than files and patterns: its .PHONY list and the named targets of make's
    database."""
    r = subprocess.run(["make", "-pRrq", "-f", "Makefile", ":"], cwd=TOP, capture_output=True,
                       text=True, timeout=120)
    db = r.stdout
    phony = set()
    for line in db.splitlines():
        if line.startswith(".PHONY:"):
            phony |= set(line.split(":", 1)[1].split())
    files = db.split("\n# Files\n", 1)[1]
    named = set()
    prev = ""
    for line in files.splitlines():
        m = re.match(r"^([A-Za-z0-9][\w.-]*):(?![=:])", line)
        if m and not prev.startswith("# Not a target"):
            named.add(m.group(1))
        prev = line
    named = {t for t in named if not (TOP / t).exists()}
    return (phony | named) - {"FORCE"}


def test_make_help_lists_every_target():
    r = subprocess.run(["make", "--no-print-directory", "help"], cwd=TOP, capture_output=True,
                       text=True, timeout=60, check=True)
    listed = set()
    for line in r.stdout.splitlines():
        m = re.match(r"^  ([\w-]+(?:, [\w-]+)*)  +\S", line)
        if m:
            listed |= set(m.group(1).split(", "))
    targets = make_targets()
    assert {"all", "check", "check-fast", "demo", "install", "help"} <= targets
    assert not targets - listed, "make help does not list %s" % sorted(targets - listed)
    assert not listed - targets, "make help lists targets that do not exist: %s" % sorted(
        listed - targets)


def test_readme_keeps_its_commands():
    readme = (TOP / "README.md").read_text()
    assert ("make demo     # installs packages, builds smodem.ko and smline, makes a call from the "
            "guest, compares the contexts, writes a report\n") in readme
    assert ("make check    # installs packages, builds everything, runs every test (CI runs "
            "exactly this)\n") in readme
    assert "make check-fast" in readme
    ci = (TOP / ".ci/run").read_text()
    assert re.search(r"^exec make check$", ci, re.M), ".ci/run no longer runs make check"
    assert len(readme.splitlines()) <= 250, "README.md is the front page: 250 lines at most"


def test_make_targets_in_the_docs_exist():
    targets = make_targets()
    bad = []
    for p in DOCS:
        for m in re.finditer(r"`make ((?:[A-Z_]+=\S+ )*)([a-z][\w-]*)", p.read_text()):
            if m.group(2) not in targets:
                bad.append("%s: make %s" % (p.relative_to(TOP), m.group(2)))
    assert not bad, bad


def slug(heading):
    """GitHub's anchor for a heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(path):
    out, fence = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
        m = re.match(r"^#+ (.*)", line)
        if m and not fence:
            out.add(slug(m.group(1)))
    return out


# what only makes sense beside the checkout: the shared directory, its
# study and lab notes, the seed papers' numbers, tracker numbers
OUTSIDE = (r"\.\./shared", r"\bshared/", r"LAB-FACTS", r"STUDY\.md", r"\bissues? \d+",
           r"\bissue's\b", r"\bseeds?[ /]0\d\d\b")
# machine-written records (they hold the host paths of the run that wrote them)
RECORDS = (".json", ".jsonl", ".csv", ".png", ".dat", ".svg")


def tracked_text_files():
    try:
        out = subprocess.run(["git", "-C", str(TOP), "ls-files", "-z"], check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for name in out.decode().split("\0"):
        p = TOP / name
        if name and p.suffix not in RECORDS and p.is_file():
            try:
                yield p, p.read_text()
            except UnicodeDecodeError:
                pass


def test_no_file_points_outside_the_repository():
    """Code and comments too, not only the pages: a reader has the checkout
    and nothing beside it."""
    me = Path(__file__).resolve()
    bad = ["%s: %r" % (p.relative_to(TOP), m.group(0))
           for p, text in tracked_text_files() if p.resolve() != me
           for pat in OUTSIDE for m in re.finditer(pat, text, re.I)]
    assert not bad, "\n".join(bad)


def test_no_page_points_outside_the_repository():
    bad = []
    for p in DOCS + PAGES:
        text = p.read_text()
        rel = p.relative_to(TOP)
        for pat in OUTSIDE:
            for m in re.finditer(pat, text, re.I):
                bad.append("%s: %r" % (rel, m.group(0)))
        if p.suffix != ".md":
            continue
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            link = m.group(1)
            if re.match(r"[a-z]+:", link):
                bad.append("%s: a link out: %s" % (rel, link))
                continue
            target, _, anchor = link.partition("#")
            dest = (p.parent / target).resolve() if target else p
            if TOP not in dest.parents and dest != TOP:
                bad.append("%s: %s leaves the repository" % (rel, link))
            elif not dest.exists():
                bad.append("%s: %s does not exist" % (rel, link))
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append("%s: no heading #%s in %s" % (rel, anchor, target or rel))
    assert not bad, "\n".join(bad)


def test_no_parameter_writable_at_run_time():
    """Every module parameter is checked once, at load (smodem_params_check
    and friends): none may be writable through /sys/module/smodem/parameters
    afterwards, where a new value would skip that check."""
    perm = re.compile(r"\bmodule_param(?:_named|_array|_string|_cb|_unsafe)?\((.*?)\);", re.S)
    seen = []
    for d in SOURCE_DIRS:
        for path in sorted((TOP / d).glob("*.c")):
            for m in perm.finditer(path.read_text()):
                args = [a.strip() for a in m.group(1).split(",")]
                seen.append((path.name, args[0], args[-1]))
    assert len(seen) == len(declared_params()) and seen
    bad = [s for s in seen if s[2] not in ("0444", "0400", "0")]
    assert not bad, bad


# a program the pages run: tools' Python, the line's and the daemon's binaries
PROG = re.compile(r"(?<![\w/.-])((?:\./)?tools/[\w/.-]+\.py|(?:build/line/)?(?:smline|testmodem|b2b)"
                  r"|(?:build/smodemd/)?smodemd)(?![\w/.-])")
LONG_OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def doc_commands():
    """(page, program, the rest of its command) for every program named in a
    code span or a fenced block of the pages."""
    for p in DOCS:
        text = p.read_text()
        chunks = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
        chunks += re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
        for chunk in chunks:
            for line in chunk.splitlines():
                for m in PROG.finditer(line):
                    rest = re.split(r"\s(?:\||;|&&|#)\s|[`(),]", line[m.end():])[0]
                    yield p, m.group(1), rest


def program_help(prog):
    if prog.endswith(".py"):
        cmd = [sys.executable, str(TOP / prog), "--help"]
    else:
        exe = TOP / ("build/smodemd/" + prog if prog == "smodemd" else
                     prog if "/" in prog else "build/line/" + prog)
        if not exe.exists():
            pytest.skip("%s not built (make smodemd line)" % exe.relative_to(TOP))
        cmd = [str(exe), "--help"]
    r = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True, timeout=120)
    return r.stdout + r.stderr


def test_doc_commands_name_real_programs_and_options():
    """Every command the pages give runs as written, as far as a reader can
    be misled without running it: the program exists, and each long option
    it is given is one its --help lists."""
    bad, helps, used = [], {}, 0
    for page, prog, rest in doc_commands():
        rel = page.relative_to(TOP)
        path = prog[2:] if prog.startswith("./") else prog
        if path.endswith(".py") and not (TOP / path).is_file():
            bad.append("%s: %s does not exist" % (rel, path))
            continue
        opts = LONG_OPT.findall(rest)
        if not opts or (path.endswith(".py") and "/smlab/" in path):
            continue
        if path not in helps:
            helps[path] = set(LONG_OPT.findall(program_help(path)))
        used += 1
        bad += ["%s: %s %s: %s --help does not list it" % (rel, path, o, path)
                for o in opts if o not in helps[path]]
    assert used > 10, "the pages' commands were not found (%d)" % used
    assert not bad, "\n".join(bad)
