"""The persistent result cache: a rerun, or a run resumed after an interruption, never pays twice for an answer.

One SQLite file (`results-v1.sqlite3`, mode 0600, in a 0700 folder of the user cache directory) holds two tables:

* `results`: one backend answer per request, keyed by a hash of the backend's name (which names its configuration;
  for the in-process engines, dqkit's version too) and the request's canonical msgpack encoding; the answer is
  stored as msgpack of its typed model (a lead answer without its InputData echo: the key holds the request).
  Written chunk by chunk while a batch runs, so an interrupted batch resumes where it stopped.
* `runs`: the finished result columns of a whole table, keyed by the backend, the options and a content hash of
  the input columns that were read. A rerun of the same table is one read instead of one lookup per row, which
  is what makes a warm rerun of 100,000 rows cost a fraction of a second. Only the newest `MAX_RUNS` are kept.

Answers that say the service or the account was at fault (E400, E500, E501, transport errors) are never stored,
so a rerun asks again. The cache is an accelerator, never a source of failure: if the file cannot be opened or
written, a warning says so and the run goes on without it. A corrupt file (not a database, a failed
`PRAGMA quick_check` when opened, or a corruption error on any later read or write) is moved aside as
`results-v1.sqlite3.corrupt-<time>` and a fresh cache is started in its place, with one warning: the cache only
holds copies, so nothing is lost but time, and no later run trips over the same bad pages.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import queue
import sqlite3
import stat
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final

from dqkit._files import private_dir
from dqkit._fork_guard import hold_at_fork
from dqkit._own_sqlite import (
    CACHE_MARK,
    SQLITE_MAGIC,
    StoreError,
    check_store,
    make_store,
    mark,
    transaction,
)

FILE_NAME: Final = "results-v1.sqlite3"
MAX_RUNS: Final = 32
_LOOKUP_CHUNK: Final = 500
_INSERT_ROWS: Final = 200  # 800 parameters per statement, under every SQLite's limit

SCHEMA_VERSION: Final = 3
# Answers are appended in arrival order (the rowid `seq`), so pages are written one after the other; lookups go
# through a small unique index on the first 8 bytes of the key (`id`). Random rowids would scatter every insert
# over the file: measured 5x slower at 100,000 answers. The whole key is stored and checked on every read, so two
# keys sharing their first 8 bytes are a miss (the newer answer replaces the older), never a wrong answer.
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS results (
    seq INTEGER PRIMARY KEY,
    id INTEGER NOT NULL,
    key BLOB NOT NULL,
    value BLOB NOT NULL,
    created REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS results_id ON results (id);
CREATE TABLE IF NOT EXISTS runs (
    key BLOB PRIMARY KEY,
    value BLOB NOT NULL,
    created REAL NOT NULL
);
"""


def key_function(namespace: str) -> Callable[[bytes], bytes]:
    """The key maker of `namespace` (backend name and operation): payload (an encoded request) -> 20-byte key."""
    ns = namespace.encode()
    base = hashlib.blake2b(digest_size=20, person=b"dqkit-cache-v1")
    base.update(len(ns).to_bytes(4, "big"))
    base.update(ns)

    def key(payload: bytes) -> bytes:
        h = base.copy()
        h.update(payload)
        return h.digest()

    return key


def cache_key(namespace: str, payload: bytes) -> bytes:
    """The key of `payload` under `namespace` (see `key_function`)."""
    return key_function(namespace)(payload)


def _rowid(key: bytes) -> int:
    return int.from_bytes(key[:8], "big", signed=True)


class CacheUnavailable(Exception):
    """The cache file cannot be used here (read-only folder, corrupt file); callers go on without it."""


