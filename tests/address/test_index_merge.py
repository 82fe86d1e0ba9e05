"""Bounded-memory builds (runs merged) give the very index a one-pass build gives; a merge that leaves out a part
or a region gives the index a rebuild without it gives; two sources' copies of an address are served once."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from dqkit.engines.address_index import Record, ReferenceIndex, build_from_records, build_index
from dqkit.engines.address_index.build import part_marker
from dqkit.engines.address_index.compare import array_differences as same_index
from dqkit.engines.address_index.external import BASE_BYTES, ROW_BYTES
from dqkit.engines.address_index.merge import MergeInput, merge_indexes

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "openaddresses"


def memory_for(rows: int, workers: int = 1) -> int:
    """A memory budget that makes runs of about `rows` rows."""
    return workers * (BASE_BYTES + ROW_BYTES * rows)


@pytest.fixture(scope="module")
def county_files() -> list[Path]:
    files = [SHARED / n for n in ("alameda.csv", "santa_clara.csv", "portland_metro.csv")]
    if not all(f.is_file() for f in files):
        pytest.skip("shared OpenAddresses samples not available")
    return files


@pytest.mark.parametrize("workers", [1, 2])
def test_runs_merged_are_the_one_pass_index(tmp_path: Path, county_files: list[Path], workers: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Three real county files (ZIP+4 columns, junk rows, three parts) built in runs of ~1,500 rows, on one or two
    processes, then merged: every array and the metadata equal the one-pass build's."""
    from dqkit.engines.address_index import external

    monkeypatch.setattr(external, "PARALLEL_ROWS", 0)  # these files are small: share them out all the same
    whole = build_index(county_files, tmp_path / "whole.dqidx", country_iso2="US", workers=1)
    runs = build_index(county_files, tmp_path / "runs.dqidx", country_iso2="US", workers=workers,
                       memory=memory_for(1500), tmp_dir=tmp_path / "tmp")
    assert whole.runs == 1 and runs.runs >= 7 and (whole.workers, runs.workers) == (1, workers)
    assert runs.temp_bytes > 0 and not any((tmp_path / "tmp").iterdir())  # the runs are gone
    assert same_index(whole.path, runs.path) == []
    assert (runs.addresses, runs.streets, runs.dropped) == (whole.addresses, whole.streets, whole.dropped)
    ix = ReferenceIndex(runs.path)
    assert [p["name"] for p in ix.parts] == [str(f) for f in county_files]
    a = ix.address_count - 1
    assert ix.part_of(a)["name"] in {str(f) for f in county_files}


