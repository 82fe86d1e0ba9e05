"""Issue 30, part 6: the files dqkit opens as its stores (the run history, bulk batches, the shared rate counts) are
only regular files it made or recognises. A directory, a FIFO, a device node, a file that is not SQLite or another
program's database is a clear error naming the path, and is never renamed or written; a store that is locked says
so after the output is written, and the run says its history was not recorded. Real files, the real CLI."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dqkit._own_sqlite import StoreError

REPO = Path(__file__).resolve().parents[2]
LEADS = "First Name,Last Name,Street,City,State,Zip,Phone,Lead Source\n" \
        "Maria,Garcia,1600 Pennsylvania Ave NW,Washington,DC,20500,202-456-1111,web\n" \
        "John,Smith,1 Main St,Springfield,IL,62701,217-555-0142,fair\n"


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "DQKIT_CACHE": "0", "DQKIT_REFERENCE_DIR": str(tmp / "refs"),
            "XDG_DATA_HOME": str(tmp / "data"), "XDG_CACHE_HOME": str(tmp / "cache"), "DQKIT_PROGRESS": "0"}


def _dqkit(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dqkit.cli", *args], capture_output=True, text=True, timeout=600,
                          env=_env(tmp), cwd=tmp)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _targets(tmp: Path) -> list[tuple[str, Path]]:
    folder = tmp / "a-folder"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    fifo = tmp / "a-fifo"
    os.mkfifo(fifo)
    out = [("a directory", folder), ("a FIFO", fifo)]
    if os.geteuid() == 0:  # a device node of our own (never /dev/null itself): what --history /dev/null would be
        node = tmp / "null-like"
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        out.append(("a character device", node))
    return out


def test_verify_and_history_refuse_what_is_not_a_store_and_change_nothing(tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    leads.write_text(LEADS)
    for kind, target in _targets(tmp_path):
        before = sorted(p.name for p in tmp_path.iterdir())
        mode = os.stat(target).st_mode
        for args in (("verify", str(leads), "-o", str(tmp_path / "out.csv"), "--history", str(target)),
                     ("history", "--history", str(target), "--drift")):
            r = _dqkit(tmp_path, *args)
            assert r.returncode != 0 and "Traceback" not in r.stderr, (kind, args[0], r.stderr[-1500:])
            assert f"{target} is {kind}" in r.stderr, (kind, r.stderr[-500:])
            assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing renamed, nothing made beside it
            assert os.stat(target).st_mode == mode
        assert not (tmp_path / "out.csv").exists()  # refused before the work
    assert (tmp_path / "a-folder" / "keep.txt").read_text() == "mine"


def test_another_programs_database_and_a_text_file_are_left_byte_for_byte(tmp_path: Path) -> None:
    from dqkit.notebook.history import record_run, runs

    other = tmp_path / "crm.sqlite"
    conn = sqlite3.connect(other)
    conn.executescript("CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT); "
                       "INSERT INTO contacts (name) VALUES ('Maria Garcia');")
    conn.commit()
    conn.close()
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"this is not a database\x00" * 400)
    frame = pd.DataFrame({"lead_result_code": ["S100", "E600"], "lead_phone_status": ["E800", ""]})
    for path, words in ((other, "another program's SQLite database (tables: contacts)"),
                        (notes, "not a dqkit store (not an SQLite database)")):
        digest = _digest(path)
        with pytest.raises(StoreError, match=r"leaves it as it is"):
            record_run(frame, path)
        with pytest.raises(StoreError) as caught:
            runs(path)
        assert words in str(caught.value) and str(path) in str(caught.value)
        assert _digest(path) == digest and not path.with_name(path.name + "-wal").exists()
    assert not [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]


def test_reading_a_history_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    from dqkit.notebook.history import runs

    assert runs(tmp_path / "none.sqlite").empty and not (tmp_path / "none.sqlite").exists()


def test_a_damaged_store_of_dqkit_is_still_set_aside(tmp_path: Path) -> None:
    from dqkit.notebook.history import HistoryWarning, record_run, runs

    store = tmp_path / "h.sqlite"
    frame = pd.DataFrame({"lead_result_code": ["S100"] * 50, "lead_phone_status": ["E800"] * 50,
                          "source": [f"s{i}" for i in range(50)]})
    for _ in range(30):
        record_run(frame, store, by="source")
    size = store.stat().st_size
    with open(store, "r+b") as f:  # damage interior pages, keep the header (and so dqkit's mark)
        for off in range(2 * 4096, size, 3 * 4096):
            f.seek(off + 8)
            f.write(b"\xff" * 2000)
    with pytest.warns(HistoryWarning, match="moved to"):
        record_run(frame, store, by="source")
    assert len([p for p in tmp_path.iterdir() if ".corrupt-" in p.name and not p.name.endswith(("-wal", "-shm"))]) == 1
    assert len(runs(store)) == 1


def test_a_locked_store_fails_after_the_output_saying_history_was_not_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from dqkit import cli
    from dqkit.notebook import history

    for k, v in _env(tmp_path).items():
        monkeypatch.setenv(k, v)
    leads = tmp_path / "leads.csv"
    leads.write_text(LEADS)
    store = tmp_path / "h.sqlite"
    assert cli.main(["verify", str(leads), "-o", str(tmp_path / "first.csv"), "--history", str(store)]) == 0
    monkeypatch.setattr(history, "BUSY_SECONDS", 0.2)  # another run holds it: wait a moment, not 30 s
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        capsys.readouterr()
        code = cli.main(["verify", str(leads), "-o", str(tmp_path / "out.csv"), "--history", str(store)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "wrote 2 rows to" in err and "history NOT recorded" in err and "this run was not recorded" in err, err
    assert (tmp_path / "out.csv").exists()  # the output is there; the history says one run
    assert len(history.runs(store)) == 1


def test_a_rate_store_or_bulk_folder_that_is_not_dqkits_is_refused(tmp_path: Path) -> None:
    from dqkit.server.bulk import BatchStore
    from dqkit.server.ratestore import SqliteCounts

    folder = tmp_path / "rate.sqlite"
    folder.mkdir()
    with pytest.raises(StoreError, match="is a directory"):
        SqliteCounts(folder, b"s" * 16)
    r = _dqkit(tmp_path, "serve", "--port", "0", "--demo", "--rate-store", f"sqlite:{folder}")
    assert r.returncode != 0 and "is a directory" in r.stderr and "Traceback" not in r.stderr, r.stderr[-1500:]
    bulk = tmp_path / "bulk"
    bulk.mkdir()
    other = bulk / "bulk.sqlite3"
    conn = sqlite3.connect(other)
    conn.executescript("CREATE TABLE invoices (id INTEGER PRIMARY KEY);")
    conn.close()
    digest = _digest(other)
    with pytest.raises(StoreError, match="another program's SQLite database"):
        BatchStore(bulk)
    assert _digest(other) == digest


def test_a_result_cache_path_that_is_not_dqkits_is_left_alone(tmp_path: Path) -> None:
    from dqkit.notebook.cache import FILE_NAME, CacheUnavailable, ResultCache

    folder = tmp_path / "cache"
    folder.mkdir()
    other = folder / FILE_NAME  # another program's database where the cache would be, with tables named like dqkit's
    conn = sqlite3.connect(other)
    conn.executescript("CREATE TABLE results (k TEXT); CREATE TABLE runs (k TEXT); CREATE TABLE ledger (k TEXT); "
                       "INSERT INTO results VALUES ('keep me');")
    conn.commit()
    conn.close()
    digest = _digest(other)
    with pytest.raises(CacheUnavailable, match="another program's SQLite database"):
        ResultCache(other)
    assert _digest(other) == digest  # before: its tables were dropped as an "older layout"
    mine = ResultCache(folder / "mine.sqlite3")
    mine.put_many([(b"k" * 20, b"v")])
    mine.close()
    assert ResultCache(folder / "mine.sqlite3").get_many([b"k" * 20]) == {b"k" * 20: b"v"}
