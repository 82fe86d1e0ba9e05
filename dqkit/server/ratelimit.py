"""A fixed-window request counter per token, as the vendor describes its limit (per minute, reset at a time).

Single-threaded by design: it is only touched from the server's event loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # epoch seconds at which the window starts afresh

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [
            (b"x-rate-limit-limit", str(self.limit).encode()),
            (b"x-rate-limit-remaining", str(self.remaining).encode()),
            (b"x-rate-limit-reset", str(self.reset_at).encode()),
        ]

    def retry_after(self, now: float) -> int:
        return max(1, math.ceil(self.reset_at - now))


class FixedWindowLimiter:
    """`limit` requests per `window` seconds per key; windows are aligned to the epoch so resets are predictable."""

    def __init__(self, limit: int, window: int, clock: Callable[[], float] = time.time) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._window_index = -1
        self._counts: dict[str, int] = {}

    def hit(self, key: str) -> Verdict:
        now = self._clock()
        index = int(now // self.window)
        if index != self._window_index:  # a new window: forget every count (bounded memory)
            self._window_index = index
            self._counts.clear()
        used = self._counts.get(key, 0)
        reset_at = (index + 1) * self.window
        if used >= self.limit:
            return Verdict(False, self.limit, 0, reset_at)
        self._counts[key] = used + 1
        return Verdict(True, self.limit, self.limit - used - 1, reset_at)