def _records(n: int, seed: int, *, dup_every: int = 0, source_tag: str = "") -> list[Record]:
    """SYNTHETIC records over a few streets, units and ZIP+4s; with `dup_every`, exact copies of earlier rows
    (other ids) far behind them in the stream."""
    rng = random.Random(seed)
    streets = [("", f"OAK{k}", "ST", "") for k in range(9)] + [("N", "MAIN", "AVE", ""), ("", "1ST", "ST", "W")]
    out: list[Record] = []
    for i in range(n):
        if dup_every and i % dup_every == dup_every - 1 and out:
            out.append(out[rng.randrange(len(out) // 2 + 1)]._replace(source_id=f"{source_tag}dup{i}"))
            continue
        pre, name, suf, post = rng.choice(streets)
        zip5, city = rng.choice([("62701", "SPRINGFIELD"), ("62702", "SPRINGFIELD"), ("60601", "CHICAGO")])
        unit = ("APT", str(rng.randint(1, 9))) if rng.random() < 0.2 else ("", "")
        out.append(Record(str(rng.randint(1, 400)), pre, name, suf, post, unit[0], unit[1], city, "IL", zip5,
                          round(-89.6 + rng.random() / 100, 6), round(39.8 + rng.random() / 100, 6),
                          f"{source_tag}r{i}", rng.choice(["", "1234", "0001"]), "", ""))
    return out


def _stream(parts: Sequence[Sequence[Record]], first: int = 0) -> Iterator[tuple[str, Record]]:
    for k, recs in enumerate(parts):
        yield part_marker(first + k)
        for r in recs:
            yield "US", r


def _part(name: str, source: str = "openaddresses", date: str = "2024-01-01", region: str = "IL") -> dict[str, Any]:
    return {"name": name, "source": source, "date": date, "region": region}


def test_duplicates_in_different_runs_are_dropped_as_in_one_pass(tmp_path: Path) -> None:
    recs = _records(6000, 1, dup_every=7)
    one = build_from_records(_stream([recs]), tmp_path / "one.dqidx", dedupe=True, parts=[_part("a")])
    runs = build_from_records(_stream([recs]), tmp_path / "runs.dqidx", dedupe=True, parts=[_part("a")],
                              memory=memory_for(1000), tmp_dir=tmp_path)
    assert runs.runs == 6 and one.duplicates > 500
    assert (runs.duplicates, runs.addresses) == (one.duplicates, one.addresses)
    assert same_index(one.path, runs.path) == []


def _part_index(tmp: Path, name: str, recs: Sequence[Record], **meta: str) -> Path:
    """One part built alone, as `reference add` stages each input."""
    out = tmp / f"part-{name}.dqidx"
    build_from_records(_stream([recs]), out, dedupe=True, parts=[_part(name, **meta)])
    return out


def test_a_part_replaced_or_removed_gives_the_rebuilt_index(tmp_path: Path) -> None:
    a, b, c, b2 = (_records(1500, s, source_tag=t) for s, t in ((2, "a"), (3, "b"), (4, "c"), (5, "b2")))
    pa, pb, pc = (_part_index(tmp_path, n, r) for n, r in (("a", a), ("b", b), ("c", c)))
    full = merge_indexes([pa, pb, pc], tmp_path / "full.dqidx", dedupe=True)
    assert full.addresses > 4000 and len(ReferenceIndex(full.path).parts) == 3
    # remove b: from the installed index alone
    removed = merge_indexes([MergeInput(full.path, drop_parts=frozenset({"b"}))], tmp_path / "removed.dqidx",
                            dedupe=True)
    rebuilt = merge_indexes([pa, pc], tmp_path / "rebuilt.dqidx", dedupe=True)
    assert same_index(removed.path, rebuilt.path) == []
    # replace b by a new b: the installed index less b, and the new part
    new_b = tmp_path / "new-b"
    new_b.mkdir()
    pb2 = _part_index(new_b, "b", b2, date="2025-01-01")
    replaced = merge_indexes([MergeInput(full.path, drop_parts=frozenset({"b"})), pb2], tmp_path / "repl.dqidx",
                             dedupe=True)
    rebuilt2 = merge_indexes([pa, pc, pb2], tmp_path / "rebuilt2.dqidx", dedupe=True)
    assert same_index(replaced.path, rebuilt2.path) == []
    assert ReferenceIndex(replaced.path).parts[-1] == _part("b", date="2025-01-01")


def test_a_region_removed_gives_the_index_built_without_it(tmp_path: Path, county_files: list[Path]) -> None:
    full = build_index(county_files, tmp_path / "full.dqidx", country_iso2="US")
    removed = merge_indexes([MergeInput(full.path, drop_regions=frozenset({"OR"}))], tmp_path / "no-or.dqidx",
                            dedupe=True, names=[str(f) for f in county_files[:2]])
    rebuilt = build_index(county_files[:2], tmp_path / "ca.dqidx", country_iso2="US")
    assert same_index(removed.path, rebuilt.path) == []
    assert "OR" not in {ReferenceIndex(removed.path).street(s).region for s in range(removed.streets)}


def test_two_sources_serve_an_address_once_and_keep_the_other_aside(tmp_path: Path) -> None:
    """NAD and OpenAddresses points of one place: an address both hold is served once, from the source added
    first, with that source's provenance; the other's point is kept aside, so removing the first source gives
    exactly the index of the second alone."""
    oa = _records(2000, 7, source_tag="oa")
    rng = random.Random(8)
    nad = [r._replace(lon=r.lon + 1e-5, lat=r.lat - 1e-5, source_id=f"nad{i}") for i, r in enumerate(oa)
           if rng.random() < 0.5] + _records(500, 9, source_tag="nadonly")
    p_oa = _part_index(tmp_path, "us/il/springfield.csv", oa, source="openaddresses", date="2024-05-01")
    p_nad = _part_index(tmp_path, "NAD_r17.txt", nad, source="nad", date="2024-09-30")
    both = merge_indexes([p_oa, p_nad], tmp_path / "both.dqidx", dedupe=True)
    ix = ReferenceIndex(both.path)
    alone_oa, alone_nad = ReferenceIndex(p_oa), ReferenceIndex(p_nad)
    assert both.shadowed > 800 and ix.meta["aside"] == both.shadowed
    assert alone_oa.address_count < ix.address_count < alone_oa.address_count + alone_nad.address_count

    def key(x: ReferenceIndex, a: int) -> tuple[str, ...]:
        r = x.address(a)
        return (r.street.text, r.street.postcode, r.number, r.unit_desig, r.unit)

    oa_keys = {key(alone_oa, a) for a in range(alone_oa.address_count)}
    nad_keys = {key(alone_nad, a) for a in range(alone_nad.address_count)}
    by_key: dict[tuple[str, ...], set[str]] = {}
    for a in range(ix.address_count):
        by_key.setdefault(key(ix, a), set()).add(ix.part_of(a)["source"])
    assert set(by_key) == oa_keys | nad_keys  # every address of either source is served ...
    assert all(len(s) == 1 for s in by_key.values())  # ... from one source only
    kinds = {ix.part_of(a)["source"] for a in range(ix.address_count)}
    assert kinds == {"openaddresses", "nad"}
    for a in range(0, ix.address_count, 37):  # every point names its source and date
        p = ix.part_of(a)
        assert p["date"] == {"openaddresses": "2024-05-01", "nad": "2024-09-30"}[p["source"]]
        assert ix.address(a).source_id.startswith("oa" if p["source"] == "openaddresses" else "nad")
    for a in range(ix.address_count):  # an address OpenAddresses has is served from it
        if key(ix, a) in oa_keys:
            assert ix.part_of(a)["source"] == "openaddresses"
    without_oa = merge_indexes([MergeInput(both.path, drop_parts=frozenset({"us/il/springfield.csv"}))],
                               tmp_path / "nad-only.dqidx", dedupe=True)
    assert same_index(without_oa.path, p_nad, ignore_meta=["sources"]) == []
    # and adding NAD to an installed OpenAddresses index is the same as building both at once
    grown = merge_indexes([MergeInput(p_oa), p_nad], tmp_path / "grown.dqidx", dedupe=True)
    assert same_index(grown.path, both.path) == []


def test_a_run_file_is_not_an_index(tmp_path: Path) -> None:
    from dqkit.contract.errors import ReferenceDataError
    from dqkit.engines.address_index.runs import _Columns, finish

    cols = _Columns()
    cols.consume(iter(_stream([_records(50, 11)])), 0.0, None)
    finish(cols, tmp_path / "r.dqrun", synthetic=True, t0=0.0, run=True)
    with pytest.raises(ReferenceDataError, match="temporary run"):
        ReferenceIndex(tmp_path / "r.dqrun")
