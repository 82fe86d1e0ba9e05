"""Bulk batches of `dqkit serve` (the vendor's `/address/bulk/v1/batches`, models in `dqkit.contract.address_bulk`).

Why it is built this way:
- Kept on disk: batches, their addresses and answers live in one SQLite file (`bulk.sqlite3` in `DQKIT_BULK_DIR`,
  default the user data folder's `dqkit/bulk`), so a restart loses nothing: a batch that was processing goes on
  where it stopped (its answers are written in chunks, each with its progress, in one transaction).
- In the background, without blocking other requests: one thread per server process validates the addresses of a
  processing batch in chunks of `CHUNK` and gives the CPU back between chunks; requests keep the engine pool
  (`dqkit.server.engines.run_engine`). Several processes (`--workers`) share the file: a batch is taken with a
  lease (`LEASE_SECONDS`, renewed every chunk), so one process works on it at a time and another takes it over
  when its process died.
- Removed after `DQKIT_BULK_KEEP_HOURS` (default 24) from the batch's end, or from its creation when it never ran,
  or at once by its caller (`DELETE .../batches/{batch_id}`); a batch is the caller's: only the token that created it
  sees it (stored as a hash).
- Bounded per caller (issue 30: one token looping create-then-stop filled a 400 MB disk in 10.7 s, and every
  tenant's create then failed with a 500): every batch kept counts until it is removed, stopped and completed ones
  too. A caller holds at most `Quota.open_batches` batches not yet ended, `Quota.kept_batches` in all,
  `Quota.kept_rows` addresses and `Quota.kept_bytes` bytes (`DQKIT_BULK_QUOTA_MB`, default 100; an open batch counts
  its input and `ANSWER_RESERVE` bytes for each answer still to come); past any of them a create is a 429 saying
  which and how to make room. Below `Quota.min_free_bytes` free on the disk (`DQKIT_BULK_MIN_FREE_MB`, default 5% of
  it, between 64 MiB and 1 GiB) creates get a 507 for everyone, while the batches at work keep going in the room
  left.
- Fair across callers: the worker takes a batch for one slice (`SLICE_SECONDS`) at a time, the batch of the caller
  served longest ago first (round-robin by caller, oldest batch first within one), so a 10-address batch is not held
  behind another caller's 30,000.
- Stopped with its reason when `max_processing_time` runs out; the addresses not reached come back in order with no
  confidence, counted under the statistic "Not processed".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import msgspec
import platformdirs
from starlette.requests import Request

from dqkit._own_sqlite import BULK_MARK, StoreError, mark, open_store, transaction
from dqkit.contract.address import MatchInfo, SearchRequest
from dqkit.contract.address_bulk import (
    DEFAULT_LAYOUT,
    MAX_ADDRESS_CHARS,
    MAX_BATCH_ADDRESSES,
    NOT_PROCESSED,
    BatchConfig,
    BatchInfo,
    BatchList,
    BatchListResponse,
    BatchRef,
    BatchRefResponse,
    BatchResults,
    BatchResultsResponse,
    BatchStatus,
    BatchStatusMetadata,
    BatchStatusResponse,
    BulkCreateRequest,
    BulkFormatted,
    BulkResultAddress,
    BulkStatistic,
    bulk_components,
    bulk_metadata,
    parse_max_processing_time,
)
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import (
    BadRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceError,
)
from dqkit.server.engines import ServerEngines

log = logging.getLogger("dqkit.server")
BULK_PATH: Final = "/address/bulk/v1/batches"


class InsufficientStorageError(ServiceError):
    """507: the server's disk for batches is below its floor (every caller's creates wait; batches at work go on)."""

    status, title = 507, "Insufficient Storage"

CHUNK: Final = 50
SLICE_SECONDS: Final = 0.5  # one batch's turn before the worker looks for another caller's
LEASE_SECONDS: Final = 10.0
IDLE_WAIT_SECONDS: Final = 1.0
PURGE_EVERY_SECONDS: Final = 60.0
MAX_OPEN_BATCHES: Final = 20  # per caller, created or processing
MAX_KEPT_BATCHES: Final = 100  # per caller, every batch not yet removed
MAX_KEPT_ROWS: Final = 200_000  # per caller
DEFAULT_QUOTA_MB: Final = 100  # bytes kept per caller
ANSWER_RESERVE: Final = 1024  # bytes counted for each answer an open batch has still to write
MAX_PAGE: Final = 1000
MAX_PROCESSING_SECONDS: Final = 7 * 24 * 3600
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS batches (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, ref TEXT, status TEXT NOT NULL, reason TEXT,
  records INTEGER NOT NULL, processed INTEGER NOT NULL DEFAULT 0, submitted REAL NOT NULL, started REAL,
  ended REAL, config TEXT NOT NULL, lease REAL NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS rows (
  batch TEXT NOT NULL, n INTEGER NOT NULL, input TEXT NOT NULL, answer TEXT, PRIMARY KEY (batch, n));
CREATE TABLE IF NOT EXISTS turns (owner TEXT PRIMARY KEY, served REAL NOT NULL);
"""
# What a caller's batches take, as the quota counts it: inputs and answers, and the answers still to come.
_KEPT: Final = ("SELECT COUNT(*), COALESCE(SUM(status IN ('created', 'processing')), 0), COALESCE(SUM(records), 0), "
                "COALESCE(SUM(bytes + CASE WHEN status IN ('created', 'processing') THEN (records - processed) * "
                f"{ANSWER_RESERVE} ELSE 0 END), 0) FROM batches WHERE owner = ?")
