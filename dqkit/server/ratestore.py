"""Where the request counts of the rate limit live, so that every process of a service counts against one limit.

- `MemoryCounts`: in the process (one `dqkit serve` process limits alone);
- `SqliteCounts`: a SQLite file in the server's run folder, shared by the `--workers` of one machine;
- `RedisCounts`: a Redis server (`--rate-store redis://...`), shared by replicas on several machines.

Keys are never stored as given: a rate-limit key is usually the caller's token, a secret, so stores see only a
keyed hash of it. A shared store that fails (Redis down, a locked file) does not stop the service: the process
counts alone in memory until the store answers again, and says so in its log once a minute.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Final, Protocol

log = logging.getLogger("dqkit.server")

_KEY_PERSON: Final = b"dqkit-ratekey"
SQLITE_NAME: Final = "rate-counts.sqlite"


class Counts(Protocol):
    """Request counts per key per fixed window."""

    def add(self, key: str, window_index: int, window: int) -> int:
        """Count one request of `key` in window `window_index` (of `window` seconds); the count after it."""
        ...

    def close(self) -> None: ...


def hashed_key(key: str) -> str:
    """What a store sees of a key: a hash, so a token never sits in a file or a Redis server."""
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16, person=_KEY_PERSON).hexdigest()


class MemoryCounts:
    """The counts of this process only; a new window forgets the old one (bounded memory)."""

    def __init__(self) -> None:
        self._index = -1
        self._counts: dict[str, int] = {}

    def add(self, key: str, window_index: int, window: int) -> int:
        if window_index != self._index:
            self._index = window_index
            self._counts.clear()
        n = self._counts.get(key, 0) + 1
        self._counts[key] = n
        return n

    def close(self) -> None:
        self._counts.clear()


class SqliteCounts:
    """Counts in a SQLite file that several processes of one machine open (WAL; one short write per request)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, timeout=2.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=OFF")  # counts of a running service: nothing to keep after a crash
        self._db.execute("CREATE TABLE IF NOT EXISTS counts (key TEXT NOT NULL, win INTEGER NOT NULL, "
                         "n INTEGER NOT NULL, PRIMARY KEY (key, win)) WITHOUT ROWID")
        self._lock = threading.Lock()
        self._pruned = -1

    def add(self, key: str, window_index: int, window: int) -> int:
        with self._lock:
            if window_index != self._pruned:  # old windows are dropped by whichever process sees a new one first
                self._pruned = window_index
                self._db.execute("DELETE FROM counts WHERE win < ?", (window_index,))
            row = self._db.execute("INSERT INTO counts (key, win, n) VALUES (?, ?, 1) ON CONFLICT (key, win) "
                                   "DO UPDATE SET n = n + 1 RETURNING n", (hashed_key(key), window_index)).fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()


class RedisCounts:
    """Counts in Redis: one INCR per request on a key that expires with its window."""

    def __init__(self, url: str, *, timeout: float = 0.5) -> None:
        import redis  # imported here: only a server with --rate-store redis://... needs it

        self._redis: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)

    def add(self, key: str, window_index: int, window: int) -> int:
        name = f"dqkit:rate:{window_index}:{hashed_key(key)}"
        pipe = self._redis.pipeline(transaction=False)
        pipe.incr(name)
        pipe.expire(name, window + 5)
        n, _ = pipe.execute()
        return int(n)

    def close(self) -> None:
        self._redis.close()


class FallbackCounts:
    """A shared store, and the process's own counts for while the shared store fails."""

    def __init__(self, shared: Counts, what: str) -> None:
        self.shared = shared
        self.what = what
        self._local = MemoryCounts()
        self._warned = 0.0

    def add(self, key: str, window_index: int, window: int) -> int:
        try:
            return self.shared.add(key, window_index, window)
        except Exception as exc:  # the service goes on; this process limits alone meanwhile
            now = time.monotonic()
            if now - self._warned > 60:
                self._warned = now
                log.warning("rate store %s failed (%s); this process counts requests alone until it answers",
                            self.what, type(exc).__name__)
            return self._local.add(key, window_index, window)

    def close(self) -> None:
        self.shared.close()


def describe(url: str) -> str:
    """A store's URL for logs and errors, without any password it holds."""
    if "@" in url:
        scheme, _, rest = url.partition("://")
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    return url


def open_counts(rate_store: str, run_dir: Path | None) -> Counts:
    """The counts a server process uses: `rate_store` when given (redis://, rediss://, unix://, sqlite:PATH), else
    the SQLite file of the run folder its workers share, else its own memory."""
    if rate_store.startswith(("redis://", "rediss://", "unix://")):
        return FallbackCounts(RedisCounts(rate_store), describe(rate_store))
    if rate_store.startswith("sqlite:"):
        return FallbackCounts(SqliteCounts(Path(rate_store[len("sqlite:"):])), rate_store)
    if run_dir is not None:
        return FallbackCounts(SqliteCounts(run_dir / SQLITE_NAME), "of the workers")
    return MemoryCounts()
