"""The batch pipeline under every accessor: dedupe, cache, chunked calls (concurrent for HTTP), progress.

    requests -> canonical encoding -> key (backend name + operation + encoding) -> identical requests merged
             -> answers found in the cache -> the rest sent in chunks -> each chunk's answers stored as it lands
             -> one BatchItem per input request, in input order: an answer or a recorded error, none lost

A chunk's answers are stored before the next result is needed, so an interrupted run (Ctrl-C, a killed kernel)
resumes on the next call without asking again for what was finished.

An in-process operation with `workers` > 1 answers its chunks in that many forked processes (`worker_pool`): the
parent keeps the keys, the cache and the order, and answers a first chunk itself so that every table is loaded
once, before the fork, and shared.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import hashlib
import inspect
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from dqkit.backends.base import BatchItem
from dqkit.contract.errors import DqkitError
from dqkit.notebook.cache import CacheWriter, ResultCache, key_function
from dqkit.notebook.progress import Progress

Req = TypeVar("Req")
Res = TypeVar("Res")


def as_dqkit_error(exc: BaseException) -> DqkitError:
    """`exc` itself when it is one of dqkit's errors, else a DqkitError naming it (a row never loses its cause)."""
    if isinstance(exc, DqkitError):
        return exc
    return DqkitError(f"{type(exc).__name__}: {exc}")


def one_by_one(fn: Callable[[Req], Res]) -> Callable[[Sequence[Req]], list[BatchItem[Res]]]:
    """A batch call made of single calls, each failure recorded on its own item."""

    def call(requests: Sequence[Req]) -> list[BatchItem[Res]]:
        out: list[BatchItem[Res]] = []
        for i, req in enumerate(requests):
            try:
                out.append(BatchItem(i, fn(req)))
            except Exception as exc:  # a row's failure is that row's answer, never the batch's
                out.append(BatchItem(i, error=as_dqkit_error(exc)))
        return out

    return call


def _always(_: object) -> bool:
    return True


def _same(answer: Res) -> Res:
    return answer


@dataclass(frozen=True)
class Operation(Generic[Req, Res]):
    """One kind of question to one backend.

    namespace:   backend name and operation ("local[...]|lead.verify"); part of every cache key. Or what makes it
                 (`lazy_namespace`): an in-process backend's names the engines' build, a hash of their code (15 ms)
                 that a run without the result cache never needs.
    result_type: the answer's typed model, to decode cached answers.
    call:        answers a chunk of requests, one BatchItem per request, in order.
    cacheable:   whether an answer may be stored (not for service or account faults, which a rerun should retry).
    stored:      the part of an answer worth storing (the lead's InputData echo is dropped: the key holds the
                 request); what the pipeline returns is always the whole answer.
    remote:      True for HTTP backends: chunks then go out concurrently.
    batched:     True when `call` is the backend's own batch method (an HTTP client's, concurrent inside).
    drain:       the client's brake (`dqkit.client._core.Drain`), pulled on the first Ctrl-C so that the requests
                 in flight finish and their answers (which a vendor bills) are kept; None for in-process backends.
    workers:     processes answering an in-process operation's chunks (see `worker_pool`); 1: this process.
    """

    namespace: str | Callable[[], str]
    result_type: type[Res]
    call: Callable[[Sequence[Req]], list[BatchItem[Res]]]
    cacheable: Callable[[Res], bool] = _always
    stored: Callable[[Res], Res] = _same
    remote: bool = False
    batched: bool = False
    drain: Any = None
    workers: int = 1

    def cache_namespace(self) -> str:
        return self.namespace if isinstance(self.namespace, str) else self.namespace()


def namespace(backend: Any, operation: str, name: str | None = None) -> str:
    """The cache namespace of `operation` on `backend`: its name (which names its configuration; `name` when the
    caller knows a narrower one), and for an in-process backend the engines' build too, since other engine code
    may answer differently."""
    from dqkit.backends.select import is_remote

    name = name or str(backend.name)
    return f"{name}|{operation}" if is_remote(backend) else f"{name}|dqkit-{engine_build()}|{operation}"


class lazy_namespace:  # noqa: N801  (used as the function `namespace` is)
    """`namespace(backend, operation, name)`, made when first asked for (see `Operation`)."""

    def __init__(self, backend: Any, operation: str, name: str | None = None) -> None:
        self._args = (backend, operation, name)
        self._made: str | None = None

    def __call__(self) -> str:
        if self._made is None:
            self._made = namespace(*self._args)
        return self._made


@functools.cache
def engine_build() -> str:
    """dqkit's version and a hash of the engines' and the contract's code and bundled tables: an answer cached by
    one build is never served by another, after an upgrade or between two commits of a development checkout with
    the same version number (about 1.5 MB read once per process)."""
    from dqkit._version import __version__

    return f"{__version__}+{code_hash(Path(__file__).resolve().parents[1])}"


