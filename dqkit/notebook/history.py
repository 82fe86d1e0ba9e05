"""A record of verify runs, per lead source: what drift over time is computed from.

One SQLite file (default `<user data dir>/history.sqlite`, used only when asked: `history=True`,
`dqkit verify --history`, or `DQKIT_HISTORY=1`; any path otherwise). Each run is one transaction:

    runs     id, time (UTC), rows, input fingerprint, engine build, backend, dqkit version, label (the input
             file's name, from the CLI), the reference data the answers came from, the input's layout (a hash of
             its column names)
    counts   run, source, metric, count, total       (counts, not rates: the tests need both)

Runs are grouped by what they measured (`run_groups`): the same layout of input columns answered by the same
backend. Drift compares a run only with earlier runs of its group, so one CRM's monthly exports are tested against
each other, never against the bundled sample or another backend's answers.

Metrics per source: `code:<RESULT_CODE>` over all its leads, and the rates of `RATES` with their own
denominators. Concurrent runs wait for each other (SQLite's lock, 30 s); a run killed mid-write leaves no trace
(the transaction never commits); a new store is marked as dqkit's before anything else is written to it, so runs
starting together never take it, half made, for another program's database (`dqkit._own_sqlite.make_store`).
Only a regular file dqkit made or recognises is opened (`dqkit._own_sqlite`: its mark, or the tables of an older
dqkit's store); a directory, a device, a FIFO, a file that is not SQLite or another
program's database is a `StoreError` naming the path, and is never renamed or written. A store of dqkit's that is
damaged is moved aside (`<name>.corrupt-<time>`) with a warning naming both paths, and a new store is started: never
silently emptied. A read-only or locked store is a `StoreError` (writing: "this run was not recorded"); reading a
store that does not exist shows an empty history and creates nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import sqlite3
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pandas as pd

from dqkit._own_sqlite import HISTORY_MARK, StoreError, check_store, mark, open_store, transaction
from dqkit.contract.errors import InputError

# rate -> (leads counted, leads it is a share of); "judged" = leads that are not caller, account or service faults.
_CALLER: Final = frozenset({"E200", "E300", "E600", "E601", "E602"})
_ACCOUNT: Final = frozenset({"E500", "E501"})
_GOOD_PHONE: Final = frozenset({"E800", "E801"})


def _judged(code: pd.Series) -> pd.Series:
    return ~code.isin(_CALLER | _ACCOUNT | {"E400", ""})


RATES: Final[dict[str, tuple[Callable[[pd.DataFrame], pd.Series], Callable[[pd.DataFrame], pd.Series]]]] = {
    "success": (lambda f: f.code == "S100", lambda f: _judged(f.code)),
    "spoof": (lambda f: f.code == "E100", lambda f: _judged(f.code)),
    "no_match": (lambda f: f.code == "S101", lambda f: _judged(f.code)),
    "address_invalid": (lambda f: f.code == "S102", lambda f: _judged(f.code)),
    "caller_fault": (lambda f: f.code.isin(_CALLER), lambda f: f.code.notna()),
    "service_fault": (lambda f: f.code.isin({"E400", ""}), lambda f: f.code.notna()),
    "phone_invalid": (lambda f: (f.phone != "") & ~f.phone.isin(_GOOD_PHONE), lambda f: f.phone != ""),
}
RATE_MEANINGS: Final = {
    "success": "S100 among judged leads (caller, account and service faults left out)",
    "spoof": "E100 (spoof, vulgar, placeholder) among judged leads",
    "no_match": "S101 among judged leads",
    "address_invalid": "S102 among judged leads",
    "caller_fault": "E200, E300, E600-E602 among all leads",
    "service_fault": "E400 or no answer among all leads",
    "phone_invalid": "PHONE_STATUS other than E800/E801 among leads with a PHONE_STATUS",
}
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, rows INTEGER NOT NULL, fingerprint TEXT NOT NULL,
    engine_build TEXT NOT NULL, backend TEXT NOT NULL, version TEXT NOT NULL, label TEXT NOT NULL DEFAULT '',
    references_used TEXT NOT NULL DEFAULT '', layout TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS counts (
    run INTEGER NOT NULL REFERENCES runs(id), source TEXT NOT NULL, metric TEXT NOT NULL,
    count INTEGER NOT NULL, total INTEGER NOT NULL, PRIMARY KEY (run, source, metric));
"""


class HistoryWarning(UserWarning):
    """The history store was damaged and has been set aside (the warning names where)."""


