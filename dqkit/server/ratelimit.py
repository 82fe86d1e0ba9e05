"""A fixed-window request counter per token, as the vendor describes its limit (per minute, reset at a time).

Single-threaded by design: it is only touched from the server's event loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from dqkit.server.ratestore import Counts, MemoryCounts


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
    """`limit` requests per `window` seconds per key; windows are aligned to the epoch so resets are predictable
    and the same in every process. The counts live in `counts` (`dqkit.server.ratestore`): this process's memory
    by default, or a store that all workers and replicas share, so they enforce one limit together."""

    def __init__(self, limit: int, window: int, clock: Callable[[], float] = time.time,
                 counts: Counts | None = None) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self.counts: Counts = counts if counts is not None else MemoryCounts()

    def hit(self, key: str) -> Verdict:
        index = int(self._clock() // self.window)
        used = self.counts.add(key, index, self.window)  # refused requests count too: a flood stays refused
        reset_at = (index + 1) * self.window
        if used > self.limit:
            return Verdict(False, self.limit, 0, reset_at)
        return Verdict(True, self.limit, self.limit - used, reset_at)


class FailureLimiter:
    """Failed logins per client address per fixed window: past `limit`, the address gets 429 until the window ends,
    whatever token it tries (so guessing tokens costs a window per `limit` guesses).

    Memory is bounded: counts are forgotten at each new window, and at most `max_keys` addresses are tracked in one
    (past that, new addresses share one bucket, which only makes the limit stricter).
    """

    OVERFLOW = "*overflow*"

    def __init__(self, limit: int, window: int, clock: Callable[[], float] = time.time,
                 max_keys: int = 65_536) -> None:
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self._clock = clock
        self._window_index = -1
        self._failures: dict[str, int] = {}

    def _roll(self) -> int:
        index = int(self._clock() // self.window)
        if index != self._window_index:
            self._window_index = index
            self._failures.clear()
        return index

    def _key(self, key: str) -> str:
        if key in self._failures or len(self._failures) < self.max_keys:
            return key
        return self.OVERFLOW

    def blocked(self, key: str) -> Verdict | None:
        """A refusing Verdict when `key` used up its failures in this window; None when it may try."""
        index = self._roll()
        if self._failures.get(self._key(key), 0) >= self.limit:
            return Verdict(False, self.limit, 0, (index + 1) * self.window)
        return None

    def failed(self, key: str) -> None:
        self._roll()
        k = self._key(key)
        self._failures[k] = self._failures.get(k, 0) + 1
