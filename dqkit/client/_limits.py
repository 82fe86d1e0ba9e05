"""Client-side pacing: requests per second, concurrent requests, and a pause for everyone after a 429.

Each object belongs to the event loop it was created on (the client creates them on first use, inside the loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

Sleep = Callable[[float], Awaitable[None]]


class RateLimiter:
    """Spaces sends at least 1/rate seconds apart (no bursts), in the order callers arrive."""

    def __init__(self, rate: float, sleep: Sleep) -> None:
        self._interval = 1.0 / rate
        self._next = 0.0
        self._sleep = sleep

    async def acquire(self) -> None:
        now = asyncio.get_running_loop().time()
        slot = max(now, self._next)
        self._next = slot + self._interval  # reserved before sleeping: no await between read and write
        if slot > now:
            await self._sleep(slot - now)


class PauseGate:
    """After a 429 every request of the client waits until the server's reset time, not only the one refused."""

    def __init__(self, sleep: Sleep) -> None:
        self._resume_at = 0.0
        self._sleep = sleep

    def pause(self, seconds: float) -> None:
        loop_now = asyncio.get_running_loop().time()
        self._resume_at = max(self._resume_at, loop_now + seconds)

    async def wait(self) -> None:
        delay = self._resume_at - asyncio.get_running_loop().time()
        if delay > 0:
            await self._sleep(delay)


class Limits:
    """The three pacing devices of one client, made on its loop."""

    def __init__(self, max_concurrency: int, requests_per_second: float | None, sleep: Sleep) -> None:
        self.concurrency = asyncio.Semaphore(max_concurrency)
        self.rate = RateLimiter(requests_per_second, sleep) if requests_per_second else None
        self.gate = PauseGate(sleep)