def default_path() -> Path:
    """`$DQKIT_HISTORY` when it is a path, else `history.sqlite` in dqkit's user data directory."""
    env = os.environ.get("DQKIT_HISTORY", "").strip()
    if env and env.lower() not in {"1", "true", "yes", "on", "0", "false", "no", "off"}:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("dqkit", appauthor=False)) / "history.sqlite"


def enabled_by_env() -> bool:
    """`DQKIT_HISTORY` set to 1/true/yes/on or to a path: record every verify run of the CLI."""
    env = os.environ.get("DQKIT_HISTORY", "").strip().lower()
    return bool(env) and env not in {"0", "false", "no", "off"}


def store_path(history: str | os.PathLike[str] | bool | None) -> Path:
    if history is True or history is None:
        return default_path()
    if history is False:
        raise InputError("history=False records nothing; pass a path or True")
    return Path(history).expanduser()


def _set_aside(path: Path, why: str) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(path.with_name(path.name + suffix), aside.with_name(aside.name + suffix))
    warnings.warn(f"dqkit: the history store {path} could not be read ({why}); it was moved to {aside} and a new "
                  "store started. Nothing was deleted.", HistoryWarning, stacklevel=4)
    return aside


# Columns added to `runs` after its first release, with their defaults: a store an older dqkit wrote is upgraded in
# place (never taken for damaged).
_ADDED_COLUMNS: Final = {"references_used": "TEXT NOT NULL DEFAULT ''", "layout": "TEXT NOT NULL DEFAULT ''"}


def _upgrade(conn: sqlite3.Connection) -> None:
    have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    for name, decl in _ADDED_COLUMNS.items():
        if name not in have:
            conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {decl}")


def _ready(conn: sqlite3.Connection) -> bool:
    """Whether the store has its mark, its tables and every column (read only: a run that finds it so takes no
    write lock to open it)."""
    if conn.execute("PRAGMA application_id").fetchone()[0] != HISTORY_MARK:
        return False
    have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    return bool(have) and set(_ADDED_COLUMNS) <= have and bool(conn.execute("PRAGMA table_info(counts)").fetchall())


def _prepare(conn: sqlite3.Connection) -> None:
    """Tables, added columns and mark in one transaction: two runs opening a new or older store never both add a
    column (the second failed and the store was taken for damaged)."""
    with transaction(conn):
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        _upgrade(conn)
        mark(conn, HISTORY_MARK)


BUSY_SECONDS: Final = 30.0  # how long a run waits for another that holds the store


def _connect(path: Path, *, writable: bool = True) -> sqlite3.Connection:
    if writable:
        conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    else:  # a store this user may only read
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS,
                               isolation_level=None)
    try:
        if writable:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            if not _ready(conn):
                _prepare(conn)
        row = conn.execute("PRAGMA quick_check").fetchone()
        if row is None or row[0] != "ok":
            raise sqlite3.DatabaseError(f"quick_check: {row[0] if row else 'no answer'}")
        conn.execute("SELECT id, at, rows, fingerprint, engine_build, backend, version, label, references_used, "
                     "layout FROM runs LIMIT 1")
        conn.execute("SELECT run, source, metric, count, total FROM counts LIMIT 1")
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


_READ_ONLY: Final = ("readonly", "read-only", "unable to open")


def check_history(history: str | os.PathLike[str] | bool | None = None) -> Path:
    """The store's path once it is known to be one dqkit may open (or to be made there); StoreError otherwise. Cheap,
    and writes nothing: for commands to refuse a bad `--history` before they do their work."""
    path = store_path(history)
    check_store(path, HISTORY_MARK, "history store", ("runs", "counts"))
    return path


@contextlib.contextmanager
def opened(history: str | os.PathLike[str] | bool | None = None, *,
           write: bool = True) -> Iterator[sqlite3.Connection]:
    """A connection to the store: created if absent (when writing), set aside and restarted if it is dqkit's and
    damaged, refused (StoreError, nothing changed) if it is not dqkit's (module docstring)."""
    path = store_path(history)
    exists = check_store(path, HISTORY_MARK, "history store", ("runs", "counts"))
    if not exists and not write:  # nothing recorded yet: an empty history, and no file made for it
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.executescript(_SCHEMA)
        try:
            yield conn
        finally:
            conn.close()
        return
    from dqkit._files import private_dir

    if not exists:
        try:
            if history in (True, None):
                private_dir(path.parent)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the history store {path}: {exc.strerror or exc}") from None
        open_store(path, HISTORY_MARK, "history store", ("runs", "counts"))  # marked before any other write
    try:
        conn = _connect(path)
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise StoreError(f"the history store {path} is busy (another run holds it): {exc}") from None
        if any(w in text for w in _READ_ONLY):
            if write:
                raise StoreError(f"the history store {path} is read-only ({exc})") from None
            try:
                conn = _connect(path, writable=False)
            except sqlite3.Error as again:
                raise StoreError(f"the history store {path} cannot be read: {again}") from None
        else:
            _set_aside(path, text)
            conn = _connect(path)
    except sqlite3.DatabaseError as exc:  # dqkit's own store (checked above), damaged
        if not write:
            raise StoreError(f"the history store {path} is damaged ({exc}); the next recorded run sets it aside") \
                from None
        _set_aside(path, str(exc))
        conn = _connect(path)
    try:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
        yield conn
    finally:
        conn.close()