_ENC = msgspec.json.Encoder()


def bulk_dir() -> Path:
    """Where batches are kept: `DQKIT_BULK_DIR`, else the user data folder's `dqkit/bulk`."""
    env = os.environ.get("DQKIT_BULK_DIR", "").strip()
    return Path(env) if env else Path(platformdirs.user_data_dir("dqkit")) / "bulk"


def keep_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("DQKIT_BULK_KEEP_HOURS", "24"))) * 3600
    except ValueError:
        return 24 * 3600.0


def _env_mb(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, "").strip() or default)
    except ValueError:
        return default
    return value if 0 <= value < 1 << 40 else default


@dataclass(frozen=True)
class Quota:
    """What one caller may keep (module docstring), and the free space every create leaves on the disk."""

    open_batches: int = MAX_OPEN_BATCHES
    kept_batches: int = MAX_KEPT_BATCHES
    kept_rows: int = MAX_KEPT_ROWS
    kept_bytes: int = DEFAULT_QUOTA_MB << 20
    min_free_bytes: int | None = None  # None: 5% of the disk, between 64 MiB and 1 GiB

    @classmethod
    def from_env(cls) -> Quota:
        floor = os.environ.get("DQKIT_BULK_MIN_FREE_MB", "").strip()
        return cls(kept_bytes=int(_env_mb("DQKIT_BULK_QUOTA_MB", DEFAULT_QUOTA_MB) * (1 << 20)),
                   min_free_bytes=int(_env_mb("DQKIT_BULK_MIN_FREE_MB", 0) * (1 << 20)) if floor else None)

    def floor(self, folder: Path) -> tuple[int, int]:
        """(free bytes on the disk of `folder`, the floor creates must leave)."""
        st = os.statvfs(folder)
        free, total = st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize
        floor = self.min_free_bytes
        if floor is None:
            floor = min(1 << 30, max(64 << 20, total // 20))
        return free, floor


def _mb(n: float) -> str:
    return f"{n / (1 << 20):,.1f} MB"


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def owner_of(request: Request) -> str:
    """The caller, as a hash of its credential (none configured: everyone is one caller)."""
    token = request.headers.get("auth-token") or request.headers.get("x-app-key") or ""
    return hashlib.sha256(b"dqkit-bulk-owner:" + token.encode()).hexdigest()[:32]


class BatchStore:
    """The SQLite file of batches (WAL, one connection per thread, shared by every process of the server)."""

    def __init__(self, folder: Path, quota: Quota | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.path = folder / "bulk.sqlite3"
        self.quota = quota or Quota.from_env()
        self._local = threading.local()
        open_store(self.path, BULK_MARK, "bulk batch store", ("batches", "rows"), ("turns",))  # marked first
        db = self._db()
        db.executescript(_SCHEMA)
        mark(db, BULK_MARK)
        if "bytes" not in {r[1] for r in db.execute("PRAGMA table_info(batches)")}:  # a file of an older dqkit
            db.execute("ALTER TABLE batches ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0")

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    def _tx(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One write transaction on this thread's connection (a failed COMMIT is rolled back, not left open)."""
        return transaction(self._db())

    def create(self, owner: str, ref: str | None, config: BatchConfig, rows: list[dict[str, Any]]) -> str:
        batch_id = uuid.uuid4().hex
        inputs = [json.dumps(r) for r in rows]
        size = sum(map(len, inputs))
        need = size + len(rows) * ANSWER_RESERVE
        q = self.quota
        free, floor = q.floor(self.folder)
        if free - need < floor:  # the disk is shared by every caller: nobody fills it
            raise InsufficientStorageError(
                f"the server's disk for batches is nearly full ({_mb(free)} free, {_mb(floor)} kept free); this "
                f"batch would take {_mb(need)}. Retry later, or remove ended batches (DELETE {BULK_PATH}/ID)")
        with self._tx() as db:
            kept, open_now, kept_rows, kept_bytes = db.execute(_KEPT, (owner,)).fetchone()
            room = (f"; remove ended batches (DELETE {BULK_PATH}/ID) or wait until they expire "
                    f"({keep_seconds() / 3600:g} h after they end)")
            if open_now >= q.open_batches:
                raise RateLimitError(f"{open_now} batches of this caller are waiting or processing (at most "
                                     f"{q.open_batches}); start, finish or stop one first", retry_after=5)
            if kept >= q.kept_batches:
                raise RateLimitError(f"this caller keeps {kept} batches (at most {q.kept_batches}, stopped and "
                                     f"completed ones included){room}", retry_after=60)
            if kept_rows + len(rows) > q.kept_rows:
                raise RateLimitError(f"this caller keeps {kept_rows:,} addresses in batches; with {len(rows):,} more "
                                     f"it would pass its quota of {q.kept_rows:,}{room}", retry_after=60)
            if kept_bytes + need > q.kept_bytes:
                raise RateLimitError(f"this caller's batches take {_mb(kept_bytes)}; this one would add {_mb(need)} "
                                     f"(its addresses and room for their answers), past its quota of "
                                     f"{_mb(q.kept_bytes)}{room}", retry_after=60)
            db.execute("INSERT INTO batches (id, owner, ref, status, records, submitted, config, bytes) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?, ?)", (batch_id, owner, ref, BatchStatus.CREATED, len(rows), time.time(),
                                                    _ENC.encode(config).decode(), size))
            db.executemany("INSERT INTO rows (batch, n, input) VALUES (?, ?, ?)",
                           ((batch_id, n, i) for n, i in enumerate(inputs)))
        return batch_id

    def remove(self, owner: str, batch_id: str) -> None:
        """Remove a batch of `owner` now (one at work stops: the worker's next save finds it gone)."""
        with self._tx() as db:
            if db.execute("DELETE FROM batches WHERE id = ? AND owner = ?", (batch_id, owner)).rowcount == 0:
                raise NotFoundError(f"no batch {batch_id[:64]!r}")
            db.execute("DELETE FROM rows WHERE batch = ?", (batch_id,))

    def get(self, owner: str, batch_id: str) -> dict[str, Any]:
        with self._tx() as db:
            row = db.execute("SELECT id, ref, status, reason, records, processed, submitted, started, ended, config "
                             "FROM batches WHERE id = ? AND owner = ?", (batch_id, owner)).fetchone()
        if row is None:
            raise NotFoundError(f"no batch {batch_id[:64]!r} (batches are removed {keep_seconds() / 3600:g} hours "
                                "after they end)")
        keys = ("id", "ref", "status", "reason", "records", "processed", "submitted", "started", "ended", "config")
        return dict(zip(keys, row, strict=True))

    def ids(self, owner: str, limit: int = -1, offset: int = 0) -> list[str]:
        with self._tx() as db:
            return [r[0] for r in db.execute("SELECT id FROM batches WHERE owner = ? ORDER BY submitted, id "
                                             "LIMIT ? OFFSET ?", (owner, limit, offset))]

    def count(self, owner: str) -> int:
        with self._tx() as db:
            return int(db.execute("SELECT COUNT(*) FROM batches WHERE owner = ?", (owner,)).fetchone()[0])

    def set_status(self, owner: str, batch_id: str, status: BatchStatus, *, only_from: tuple[str, ...],
                   reason: str | None = None) -> None:
        now = time.time()
        with self._tx() as db:
            db.execute(
                "UPDATE batches SET status = ?, reason = COALESCE(?, reason), "
                "started = CASE WHEN ? = 'processing' THEN COALESCE(started, ?) ELSE started END, "
                "ended = CASE WHEN ? IN ('completed', 'stopped') THEN COALESCE(ended, ?) ELSE ended END "
                f"WHERE id = ? AND owner = ? AND status IN ({','.join('?' * len(only_from))})",
                (status, reason, status, now, status, now, batch_id, owner, *only_from))

    def answers(self, batch_id: str) -> list[tuple[dict[str, Any], str | None]]:
        with self._tx() as db:
            return [(json.loads(i), a) for i, a in
                    db.execute("SELECT input, answer FROM rows WHERE batch = ? ORDER BY n", (batch_id,))]

    # -- the worker's side -------------------------------------------------------------------------------------
    def claim(self) -> tuple[str, int, float | None, str] | None:
        """A processing batch no live process holds (its lease ran out), leased to this one: of the caller served
        longest ago, its oldest batch (round-robin by caller)."""
        now = time.time()
        with self._tx() as db:
            row = db.execute("SELECT b.id, b.processed, b.started, b.config, b.owner FROM batches b LEFT JOIN turns t "
                             "ON t.owner = b.owner WHERE b.status = 'processing' AND b.lease < ? "
                             "ORDER BY COALESCE(t.served, 0), b.submitted LIMIT 1", (now,)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE batches SET lease = ? WHERE id = ?", (now + LEASE_SECONDS, row[0]))
            db.execute("INSERT INTO turns (owner, served) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET "
                       "served = excluded.served", (row[4], now))
        return str(row[0]), int(row[1]), row[2], str(row[3])

    def release(self, batch_id: str) -> None:
        """Give the batch back after a slice: any process may take it (or another caller's) next."""
        with self._tx() as db:
            db.execute("UPDATE batches SET lease = 0 WHERE id = ?", (batch_id,))

    def pending(self, batch_id: str, start: int, count: int) -> list[tuple[int, dict[str, Any]]]:
        with self._tx() as db:
            return [(int(n), json.loads(i)) for n, i in db.execute(
                "SELECT n, input FROM rows WHERE batch = ? AND n >= ? ORDER BY n LIMIT ?", (batch_id, start, count))]

    def save(self, batch_id: str, answers: list[tuple[int, bytes]], processed: int) -> bool:
        """Store a chunk's answers and the progress, if the batch is still processing (not stopped meanwhile)."""
        with self._tx() as db:
            status = db.execute("SELECT status FROM batches WHERE id = ?", (batch_id,)).fetchone()
            if status is None or status[0] != BatchStatus.PROCESSING:
                return False
            db.executemany("UPDATE rows SET answer = ? WHERE batch = ? AND n = ?",
                           ((a.decode(), batch_id, n) for n, a in answers))
            db.execute("UPDATE batches SET processed = ?, lease = ?, bytes = bytes + ? WHERE id = ?",
                       (processed, time.time() + LEASE_SECONDS, sum(len(a) for _, a in answers), batch_id))
        return True

    def finish(self, batch_id: str, status: BatchStatus, reason: str | None = None) -> None:
        with self._tx() as db:
            db.execute("UPDATE batches SET status = ?, reason = ?, ended = ?, lease = 0 WHERE id = ? AND "
                       "status = 'processing'", (status, reason, time.time(), batch_id))

    def purge(self, older_than: float) -> int:
        """Remove batches that ended (or, never started, were created) before `older_than`."""
        with self._tx() as db:
            ids = [r[0] for r in db.execute(
                "SELECT id FROM batches WHERE COALESCE(ended, CASE WHEN status = 'created' THEN submitted END) < ?",
                (older_than,))]
            for i in ids:
                db.execute("DELETE FROM rows WHERE batch = ?", (i,))
                db.execute("DELETE FROM batches WHERE id = ?", (i,))
            db.execute("DELETE FROM turns WHERE owner NOT IN (SELECT owner FROM batches)")
        return len(ids)


def _rows_of(req: BulkCreateRequest) -> tuple[list[dict[str, Any]], BatchConfig, str | None]:
    """The addresses with their defaults applied, checked as the published schema says (400 naming the row)."""
    n = len(req.addresses)
    if not 1 <= n <= MAX_BATCH_ADDRESSES:
        raise BadRequestError(f"a batch holds 1 to {MAX_BATCH_ADDRESSES:,} addresses (got {n:,})")
    d = req.defaults
    ref = d.batch_reference_id if d else None
    if ref is not None and (len(ref) > 256 or (ref and not all(c.isalnum() or c in "_-/:.,() " for c in ref))):
        raise BadRequestError("batch_reference_id must be at most 256 letters, digits or the characters "
                              "- / : . , ( ) _ and space")
    raw_limit = d.max_processing_time if d else None
    if raw_limit is not None and len(raw_limit.strip()) > 12:
        raise BadRequestError(f"max_processing_time {raw_limit.strip()[:20]!r}... is not seconds or [HH:]MM:SS of "
                              f"at most {MAX_PROCESSING_SECONDS:,} seconds")
    try:
        limit = parse_max_processing_time(raw_limit)
    except ValueError as exc:
        raise BadRequestError(str(exc)) from None
    if limit is not None and limit > MAX_PROCESSING_SECONDS:
        raise BadRequestError(f"max_processing_time is {limit:,.0f} seconds; at most {MAX_PROCESSING_SECONDS:,} "
                              "(7 days) are allowed")
    country = (d.country_iso or "").strip().upper() if d else ""
    datasets = [x.strip().lower() for x in (d.datasets or [])] if d else []
    rows: list[dict[str, Any]] = []
    for i, a in enumerate(req.addresses):
        text = a.address or ""
        if len(text) > MAX_ADDRESS_CHARS:
            raise BadRequestError(f"addresses[{i}].address is {len(text):,} characters; at most "
                                  f"{MAX_ADDRESS_CHARS:,} are allowed")
        c = (a.country_iso or "").strip().upper() or country
        if not c:
            raise BadRequestError(f"addresses[{i}] has no country_iso and the batch has no default country_iso")
        rows.append({"address": text, "country_iso": c,
                     "datasets": [x.strip().lower() for x in a.datasets] if a.datasets else datasets})
    config = BatchConfig(country_iso=country or None, datasets=datasets or None,
                         max_processing_time=d.max_processing_time if d and limit else None)
    return rows, config, ref


class BulkService:
    """The routes' side (create, start, status, results, stop, list) and the background worker of one process."""

    def __init__(self, engines: ServerEngines, folder: Path | None = None) -> None:
        self.engines = engines
        self._folder = folder
        self._store: BatchStore | None = None
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stopping = False

    @property
    def store(self) -> BatchStore:
        with self._lock:
            if self._store is None:
                try:
                    self._store = BatchStore(self._folder or bulk_dir())
                except StoreError as exc:  # the server's configuration, said plainly (no traceback per request)
                    raise ServiceError(str(exc), status=503) from None
            return self._store

    def _held(self) -> BatchStore | None:
        """The store if there is one (no file is made until a caller creates a batch)."""
        if self._store is None and not (self._folder or bulk_dir()).joinpath("bulk.sqlite3").exists():
            return None
        return self.store

    def resume(self) -> None:
        """Start the worker (at server start: batches a stopped server was processing go on)."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="dqkit-bulk", daemon=True)
                self._thread.start()
        self._wake.set()

    def close(self) -> None:
        self._stopping = True
        self._wake.set()

    # -- operations ----------------------------------------------------------------------------------------------
    def create(self, owner: str, body: bytes, add: AddOns, extra_match_info: bool) -> BatchRefResponse:
        try:
            req = msgspec.json.decode(body, type=BulkCreateRequest)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise BadRequestError(f"the body is not a valid batch: {exc}") from None
        rows, config, ref = _rows_of(req)
        held = self.engines.loaded.dataset_ids
        for ds in sorted({d for r in rows for d in r["datasets"]}):
            if ds not in held:  # as search and validate answer a dataset the server does not hold
                raise PermissionDeniedError(f"this server holds no dataset {ds[:64]!r} (it holds: "
                                            f"{', '.join(sorted(held)) or 'none'})")
        config.add_components, config.add_metadata = add.components, add.metadata
        config.add_extra_match_info = extra_match_info
        batch_id = self.store.create(owner, ref, config, rows)
        return BatchRefResponse(BatchRef(batch_id=batch_id, batch_reference_id=ref, status=BatchStatus.CREATED))

    def start(self, owner: str, batch_id: str) -> BatchRefResponse:
        self.store.set_status(owner, batch_id, BatchStatus.PROCESSING, only_from=(BatchStatus.CREATED,))
        b = self.store.get(owner, batch_id)
        self.resume()
        return BatchRefResponse(BatchRef(batch_id=batch_id, batch_reference_id=b["ref"], status=b["status"]))

    def stop(self, owner: str, batch_id: str) -> BatchRefResponse:
        self.store.set_status(owner, batch_id, BatchStatus.STOPPED,
                              only_from=(BatchStatus.CREATED, BatchStatus.PROCESSING), reason="stopped by the client")
        b = self.store.get(owner, batch_id)
        return BatchRefResponse(BatchRef(batch_id=batch_id, batch_reference_id=b["ref"], status=b["status"]))

    def status(self, owner: str, batch_id: str, with_metadata: bool) -> BatchStatusResponse:
        b = self.store.get(owner, batch_id)
        meta = None
        if with_metadata:
            meta = BatchStatusMetadata(batch_config=msgspec.json.decode(b["config"], type=BatchConfig))
        return BatchStatusResponse(_info(b), meta)

    def list(self, owner: str, limit: int = 100, offset: int = 0) -> tuple[BatchListResponse, int]:
        """One page of the caller's batches, oldest first, and how many it has in all."""
        ids = self.store.ids(owner, limit, offset)
        return (BatchListResponse(BatchList(batches=[_info(self.store.get(owner, i)) for i in ids])),
                self.store.count(owner))

    def remove(self, owner: str, batch_id: str) -> BatchRefResponse:
        b = self.store.get(owner, batch_id)
        self.store.remove(owner, batch_id)
        return BatchRefResponse(BatchRef(batch_id=batch_id, batch_reference_id=b["ref"], status="removed"))

    def results(self, owner: str, batch_id: str) -> BatchResultsResponse:
        b = self.store.get(owner, batch_id)
        out = BatchResults(batch_id=batch_id, batch_reference_id=b["ref"], status=b["status"], reason=b["reason"])
        if b["status"] not in (BatchStatus.COMPLETED, BatchStatus.STOPPED):
            return BatchResultsResponse(out)  # the answers come once the batch has ended: poll its status
        addresses: list[BulkResultAddress] = []
        counts: Counter[str] = Counter()
        for given, answer in self.store.answers(batch_id):
            if answer is None:
                one = BulkResultAddress(address=given["address"], country_iso=given["country_iso"],
                                        datasets=given["datasets"] or None)
                counts[NOT_PROCESSED] += 1
            else:
                one = msgspec.json.decode(answer, type=BulkResultAddress)
                counts[one.confidence or NOT_PROCESSED] += 1
            addresses.append(one)
        out.statistics = [BulkStatistic(name=k, value=v) for k, v in sorted(counts.items())]
        out.addresses = addresses
        return BatchResultsResponse(out)

    # -- the worker ----------------------------------------------------------------------------------------------
    def _work(self) -> None:
        last_purge = 0.0
        while not self._stopping:
            try:
                store = self._held()
                if store is None or not self.engines.ready:
                    self._wake.wait(IDLE_WAIT_SECONDS)
                    self._wake.clear()
                    continue
                if time.time() - last_purge > PURGE_EVERY_SECONDS:
                    last_purge = time.time()
                    store.purge(time.time() - keep_seconds())
                claimed = store.claim()
                if claimed is None:
                    self._wake.wait(IDLE_WAIT_SECONDS)
                    self._wake.clear()
                    continue
                self._run(*claimed)
            except Exception:  # the worker must outlive any one fault; the batch is retried once its lease ends
                log.exception("dqkit serve: bulk worker fault")
                self._wake.wait(IDLE_WAIT_SECONDS)

    def _run(self, batch_id: str, done: int, started: float | None, config_json: str) -> None:
        """One slice of the batch (`SLICE_SECONDS`), then the batch is released for the next turn."""
        config = msgspec.json.decode(config_json, type=BatchConfig)
        limit = parse_max_processing_time(config.max_processing_time)
        add = AddOns(components=bool(config.add_components), metadata=bool(config.add_metadata))
        backend = self.engines.address
        slice_end = time.monotonic() + SLICE_SECONDS
        try:
            while not self._stopping:
                if limit is not None and started is not None and time.time() - started > limit:
                    self.store.finish(batch_id, BatchStatus.STOPPED,
                                      f"max_processing_time of {config.max_processing_time} ran out after {done:,} "
                                      "addresses")
                    return
                chunk = self.store.pending(batch_id, done, CHUNK)
                if not chunk:
                    self.store.finish(batch_id, BatchStatus.COMPLETED)
                    return
                answers = [(n, _ENC.encode(_answer(backend, given, add, bool(config.add_extra_match_info))))
                           for n, given in chunk]
                done = chunk[-1][0] + 1
                if not self.store.save(batch_id, answers, done):
                    return  # stopped or removed by the client meanwhile
                time.sleep(0)  # give the GIL to the request threads between chunks
                if time.monotonic() > slice_end:
                    return  # another caller's turn (or this batch's again, when nobody else waits)
        finally:
            self.store.release(batch_id)


def _answer(backend: Any, given: dict[str, Any], add: AddOns, extra: bool) -> BulkResultAddress:
    """One address validated as `POST /address/validate/v1` would, in the bulk result's shape."""
    out = BulkResultAddress(address=given["address"], country_iso=given["country_iso"],
                            datasets=given["datasets"] or None)
    try:
        answer = backend.validate(SearchRequest.of(given["address"], given["country_iso"],
                                                   datasets=given["datasets"]), add)
    except ServiceError as exc:  # a clear answer for this address; the batch goes on
        out.confidence, out.match_type, out.match_confidence = "No matches", "unprocessed", "none"
        out.match_info = MatchInfo(generic_info=[f"not validated: {exc}"[:500]])
        return out
    r = answer.result
    out.confidence, out.match_type, out.match_confidence = r.confidence, r.match_type or None, \
        r.match_confidence or None
    if extra and r.match_info is not None:
        out.match_info = r.match_info
    if r.address is not None:
        lines = {k: v for k, v in msgspec.to_builtins(r.address).items() if isinstance(v, str)}
        out.addresses_formatted = [BulkFormatted(layout_name=DEFAULT_LAYOUT, address=lines)]
    if add.components and r.components is not None:
        out.components = bulk_components(r.components)
    if add.metadata and answer.metadata is not None:
        out.metadata = bulk_metadata(answer.metadata)
    return out


def _info(b: dict[str, Any]) -> BatchInfo:
    return BatchInfo(batch_id=b["id"], batch_reference_id=b["ref"], status=b["status"], reason=b["reason"],
                     records=b["records"], records_processed=b["processed"], date_submitted=_iso(b["submitted"]),
                     date_started=_iso(b["started"]), date_ended=_iso(b["ended"]))
