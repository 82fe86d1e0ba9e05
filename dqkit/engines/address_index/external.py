"""Builds larger than memory: records cut into runs that fit the memory budget, built on every core, merged.

`build` holds a run's records as typed columns (~120 bytes a row at its peak), so a state of 10M points builds in
one run, in ~1.3 GB, exactly as before; a national reference (100M+ points) would need ~13 GB that way. Here
the input is cut into runs sized from the memory budget (`--memory`, default `DEFAULT_MEMORY`), each run is built
(sorted, no word index) into a temporary file, input files are spread over worker processes (one run each at
a time, so the budget is shared between them), and `merge` writes the index from the runs street batch by
street batch. Peak memory is then set by the budget, not by the input; the temporary files take about as much
disk as the index (they are deleted at the end). An input that fits in one run is built directly, as always.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from dqkit.engines.address_index.hygiene import REASON_DUPLICATE, Hygiene
from dqkit.engines.address_index.reader import Record, SourceFile
from dqkit.engines.address_index.runs import (
    BuildReport,
    _Columns,
    finish,
    records_of_files,
)

DEFAULT_MEMORY: Final = 2_500_000_000  # bytes: a national build stays under 3 GB with it
ROW_BYTES: Final = 130  # peak bytes per row while `build` sorts a run (measured ~119 at 10M rows)
BASE_BYTES: Final = 220_000_000  # a process with dqkit and numpy imported, and the merge's own tables
MIN_RUN: Final = 1_000
PARALLEL_ROWS: Final = 2_000_000  # below this, several files build in one process: forking and merging cost more
RUN_SUFFIX: Final = ".dqrun"


def run_rows(memory: int, workers: int) -> int:
    """Rows per run so that `workers` processes building runs at once stay within `memory` bytes."""
    return max(MIN_RUN, int((memory / max(1, workers) - BASE_BYTES) / ROW_BYTES))


def parse_memory(text: str) -> int:
    """"2.5G", "800M", "3000000000" -> bytes (the `--memory` flag)."""
    t = text.strip().upper().removesuffix("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(t[-1:], 1)
    num = t[:-1] if t[-1:] in "KMGT" else t
    try:
        value = float(num) * mult
    except ValueError:
        raise ValueError(f"memory {text!r}: give bytes or a size such as 2.5G or 800M") from None
    if value < 64 << 20:
        raise ValueError(f"memory {text!r}: at least 64M")
    return int(value)


def estimated_rows(src: SourceFile) -> int:
    """A generous guess of a file's rows from its size (gzip ~12 bytes a row, text ~60), to plan the work."""
    size = src.path.stat().st_size
    with open(src.path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    return size // (12 if gz else 60) + 1


@contextlib.contextmanager
def _temp_dir(out: Path, tmp_dir: str | Path | None) -> Iterator[Path]:
    base = Path(tmp_dir) if tmp_dir else out.parent
    d = base / f".{out.name}.runs-{os.getpid()}-{time.monotonic_ns()}"
    d.mkdir(parents=True, mode=0o700)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def build_stream(records: Iterator[tuple[str, Record]], out: Path, *, synthetic: bool, names: Sequence[str],
                 progress: Callable[[str], None] | None, dedupe: bool, parts: Sequence[dict[str, Any]],
                 memory: int | None, tmp_dir: str | Path | None, t0: float) -> BuildReport:
    """Build from one record stream in this process: directly when it fits in one run, else run by run."""
    limit = run_rows(memory or DEFAULT_MEMORY, 1)
    cols = _Columns()
    done = cols.consume(records, t0, progress, limit)
    if done:
        return finish(cols, out, synthetic=synthetic, t0=t0, names=names, parts=parts, progress=progress,
                      dedupe=dedupe)
    with _temp_dir(out, tmp_dir) as tmp:
        runs, duplicates = build_runs(records, tmp, parts=parts, dedupe=dedupe, memory=memory, t0=t0,
                                      synthetic=synthetic, progress=progress, first=cols)
        return merge_inputs(runs, out, synthetic=synthetic, dedupe=dedupe, names=names, progress=progress, t0=t0,
                            duplicates=duplicates, memory=memory)


def build_runs(records: Iterator[tuple[str, Record]], folder: Path, *, parts: Sequence[dict[str, Any]],
               dedupe: bool, memory: int | None, t0: float, synthetic: bool = False, prefix: str = "run",
               progress: Callable[[str], None] | None = None,
               first: _Columns | None = None) -> tuple[list[Path], int]:
    """The runs of one record stream (`first`: its first run, already read), written into `folder`; and the
    duplicates dropped inside them."""
    limit = run_rows(memory or DEFAULT_MEMORY, 1)
    runs: list[Path] = []
    duplicates = 0
    if first is None:
        cols = _Columns()
        done = cols.consume(records, t0, progress, limit)
    else:
        cols, done = first, False
    while len(cols.sids):
        path = folder / f"{prefix}{len(runs):05d}{RUN_SUFFIX}"
        rep = finish(cols, path, synthetic=synthetic, t0=t0, parts=parts, dedupe=dedupe, run=True)
        duplicates += rep.duplicates
        runs.append(path)
        if progress:
            progress(f"run {len(runs)} written: {rep.addresses:,} rows ({time.perf_counter() - t0:.0f} s)")
        if done:
            break
        cols = _Columns(cols.part, cols.rows_before + len(cols.sids))
        done = cols.consume(records, t0, progress, limit)
    return runs, duplicates


def merge_inputs(inputs: Sequence[Any], out: Path, *, dedupe: bool, names: Sequence[str],
                 progress: Callable[[str], None] | None, t0: float, duplicates: int, memory: int | None,
                 synthetic: bool = False) -> BuildReport:
    """`merge.merge_indexes` of runs (paths) and installed indexes (`MergeInput`s), the runs' size as the
    temporary disk used."""
    from dqkit.engines.address_index.merge import MergeInput, merge_indexes

    ins = [i if isinstance(i, MergeInput) else MergeInput(Path(i)) for i in inputs]
    temp = sum(i.path.stat().st_size for i in ins if i.path.name.endswith(RUN_SUFFIX))
    if progress:
        progress(f"merging {len(ins)} inputs ({temp / 1e9:.1f} GB of temporary runs)")
    rep = merge_indexes(ins, out, synthetic=synthetic, dedupe=dedupe, names=names, progress=progress,
                        batch_rows=batch_rows(memory), t0=t0)
    rep.duplicates += duplicates
    rep.temp_bytes = temp
    return rep


def batch_rows(memory: int | None) -> int:
    """Rows a merge holds at once: ~1/16 of the budget at ~200 bytes a row (1M rows at the default)."""
    return max(1 << 16, min(1 << 22, (memory or DEFAULT_MEMORY) // 16 // 200))


# -- files, on several processes ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Task:
    """Consecutive input files built by one worker (a large file alone, small ones together)."""

    index: int
    sources: tuple[SourceFile, ...]
    first_part: int


@dataclass
class _TaskResult:
    index: int
    runs: list[Path]
    rows: int
    duplicates: int
    dropped: dict[str, int]
    postcodes: set[tuple[str, str]]


_WORKER_PROGRESS: Callable[[str], None] | None = None  # inherited by forked workers


def _plan(sources: Sequence[SourceFile], limit: int) -> list[_Task]:
    tasks: list[_Task] = []
    group: list[SourceFile] = []
    first = 0
    rows = 0
    for k, src in enumerate(sources):
        est = estimated_rows(src)
        if group and rows + est > limit:
            tasks.append(_Task(len(tasks), tuple(group), first))
            group, rows, first = [], 0, k
        group.append(src)
        rows += est
    if group:
        tasks.append(_Task(len(tasks), tuple(group), first))
    return tasks


def _run_task(args: tuple[_Task, int, str, bool, bool, bool, list[dict[str, Any]], float]) -> _TaskResult:
    """In a worker: the runs of one task's files."""
    task, limit, tmp, synthetic, clean, dedupe, parts, t0 = args
    say = _WORKER_PROGRESS
    hygiene = Hygiene() if clean else None
    records = records_of_files(task.sources, say, hygiene, task.first_part)
    runs: list[Path] = []
    duplicates = rows = 0
    cols = _Columns()
    done = cols.consume(records, t0, None, limit)
    while len(cols.sids):
        path = Path(tmp) / f"run{task.index:05d}-{len(runs):03d}{RUN_SUFFIX}"
        rep = finish(cols, path, synthetic=synthetic, t0=t0, names=[], parts=parts, dedupe=dedupe, run=True)
        duplicates += rep.duplicates
        rows += rep.addresses
        runs.append(path)
        if say is not None:
            say(f"run written: {rep.addresses:,} rows of {task.sources[0].path.name}"
                f"{f' and {len(task.sources) - 1} more' if len(task.sources) > 1 else ''} "
                f"({time.perf_counter() - t0:.0f} s)")
        if done:
            break
        cols = _Columns(cols.part)
        done = cols.consume(records, t0, None, limit)
    return _TaskResult(task.index, runs, rows, duplicates, dict(hygiene.dropped) if hygiene else {},
                       hygiene.postcodes if hygiene else set())


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def build_files(sources: Sequence[SourceFile], out: Path, *, synthetic: bool, clean: bool,
                progress: Callable[[str], None] | None, memory: int | None, workers: int | None,
                tmp_dir: str | Path | None, t0: float) -> BuildReport:
    """`build_index`: files, each one part; on several processes when they are many and large."""
    memory = memory or DEFAULT_MEMORY
    parts = [{"name": str(s.path), "source": "", "date": "", "region": s.region} for s in sources]
    names = [str(s.path) for s in sources]
    n_workers = min(workers or default_workers(), len(sources))
    total = sum(estimated_rows(s) for s in sources)
    if n_workers <= 1 or total <= PARALLEL_ROWS:
        hygiene = Hygiene() if clean else None
        rep = build_stream(records_of_files(sources, progress, hygiene), out, synthetic=synthetic, names=names,
                           progress=progress, dedupe=clean, parts=parts, memory=memory, tmp_dir=tmp_dir, t0=t0)
        rep.files = names
        if hygiene is not None:
            rep.dropped = _dropped(hygiene.dropped, rep.duplicates)
            rep.postcodes = hygiene.postcodes
        return rep
    # tasks of at most a run each, and at least ~4 per worker so that they share the work out evenly
    limit = min(run_rows(memory, n_workers), max(MIN_RUN, total // (4 * n_workers)))
    tasks = _plan(sources, limit)
    global _WORKER_PROGRESS
    with _temp_dir(out, tmp_dir) as tmp:
        results: list[_TaskResult] = []
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        _WORKER_PROGRESS = progress
        try:
            if progress:
                progress(f"{len(sources)} files in {len(tasks)} tasks on {n_workers} processes, runs of up to "
                         f"{limit:,} rows (memory budget {memory / 1e9:.1f} GB)")
            with ctx.Pool(n_workers, maxtasksperchild=1) as pool:
                largest_first = sorted(tasks, key=lambda t: -sum(estimated_rows(s) for s in t.sources))
                args = [(t, limit, str(tmp), synthetic, clean, clean, parts, t0) for t in largest_first]
                for res in pool.imap_unordered(_run_task, args):
                    results.append(res)
        finally:
            _WORKER_PROGRESS = None
        results.sort(key=lambda r: r.index)
        runs = [p for r in results for p in r.runs]
        if not runs:
            from dqkit.contract.errors import InputError

            raise InputError("the reference files hold no usable address rows")
        rep = merge_inputs(runs, out, synthetic=synthetic, dedupe=clean, names=names, progress=progress, t0=t0,
                           duplicates=sum(r.duplicates for r in results), memory=memory)
    rep.files = names
    rep.workers = n_workers
    if clean:
        dropped: Counter[str] = Counter()
        for r in results:
            dropped.update(r.dropped)
        rep.dropped = _dropped(dropped, rep.duplicates)
        rep.postcodes = {pc for r in results for pc in r.postcodes}
    return rep


def _dropped(counts: Any, duplicates: int) -> dict[str, int]:
    return {k: v for k, v in ({**counts, REASON_DUPLICATE: duplicates}).items() if v}
