"""Warnings that point at the user's line, not at dqkit's internals (Python 3.11 has no skip_file_prefixes)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)


def warn_user(message: str, category: type[Warning]) -> None:
    """warnings.warn at the first frame outside the dqkit package (a notebook cell, a script), so the warning
    names the caller's line; the innermost frame when there is none (a dqkit worker thread)."""
    level = 2  # stacklevel 2 is warn_user's caller
    frame = sys._getframe(1)
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level if frame is not None else 3)
