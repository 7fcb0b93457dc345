import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
for p in (TOP / "tools" / "lab", TOP / "tools" / "analysis"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
