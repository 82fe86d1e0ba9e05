"""`dqkit verify --workers N` to a CSV file: each worker takes its chunks of rows all the way to their CSV text.

    parent: reads the table -> cuts its rows into chunks -> answers the first chunk itself (every table the engine
            needs loads once, before the fork, and is shared) -> forks N workers (`worker_pool.map_in_processes`)
    worker: a chunk of rows -> requests, the engine, flat rows (the functions one process uses) -> their CSV
            lines, formula-escaped, made from the flat rows (`dqkit.notebook.lead_lines`: the lines the typed frame
            of `df.leads.verify()` writes, without building it; that frame where it cannot say) -> the parent
    parent: stores each chunk's answers in the result cache as it arrives (a rerun after Ctrl-C or kill -9 resumes
            there), then writes the header and the chunks' lines in input order, atomically

So the parent does no per-lead work, and both cores do all of it. The text is the one writing the whole frame gives:
every step is row by row but one, the result columns a table shows (those no row filled are left out, see
`dqkit.notebook.leads.without_empty_columns`). A chunk that shows fewer columns than the whole table gets their
empty cells put in (`relaid`); the columns' order is merged from the chunks' orders (`merged_order`), and where
the chunks leave it open for a column whose place the result columns' order does not give, the whole table is
answered again the ordinary way (`Unordered`), never guessed.

Used only where nothing else needs the whole frame: a local engine, a CSV output, no history to record (see
`chunked_run_fits`).
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import pickle
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dqkit._cell_escape import CSV_LINE_END
from dqkit.notebook.cache import CacheWriter, ResultCache

if TYPE_CHECKING:
    import pandas as pd

    from dqkit.backends.base import LeadBackend

# Rows per chunk: each chunk pays a fixed cost (~40 ms: a frame of ~90 typed columns built, its empty columns
# found, written as text), so chunks are large; about 8 a worker keep the cores evenly busy to the end and lose
# little to a Ctrl-C. A large file gets larger chunks (`chunk_rows`): 25 chunks of 2,000 paid ~1 s of CPU at 50,000.
CHUNK_ROWS: Final = 2000  # the smallest
MAX_CHUNK_ROWS: Final = 8000
CHUNKS_PER_WORKER: Final = 8
FIRST_ROWS: Final = 250  # the parent's own first chunk: enough leads to load the tables they need


class Unordered(Exception):
    """The chunks do not say where a column goes in the whole table."""


class _ForwardingCache(ResultCache):
    """The result cache seen from one process of a chunked run: answers are read from the file on a connection of
    this process; answers to store are kept and sent to the parent with the chunk (the parent alone writes, as in a
    run of one process); no whole-run memo (that is a whole table's)."""

    def __init__(self, path: Path) -> None:  # no schema work: the parent opened and checked the file
        import sqlite3

        self.path = path
        self._lock = threading.RLock()
        self._con = sqlite3.connect(path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self.stored: list[tuple[bytes, bytes]] = []

    def _recover(self, exc: BaseException) -> None:
        """A damaged file is the parent's to move aside: here the chunk's answers are simply not read from it."""

    def put_many(self, items: Any) -> None:
        self.stored.extend(items)

    def get_run(self, key: bytes) -> bytes | None:
        return None

    def put_run(self, key: bytes, value: bytes) -> None:
        return None

    def taken(self) -> list[tuple[bytes, bytes]]:
        out, self.stored = self.stored, []
        return out


def chunked_run_fits(rows: int, workers: int, columns: Iterable[object], prefix: str) -> bool:
    """Whether a local run to CSV is worth cutting into chunks for worker processes: enough rows for every worker
    (`MIN_PER_WORKER`), processes that can be forked, and no input column named like a result column (a verified
    file verified again: which of them a chunk replaces depends on the columns it fills)."""
    from dqkit.notebook.leads import REFERENCE_NAMES, RESULT_NAMES
    from dqkit.notebook.pipeline import MIN_PER_WORKER, _can_fork

    if workers < 2 or rows < 2 * MIN_PER_WORKER or not _can_fork():
        return False
    ours = {f"{prefix}{n}" for n in (*RESULT_NAMES, *REFERENCE_NAMES)}
    return not any(str(c) in ours for c in columns)


def chunk_rows(rows: int, workers: int) -> int:
    """Rows per chunk for `rows` rows in `workers` processes: about CHUNKS_PER_WORKER a worker, within
    CHUNK_ROWS..MAX_CHUNK_ROWS (where each chunk falls changes no answer: see the module docstring)."""
    return max(CHUNK_ROWS, min(MAX_CHUNK_ROWS, -(-rows // (max(1, workers) * CHUNKS_PER_WORKER))))


def csv_text(frame: pd.DataFrame, *, escape: bool, header: bool) -> str:
    """`frame` as `write_table` writes it to CSV (formula-escaped unless `escape=False`), with or without the
    header line."""
    from dqkit._cell_escape import escape_frame

    out = escape_frame(frame) if escape else frame
    if not header:
        from dqkit._csv_lines import csv_lines

        lines = csv_lines(out, CSV_LINE_END)  # the same lines, made a column at a time
        if lines is not None:
            return lines
    return out.to_csv(index=False, header=header, lineterminator=CSV_LINE_END)


def verify_to_csv(df: pd.DataFrame, backend: LeadBackend, fields: dict[str, str], prefix: str, output: Path, *,
                  cache: bool, progress: bool | None, workers: int, escape: bool) -> pd.DataFrame:
    """Verify every row of `df` in `workers` processes and write OUTPUT as `write_table` would write the verified
    frame. Returns the result codes of the rows (the one column the run's summary reads)."""
    import pandas as pd

    from dqkit._files import write_with
    from dqkit.notebook.frames import open_cache
    from dqkit.notebook.lead_lines import verified_lines
    from dqkit.notebook.leads import verify
    from dqkit.notebook.progress import Progress
    from dqkit.notebook.settings import options
    from dqkit.notebook.worker_pool import map_in_processes

    store = open_cache(None if cache else False)
    path = store.path if store is not None else None
    views: dict[int, _ForwardingCache] = {}

    def view() -> _ForwardingCache | None:
        """This process's own connection to the cache file (a forked process must not use its parent's)."""
        if path is None:
            return None
        pid = os.getpid()
        if pid not in views:
            views[pid] = _ForwardingCache(path)
        return views[pid]

    def work(bounds: tuple[int, int]) -> bytes:
        start, stop = bounds
        reader = view()
        piece = df.iloc[start:stop]
        made = verified_lines(piece, backend, fields, prefix, cache=reader if reader is not None else False,
                              escape=escape, line_end=CSV_LINE_END)  # the lines without the typed frame
        if made is None:  # what `verified_lines` does not write for certain: the frame, written
            out = verify(piece, backend=backend, mapping=fields, prefix=prefix,
                         cache=reader if reader is not None else False, progress=False, workers=1)
            codes = out[f"{prefix}result_code"].astype(object)
            made = (csv_text(out, escape=escape, header=False), [str(c) for c in out.columns],
                    codes.where(codes.notna(), None).tolist())
        stored = reader.taken() if reader is not None else []
        return pickle.dumps((*made, stored), protocol=pickle.HIGHEST_PROTOCOL)

    n = len(df)
    first = min(FIRST_ROWS, n)
    size = chunk_rows(n - first, workers)
    bounds = [(0, first)] + [(a, min(a + size, n)) for a in range(first, n, size)]
    texts: dict[int, tuple[str, list[str]]] = {}
    codes: dict[int, list[str | None]] = {}
    writer = CacheWriter(store) if store is not None else None
    bar = Progress(n, "verify leads", enabled=options.show_progress(progress), unit="lead")

    def land(chunk: tuple[int, int], payload: bytes) -> None:
        text, columns, chunk_codes, stored = pickle.loads(payload)
        texts[chunk[0]], codes[chunk[0]] = (text, columns), chunk_codes
        if writer is not None:
            writer.write(stored)
        bar.update(chunk[1] - chunk[0])

    try:
        map_in_processes(work, bounds, land, workers)
    except BaseException as exc:  # Ctrl-C: what landed is stored; say how to resume
        done = sum(b - a for a, b in bounds if a in texts)
        exc.add_note(f"dqkit: {done} of {n} leads were answered before the interruption"
                     + (" and are cached; run again to resume" if store is not None else ""))
        raise
    finally:
        bar.close()
        if writer is not None:
            writer.close()

    starts = sorted(texts)
    lists = [texts[a][1] for a in starts]
    try:
        order = merged_order(lists, rank_of(df.columns, prefix))
    except Unordered:  # never seen: the whole table the ordinary way, answers from the cache where it has them
        from dqkit.cli._leadio import write_table

        # verify_cmd.verify_frame's pipeline, called directly: verify_cmd imports this module
        frame = verify(df, backend=backend, mapping=fields, prefix=prefix, cache=None if cache else False,
                       progress=progress, workers=workers)
        write_table(frame, output, escape=escape)
        return frame[[f"{prefix}result_code"]]
    from dqkit._cell_escape import escape_cell

    header = csv_text(pd.DataFrame(columns=[escape_cell(c) if escape else c for c in order]), escape=False,
                      header=True)

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(header)
            for a in starts:
                text, columns = texts.pop(a)
                fh.write(text if columns == order else relaid(text, columns, order))

    write_with(output, write)
    return pd.DataFrame({f"{prefix}result_code": [c for a in starts for c in codes[a]]}, dtype=object)


def rank_of(columns: Iterable[object], prefix: str) -> dict[str, tuple[int, int]]:
    """Where a column goes when the chunks do not say: the input's columns first, in their order, then the result
    columns in their order (`leads.RESULT_NAMES`), then the reference columns."""
    from dqkit.notebook.leads import REFERENCE_NAMES, RESULT_NAMES

    rank = {str(c): (0, i) for i, c in enumerate(columns)}
    rank.update({f"{prefix}{c}": (1, i) for i, c in enumerate(RESULT_NAMES)})
    rank.update({f"{prefix}{c}": (2, i) for i, c in enumerate(REFERENCE_NAMES)})
    return rank


def merged_order(lists: Sequence[list[str]], rank: dict[str, tuple[int, int]]) -> list[str]:
    """The one order of columns of which every list is a part (each chunk shows the whole table's columns less
    some, in the table's order). Where the lists leave two columns unordered, `rank` orders them; Unordered when
    it cannot (a column it does not rank) or the lists contradict each other."""
    if all(x == lists[0] for x in lists):
        return list(lists[0])
    after: dict[str, set[str]] = {}
    before: dict[str, int] = {}
    for cols in lists:
        for c in cols:
            after.setdefault(c, set())
            before.setdefault(c, 0)
        for a, b in itertools.pairwise(cols):
            if b not in after[a]:
                after[a].add(b)
                before[b] += 1
    ready = [c for c, k in before.items() if k == 0]
    order: list[str] = []
    while ready:
        if len(ready) > 1 and not all(c in rank for c in ready):
            raise Unordered(f"the chunks do not order {sorted(ready)}")
        ready.sort(key=lambda c: rank.get(c, (0, 0)))
        c = ready.pop(0)
        order.append(c)
        for d in after[c]:
            before[d] -= 1
            if before[d] == 0:
                ready.append(d)
    if len(order) != len(before):
        raise Unordered("the chunks order their columns differently")
    return order


def relaid(text: str, columns: list[str], order: list[str]) -> str:
    """CSV lines of `columns` as lines of `order` (a superset): the missing columns' cells empty, every other cell
    written as pandas wrote it (the same csv writer and dialect)."""
    at = {c: i for i, c in enumerate(columns)}
    pick = [at.get(c, -1) for c in order]
    out = io.StringIO()
    w = csv.writer(out, lineterminator=CSV_LINE_END, quoting=csv.QUOTE_MINIMAL)
    for row in csv.reader(io.StringIO(text, newline="")):
        w.writerow([row[i] if i >= 0 else "" for i in pick])
    return out.getvalue()
