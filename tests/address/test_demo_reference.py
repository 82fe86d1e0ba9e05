"""The bundled demo reference: reproducible, synthetic, and usable through AddressEngine.demo()."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

import pytest

from dqkit._resources import data_file
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine


def test_generator_is_deterministic(tmp_path: Path) -> None:
    a = demo_reference.write(tmp_path / "a.csv.gz", rows=500)
    b = demo_reference.write(tmp_path / "b.csv.gz", rows=500)
    assert a.read_bytes() == b.read_bytes()
    rows = gzip.decompress(a.read_bytes()).decode().splitlines()
    assert rows[0].split(",") == list(demo_reference.HEADER) and len(rows) == 501


def test_bundled_file_is_the_generators_output(tmp_path: Path) -> None:
    fresh = demo_reference.write(tmp_path / "demo.csv.gz")
    assert fresh.read_bytes() == data_file("demo_reference.csv.gz").read_bytes(), \
        "data/demo_reference.csv.gz is stale: run python -m dqkit.datagen.demo_reference"


def test_demo_engine_is_marked_synthetic_and_cached(cache_dir: Path) -> None:
    e = AddressEngine.demo()
    (ds,) = e.datasets()
    assert ds.id == "us-demo-synthetic" and ds.synthetic and "synthetic" in ds.name  # never the real id
    assert ds.addresses == demo_reference.DEFAULT_ROWS
    assert list(cache_dir.glob("demo-*.dqidx"))
    again = AddressEngine.demo()
    assert again.index.build_id == e.index.build_id  # opened from the cache, not rebuilt
    res = e.search(SearchRequest.of("main st")).result
    assert res.confidence == Confidence.MULTIPLE_MATCHES and res.suggestions
    s = res.suggestions[0]
    assert e.refine(s.global_address_key, "").result.suggestions  # a range or building opens


def test_unwritable_cache_falls_back_to_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("DQKIT_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    e = AddressEngine.demo()
    assert str(e.index.path).startswith(str(tmp_path / "tmp"))


def test_state_sized_generator_is_deterministic_and_has_a_real_vocabulary(tmp_path: Path) -> None:
    """The generator behind the 10M benchmark: same bytes for the same seed, exactly `rows` rows, labelled
    synthetic ids, and far more distinct street names than the classic demo (so typo search is honest)."""
    a = demo_reference.write_state(tmp_path / "a.csv.gz", rows=100_000)
    b = demo_reference.write_state(tmp_path / "b.csv.gz", rows=100_000)
    assert a.read_bytes() == b.read_bytes()
    lines = gzip.decompress(a.read_bytes()).decode().splitlines()
    assert lines[0].split(",") == list(demo_reference.HEADER) and len(lines) == 100_001
    rows = [ln.split(",") for ln in lines[1:]]
    assert all(len(r) == len(demo_reference.HEADER) for r in rows)
    assert rows[-1][9] == "demo-100000" and all(r[9].startswith("demo-") for r in rows)
    words = {w for r in rows for w in r[3].split()}
    plain = demo_reference.write(tmp_path / "c.csv", rows=100_000).read_text().splitlines()[1:]
    classic = {w for ln in plain for w in ln.split(",")[3].split()}
    assert len(words) > 2 * len(classic)
    assert any(r[4].startswith(("APT ", "UNIT ", "STE ", "# ")) for r in rows)
