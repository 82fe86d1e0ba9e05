"""The run history: one transaction a run, safe under concurrent runs and kill -9, a file that is not a store
refused."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from analyst_helpers import sample

from dqkit.notebook.history import HistoryWarning, counts, counts_of, record_run, runs


@pytest.fixture(scope="module")
def verified() -> pd.DataFrame:
    return sample(1000).leads.verify(cache=False, progress=False)


def test_a_run_is_recorded_with_its_counts(verified: pd.DataFrame, tmp_path: Path) -> None:
    store = tmp_path / "h.sqlite"
    run = record_run(verified, store, backend="local", label="q3")
    listed = runs(store)
    assert list(listed["id"]) == [run] and listed["rows"].iat[0] == 1000 and listed["label"].iat[0] == "q3"
    assert listed["sources"].iat[0] == verified["LEAD_SOURCE"].nunique()
    long = counts(store)
    total = long[(long["source"] == "(all)") & long["metric"].str.startswith("code:")]
    assert total["count"].sum() == 1000
    spoof = long[(long["source"] == "(all)") & (long["metric"] == "spoof")].iloc[0]
    assert spoof["count"] == int((verified["lead_result_code"].astype(str) == "E100").sum())
    assert oct(store.stat().st_mode & 0o777) == "0o600"
    assert listed["references_used"].iat[0].startswith("Reference: ")  # the local engine names its data
    again = record_run(verified, store)
    assert runs(store)["fingerprint"].nunique() == 1 and again == run + 1  # same input, same fingerprint


def _record_many(store: str, n: int) -> None:
    frame = pd.read_pickle(Path(store).with_suffix(".pkl"))
    for _ in range(n):
        record_run(frame, store)


def test_concurrent_runs_all_land_whole(verified: pd.DataFrame, tmp_path: Path) -> None:
    store = tmp_path / "h.sqlite"
    verified.head(200).to_pickle(store.with_suffix(".pkl"))
    per_run = len(counts_of(verified.head(200)))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_record_many, args=(str(store), 5)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    assert len(runs(store)) == 20
    assert (counts(store).groupby("run").size() == per_run).all()


def test_kill_9_mid_write_leaves_no_partial_run(verified: pd.DataFrame, tmp_path: Path) -> None:
    store = tmp_path / "h.sqlite"
    record_run(verified.head(100), store)
    # A writer that opens a run's transaction, writes part of it, and waits to be killed.
    script = textwrap.dedent(f"""
        import sqlite3, sys, time
        conn = sqlite3.connect({str(store)!r}, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO runs (at, rows, fingerprint, engine_build, backend, version) "
                     "VALUES ('2030-01-01', 5, 'x', 'b', 'k', 'v')")
        conn.executemany("INSERT INTO counts VALUES (last_insert_rowid(), ?, 'spoof', 1, 5)",
                         [(f"s{{i}}",) for i in range(1000)])
        print("written", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "written"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert len(runs(store)) == 1 and set(counts(store)["run"]) == {1}
    record_run(verified.head(100), store)  # and the store takes the next run
    assert len(runs(store)) == 2


def test_a_file_that_is_not_a_store_is_refused_never_set_aside(verified: pd.DataFrame, tmp_path: Path) -> None:
    from dqkit._own_sqlite import StoreError

    store = tmp_path / "h.sqlite"
    garbage = b"this is not a database\x00" * 400
    store.write_bytes(garbage)
    with pytest.raises(StoreError, match="not a dqkit store"):  # issue 30: never renamed (a damaged store of
        record_run(verified.head(50), store)  # dqkit's own still is: tests/hardening/test_store_files.py)
    assert store.read_bytes() == garbage and not [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]


def test_a_store_written_before_a_column_was_added_is_upgraded_not_set_aside(verified: pd.DataFrame,
                                                                              tmp_path: Path) -> None:
    import sqlite3

    store = tmp_path / "old.sqlite"
    conn = sqlite3.connect(store)
    conn.executescript("""
        CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, rows INTEGER NOT NULL,
            fingerprint TEXT NOT NULL, engine_build TEXT NOT NULL, backend TEXT NOT NULL, version TEXT NOT NULL,
            label TEXT NOT NULL DEFAULT '');
        CREATE TABLE counts (run INTEGER NOT NULL REFERENCES runs(id), source TEXT NOT NULL, metric TEXT NOT NULL,
            count INTEGER NOT NULL, total INTEGER NOT NULL, PRIMARY KEY (run, source, metric));
        INSERT INTO runs (at, rows, fingerprint, engine_build, backend, version) VALUES ('2026-01-01', 1, 'f', 'b',
            'local', '0.1.0');
        INSERT INTO counts VALUES (1, '(all)', 'spoof', 0, 1);
    """)
    conn.commit()
    conn.close()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", HistoryWarning)
        record_run(verified.head(20), store)
    assert list(runs(store)["id"]) == [1, 2] and not [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