def _text(frame: pd.DataFrame, column: str) -> pd.Series:
    if column not in frame.columns:
        return pd.Series("", index=frame.index, dtype=object)
    s = frame[column].astype(object)
    return s.where(s.notna(), "").astype(str)


def counts_of(results: pd.DataFrame, *, prefix: str = "lead_", by: str | None = None) -> pd.DataFrame:
    """Per source and metric: count and total (columns source, metric, count, total), with `(all)` when the
    frame has several sources."""
    from dqkit.notebook.leads import TOTAL, source_column

    if f"{prefix}result_code" not in results.columns:
        raise InputError(f"no {prefix}result_code column: record a frame returned by df.leads.verify()")
    col = source_column(results, by, prefix)
    frame = pd.DataFrame({
        "source": (_text(results, col).replace("", "(none)") if col else
                   pd.Series(TOTAL, index=results.index, dtype=object)).to_numpy(),
        "code": _text(results, f"{prefix}result_code").to_numpy(),
        "phone": _text(results, f"{prefix}phone_status").to_numpy(),
    })
    groups = [(str(k), g) for k, g in frame.groupby("source", sort=True)]
    if len(groups) > 1:
        groups.append((TOTAL, frame))
    rows: list[dict[str, Any]] = []
    for source, g in groups:
        n = len(g)
        for code, k in g["code"].replace("", "(no answer)").value_counts().sort_index().items():
            rows.append({"source": source, "metric": f"code:{code}", "count": int(k), "total": n})
        for rate, (hit, base) in RATES.items():
            within = base(g)
            rows.append({"source": source, "metric": rate, "count": int((hit(g) & within).sum()),
                         "total": int(within.sum())})
    return pd.DataFrame(rows, columns=["source", "metric", "count", "total"])


def _input_columns(results: pd.DataFrame, prefix: str) -> list[Any]:
    from dqkit.notebook.leads import RESULT_NAMES

    produced = {f"{prefix}{n}" for n in RESULT_NAMES} | {f"{prefix}answered_by"}
    return [c for c in results.columns if str(c) not in produced]


def layout(results: pd.DataFrame, prefix: str = "lead_") -> str:
    """A hash of the names of a verified frame's input columns (case, spacing and order ignored): the files of
    one family (a CRM's exports, month after month) share it; the rows do not matter."""
    names = sorted({" ".join(str(c).split()).casefold() for c in _input_columns(results, prefix)})
    return hashlib.blake2b("\x1f".join(names).encode(), digest_size=8).hexdigest()


def fingerprint(results: pd.DataFrame, prefix: str = "lead_") -> str:
    """A hash of the input columns of a verified frame (rows in order): the same file gives the same print."""
    inputs = results[_input_columns(results, prefix)]
    digest = hashlib.blake2b(digest_size=12)
    digest.update("\x1f".join(map(str, inputs.columns)).encode())
    if len(inputs) and inputs.shape[1]:
        digest.update(pd.util.hash_pandas_object(inputs.astype(str), index=False).to_numpy().tobytes())
    return digest.hexdigest()


def references_used(backend: object) -> str:
    """The reference data behind a run's answers: the local engine's (`dqkit.reference.describe`), or, for a
    service, that the service names its own."""
    try:
        from dqkit.backends.select import BackendSpec, is_remote, lead_backend
        from dqkit.reference import describe

        be = lead_backend(backend) if backend is None or isinstance(backend, str | BackendSpec) else backend
        if is_remote(be):
            return f"named by the service ({getattr(be, 'name', type(be).__name__)})"
        engine = getattr(be, "lead_engine", None)
        lead = getattr(engine, "name", "")
        return f"{describe(be)}; lead engine {lead}" if lead else describe(be)
    except Exception as exc:  # a record is never lost for want of a description
        return f"not known ({type(exc).__name__})"


def _backend_name(backend: object) -> str:
    if backend is None or isinstance(backend, str):
        text = backend or "local"
        return text.split("?")[0]
    name = getattr(backend, "name", None)
    return name if isinstance(name, str) else type(backend).__name__


