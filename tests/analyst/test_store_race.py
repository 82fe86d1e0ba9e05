"""Several processes opening a store that does not exist yet: none ever sees it half made and refuses it as another
program's database (the flake of test_concurrent_runs_all_land_whole, about 1 run in 4 under load).

Two tests of the same race. The first is deterministic: one process makes the store one SQLite statement at a
time (a trace callback holds it before every statement, the ones inside an `executescript` too) while this process
looks at the file in every state in between, as a second process starting at that instant would. The second runs
the real thing: processes released together by a barrier make a fresh history store and a fresh result cache, round
after round (bounded: 6 processes, 6 rounds).
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dqkit._own_sqlite import BULK_MARK, CACHE_MARK, HISTORY_MARK, RATE_MARK, StoreError, check_store

_STEPPER = """
import sqlite3, sys
from pathlib import Path
_connect = sqlite3.connect
def _step(what):
    print("STEP " + " ".join(str(what).split())[:70], flush=True)
    if sys.stdin.readline().strip() != "go":
        sys.exit(3)
def connect(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    conn.set_trace_callback(_step)
    _step("connected")
    return conn
sqlite3.connect = connect
"""

# what opens the store (in the stepped process), the file it makes, and how the store is recognised
_STORES: dict[str, tuple[str, str, int, tuple[str, ...], tuple[str, ...]]] = {
    "history": ("from dqkit.notebook.history import opened\nwith opened(Path(PATH)) as conn:\n    pass",
                "h.sqlite", HISTORY_MARK, ("runs", "counts"), ()),
    "cache": ("from dqkit.notebook.cache import ResultCache\nResultCache(Path(PATH))",
              "results-v1.sqlite3", CACHE_MARK, ("results", "runs"), ()),
    "rate": ("from dqkit.server.ratestore import SqliteCounts\nSqliteCounts(Path(PATH), b'k' * 32).add('t', 1, 60)",
             "rate.sqlite", RATE_MARK, ("counts",), ()),
    "bulk": ("from dqkit.server.bulk import BatchStore\nBatchStore(Path(PATH).parent)",
             "bulk.sqlite3", BULK_MARK, ("batches", "rows"), ("turns",)),
}


@pytest.mark.parametrize("store", sorted(_STORES))
def test_a_store_being_made_is_never_taken_for_another_programs(store: str, tmp_path: Path) -> None:
    opener, name, mark, tables, extra = _STORES[store]
    path = tmp_path / name
    code = _STEPPER + f"PATH = {str(path)!r}\n" + opener + "\nprint('DONE', flush=True)\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    try:
        while (line := proc.stdout.readline().strip()) and line != "DONE":
            assert line.startswith("STEP "), line
            seen.append(line[5:])
            try:  # a second process starting now would look at the file exactly so
                check_store(path, mark, store, tables, extra)
            except StoreError as exc:
                pytest.fail(f"after {len(seen)} steps ({' | '.join(seen[-3:])}) the {store} store being made was "
                            f"refused: {exc}")
            proc.stdin.write("go\n")
            proc.stdin.flush()
        assert line == "DONE", f"the opener stopped after {seen[-3:]}"
    finally:
        proc.stdin.close()
        proc.wait(60)
    assert proc.returncode == 0
    assert len(seen) >= 4  # the opener was held at every statement (connect, pragmas, tables)
    assert check_store(path, mark, store, tables, extra)
    assert int.from_bytes(path.read_bytes()[68:72], "big") == mark  # marked in the file itself, not only in a WAL


def _frame(seed: int) -> pd.DataFrame:
    codes = ["S100", "E100", "S101", "E300", "S102"]
    return pd.DataFrame({"LEAD_SOURCE": [f"s{(seed + i) % 3}" for i in range(40)],
                         "lead_result_code": [codes[(seed * 7 + i) % 5] for i in range(40)]})


def _open_together(root: str, rounds: int, barrier: Any, worker: int, failures: Any) -> None:
    from dqkit.notebook.cache import ResultCache
    from dqkit.notebook.history import record_run

    for r in range(rounds):
        folder = Path(root) / f"round{r}"
        barrier.wait()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)  # a cache set aside as damaged is a failure too
                record_run(_frame(worker), folder / "h.sqlite", backend="local", references="test data")
                ResultCache(folder / "cache" / "results-v1.sqlite3").close()
        except Exception as exc:
            failures.put(f"round {r}, worker {worker}: {type(exc).__name__}: {exc}")


def test_many_processes_making_the_same_new_stores_all_succeed(tmp_path: Path) -> None:
    processes, rounds = 6, 6
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(processes)
    failures = ctx.Queue()
    for r in range(rounds):
        (tmp_path / f"round{r}").mkdir()
    procs = [ctx.Process(target=_open_together, args=(str(tmp_path), rounds, barrier, w, failures))
             for w in range(processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    errors = []
    while not failures.empty():
        errors.append(failures.get())
    assert not errors, "\n".join(errors)
    assert [p.exitcode for p in procs] == [0] * processes
    from dqkit.notebook.history import counts, runs

    for r in range(rounds):
        store = tmp_path / f"round{r}" / "h.sqlite"
        assert len(runs(store)) == processes  # every run landed, whole
        assert counts(store).groupby("run").size().nunique() == 1
