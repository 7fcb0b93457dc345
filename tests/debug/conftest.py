"""tests/debug runs only on the debug kernel (make check-debug sets
SMODEM_DEBUG_KERNEL to its release): without it the directory is not even
collected, so a plain `pytest tests` neither runs nor skips anything here."""
import os

collect_ignore_glob = [] if os.environ.get("SMODEM_DEBUG_KERNEL") else ["*"]
