"""From a DataFrame to requests and back: the path every accessor walks.

    input columns -> (identical rows merged) -> one request per distinct row -> batch pipeline
    -> flat typed result columns of each distinct row -> spread back over the rows -> input frame + prefixed columns

The caller's frame is never changed: the answer is a new frame with the input's index, its columns, and the result
columns after them. Result columns already in the input (a rerun on a result frame) are replaced, not doubled.

A finished run is remembered whole in the cache's `runs` table, keyed by the backend, the operation, the columns
read and a content hash of their values: the same table asked again is one read (see `dqkit.notebook.cache`).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd

from dqkit.backends.base import BatchItem
from dqkit.contract.errors import InputError
from dqkit.notebook.cache import CacheUnavailable, ResultCache, cache_key
from dqkit.notebook.pipeline import BatchResult, Operation, defaults, engine_build, run_batch
from dqkit.notebook.settings import options

Req = TypeVar("Req")
Res = TypeVar("Res")

CacheArg = bool | ResultCache | None
# frame.attrs[BATCH_ATTR]: what the run took, in distinct requests (`BatchResult.summary()`): "sent" were sent
# in this run, "answered" of them got an answer; "cached" came from earlier runs. A run remembered whole is all
# "cached". This is what a service's bill of this run counts.
BATCH_ATTR = "dqkit_batch"


def open_cache(cache: CacheArg) -> ResultCache | None:
    """The cache to use: None/True -> the default (unless switched off), False -> none, or the one given."""
    if isinstance(cache, ResultCache):
        return cache
    if cache is False or (cache is None and not options.cache):
        return None
    try:
        return ResultCache.in_directory(options.cache_directory())
    except CacheUnavailable as exc:
        import warnings

        warnings.warn(f"dqkit: {exc}; going on without a cache", RuntimeWarning, stacklevel=3)
        return None


@dataclass(frozen=True)
class FrameJob(Generic[Req, Res]):
    """What an accessor asks for one table.

    fields:      field name -> input column (from the forgiving column resolution)
    names:       the result columns, unprefixed, in output order
    request:     builds one request from {field: cell value}
    operation:   how to ask the backend (see `dqkit.notebook.pipeline.Operation`)
    flat:        the flat result row of one BatchItem (an answer or its recorded error)
    typed:       the typed result frame of flat rows
    """

    fields: Mapping[str, str]
    names: Sequence[str]
    request: Callable[[dict[str, Any]], Req]
    operation: Operation[Req, Res]
    flat: Callable[[BatchItem[Res]], dict[str, Any]]
    typed: Callable[[Sequence[Mapping[str, Any]]], pd.DataFrame]
    desc: str = ""
    unit: str = "request"
    options_key: str = ""  # anything else that changes answers (top-N, country default, ...)
    finish: Callable[[pd.DataFrame], pd.DataFrame] | None = None  # applied to the whole typed result
    # Flat columns about the request itself (what was sent for it), merged into its flat row.
    annotate: Callable[[Req], Mapping[str, Any]] | None = None


def input_columns(df: pd.DataFrame, fields: Mapping[str, str]) -> pd.DataFrame:
    """The columns `fields` names, renamed to their fields (first one wins when the input repeats a name)."""
    first: dict[str, int] = {}
    for i, c in enumerate(df.columns):
        first.setdefault(str(c), i)
    positions = [first[c] for c in fields.values()]
    sub = df.iloc[:, positions]
    sub.columns = pd.Index(list(fields))
    return sub


def _mergeable(values: np.ndarray[Any, Any]) -> bool:
    """Whether equal cells of this column are equal values: text, or one kind of number (Python says 1 == 1.0 ==
    True, which would merge rows that are different requests)."""
    kind = pd.api.types.infer_dtype(values, skipna=True)
    return kind in ("string", "empty", "integer", "floating", "boolean", "decimal", "date", "datetime")


def _fingerprint(sub: pd.DataFrame) -> bytes:
    """A content hash of the values read, row order included (pandas' vectorized row hashes)."""
    if len(sub) == 0:
        return b""
    try:
        hashed = pd.util.hash_pandas_object(sub, index=False, categorize=True)
    except TypeError:  # unhashable cells (lists, dicts): hash their text
        hashed = pd.util.hash_pandas_object(sub.astype(str), index=False)
    return np.ascontiguousarray(hashed.to_numpy(dtype=np.uint64)).tobytes()


_SLICE = 20_000


def concat_typed(pieces: list[pd.DataFrame]) -> pd.DataFrame:
    """Typed slices as one frame, each categorical column over the union of the slices' categories (a slice
    may have appended a value outside the code table), so that no column falls back to object."""
    if len(pieces) == 1:
        return pieces[0]
    order = list(dict.fromkeys(c for p in pieces for c in p.columns))
    if any(list(p.columns) != order for p in pieces):  # slices may hold different optional columns
        dtypes: dict[str, Any] = {c: p[c].dtype for p in reversed(pieces) for c in p.columns}
        pieces = [p.assign(**{c: pd.Series([None] * len(p), dtype=dtypes[c], index=p.index)
                              for c in order if c not in p.columns})[order] for p in pieces]
    first = pieces[0]
    for name in first.columns:
        if isinstance(first[name].dtype, pd.CategoricalDtype):
            cats = list(first[name].cat.categories)
            for p in pieces[1:]:
                cats += [c for c in p[name].cat.categories if c not in set(cats)]
            if any(list(p[name].cat.categories) != cats for p in pieces):
                for p in pieces:
                    p[name] = p[name].cat.set_categories(cats)
    return pd.concat(pieces, ignore_index=True)


def _builder_fingerprint(sub: pd.DataFrame, build: Callable[[dict[str, Any]], Any]) -> bytes:
    """The encoded requests of up to 64 rows spread over the table: if the way rows become requests changes
    (a new mapping rule), the run key changes with it, while the warm path builds 64 requests, not all."""
    import msgspec

    picks = np.unique(np.linspace(0, len(sub) - 1, num=min(64, len(sub))).astype(np.intp))
    fields = list(sub.columns)
    encoder = msgspec.msgpack.Encoder(order="deterministic")
    out = []
    for values in sub.iloc[picks].itertuples(index=False, name=None):
        out.append(encoder.encode(build(dict(zip(fields, values, strict=True)))))
    return b"".join(out)


def _to_blob(result: pd.DataFrame) -> bytes:
    import pyarrow as pa

    table = pa.Table.from_pandas(result, preserve_index=False)
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema, options=pa.ipc.IpcWriteOptions(compression="lz4")) as w:
        w.write_table(table)
    return sink.getvalue()


