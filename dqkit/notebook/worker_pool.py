"""An in-process batch answered by forked worker processes: every core for one `dqkit verify` or `df.leads.verify()`.

    parent: answers a first chunk itself (the engine's tables load once, then every worker shares them)
         -> forks N workers, which inherit the answering function and every request (only chunk indexes are sent)
         -> keeps 2N chunks in flight; each answer chunk comes back msgpack-encoded and is landed (cached, counted)
            as it arrives; input order is the caller's, by index
    worker: ignores Ctrl-C (the parent decides), exits when the parent is gone (kill -9 leaves no orphan working)

Ctrl-C in the parent stops the workers and drops the chunks not landed; what landed is in the result cache, so the
next run resumes there (as with one process). A worker that dies (killed, out of memory) or fails loses nothing
either: the chunks it held, and every chunk not yet sent, are answered in the parent.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import multiprocessing
import os
import pickle
import signal
import threading
import warnings
from collections.abc import Callable
from typing import Any, Final, TypeVar

import msgspec

from dqkit.backends.base import BatchItem

Answer = Callable[[list[int]], list[BatchItem[Any]]]
T = TypeVar("T")

# Set in the parent just before the fork: the workers inherit it (a forked process needs nothing pickled).
_WORK: Callable[[Any], bytes] | None = None
_PARENT = 0


def _watch_parent() -> None:
    """End this worker when its parent is gone (kill -9 of the parent: the orphan would otherwise wait forever)."""
    while True:
        if os.getppid() != _PARENT:
            os._exit(1)
        threading.Event().wait(0.5)


# A worker's collector runs after this many new container objects, not after 700: answering leads makes and drops
# many, nearly none in cycles, and collecting every 700 of them cost ~6% of a worker's CPU (issue 31). A worker
# holds one chunk at a time, so the few cycles wait a little longer and memory hardly grows.
WORKER_GC_THRESHOLD: Final = (50_000, 20, 100)


def _start_worker() -> None:
    gc.set_threshold(*WORKER_GC_THRESHOLD)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent handles it
    threading.Thread(target=_watch_parent, daemon=True).start()


def _work(chunk: Any) -> bytes:
    assert _WORK is not None
    return _WORK(chunk)


def map_in_processes(work: Callable[[T], bytes], chunks: list[T], land: Callable[[T, bytes], None],
                     workers: int) -> None:
    """`work` (which forked workers inherit) done on every chunk in `workers` processes; `land` called in the parent
    on each chunk's bytes as they arrive, in no particular order. The first chunk is done here, before the fork, so
    that what every chunk needs (tables, lazily loaded) is loaded once and shared; a chunk whose worker died or
    failed, and every chunk not yet sent when the pool broke, is done here too."""
    global _WORK, _PARENT
    if not chunks:
        return
    land(chunks[0], work(chunks[0]))
    queued = iter(chunks[1:])
    leftover: list[T] = []
    _WORK, _PARENT = work, os.getpid()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns of fork() in a process with threads (a notebook kernel's, the cache writer's):
            # the workers only answer from inherited data and never touch those threads' state.
            warnings.simplefilter("ignore", DeprecationWarning)
            pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                          initializer=_start_worker)
            in_flight: dict[cf.Future[bytes], T] = {}
            # The collector of a forked worker would walk, and so copy, every page of the parent's heap: what
            # exists at the fork is set aside from collection (the workers' own garbage is still collected).
            gc.freeze()
            for chunk in queued:
                in_flight[pool.submit(_work, chunk)] = chunk  # the first submit forks every worker
                if len(in_flight) >= 2 * workers:
                    break
    finally:
        gc.unfreeze()
        _WORK = None  # the parent keeps no second reference
    finished = False
    try:
        while in_flight:
            done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                chunk = in_flight.pop(fut)
                try:
                    payload = fut.result()
                except Exception:  # a worker died or failed: the parent does that chunk itself
                    leftover.append(chunk)
                    continue
                land(chunk, payload)
                nxt = next(queued, None)
                if nxt is not None:
                    try:
                        in_flight[pool.submit(_work, nxt)] = nxt
                    except cf.process.BrokenProcessPool:
                        leftover.append(nxt)
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:  # Ctrl-C, a failing land, a test's timeout: stop the workers now, not after their chunk
            # Taken before shutdown(), which forgets them: a worker left running (stuck, or busy with a long chunk)
            # would keep the pool's thread, and so this process's exit, waiting for it.
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                if proc.is_alive():
                    proc.terminate()
            for proc in procs:
                proc.join(5)
                if proc.is_alive():
                    proc.kill()
    for chunk in [*leftover, *queued]:
        land(chunk, work(chunk))


def run_in_processes(answer: Answer, result_type: type[Any], chunks: list[list[int]],
                     land: Callable[[list[int], list[BatchItem[Any]]], None], workers: int) -> None:
    """Answer every chunk (indexes of requests `answer` knows) in `workers` forked processes; `land` each in the
    parent as it arrives. The first chunk is answered here, before the fork."""
    decoder: Any = msgspec.msgpack.Decoder(list[tuple[result_type | None, bytes | None, str]])  # type: ignore[valid-type]

    def encoded(indexes: list[int]) -> bytes:
        """A chunk's answers: (result, pickled error, reference id) per request, msgpack-encoded."""
        return msgspec.msgpack.encode([(it.result, pickle.dumps(it.error) if it.error is not None else None,
                                        it.reference_id) for it in answer(indexes)])

    def decoded(chunk: list[int], payload: bytes) -> None:
        land(chunk, [BatchItem(i, result, pickle.loads(err) if err is not None else None, ref)
                     for i, (result, err, ref) in enumerate(decoder.decode(payload))])

    map_in_processes(encoded, chunks, decoded, workers)
