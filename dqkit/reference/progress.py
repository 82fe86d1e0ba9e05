"""Progress of a long `reference add`: rows read, rows kept, and an ETA from the bytes consumed.

A tqdm bar on stderr (in a notebook a widget that the saved notebook keeps as it ended: `dqkit._progress.Bar`);
`DQKIT_PROGRESS=0` (or `progress=False`) silences it, and it is off while pytest runs.
"""

from __future__ import annotations

import io
from typing import Any

from dqkit._progress import Bar
from dqkit.notebook.settings import options


class Progress:
    """Counts for one input; `bytes_done` drives the bar when the input's size is known."""

    def __init__(self, name: str, total_bytes: int = 0, *, enabled: bool | None = None) -> None:
        self.name = name
        self.rows_read = 0
        self.rows_kept = 0
        self.total_bytes = total_bytes
        self._bar: Bar | None = None
        self._last = 0
        if options.show_progress(enabled):
            self._bar = Bar(total=total_bytes or None, unit="B", unit_scale=True, desc=name[-40:], leave=True,
                            mininterval=0.5, dynamic_ncols=True)

    def update(self, bytes_done: int = -1) -> None:
        if self._bar is None:
            return
        if bytes_done >= 0 and bytes_done > self._last:
            self._bar.update(bytes_done - self._last)
            self._last = bytes_done
        self._bar.set_postfix(read=f"{self.rows_read:,}", kept=f"{self.rows_kept:,}")

    def close(self) -> None:
        if self._bar is not None:
            self.update(self.total_bytes if self.total_bytes else -1)
            self._bar.close()
            self._bar = None


class CountingReader(io.RawIOBase):
    """A raw binary reader that counts the bytes taken from the file under it (for the ETA of compressed or
    text-decoded input, whose positions say nothing about the file)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n: int = self.raw.readinto(b)
        self.count += n or 0
        return n

    def close(self) -> None:
        try:
            self.raw.close()
        finally:
            super().close()