def _from_blob(blob: bytes, names: Sequence[str], rows: int) -> pd.DataFrame | None:
    import pyarrow as pa

    try:
        table = pa.ipc.open_stream(io.BytesIO(blob)).read_all()
        result: pd.DataFrame = table.to_pandas()
    except (pa.ArrowException, ValueError, OSError):
        return None
    if not set(result.columns) <= set(names) or len(result) != rows:
        return None
    return result


def run_frame(
    df: pd.DataFrame,
    job: FrameJob[Req, Res],
    *,
    prefix: str,
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """Answer every row of `df` (see the module docstring)."""
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    result = result_columns(df, job, cache=cache, progress=progress, concurrency=concurrency,
                            chunk_size=chunk_size)
    out = attach(df, result, prefix)
    out.attrs[BATCH_ATTR] = result.attrs.get(BATCH_ATTR, {})
    return out


def attach(df: pd.DataFrame, result: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """`df` with `result`'s columns (prefixed) after its own; same-named input columns are replaced."""
    result = result.add_prefix(prefix)
    result.index = df.index
    keep = [i for i, c in enumerate(df.columns) if c not in set(result.columns)]
    base = df if len(keep) == df.shape[1] else df.iloc[:, keep]
    out = pd.concat([base, result], axis=1) if base.shape[1] else result.copy()
    out.attrs = dict(df.attrs)
    return out


def result_columns(
    df: pd.DataFrame,
    job: FrameJob[Req, Res],
    *,
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """The typed result columns of every row of `df` (unprefixed, index 0..n-1)."""
    op = job.operation
    store = open_cache(cache)
    sub = input_columns(df, job.fields)
    n = len(sub)

    run_id = b""
    if store is not None and n:
        namespace = f"run|{op.cache_namespace()}|{engine_build()}|{job.options_key}|{','.join(job.names)}"
        run_id = cache_key(namespace, "\x1f".join(job.fields).encode() + b"\x1e" + _fingerprint(sub)
                           + b"\x1e" + _builder_fingerprint(sub, job.request))
        blob = store.get_run(run_id)
        if blob is not None:
            remembered = _from_blob(blob, job.names, n)
            if remembered is not None:
                remembered.attrs[BATCH_ATTR] = {"requests": n, "unique": 0, "cached": n, "sent": 0, "answered": 0,
                                                "errors": 0}
                return remembered

    answered = answer_rows(sub, job, store, progress=progress, concurrency=concurrency, chunk_size=chunk_size)
    items, requests, row_to_unique = answered.items, answered.requests, answered.row_to_unique
    clean, stats = answered.clean, answered.stats
    del answered
    # Typed a slice at a time, each slice's answers released once flat: a 100,000-row run never holds all its
    # answers and all their flat rows at once.
    pieces = []
    for start in range(0, len(items), _SLICE):
        part = items[start : start + _SLICE]
        pieces.append(job.typed(_flats(job, part, requests, start)))
        items[start : start + _SLICE] = [None] * len(part)
    del requests
    typed = concat_typed(pieces) if pieces else job.typed([])
    if job.finish is not None:
        typed = job.finish(typed)
    del items, pieces
    # Each row read got its own request unless merged: spread the distinct answers back over the rows.
    result = typed if len(typed) == n else typed.take(np.asarray(row_to_unique, dtype=np.intp))\
        .reset_index(drop=True)

    if store is not None and n and clean:
        try:
            store.put_run(run_id, _to_blob(result))
        except Exception as exc:  # the cache never fails a run
            import warnings

            warnings.warn(f"dqkit: could not remember this run in the cache: {exc}", RuntimeWarning,
                          stacklevel=2)
    result.attrs[BATCH_ATTR] = stats
    return result


@dataclass
class Answered(Generic[Req, Res]):
    """The answers of a table's distinct rows: `items[i]` answers `requests[i]`, and row r of the table is distinct
    row `row_to_unique[r]`. `clean`: every answer is one the cache keeps; `stats`: `BatchResult.summary()`."""

    items: list[Any]
    requests: list[Req]
    row_to_unique: list[int]
    clean: bool
    stats: dict[str, int]


def answer_rows(sub: pd.DataFrame, job: FrameJob[Req, Res], store: ResultCache | None, *,
                progress: bool | None = None, concurrency: int | None = None,
                chunk_size: int | None = None) -> Answered[Req, Res]:
    """Answer every distinct row of `sub` (the input columns, named by their fields) through the batch pipeline."""
    op = job.operation
    n = len(sub)
    # Identical rows are read once; identical requests from different rows are merged by the pipeline.
    # Plain object arrays: iterating pandas' Arrow-backed text columns value by value is many times slower.
    arrays = [sub.iloc[:, k].to_numpy(dtype=object) for k in range(sub.shape[1])]
    rows = list(zip(*arrays, strict=True))
    first: dict[tuple[Any, ...], int] = {}
    try:
        if not all(_mergeable(a) for a in arrays):
            raise TypeError
        row_to_unique = [first.setdefault(row, len(first)) for row in rows]
        distinct = list(first)
    except TypeError:  # unhashable cells (lists), or 1 / 1.0 / True mixed in a column: rows are not merged
        row_to_unique, distinct = list(range(n)), rows
    fields = list(job.fields)
    build = job.request
    requests: list[Req] = [build(dict(zip(fields, row, strict=True))) for row in distinct]
    del arrays, rows, first, distinct  # a 100,000-row run keeps only what it still needs

    threads, size = defaults(op, concurrency, chunk_size)
    batch: BatchResult[Res] = run_batch(op, requests, cache=store, progress=options.show_progress(progress),
                                        desc=job.desc, unit=job.unit, concurrency=threads, chunk_size=size)
    items: list[Any] = batch.items
    clean = batch.errors == 0 and all(it.result is not None and op.cacheable(it.result) for it in items)
    return Answered(items, requests, row_to_unique, clean, batch.summary())


def _flats(job: FrameJob[Req, Res], items: Sequence[BatchItem[Res]], requests: Sequence[Req],
           start: int = 0) -> list[dict[str, Any]]:
    """The flat result rows of `items` (answering `requests[start:]`), with what `job.annotate` adds."""
    annotate = job.annotate
    flat = job.flat
    if annotate is None:
        return [flat(it) for it in items]
    out = []
    for k, it in enumerate(items):
        row = flat(it)
        extra = annotate(requests[start + k])
        out.append({**row, **extra} if extra else row)  # most requests were sent as read: nothing to add
    return out


def flat_results(df: pd.DataFrame, job: FrameJob[Req, Res], *, cache: CacheArg = None,
                 progress: bool | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """(the flat result row of each distinct row of `df`, the distinct row of each row): `result_columns` before
    its typed frame, for a caller that writes the rows as text itself (`dqkit verify --workers`, a chunk at a
    time: no run of the whole table is remembered here)."""
    answered = answer_rows(input_columns(df, job.fields), job, open_cache(cache), progress=progress)
    return _flats(job, answered.items, answered.requests), answered.row_to_unique
