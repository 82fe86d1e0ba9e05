"""A fixed-window request counter per token, as the vendor describes its limit (per minute, reset at a time), and
the failed-login counter per client address.

Single-threaded by design: both are only touched from the server's event loop.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
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


def client_key(host: str) -> str:
    """The key failed logins are counted under: the address, or its /64 for IPv6 (one host holds a whole /64)."""
    try:
        addr = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host[:64]
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


class FailureLimiter:
    """Failed logins per client address per fixed window. Past `limit` failures in a window, that address's wrong
    tokens are answered 429 with Retry-After until the window ends, so a misconfigured or guessing client is told to
    back off. A correct token is never refused by it (the gate compares the token first): behind a proxy or a NAT
    many users share an address, and one of them guessing must not lock out the others. What makes guessing
    hopeless is the token's length (`secrets.token_urlsafe(32)`), not this limit.

    Memory is bounded without locking anyone out: at most `max_keys` addresses are counted (when full, the one
    counted least recently is forgotten, which can only give a flood of addresses more tries) and at most
    `max_keys` are refused (past that, a newly failing address is counted but not refused); all are forgotten at
    each new window. `newly_blocked` tells the caller to log an address once when it starts being refused.
    """

    def __init__(self, limit: int, window: int, clock: Callable[[], float] = time.time,
                 max_keys: int = 65_536) -> None:
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self._clock = clock
        self._window_index = -1
        self._counting: OrderedDict[str, int] = OrderedDict()  # addresses under the limit, least recent first
        self._blocked: set[str] = set()

    def __len__(self) -> int:
        return len(self._counting) + len(self._blocked)

    def _roll(self) -> int:
        index = int(self._clock() // self.window)
        if index != self._window_index:
            self._window_index = index
            self._counting.clear()
            self._blocked.clear()
        return index

    def blocked(self, key: str) -> Verdict | None:
        """A refusing Verdict when `key` used up its failures in this window; None when it may try."""
        index = self._roll()
        if key in self._blocked:
            return Verdict(False, self.limit, 0, (index + 1) * self.window)
        return None

    def failed(self, key: str) -> bool:
        """Count one failure of `key`; True when this failure made it blocked (for one log line)."""
        self._roll()
        if key in self._blocked:
            return False
        count = self._counting.pop(key, 0) + 1
        if count >= self.limit and len(self._blocked) < self.max_keys:
            self._blocked.add(key)
            return True
        if len(self._counting) >= self.max_keys:
            self._counting.popitem(last=False)
        self._counting[key] = min(count, self.limit)
        return False