def code_hash(root: Path) -> str:
    """A 16-hex-digit hash of the code and tables under `root`/engines and `root`/contract (see engine_build)."""
    digest = hashlib.blake2b(digest_size=8)
    for folder in ("engines", "contract"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".txt", ".tsv", ".json", ".csv"):
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def with_concurrency(batch_method: Callable[..., list[BatchItem[Res]]],
                     concurrency: int | None) -> Callable[[Sequence[Any]], list[BatchItem[Res]]]:
    """A backend's batch method, told how many requests to keep in flight when it takes `concurrency=`."""
    if concurrency is None:
        return batch_method
    try:
        accepts = "concurrency" in inspect.signature(batch_method).parameters
    except (TypeError, ValueError):
        accepts = False
    return functools.partial(batch_method, concurrency=concurrency) if accepts else batch_method


def defaults(op: Operation[Any, Any], concurrency: int | None, chunk_size: int | None) -> tuple[int, int]:
    """Chunks in flight and chunk size: one at a time in-process (the GIL would serialize threads anyway);
    two large chunks for a client's own concurrent batch method; many small ones for single HTTP calls."""
    if not op.remote:
        conc, size = 1, 512
    elif op.batched:
        conc, size = 2, 256
    else:
        conc, size = concurrency or 8, 16
    return conc, chunk_size or size


@dataclass
class BatchResult(Generic[Res]):
    """One item per input request, in input order, and what it took."""

    items: list[BatchItem[Res]]
    unique: int = 0
    cached: int = 0
    sent: int = 0
    errors: int = 0

    answered: int = 0  # of the `sent` distinct requests, those that got an answer in this run

    def summary(self) -> dict[str, int]:
        return {"requests": len(self.items), "unique": self.unique, "cached": self.cached, "sent": self.sent,
                "answered": self.answered, "errors": self.errors}


# Fewer requests than this per worker process and one process is as fast: forking, the parent's heap copied as
# the workers touch it and the answers sent back cost 0.1 to 0.2 s of CPU in all (measured with 400 to 6,400
# distinct sample leads, run_batch with 1 and 2 processes, issue 31), about the engine's time for 1,500 leads.
MIN_PER_WORKER = 1000


def available_cores() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def workers_for(requested: int | None) -> int:
    """The worker processes of an in-process batch: `requested`, or by default the processors available (a batch
    too small to share still runs in one, see MIN_PER_WORKER). Raises ValueError below 1."""
    if requested is None:
        return available_cores()
    if requested < 1:
        raise ValueError(f"workers must be 1 or more, got {requested}")
    return requested