def _private_file(path: Path) -> None:
    """Create `path` readable by its owner only (0600) in a 0700 folder owned by this user; tighten an existing
    file. A folder or file of another user, or a symlink in the file's place, is refused (OSError)."""
    private_dir(path.parent)
    fd = os.open(path, os.O_CREAT | os.O_RDWR | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        st = os.fstat(fd)
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise OSError(errno.EPERM, f"{path} belongs to another user")
        if st.st_mode & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def _is_corruption(exc: BaseException) -> bool:
    """A sqlite3 error that says the file itself is damaged (not a locked, read-only or full disk)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc).lower()
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text or "not a database" in text


def _quarantine(path: Path) -> Path:
    """Move a damaged cache file (and its WAL and shared-memory files) aside; the new name of the file."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    os.replace(path, aside)
    return aside


def _not_a_damaged_cache(path: Path) -> bool:
    """False for a regular file that is not SQLite at all (at dqkit's own cache path: a damaged cache, set aside and
    rebuilt as before); True for anything else a store check refused (a folder, a device, another program's
    database), which is left alone."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return True
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return True


def _ready(con: sqlite3.Connection) -> bool:
    """Whether the file is a cache of this layout, marked (read only: opening it so takes no write lock)."""
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return (con.execute("PRAGMA application_id").fetchone()[0] == CACHE_MARK and {"results", "runs"} <= tables
            and con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION)


def _prepare(con: sqlite3.Connection) -> None:
    """Layout, tables and mark in one transaction: a process opening the cache never drops the tables another has
    just made."""
    with transaction(con):
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            # A cache of another layout (an older dqkit): start afresh, it only holds copies.
            con.execute("DROP TABLE IF EXISTS results")
            con.execute("DROP TABLE IF EXISTS runs")
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                con.execute(statement)
        mark(con, CACHE_MARK)


class ResultCache:
    """Answers by request key, and finished tables by run key. Thread-safe (one connection behind a lock)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        hold_at_fork(self, self._lock)  # a forked worker must not start with this file's SQLite mutexes held
        try:  # a regular file dqkit made, never a folder, a device or another program's database (dqkit._own_sqlite)
            check_store(self.path, CACHE_MARK, "result cache", ("results", "runs"))
        except StoreError as exc:
            if _not_a_damaged_cache(self.path):
                raise CacheUnavailable(str(exc)) from None
        try:
            self._con = self._open()
        except (OSError, sqlite3.Error) as exc:
            if not _is_corruption(exc):
                raise CacheUnavailable(f"cannot use the result cache at {self.path}: {exc}") from exc
            try:
                self._con = self._rebuild(exc)
            except (OSError, sqlite3.Error) as again:
                raise CacheUnavailable(f"cannot use the result cache at {self.path}: {again}") from again

    def _open(self) -> sqlite3.Connection:
        _private_file(self.path)
        try:  # a new (empty) file is marked before anything else is written: never seen half made
            make_store(self.path, CACHE_MARK, "result cache")
        except StoreError as exc:
            raise OSError(str(exc)) from None
        con = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            if not _ready(con):
                _prepare(con)
            verdict = con.execute("PRAGMA quick_check(1)").fetchone()[0]
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"database disk image is malformed ({verdict})")
        except BaseException:
            con.close()
            raise
        return con

    def _rebuild(self, exc: BaseException) -> sqlite3.Connection:
        """Move the damaged file aside and open a fresh one; warns once."""
        aside = _quarantine(self.path)
        warnings.warn(f"dqkit: the result cache {self.path} was damaged ({exc}); it was moved to {aside.name} and "
                      "a fresh cache started", RuntimeWarning, stacklevel=3)
        return self._open()

    def _recover(self, exc: BaseException) -> None:
        """After a corruption error on a live connection: close, quarantine, reopen (under the lock)."""
        with contextlib.suppress(sqlite3.Error):
            self._con.close()
        try:
            self._con = self._rebuild(exc)
        except (OSError, sqlite3.Error) as again:
            raise CacheUnavailable(f"cannot rebuild the result cache at {self.path}: {again}") from again

    def __repr__(self) -> str:
        return f"ResultCache({str(self.path)!r})"

    @classmethod
    def in_directory(cls, directory: Path) -> ResultCache:
        """The cache file of `directory`, opened once per process and path."""
        path = (Path(directory) / FILE_NAME).resolve()
        with _OPEN_LOCK:
            cache = _OPEN.get(path)
            if cache is None:
                cache = _OPEN[path] = cls(path)
            return cache

    # ---- one answer per request

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        """The stored answers of those `keys` that have one."""
        wanted = set(keys)
        found: dict[bytes, bytes] = {}
        with self._lock:
            try:
                for i in range(0, len(keys), _LOOKUP_CHUNK):
                    ids = [_rowid(k) for k in keys[i : i + _LOOKUP_CHUNK]]
                    marks = ",".join("?" * len(ids))
                    for key, value in self._con.execute(f"SELECT key, value FROM results WHERE id IN ({marks})",
                                                        ids):
                        if key in wanted:
                            found[bytes(key)] = value
            except sqlite3.DatabaseError as exc:
                if not _is_corruption(exc):
                    raise
                self._recover(exc)
                return {}
        return found

    def put_many(self, items: Iterable[tuple[bytes, bytes]]) -> None:
        now = time.time()
        rows = [(_rowid(k), k, v, now) for k, v in items]
        if not rows:
            return
        with self._lock:
            try:
                self._put_rows(rows)
            except sqlite3.DatabaseError as exc:
                if not _is_corruption(exc):
                    raise
                self._recover(exc)
                self._put_rows(rows)

    def _put_rows(self, rows: list[tuple[int, bytes, bytes, float]]) -> None:
        with self._lock, transaction(self._con, "DEFERRED"):
            # Many rows per statement: SQLite then runs without handing the GIL back and forth for every row,
            # which on a busy interpreter (the batch goes on meanwhile) would slow both threads down.
            for i in range(0, len(rows), _INSERT_ROWS):
                part = rows[i : i + _INSERT_ROWS]
                marks = ",".join(["(?, ?, ?, ?)"] * len(part))
                self._con.execute(f"INSERT OR REPLACE INTO results (id, key, value, created) VALUES {marks}",
                                  [x for row in part for x in row])

    # ---- whole runs

    def get_run(self, key: bytes) -> bytes | None:
        with self._lock:
            try:
                row = self._con.execute("SELECT value FROM runs WHERE key = ?", (key,)).fetchone()
            except sqlite3.DatabaseError as exc:
                if not _is_corruption(exc):
                    raise
                self._recover(exc)
                return None
        return None if row is None else bytes(row[0])

    def put_run(self, key: bytes, value: bytes) -> None:
        with self._lock:
            try:
                with transaction(self._con, "DEFERRED"):
                    self._con.execute("INSERT OR REPLACE INTO runs (key, value, created) VALUES (?, ?, ?)",
                                      (key, value, time.time()))
                    self._con.execute("DELETE FROM runs WHERE key NOT IN "
                                      "(SELECT key FROM runs ORDER BY created DESC LIMIT ?)", (MAX_RUNS,))
            except sqlite3.DatabaseError as exc:  # rolled back by `transaction`
                if not _is_corruption(exc):
                    raise
                self._recover(exc)

    # ---- housekeeping

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute("SELECT count(*) FROM results").fetchone()[0])

    def stats(self) -> dict[str, int]:
        """Number of stored answers and runs, and the file's size in bytes."""
        with self._lock:
            answers = int(self._con.execute("SELECT count(*) FROM results").fetchone()[0])
            runs = int(self._con.execute("SELECT count(*) FROM runs").fetchone()[0])
        return {"answers": answers, "runs": runs, "bytes": self.path.stat().st_size}

    def clear(self) -> None:
        """Forget every stored answer and run."""
        with self._lock:
            self._con.execute("DELETE FROM results")
            self._con.execute("DELETE FROM runs")
            self._con.execute("VACUUM")

    def prune(self, older_than_days: float) -> int:
        """Forget answers stored more than `older_than_days` ago; returns how many went."""
        cutoff = time.time() - older_than_days * 86400.0
        with self._lock:
            cur = self._con.execute("DELETE FROM results WHERE created < ?", (cutoff,))
            self._con.execute("DELETE FROM runs WHERE created < ?", (cutoff,))
            return int(cur.rowcount)

    def close(self) -> None:
        with self._lock:
            self._con.close()
        with _OPEN_LOCK:
            for p, c in list(_OPEN.items()):
                if c is self:
                    del _OPEN[p]


