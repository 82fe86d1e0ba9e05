"""Where the request counts of the rate limit live, so that every process of a service counts against one limit.

- `MemoryCounts`: in the process (one `dqkit serve` process limits alone);
- `SqliteCounts`: a SQLite file in the server's run folder, shared by the `--workers` of one machine;
- `RedisCounts`: a Redis server (`--rate-store redis://...`), shared by replicas on several machines.

Keys are never stored as given: a rate-limit key is usually the caller's token, a secret, so stores see only an HMAC
of it keyed with the server's secret (who reads the store cannot test a guessed token against it).

A shared store must never stall the service (issue 30: a stopped Redis made 300 requests take 87 s, since every
count waited for it on the event loop). So `GuardedCounts` puts it behind a circuit breaker:
- every call is bounded by `STORE_BUDGET_SECONDS` (the client's socket timeout, SQLite's busy timeout), with no
  retries;
- a call that fails or times out opens the breaker: the process counts alone in memory, and a background thread
  asks the store every `RETRY_SECONDS` whether it answers again (no request waits for that); once it does, counts are
  shared again;
- the process always keeps its own count too, and a shared count is never taken below it: a count that is not a
  whole number from 1 to 2**53 (a negative, a wrapped or a foreign value written into the store) is damaged, written
  back as this process's own count, and never makes a token unlimited.
The log says once a minute when the store fails, and once when it answers again.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Final, Protocol

from dqkit._own_sqlite import RATE_MARK, mark, open_store

log = logging.getLogger("dqkit.server")

_KEY_PERSON: Final = b"dqkit-ratekey"
SQLITE_NAME: Final = "rate-counts.sqlite"
STORE_BUDGET_SECONDS: Final = 0.05  # one call to a shared store, at most
RETRY_SECONDS: Final = 0.5  # while a store fails, how often it is asked again (off the request path)
MAX_COUNT: Final = 1 << 53
WARN_EVERY_SECONDS: Final = 60.0


class DamagedCount(Exception):
    """The store holds something for a key that is not a count this server wrote (negative, wrapped, not a number)."""


class Counts(Protocol):
    """Request counts per key per fixed window."""

    def add(self, key: str, window_index: int, window: int) -> int:
        """Count one request of `key` in window `window_index` (of `window` seconds); the count after it."""
        ...

    def close(self) -> None: ...


class SharedCounts(Counts, Protocol):
    """A store several processes share: it can also be asked whether it answers, and have a count written back."""

    what: str

    def ping(self) -> None:
        """Raise unless the store answers (within the budget)."""
        ...

    def repair(self, key: str, window_index: int, window: int, count: int) -> None:
        """Write `count` over a damaged count."""
        ...


def hashed_key(key: str, secret: bytes) -> str:
    """What a store sees of a key: its HMAC (SHA-256) keyed with the server's secret, so a token never sits in a
    file or a Redis server, and a guessed token cannot be checked against what is there."""
    mac_key = hashlib.blake2b(secret, digest_size=32, person=_KEY_PERSON).digest()
    return hmac.new(mac_key, key.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:32]


def checked(value: Any) -> int:
    """A count read from a store, or DamagedCount."""
    if isinstance(value, (bytes, str)):
        try:
            value = int(value)
        except ValueError:
            raise DamagedCount(f"not a whole number: {str(value)[:20]!r}") from None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_COUNT:
        raise DamagedCount(f"out of range: {str(value)[:24]}")
    return value


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

    def __init__(self, path: Path, secret: bytes, *, budget: float = STORE_BUDGET_SECONDS) -> None:
        self.path = path
        self.what = f"sqlite:{path}"
        self._secret = secret
        open_store(path, RATE_MARK, "rate store", ("counts",))  # a file dqkit made, or made now (marked first)
        self._db = sqlite3.connect(path, timeout=budget, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._pruned = -1
        self._ready = False

    def _prepare(self) -> None:
        if not self._ready:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=OFF")  # counts of a running service: nothing to keep after a crash
            self._db.execute("CREATE TABLE IF NOT EXISTS counts (key TEXT NOT NULL, win INTEGER NOT NULL, "
                             "n INTEGER NOT NULL, PRIMARY KEY (key, win)) WITHOUT ROWID")
            mark(self._db, RATE_MARK)
            self._ready = True

    def add(self, key: str, window_index: int, window: int) -> int:
        with self._lock:
            self._prepare()
            if window_index != self._pruned:  # old windows are dropped by whichever process sees a new one first
                self._db.execute("DELETE FROM counts WHERE win < ?", (window_index,))
                self._pruned = window_index
            row = self._db.execute("INSERT INTO counts (key, win, n) VALUES (?, ?, 1) ON CONFLICT (key, win) "
                                   "DO UPDATE SET n = n + 1 RETURNING n",
                                   (hashed_key(key, self._secret), window_index)).fetchone()
        return checked(row[0])

    def repair(self, key: str, window_index: int, window: int, count: int) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO counts (key, win, n) VALUES (?, ?, ?)",
                             (hashed_key(key, self._secret), window_index, count))

    def ping(self) -> None:
        with self._lock:
            self._prepare()
            self._db.execute("BEGIN IMMEDIATE")  # the write lock is to be had within the budget
            self._db.execute("ROLLBACK")

    def close(self) -> None:
        self._db.close()


class RedisCounts:
    """Counts in Redis: one INCR per request on a key that expires with its window."""

    def __init__(self, url: str, secret: bytes, *, timeout: float = STORE_BUDGET_SECONDS) -> None:
        import redis  # imported here: only a server with --rate-store redis://... needs it
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.what = describe(url)
        self._secret = secret
        self._redis: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                                retry=Retry(NoBackoff(), 0), retry_on_timeout=False)
        self._response_error: type[Exception] = redis.ResponseError

    def _name(self, key: str, window_index: int) -> str:
        return f"dqkit:rate:{window_index}:{hashed_key(key, self._secret)}"

    def add(self, key: str, window_index: int, window: int) -> int:
        name = self._name(key, window_index)
        pipe = self._redis.pipeline(transaction=False)
        pipe.incr(name)
        pipe.expire(name, window + 5)
        n, _ = pipe.execute(raise_on_error=False)
        if isinstance(n, self._response_error):  # not an integer, or INCR would overflow
            raise DamagedCount(str(n)[:80])
        if isinstance(n, Exception):
            raise n
        return checked(n)

    def repair(self, key: str, window_index: int, window: int, count: int) -> None:
        self._redis.set(self._name(key, window_index), count, ex=window + 5)

    def ping(self) -> None:
        self._redis.ping()

    def close(self) -> None:
        self._redis.close()


class GuardedCounts:
    """A shared store behind a circuit breaker, and this process's own counts (module docstring)."""

    def __init__(self, shared: SharedCounts, *, retry_seconds: float = RETRY_SECONDS) -> None:
        self.shared = shared
        self.what = shared.what
        self.retry_seconds = retry_seconds
        self._own = MemoryCounts()
        self._down = threading.Event()  # set while the store is taken to be down: counted alone
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._warned = {"down": 0.0, "damaged": 0.0}

    @property
    def shared_now(self) -> bool:
        """Counts go to the shared store (the breaker is closed)."""
        return not self._down.is_set()

    def _warn(self, kind: str, text: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._warned[kind] > WARN_EVERY_SECONDS:
            self._warned[kind] = now
            log.warning(text, *args)

    def add(self, key: str, window_index: int, window: int) -> int:
        own = self._own.add(key, window_index, window)
        if self._down.is_set():
            return own
        try:
            n = self.shared.add(key, window_index, window)
        except DamagedCount as exc:
            self._warn("damaged", "rate store %s held a damaged count (%s); it is written back as this process's "
                       "own count", self.what, exc)
            try:
                self.shared.repair(key, window_index, window, own)
            except Exception as again:  # the store is failing too: the breaker handles it
                self._trip(again)
            return own
        except Exception as exc:  # down, slow past the budget, locked: this process counts alone meanwhile
            self._trip(exc)
            return own
        return max(n, own)

    def _trip(self, exc: BaseException) -> None:
        with self._lock:
            if self._down.is_set() or self._closed.is_set():
                return
            self._down.set()
        self._warn("down", "rate store %s failed (%s); this process counts requests alone until it answers "
                   "(asked every %g s)", self.what, type(exc).__name__, self.retry_seconds)
        threading.Thread(target=self._wait_for_store, name="dqkit-rate-store-probe", daemon=True).start()

    def _wait_for_store(self) -> None:
        while not self._closed.wait(self.retry_seconds):
            try:
                self.shared.ping()
            except Exception:  # still down: asked again later
                continue
            log.warning("rate store %s answers again; counts are shared again", self.what)
            self._down.clear()
            return

    def close(self) -> None:
        self._closed.set()
        self.shared.close()


def describe(url: str) -> str:
    """A store's URL for logs and errors, without any password it holds."""
    if "@" in url:
        scheme, _, rest = url.partition("://")
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    return url


def open_counts(rate_store: str, run_dir: Path | None, secret: bytes) -> Counts:
    """The counts a server process uses: `rate_store` when given (redis://, rediss://, unix://, sqlite:PATH), else
    the SQLite file of the run folder its workers share, else its own memory. Keys are hashed with `secret`."""
    if rate_store.startswith(("redis://", "rediss://", "unix://")):
        return GuardedCounts(RedisCounts(rate_store, secret))
    if rate_store.startswith("sqlite:"):
        return GuardedCounts(SqliteCounts(Path(rate_store[len("sqlite:"):]), secret))
    if run_dir is not None:
        return GuardedCounts(SqliteCounts(run_dir / SQLITE_NAME, secret))
    return MemoryCounts()
