"""The reference index: import, country from the path, persistence, the standardizer's PointSource, errors."""

from __future__ import annotations

import gzip
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dqkit.cli import main as cli
from dqkit.contract.errors import InputError, ReferenceDataError
from dqkit.engines.address import AddressEngine
from dqkit.engines.address_index import ReferenceIndex, build_index, source_of
from dqkit.engines.usaddr import PointSource, standardize


@pytest.mark.parametrize(("path", "country", "region"), [
    ("oa/us/ca/alameda.csv", "US", "CA"),
    ("us/ca/alameda.csv.gz", "US", "CA"),
    ("data/ca/points.csv", "CA", ""),
    ("gb/points.csv", "GB", ""),
    ("downloads/alameda.csv", "US", ""),
    ("alameda.csv", "US", ""),
])
def test_country_from_the_openaddresses_path(path: str, country: str, region: str) -> None:
    src = source_of(path)
    assert (src.iso2, src.region) == (country, region)


def test_explicit_country_wins() -> None:
    assert source_of("us/ca/alameda.csv", "gb").iso2 == "GB"
    with pytest.raises(InputError):
        source_of("x.csv", "ZZ")


def test_gzip_and_plain_give_the_same_index(tmp_path: Path, us_rows: list[tuple[object, ...]],
                                            oa_writer: Callable[..., Path]) -> None:
    plain = oa_writer(tmp_path / "us" / "il" / "springfield.csv", us_rows)
    gz = tmp_path / "us" / "il" / "springfield.csv.gz"
    with open(plain, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    a = build_index([plain], tmp_path / "a.dqidx")
    b = build_index([gz], tmp_path / "b.dqidx")
    assert a.addresses == b.addresses == len(us_rows)
    ia, ib = ReferenceIndex(a.path), ReferenceIndex(b.path)
    assert [ia.address(i).line for i in range(20)] == [ib.address(i).line for i in range(20)]
    assert ia.build_id != ib.build_id  # every build gets its own key space


def test_street_forms_are_publication_28(engine: AddressEngine) -> None:
    ix = engine.index
    lines = {ix.address(a).line for a in range(ix.address_count)}
    assert "350 5TH AVE" in lines and "1200 MAIN ST APT 7" in lines and "1600 PENNSYLVANIA AVE NW" in lines


def test_index_is_the_standardizers_point_source(engine: AddressEngine) -> None:
    ix = engine.index
    assert isinstance(ix, PointSource)
    pts = ix.points_on_street("62701", "MAIN")
    assert len(pts) == 43 and {p.street.suffix for p in pts} == {"ST"}
    assert {p.city for p in pts} == {"SPRINGFIELD"} and {p.state for p in pts} == {"IL"}
    assert ix.points_on_street("62701", "NO SUCH") == () and ix.points_on_street("00000", "MAIN") == ()
    assert set(ix.street_names("62701")) == {"MAIN"}
    assert ix.street_names("99999") == ()
    st = standardize("1201 main street springfield il 62701", points=ix)
    assert st.point_id and st.address.street1 == "1201 MAIN ST"


def test_opening_is_instant_and_needs_no_source(ref_files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "x.dqidx"
    build_index(list(ref_files.values()), out)
    t = time.perf_counter()
    for _ in range(20):
        ReferenceIndex(out)
    assert time.perf_counter() - t < 2  # generous: about a millisecond each, even on a busy machine
    copy = tmp_path / "moved.dqidx"
    shutil.copy(out, copy)
    assert ReferenceIndex(copy).address_count == ReferenceIndex(out).address_count


def test_bad_files_get_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        build_index([tmp_path / "missing.csv"], tmp_path / "o.dqidx")
    bad = tmp_path / "bad.csv"
    bad.write_text("A,B\n1,2\n")
    with pytest.raises(InputError, match="NUMBER and STREET"):
        build_index([bad], tmp_path / "o.dqidx")
    empty = tmp_path / "empty.csv"
    empty.write_text("LON,LAT,NUMBER,STREET\n")
    with pytest.raises(InputError, match="no usable address"):
        build_index([empty], tmp_path / "o.dqidx")
    with pytest.raises(InputError, match="no reference files"):
        build_index([], tmp_path / "o.dqidx")


def test_bad_indexes_get_clear_errors(tmp_path: Path, ref_files: dict[str, Path]) -> None:
    with pytest.raises(ReferenceDataError, match="does not exist"):
        ReferenceIndex(tmp_path / "nope.dqidx")
    junk = tmp_path / "junk.dqidx"
    junk.write_bytes(b"hello world, not an index at all")
    with pytest.raises(ReferenceDataError, match="not a dqkit reference index"):
        ReferenceIndex(junk)
    good = tmp_path / "good.dqidx"
    build_index([ref_files["us"]], good)
    cut = tmp_path / "cut.dqidx"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ReferenceDataError, match="truncated"):
        ReferenceIndex(cut)


def test_rows_without_street_are_skipped_and_cities_filled_from_zip(tmp_path: Path) -> None:
    f = tmp_path / "us" / "or" / "portland.csv"
    f.parent.mkdir(parents=True)
    f.write_text("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n"
                 "-122.8,45.4,14824,SW SCHOLLS FERRY RD,# 101,,,,97007,,ba9f\n"
                 "-122.8,45.4,,,,,,,97007,,zz\n")
    r = build_index([f], tmp_path / "p.dqidx")
    assert r.addresses == 1
    row = ReferenceIndex(r.path).address(0)
    assert (row.street.city, row.street.region, row.unit_desig, row.unit) == ("BEAVERTON", "OR", "#", "101")
    assert row.source_id == "ba9f"


def test_cli_index_build_and_info(ref_files: dict[str, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.dqidx"
    assert cli(["index", "build", str(ref_files["us"]), str(ref_files["gb"]), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "us-address" in said and "gb-address" in said
    assert cli(["index", "info", str(out)]) == 0
    assert "gb-address" in capsys.readouterr().out
    assert cli(["index", "build", str(tmp_path / "missing.csv"), "-o", str(out)]) == 1
    assert "does not exist" in capsys.readouterr().err
    # --country the points contradict is refused, naming both (issue 29: a reference knows where it is)
    assert cli(["index", "build", str(ref_files["us"]), "--country", "gb", "-o", str(out)]) == 1
    assert "--country GB (United Kingdom), but its addresses are in US: " in capsys.readouterr().err
    assert cli(["index", "build", str(ref_files["gb"]), "--country", "gb", "-o", str(out)]) == 0
    assert [d.id for d in ReferenceIndex(out).datasets] == ["gb-address"]


def test_build_from_records_in_memory(tmp_path: Path) -> None:
    from dqkit.engines.address_index import Record, build_from_records

    rec = Record("24", "", "SUSSEX DRIVE", "", "", "", "", "OTTAWA", "ON", "K1M 1M4", -75.69, 45.44, "x1", "",
                 "", "")
    r = build_from_records([("CA", rec)], tmp_path / "m.dqidx", synthetic=True, sources=["memory"])
    ix = ReferenceIndex(r.path)
    assert r.datasets == {"ca-address": 1} and ix.meta["sources"] == ["memory"]
    assert ix.datasets[0].synthetic and ix.address(0).line == "24 SUSSEX DRIVE"
    assert ix.points_on_street("K1M 1M4", "SUSSEX DRIVE") == ()  # the standardizer's source is US only


def test_source_ids_are_gathered_like_pack_strings() -> None:
    """The build keeps source ids as bytes + lengths (not a str per row) and reorders them in chunks."""
    import random

    import numpy as np

    from dqkit.engines.address_index.runs import _SID_FLUSH, _StringColumn
    from dqkit.engines.address_index.strings import pack_strings

    rng = random.Random(5)
    alphabet = "abcXYZ0123-é北"
    strs = ["".join(rng.choices(alphabet, k=rng.randint(0, 12))) for _ in range(_SID_FLUSH + 5000)]
    col = _StringColumn()
    for s in strs:
        col.append(s)
    assert len(col) == len(strs)
    order = np.random.default_rng(3).permutation(len(strs)).astype(np.int64)
    blob, off = col.packed(order)
    want_blob, want_off = pack_strings([strs[i] for i in order.tolist()])
    assert np.array_equal(blob, want_blob) and np.array_equal(off, want_off) and off.dtype == want_off.dtype


def test_streamed_build_keeps_every_field_of_every_record(tmp_path: Path) -> None:
    """Records arrive as a stream (a generator, never a list), cross the column flush size, and come back
    intact, with each street's addresses sorted by house number."""
    from dqkit.engines.address_index import Record, build_from_records
    from dqkit.engines.address_index.runs import _SID_FLUSH

    n = _SID_FLUSH + 3000

    def stream() -> Iterator[tuple[str, Record]]:
        for i in range(n):
            unit = ("APT", str(i % 7)) if i % 5 == 0 else ("", "")
            yield "US", Record(str(n - i), "", f"ELM{i % 13}", "ST", "", unit[0], unit[1], "SPRINGFIELD", "IL",
                               "62701", -89.6 - i * 1e-6, 39.8, f"id-{i}-ü", "1234" if i % 3 == 0 else "", "", "")

    r = build_from_records(stream(), tmp_path / "s.dqidx")
    ix = ReferenceIndex(r.path)
    assert r.addresses == ix.address_count == n and r.streets == 13
    seen = set()
    for a in range(0, n, 97):
        row = ix.address(a)
        i = int(row.source_id.split("-")[1])
        seen.add(i)
        assert row.source_id == f"id-{i}-ü" and row.number == str(n - i)
        assert row.street.name == f"ELM{i % 13}" and row.lon == -89.6 - i * 1e-6
        assert (row.unit_desig, row.unit) == (("APT", str(i % 7)) if i % 5 == 0 else ("", ""))
        assert row.zip4 == ("1234" if i % 3 == 0 else "")
    assert len(seen) > 600
    for s in range(ix.street_count):
        lo, hi = ix.street(s).lo, ix.street(s).hi
        nums = ix.a_numint[lo:hi]
        assert (nums[1:] >= nums[:-1]).all()


def test_large_builds_report_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A state-sized build takes minutes: it says how many rows it has read, then each phase."""
    from dqkit.engines.address_index import Record, build_from_records
    from dqkit.engines.address_index import runs as build_mod

    rec = Record("1", "", "MAIN", "ST", "", "", "", "SPRINGFIELD", "IL", "62701", -89.6, 39.8, "", "", "", "")
    said: list[str] = []
    monkeypatch.setattr(build_mod, "_PROGRESS_ROWS", 1000)
    build_from_records((("US", rec._replace(number=str(i), source_id=f"r{i}")) for i in range(2500)),
                       tmp_path / "p.dqidx", progress=said.append)
    assert said[0].startswith("1,000 rows read") and said[1].startswith("2,000 rows read")
    assert said[2].startswith("2,500 rows, 1 streets: sorting") and said[-1].startswith("writing ")