_OPEN: dict[Path, ResultCache] = {}
_OPEN_LOCK = threading.Lock()


class CacheWriter:
    """Stores answers on a background thread while the batch goes on (SQLite releases the GIL while it writes).

    A failing write (disk full, file removed) warns once and stops storing; it never fails the batch.
    """

    def __init__(self, cache: ResultCache) -> None:
        self.cache = cache
        # Bounded: if the disk is slower than the backend, the batch waits rather than holding every answer twice.
        self._queue: queue.Queue[list[tuple[bytes, bytes]] | None] = queue.Queue(maxsize=16)
        self._failed = False
        self._thread = threading.Thread(target=self._run, name="dqkit-cache-writer", daemon=True)
        self._thread.start()

    def write(self, items: list[tuple[bytes, bytes]]) -> None:
        if items and not self._failed:
            self._queue.put(items)

    def _run(self) -> None:
        while True:
            items = self._queue.get()
            if items is None:
                return
            if self._failed:
                continue
            try:
                self.cache.put_many(items)
            except (sqlite3.Error, CacheUnavailable) as exc:
                self._failed = True
                warnings.warn(f"dqkit: could not write to the result cache {self.cache.path}: {exc}; "
                              "going on without storing answers", RuntimeWarning, stacklevel=1)

    def close(self) -> None:
        """Wait until everything queued is stored."""
        self._queue.put(None)
        self._thread.join()
