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
- Removed after `DQKIT_BULK_KEEP_HOURS` (default 24) from the batch's end, or from its creation when it never ran;
  a batch is the caller's: only the token that created it sees it (stored as a hash). A caller holds at most
  `MAX_OPEN_BATCHES` batches not yet ended (the next create is a 429).
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
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import msgspec
import platformdirs
from starlette.requests import Request

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
from dqkit.contract.errors import BadRequestError, NotFoundError, RateLimitError, ServiceError
from dqkit.server.engines import ServerEngines

log = logging.getLogger("dqkit.server")

CHUNK: Final = 100
LEASE_SECONDS: Final = 10.0
IDLE_WAIT_SECONDS: Final = 1.0
PURGE_EVERY_SECONDS: Final = 60.0
MAX_OPEN_BATCHES: Final = 20  # per caller, created or processing
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS batches (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, ref TEXT, status TEXT NOT NULL, reason TEXT,
  records INTEGER NOT NULL, processed INTEGER NOT NULL DEFAULT 0, submitted REAL NOT NULL, started REAL,
  ended REAL, config TEXT NOT NULL, lease REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS rows (
  batch TEXT NOT NULL, n INTEGER NOT NULL, input TEXT NOT NULL, answer TEXT, PRIMARY KEY (batch, n));
"""
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


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def owner_of(request: Request) -> str:
    """The caller, as a hash of its credential (none configured: everyone is one caller)."""
    token = request.headers.get("auth-token") or request.headers.get("x-app-key") or ""
    return hashlib.sha256(b"dqkit-bulk-owner:" + token.encode()).hexdigest()[:32]


class BatchStore:
    """The SQLite file of batches (WAL, one connection per thread, shared by every process of the server)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "bulk.sqlite3"
        self._local = threading.local()
        self._db().executescript(_SCHEMA)

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def create(self, owner: str, ref: str | None, config: BatchConfig, rows: list[dict[str, Any]]) -> str:
        batch_id = uuid.uuid4().hex
        with self._tx() as db:
            (open_now,) = db.execute("SELECT COUNT(*) FROM batches WHERE owner = ? AND status IN ('created', "
                                     "'processing')", (owner,)).fetchone()
            if open_now >= MAX_OPEN_BATCHES:  # a caller cannot fill the disk or the queue
                raise RateLimitError(f"{open_now} batches of this caller are waiting or processing (at most "
                                     f"{MAX_OPEN_BATCHES}); start, finish or stop one first", retry_after=5)
            db.execute("INSERT INTO batches (id, owner, ref, status, records, submitted, config) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?)", (batch_id, owner, ref, BatchStatus.CREATED, len(rows), time.time(),
                                                 _ENC.encode(config).decode()))
            db.executemany("INSERT INTO rows (batch, n, input) VALUES (?, ?, ?)",
                           ((batch_id, n, json.dumps(r)) for n, r in enumerate(rows)))
        return batch_id

    def get(self, owner: str, batch_id: str) -> dict[str, Any]:
        with self._tx() as db:
            row = db.execute("SELECT id, ref, status, reason, records, processed, submitted, started, ended, config "
                             "FROM batches WHERE id = ? AND owner = ?", (batch_id, owner)).fetchone()
        if row is None:
            raise NotFoundError(f"no batch {batch_id[:64]!r} (batches are removed {keep_seconds() / 3600:g} hours "
                                "after they end)")
        keys = ("id", "ref", "status", "reason", "records", "processed", "submitted", "started", "ended", "config")
        return dict(zip(keys, row, strict=True))

    def ids(self, owner: str) -> list[str]:
        with self._tx() as db:
            return [r[0] for r in db.execute("SELECT id FROM batches WHERE owner = ? ORDER BY submitted", (owner,))]

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
        """A processing batch no live process holds (its lease ran out), leased to this one."""
        now = time.time()
        with self._tx() as db:
            row = db.execute("SELECT id, processed, started, config FROM batches WHERE status = 'processing' "
                             "AND lease < ? ORDER BY submitted LIMIT 1", (now,)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE batches SET lease = ? WHERE id = ?", (now + LEASE_SECONDS, row[0]))
        return str(row[0]), int(row[1]), row[2], str(row[3])

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
            db.execute("UPDATE batches SET processed = ?, lease = ? WHERE id = ?",
                       (processed, time.time() + LEASE_SECONDS, batch_id))
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
    try:
        limit = parse_max_processing_time(d.max_processing_time if d else None)
    except ValueError as exc:
        raise BadRequestError(str(exc)) from None
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
                self._store = BatchStore(self._folder or bulk_dir())
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

    def list(self, owner: str) -> BatchListResponse:
        return BatchListResponse(BatchList(batches=[_info(self.store.get(owner, i)) for i in self.store.ids(owner)]))

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
        config = msgspec.json.decode(config_json, type=BatchConfig)
        limit = parse_max_processing_time(config.max_processing_time)
        add = AddOns(components=bool(config.add_components), metadata=bool(config.add_metadata))
        backend = self.engines.address
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
                return  # stopped by the client meanwhile
            time.sleep(0)  # give the GIL to the request threads between chunks


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
