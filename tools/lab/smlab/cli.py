"""Command lines of the lab's tools: options whose defaults come from the
environment, as the Makefile passes its variables (make compare DURATION=2).

    ap = parser(__doc__)
    env_option(ap, "--duration", "DURATION", 10, positive_int, "seconds of cyclictest")
    a = ap.parse_args()

`--help` shows every option with its variable and its default (the
variable's value when set).  A bad value, given as an option or through the
variable, is an argparse error naming both.
"""

import argparse
import os
import time


class _Formatter(argparse.RawDescriptionHelpFormatter,
                 argparse.ArgumentDefaultsHelpFormatter):
    pass


def parser(doc, prog=None):
    return argparse.ArgumentParser(prog=prog, description=doc, formatter_class=_Formatter)


def _typed(conv, what):
    def check(text):
        try:
            return conv(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError("%r is not %s" % (text, what)) from None
    return check


def int_range(lo=None, hi=None):
    """int within [lo, hi] (either bound may be None)."""
    def conv(text):
        v = int(text, 10)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise ValueError(text)
        return v
    if hi is None:
        what = "an integer >= %d" % lo if lo is not None else "an integer"
    else:
        what = "an integer from %d to %d" % (lo, hi)
    return _typed(conv, what)


positive_int = int_range(1)
nonneg_int = int_range(0)


def env_option(ap, flag, var, default, type=str, help="", choices=None, env=None,
               group=None, **kw):
    """--flag on parser ap (in its argument group `group` if given), with the
    default $var (from env, os.environ if None) when set and not empty, else
    default.  The variable's value is checked now, as the option's would be:
    a bad one is a parser error naming both."""
    text = (os.environ if env is None else env).get(var)
    if text not in (None, ""):
        try:
            value = type(text)
        except argparse.ArgumentTypeError as e:
            ap.error("%s=%s (the default of %s): %s" % (var, text, flag, e))
        except ValueError:
            ap.error("%s=%s (the default of %s): not a valid value" % (var, text, flag))
        if choices is not None and value not in choices:
            ap.error("%s=%s (the default of %s): choose from %s"
                     % (var, text, flag, ", ".join(map(str, choices))))
        # argparse converts a string default with type, as it shows it
        default = text
    # argparse %-formats help texts: a literal % ("over-reservations, %")
    # would stop --help
    help = "%s [%s]" % (help.replace("%", "%%"), var) if help else "[%s]" % var
    return (group or ap).add_argument(flag, default=default, type=type, choices=choices,
                                      help=help, **kw)


def logger(name, elapsed=False):
    """The lab tools' one progress line: log = logger("study"); log("...")
    prints "study: ..." (elapsed: "study [  12 s]: ...", seconds since
    this call) to stdout, flushed, so that a run's lines interleave in
    order with its workers' and a log file is current."""
    t0 = time.monotonic()

    def log(msg):
        head = "%s [%4.0f s]" % (name, time.monotonic() - t0) if elapsed else name
        print("%s: %s" % (head, msg), flush=True)
    return log

