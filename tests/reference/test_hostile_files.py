"""Hostile inputs to `reference add` (issue 24 part 6): a line of gigabytes, gigabytes of newlines, a zip bomb and
GeoJSON nested 100,000 deep are each refused with the file named, never a MemoryError or RecursionError, and leave
no staging folder; a `kill -9` leaves no temporary file that the next run does not remove. The files are written
small on disk (gzip members repeat, so 2 MB expand to 2 GiB) and refused long before they are read whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from ref_layouts import OA_HEADER, gz_repeating, oa_csv_text

from dqkit import reference
from dqkit._files import write_text
from dqkit.contract.errors import InputError


def _no_leftovers(refdir: Path) -> None:
    assert not refdir.exists() or not [p for p in refdir.iterdir() if p.name.startswith(".")], \
        sorted(p.name for p in refdir.iterdir())


@pytest.mark.parametrize(("kind", "message"), [
    ("one_line", r"one_line\.csv\.gz, line 2: longer than 1,048,576 characters"),
    ("newlines", r"newlines\.csv\.gz, line 100,001: 100,000 empty lines in a row"),
    ("short_rows", r"short_rows\.csv\.gz: expands more than 100-fold when decompressed"),
])
def test_gzip_bombs_are_refused_naming_the_file(tmp_path: Path, refdir: Path, kind: str, message: str) -> None:
    block = {"one_line": b"a" * (1 << 20), "newlines": b"\n" * (1 << 20), "short_rows": b"1,2,3,\n" * (1 << 18)}
    path = gz_repeating(tmp_path / f"{kind}.csv.gz", block[kind], 2048)  # 2 GiB of text
    assert path.stat().st_size < 6_000_000
    with pytest.raises(InputError, match=message):
        reference.add(path, region="CA", progress=False)
    _no_leftovers(refdir)


def test_a_zip_bomb_is_refused_before_it_is_read(tmp_path: Path, refdir: Path) -> None:
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("us/ca/alameda.csv", "w") as f:
        f.write(OA_HEADER)
        for _ in range(32):
            f.write(b"a" * (1 << 20))
    assert path.stat().st_size < 200_000
    with pytest.raises(InputError, match=r"bundle\.zip!us/ca/alameda\.csv: expands [\d,]+-fold .* compression bomb"):
        reference.add(path, progress=False)
    _no_leftovers(refdir)


def test_deeply_nested_geojson_is_refused_clearly(tmp_path: Path, refdir: Path) -> None:
    path = tmp_path / "deep.geojson"
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"type":"Feature","properties":{"number":"1","street":"Main St"},"geometry":null}\n')
        f.write('{"type":"Feature","properties":{"number":"2","street":"Main St"},"geometry":'
                + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(InputError, match=r"deep\.geojson, line 2: nested too deep to be a GeoJSON Feature"):
        reference.add(path, region="CA", progress=False)
    _no_leftovers(refdir)


def test_a_kill_during_add_leaves_nothing_the_next_add_keeps(tmp_path: Path, refdir: Path,
                                                             alameda: list[dict[str, str]]) -> None:
    rows = [dict(r, NUMBER=f"{r['NUMBER']}{k}") for k in range(12) for r in alameda]  # ~64,000 rows
    src = tmp_path / "dl" / "us" / "ca" / "alameda.csv"
    src.parent.mkdir(parents=True)
    src.write_text(oa_csv_text(rows), encoding="utf-8")
    code = f"from dqkit import reference; reference.add({str(src)!r}, progress=False)"
    proc = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "DQKIT_REFERENCE_DIR": str(refdir)})
    staging = refdir / ".staging-openaddresses-us-ca-alameda"
    try:
        for _ in range(3000):  # until the part is being written (bounded: 30 s)
            if list(staging.glob("parts/*.tmp")) or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the add finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    assert list(staging.glob("parts/*.tmp"))  # what a kill leaves ...
    for name in (f".removing-old-{proc.pid}", f".replaced-old-{proc.pid}-1700000000"):  # (mid-remove, -replace)
        (refdir / name / "x").mkdir(parents=True)
    (refdir / f".removing-live-{os.getpid()}").mkdir()  # a live process's: kept
    (m,) = reference.add(src, progress=False)  # ... the next add removes
    assert m.rows > 60_000
    assert not list(refdir.rglob("*.tmp*")) and not staging.exists()
    assert sorted(p.name for p in refdir.iterdir()) == [f".removing-live-{os.getpid()}", m.id]


def test_a_killed_atomic_write_leaves_no_tmp_after_the_next_write(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    code = ("import sys, time; from dqkit._files import atomic_write\n"
            f"with atomic_write({str(out)!r}) as f:\n"
            "    f.write('a,b\\n' * 1000); f.flush(); print('writing', flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        live = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        write_text(out, "x\n")  # another writer while the first is alive: its file is not touched
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == live and len(live) == 1
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    write_text(out, "y\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"] and out.read_text() == "y\n"


def test_index_build_reads_files_within_the_same_bounds(tmp_path: Path) -> None:
    from dqkit.engines.address_index import build_index

    (tmp_path / "us" / "ca").mkdir(parents=True)
    line = gz_repeating(tmp_path / "us" / "ca" / "line.csv.gz", b"a" * (1 << 20), 2048)
    with pytest.raises(InputError, match=r"line\.csv\.gz, line 2: longer than 1,048,576 characters"):
        build_index([line], tmp_path / "x.dqidx")
    newlines = gz_repeating(tmp_path / "us" / "ca" / "nl.csv.gz", b"\n" * (1 << 20), 2048)
    with pytest.raises(InputError, match=r"nl\.csv\.gz, line 100,001: 100,000 empty lines in a row"):
        build_index([newlines], tmp_path / "x.dqidx")
    assert not (tmp_path / "x.dqidx").exists()


def test_a_staging_folder_with_nothing_to_resume_is_swept(refdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dqkit.cli import main

    stale = refdir / ".staging-killed" / "parts"  # what a kill before any input finished leaves
    stale.mkdir(parents=True)
    (stale / "0.rec.tmp").write_bytes(b"half")
    (refdir / ".staging-killed" / "lock").touch()
    fresh = refdir / ".staging-starting" / "parts"  # an add that is just starting: not touched
    fresh.mkdir(parents=True)
    old = time.time() - 3600
    os.utime(refdir / ".staging-killed", (old, old))
    assert main(["reference", "list"]) == 0
    err = capsys.readouterr().err
    assert "killed" not in err and not (refdir / ".staging-killed").exists()
    assert "unfinished add of 'starting'" in err and fresh.is_dir()
