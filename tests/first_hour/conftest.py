"""The first-hour tests import the README parser from `readme_blocks.py` beside this file (the suite runs with
--import-mode=importlib, so test folders are not on sys.path by themselves)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
