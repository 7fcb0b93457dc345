#!/usr/bin/env python3
"""Add up pytest's JUnit XML reports of one make check (check-fast's and the
guest run's) into one closing line, `check: N passed, N failed[, N skipped]`,
the line CI reads.  A report that is missing (its run never started) counts
as a failure, so a check cut short never reads as passed."""
import argparse
import sys
import xml.etree.ElementTree as ET


def count(path):
    """(passed, failed, skipped) of one JUnit XML file."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    p = f = s = 0
    for su in suites:
        n = int(su.get("tests", 0))
        bad = int(su.get("failures", 0)) + int(su.get("errors", 0))
        skip = int(su.get("skipped", 0))
        p += n - bad - skip
        f += bad
        s += skip
    return p, f, s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("reports", nargs="+", help="JUnit XML files (pytest --junitxml)")
    ap.add_argument("--retries", metavar="LOG",
                    help="tests/module/guestboot.py's log of guests booted a second time "
                         "after a silent death: their count is printed before the closing line")
    a = ap.parse_args(argv)
    if a.retries:
        try:
            with open(a.retries) as f:
                n = sum(1 for ln in f if ln.strip())
        except FileNotFoundError:
            n = 0
        if n:
            print("check: %d guest boot(s) died silently and were booted again (%s)"
                  % (n, a.retries))
    tot = [0, 0, 0]
    for r in a.reports:
        try:
            c = count(r)
        except (OSError, ET.ParseError) as e:
            print("testsum: %s: %s (counted as one failure)" % (r, e), file=sys.stderr)
            c = (0, 1, 0)
        tot = [x + y for x, y in zip(tot, c)]
    line = "check: %d passed, %d failed" % (tot[0], tot[1])
    if tot[2]:
        line += ", %d skipped" % tot[2]
    print(line)
    return 1 if tot[1] else 0


if __name__ == "__main__":
    sys.exit(main())
