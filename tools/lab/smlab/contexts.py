"""The module's execution contexts, named once for every tool.

ALL is the module's own list, in its order (driver/smodem_params.c's
smodem_context_names, which insmod's context= is checked against;
tests/unit/test_contexts.py keeps the two equal).  A tool keeps its own
default selection (what it runs when not told) but takes its names from
here and checks a user's list with parse().
"""
import argparse

ALL = ("int", "dpc", "thr", "res", "oth", "irqt", "bhw", "usr")


class UnknownContext(argparse.ArgumentTypeError, ValueError):
    """argparse shows its message as it is (a type= function's error);
    other callers catch it as a ValueError."""


def parse(text, allowed=ALL, extra=(), none_ok=False):
    """Space-separated context names -> list, each one of allowed (a
    selection of ALL) or extra (a tool's own pseudo-contexts, e.g. the
    control run); "none" gives [] when none_ok.  UnknownContext names the
    unknown ones and the choices."""
    names = text.split()
    if none_ok and names == ["none"]:
        return []
    bad_allowed = [c for c in allowed if c not in ALL]
    if bad_allowed:
        raise ValueError("not contexts of the module: %s" % " ".join(bad_allowed))
    choices = list(extra) + list(allowed)
    bad = [c for c in names if c not in choices]
    if bad:
        raise UnknownContext("unknown context(s) %s (choose from %s%s)" % (
            " ".join(bad), " ".join(choices), ", or none" if none_ok else ""))
    return names
