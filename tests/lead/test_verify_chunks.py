"""`dqkit verify --workers N` to CSV takes every chunk of rows to its CSV lines in the worker (issue 31): the file
it writes is the one a single process writes, byte for byte but the transaction ids, also where chunks show
different result columns; the result cache is filled as with one process; a column the chunks cannot place is
never guessed."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dqkit.cli import _verify_chunks, main
from dqkit.cli._verify_chunks import FIRST_ROWS, Unordered, merged_order, rank_of, relaid
from dqkit.notebook.cache import FILE_NAME
from dqkit.notebook.pipeline import MIN_PER_WORKER

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample_leads.csv"
_TXN = re.compile(rb"(?<=,)[0-9A-F]{8}[0-9]{10}(?=,)")


@pytest.fixture(scope="module")
def chunked_leads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000+ leads where the spoof columns (E100's) are filled in the first chunks only: later chunks show fewer
    result columns than the whole file, and their lines must be laid out again."""
    import dqkit  # noqa: F401  (df.leads)

    sample = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False, nrows=4000)
    spoof = (sample.leads.verify(workers=1, cache=False, progress=False)["lead_result_code"] == "E100").to_numpy()
    rows = pd.concat([sample[spoof].head(40), sample[~spoof].head(2 * MIN_PER_WORKER + 900)])
    path = tmp_path_factory.mktemp("chunks") / "leads.csv"
    rows.to_csv(path, index=False)
    return path


def _masked(path: Path) -> bytes:
    return _TXN.sub(b"TXN", path.read_bytes())


def _verify(src: Path, out: Path, *extra: str) -> int:
    return main(["verify", str(src), "-o", str(out), "--quiet", *extra])


def test_chunks_write_what_one_process_writes(tmp_path: Path, chunked_leads: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    laid: list[int] = []
    real = _verify_chunks.relaid

    def spy(text: str, columns: list[str], order: list[str]) -> str:
        laid.append(len(order) - len(columns))
        return real(text, columns, order)

    monkeypatch.setattr(_verify_chunks, "relaid", spy)
    from dqkit.notebook import lead_lines

    direct: list[bool] = []
    real_lines = lead_lines.verified_lines

    def lines_spy(*args: Any, **kwargs: Any) -> Any:
        made = real_lines(*args, **kwargs)
        direct.append(made is not None)
        return made

    monkeypatch.setattr(lead_lines, "verified_lines", lines_spy)
    for extra in ((), ("--no-escape-formulas",)):
        one, two = tmp_path / "one.csv", tmp_path / "two.csv"
        assert _verify(chunked_leads, one, "--workers", "1", "--no-cache", *extra) == 0
        assert _verify(chunked_leads, two, "--workers", "2", "--no-cache", *extra) == 0
        assert _masked(two) == _masked(one)
        with two.open(newline="", encoding="utf-8") as fh:
            ids = [row["transaction_id"][:8] for row in csv.DictReader(fh)]
        assert len(set(ids)) == 3  # the parent's first chunk, then two workers: the chunked path ran
        assert len(set(ids[:FIRST_ROWS])) == 1
    assert laid and all(k > 0 for k in laid)  # chunks without the spoof columns were laid out again
    assert direct and all(direct)  # the parent's chunks were written from the flat rows, not the typed frame


def test_chunks_fill_the_cache_and_a_rerun_reads_it(tmp_path: Path, chunked_leads: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from dqkit.notebook.settings import options

    monkeypatch.setattr(options, "cache", True)  # whatever DQKIT_CACHE said when dqkit was imported
    monkeypatch.setenv("DQKIT_CACHE_DIR", str(tmp_path / "cache"))
    first, again = tmp_path / "first.csv", tmp_path / "again.csv"
    assert _verify(chunked_leads, first, "--workers", "2") == 0
    import sqlite3

    with sqlite3.connect(tmp_path / "cache" / FILE_NAME) as con:
        stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert stored == len(pd.read_csv(chunked_leads, dtype=str))  # every distinct lead, each stored once
    assert _verify(chunked_leads, again, "--workers", "2") == 0
    assert again.read_bytes() == first.read_bytes()  # every answer from the cache: the same ids too


def test_merged_order_takes_each_chunks_order_and_guesses_nothing() -> None:
    rank = rank_of(["a", "b"], "")
    assert merged_order([["a", "b", "result_code", "spoof_rule"], ["a", "b", "result_code"]], rank) == \
        ["a", "b", "result_code", "spoof_rule"]
    # two result columns never seen together: their order is the result columns' order
    assert merged_order([["a", "result_code", "spoof_rule"], ["a", "result_code", "phone_status"]], rank) == \
        ["a", "result_code", "phone_status", "spoof_rule"]
    # a column that is no result column, never seen beside another one it could precede: not guessed
    with pytest.raises(Unordered):
        merged_order([["a", "result_code", "x"], ["a", "result_code", "spoof_rule"]], rank)
    with pytest.raises(Unordered):
        merged_order([["a", "b"], ["b", "a"]], rank)


def test_relaid_lines_are_the_csv_writers_own() -> None:
    text = 'x,"a,b",\r\n"multi\nline","q""uote",z\r\n'
    assert relaid(text, ["a", "b", "c"], ["a", "new", "b", "c"]) == \
        'x,,"a,b",\r\n"multi\nline",,"q""uote",z\r\n'


def test_a_large_file_gets_fewer_larger_chunks() -> None:
    """Each chunk pays a fixed cost, so a large file is cut into about CHUNKS_PER_WORKER chunks a worker (issue
    31), never smaller than CHUNK_ROWS (small files as before) nor larger than MAX_CHUNK_ROWS."""
    from dqkit.cli._verify_chunks import CHUNK_ROWS, CHUNKS_PER_WORKER, MAX_CHUNK_ROWS, chunk_rows

    assert chunk_rows(3000, 2) == chunk_rows(20_000, 2) == CHUNK_ROWS
    size = chunk_rows(50_000, 2)
    assert CHUNK_ROWS < size < MAX_CHUNK_ROWS and -(-50_000 // size) == 2 * CHUNKS_PER_WORKER
    assert chunk_rows(10_000_000, 2) == chunk_rows(10_000_000, 16) == MAX_CHUNK_ROWS