def record_run(results: pd.DataFrame, history: str | os.PathLike[str] | bool | None = True, *,
               backend: object = None, prefix: str = "lead_", by: str | None = None, label: str = "",
               at: dt.datetime | None = None, references: str | None = None) -> int:
    """Record one verified frame as a run; returns the run's id. `at` (UTC) is for tests and backfills;
    `references` names the reference data when the backend cannot (default: `references_used(backend)`)."""
    from dqkit._version import __version__
    from dqkit.notebook.pipeline import engine_build

    table = counts_of(results, prefix=prefix, by=by)
    when = (at or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).isoformat(timespec="seconds")
    with opened(history) as conn:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"the history store {store_path(history)}: {exc}; this run was not recorded") from None
        try:
            cur = conn.execute(
                "INSERT INTO runs (at, rows, fingerprint, engine_build, backend, version, label, references_used, "
                "layout) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (when, len(results), fingerprint(results, prefix), engine_build(), _backend_name(backend),
                 __version__, label, references if references is not None else references_used(backend),
                 layout(results, prefix)))
            run = int(cur.lastrowid or 0)
            conn.executemany("INSERT INTO counts (run, source, metric, count, total) VALUES (?, ?, ?, ?, ?)",
                             [(run, r.source, r.metric, r.count, r.total) for r in table.itertuples(index=False)])
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:  # read-only, locked past the wait, disk full
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise StoreError(f"the history store {store_path(history)}: {exc}; this run was not recorded") from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return run


def _group_key(layout_hash: str, backend: str) -> str:
    return f"{layout_hash or 'no-layout'}|{backend}"


def runs(history: str | os.PathLike[str] | bool | None = True) -> pd.DataFrame:
    """The recorded runs, oldest first: id, at, rows, sources, fingerprint, engine_build, backend, label,
    references_used, layout, group (what the run measured: see `run_groups`)."""
    with opened(history, write=False) as conn:
        frame = pd.read_sql_query(
            "SELECT r.id, r.at, r.rows, (SELECT COUNT(DISTINCT source) FROM counts c WHERE c.run = r.id "
            "AND c.source != '(all)') AS sources, r.fingerprint, r.engine_build, r.backend, r.version, r.label, "
            "r.references_used, r.layout "
            "FROM runs r ORDER BY r.id", conn)
    frame["group"] = [_group_key(la, b) for la, b in zip(frame["layout"], frame["backend"], strict=True)]
    return frame


def run_groups(history: str | os.PathLike[str] | bool | None = True) -> pd.DataFrame:
    """One row per group of runs that measured the same thing (the same input columns, the same backend): group,
    label (the runs' label, the input file's name from the CLI, or the first and last of them; and the backend), runs,
    first and last run id and time. Runs
    recorded before dqkit kept the layout form one group per backend, labelled so."""
    listed = runs(history)
    rows = []
    for key, g in listed.groupby("group", sort=False):
        ids = [int(v) for v in g["id"]]
        shape, backend = str(g["layout"].iat[0]), str(g["backend"].iat[0])
        labels = list(dict.fromkeys(str(v) for v in g["label"] if str(v)))
        named = labels[0] if len(labels) == 1 else f"{labels[0]} … {labels[-1]}" if labels else ""
        if not shape:
            what = "runs recorded before dqkit kept their input's columns"
        else:
            what = named or f"input columns {shape[:8]}"
        rows.append({"group": key, "label": f"{what} · {backend}", "runs": len(g), "first_run": ids[0],
                     "last_run": ids[-1], "first_at": str(g["at"].iat[0]), "last_at": str(g["at"].iat[-1]),
                     "backend": backend, "layout": shape})
    return pd.DataFrame(rows, columns=["group", "label", "runs", "first_run", "last_run", "first_at", "last_at",
                                       "backend", "layout"])


def counts(history: str | os.PathLike[str] | bool | None = True) -> pd.DataFrame:
    """Every recorded count, long form: run, at, group, source, metric, count, total (in the order the runs were
    recorded: a run is tested against the runs recorded before it)."""
    with opened(history, write=False) as conn:
        frame = pd.read_sql_query(
            "SELECT c.run, r.at, r.layout, r.backend, c.source, c.metric, c.count, c.total FROM counts c "
            "JOIN runs r ON r.id = c.run ORDER BY r.id, c.source, c.metric", conn)
    frame.insert(2, "group", [_group_key(la, b) for la, b in zip(frame["layout"], frame["backend"], strict=True)])
    return frame.drop(columns=["layout", "backend"])
