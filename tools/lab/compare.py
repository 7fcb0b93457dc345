#!/usr/bin/env python3
"""smodem context comparison (make compare); --help lists every setting and
the variable each one defaults to (CONTEXTS, DURATION, LOAD_US, KERNEL,
CLOCK, ICOUNT_SHIFT, OUT, HW, PRIO, RTLA, RTLA_DURATION, ...).  Run it with the project's venv:
build/venv/bin/python tools/lab/compare.py --help (make venv)."""
import sys

from smlab.compare import main

if __name__ == "__main__":
    sys.exit(main())
