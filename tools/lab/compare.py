#!/usr/bin/python3
"""smodem context comparison (make compare).  Parameters from the environment
(CONTEXTS, DURATION, LOAD_US, KERNEL, CLOCK, ICOUNT_SHIFT, OUT; also HW, PRIO,
RES_RUNTIME_US, RES_PERIOD_US, RATE, RING_SAMPLES, PERIOD_SAMPLES,
MODULE_PARAMS, GUEST_APPEND, SMP, MODULE) or the command line (--help)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smlab.compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