def _chunks(seq: list[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


def _call_chunk(op: Operation[Req, Res], requests: Sequence[Req]) -> list[BatchItem[Res]]:
    """Call the backend on a chunk; whatever goes wrong, every request of the chunk gets an item."""
    try:
        items = op.call(requests)
    except Exception as exc:
        err = as_dqkit_error(exc)
        return [BatchItem(i, error=err) for i in range(len(requests))]
    by_index: dict[int, BatchItem[Res]] = {}
    for it in items:
        if 0 <= it.index < len(requests) and it.index not in by_index:
            by_index[it.index] = it
    missing = DqkitError("the backend returned no answer for this request")
    return [by_index.get(i) or BatchItem(i, error=missing) for i in range(len(requests))]


def run_batch(
    op: Operation[Req, Res],
    requests: Sequence[Req],
    *,
    cache: ResultCache | None = None,
    progress: bool = False,
    desc: str = "",
    unit: str = "request",
    concurrency: int = 1,
    chunk_size: int = 256,
) -> BatchResult[Res]:
    """Answer every request (see the module docstring). Raises only what the caller does (KeyboardInterrupt)."""
    encoder = msgspec.msgpack.Encoder(order="deterministic")
    # Without a cache the keys only find identical requests within this batch: any namespace does.
    key = key_function(op.cache_namespace() if cache is not None else "batch")
    encode = encoder.encode
    keys = [key(encode(r)) for r in requests]
    first: dict[bytes, int] = {}
    slot = [first.setdefault(k, i) for i, k in enumerate(keys)]  # request -> its first identical request
    uniques = list(first.values())

    answers: dict[int, BatchItem[Res]] = {}
    if cache is not None and uniques:
        decoder = msgspec.msgpack.Decoder(op.result_type)
        stored = cache.get_many([keys[u] for u in uniques])
        for u in uniques:
            blob = stored.get(keys[u])
            if blob is not None:
                with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):  # older model: ask again
                    answers[u] = BatchItem(u, decoder.decode(blob))
    cached = len(answers)
    todo = [u for u in uniques if u not in answers]

    writer = CacheWriter(cache) if cache is not None and todo else None
    bar = Progress(len(uniques), desc, enabled=progress, initial=cached, unit=unit)

    def land(chunk: list[int], items: list[BatchItem[Res]]) -> None:
        store: list[tuple[bytes, bytes]] = []
        for u, it in zip(chunk, items, strict=True):
            answers[u] = BatchItem(u, it.result, it.error, it.reference_id)
            if writer is not None and it.result is not None and op.cacheable(it.result):
                store.append((keys[u], encoder.encode(op.stored(it.result))))
        if writer is not None:
            writer.write(store)
        bar.update(len(chunk))

    drain = op.drain if op.remote else None
    if drain is not None:
        drain.reset()
    try:
        workers = min(op.workers, len(todo) // MIN_PER_WORKER) if not op.remote else 1
        if workers > 1 and _can_fork():
            from dqkit.notebook.worker_pool import run_in_processes

            # Small enough chunks that the work spreads evenly and a Ctrl-C loses little; large enough to send few.
            size = max(16, min(chunk_size, -(-len(todo) // (workers * 8))))
            run_in_processes(lambda chunk: _call_chunk(op, [requests[u] for u in chunk]), op.result_type,
                             list(_chunks(todo, size)), land, workers)
        elif not op.remote or (concurrency <= 1 and drain is None):
            for chunk in _chunks(todo, max(1, chunk_size)):
                land(chunk, _call_chunk(op, [requests[u] for u in chunk]))
        else:
            _run_concurrently(op, requests, todo, land, max(1, concurrency), max(1, chunk_size))
    except BaseException as exc:  # Ctrl-C: keep what finished, say how to resume
        if writer is not None:
            writer.close()
            writer = None
        done = sum(1 for u in todo if u in answers and answers[u].result is not None)
        exc.add_note(f"dqkit: {done:,} of {len(todo):,} requests were answered before the interruption"
                     + (" and are cached; run again to resume (only the others are sent)" if cache is not None
                        else ""))
        raise
    finally:
        bar.close()
        if writer is not None:
            writer.close()

    items: list[BatchItem[Res]] = []
    errors = 0
    for i, u in enumerate(slot):
        a = answers[u]
        items.append(a if i == u else BatchItem(i, a.result, a.error, a.reference_id))
        errors += a.error is not None
    answered = sum(1 for u in todo if answers[u].result is not None)
    return BatchResult(items, unique=len(uniques), cached=cached, sent=len(todo), errors=errors, answered=answered)


def _run_concurrently(
    op: Operation[Req, Res],
    requests: Sequence[Req],
    todo: list[int],
    land: Callable[[list[int], list[BatchItem[Res]]], None],
    concurrency: int,
    chunk_size: int,
) -> None:
    """Keep `concurrency` chunks in flight; land each as it completes.

    Ctrl-C: without a drain, unstarted chunks are dropped and the interrupt goes up at once. With one (an HTTP
    client), the first Ctrl-C stops every new send while the requests in flight finish and land (their answers
    are kept: a vendor bills them), then the interrupt goes up; a second Ctrl-C aborts, saying how many answers
    the service may have given (and billed) that are now lost and will be asked for again."""
    # Smaller chunks so that the work spreads over the workers even for a few hundred requests.
    size = max(1, min(chunk_size, -(-len(todo) // (concurrency * 4)) if todo else 1))
    pending = iter(list(_chunks(todo, size)))
    pool = cf.ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="dqkit-batch")
    in_flight: dict[cf.Future[list[BatchItem[Res]]], list[int]] = {}
    drain = op.drain
    stopped: KeyboardInterrupt | None = None
    landed_answers = 0
    try:
        for chunk in pending:
            in_flight[pool.submit(_call_chunk, op, [requests[u] for u in chunk])] = chunk
            if len(in_flight) >= concurrency * 2:
                break
        while in_flight:
            try:
                done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            except KeyboardInterrupt as exc:
                if drain is None:
                    raise
                if stopped is not None:  # the second Ctrl-C: abort
                    lost = max(0, int(drain.answered) - landed_answers) + int(drain.in_flight)
                    exc.add_note(f"dqkit: aborted: up to {lost:,} requests were answered (or in flight) and not "
                                 "recorded; the service may have billed them, and a rerun sends them again")
                    raise
                stopped = exc
                drain.stop()
                pending = iter(())
                _say(f"dqkit: stopping: letting the {int(drain.in_flight):,} requests in flight finish and keeping "
                     "their answers; press Ctrl-C again to abort (those would then be sent again, and may be "
                     "billed twice)")
                continue
            for fut in done:
                items = fut.result()
                land(in_flight.pop(fut), items)
                landed_answers += sum(1 for it in items if it.result is not None)
                nxt = next(pending, None)
                if nxt is not None:
                    in_flight[pool.submit(_call_chunk, op, [requests[u] for u in nxt])] = nxt
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    if stopped is not None:
        raise stopped


def _say(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)
