"""Growing an installed reference without rebuilding it (issue 33, parts 3 and 4): a county or a state added,
replaced or removed gives exactly the index a full rebuild from the remaining inputs gives, without reading the
installed inputs again; NAD and OpenAddresses points of one place are merged, each address served once, every
point naming its source and date."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ref_layouts import nad_text, oa_csv_text

from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import InputError
from dqkit.engines.address_index import ReferenceIndex
from dqkit.engines.address_index.compare import array_differences, digest
from dqkit.reference.store import Manifest


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(oa_csv_text(rows), encoding="utf-8")
    return path


@pytest.fixture
def counties(tmp_path: Path, alameda: list[dict[str, str]], santa_clara: list[dict[str, str]],
             portland: list[dict[str, str]]) -> dict[str, Path]:
    """An OpenAddresses download of two states: us/ca/alameda.csv, us/ca/santa_clara.csv, us/or/portland_metro.csv."""
    dl = tmp_path / "dl" / "us"
    return {"alameda": _write(dl / "ca" / "alameda.csv", alameda),
            "santa_clara": _write(dl / "ca" / "santa_clara.csv", santa_clara),
            "portland": _write(dl / "or" / "portland_metro.csv", portland)}


def _rebuilt(tmp_path: Path, ref_id: str, *files: Path, **kw: object) -> tuple[Manifest, Path]:
    """The same inputs added at once, in a references folder of their own: the full rebuild."""
    import os

    here = os.environ["DQKIT_REFERENCE_DIR"]
    os.environ["DQKIT_REFERENCE_DIR"] = str(tmp_path / f"rebuild-{ref_id}")
    try:
        (m,) = reference.add(*files, id=ref_id, **kw)  # type: ignore[arg-type]
        return m, m.index_path
    finally:
        os.environ["DQKIT_REFERENCE_DIR"] = here


def _slow_readback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: reading an installed index back row by row (the old way to grow one) fails the test."""
    import dqkit.engines.address_index.readback as rb

    def refuse(*a: object, **k: object) -> object:
        raise AssertionError("the installed reference was read back row by row")

    monkeypatch.setattr(rb, "records_of_index", refuse)


def test_a_national_reference_grows_county_by_county_and_state_by_state(
        tmp_path: Path, counties: dict[str, Path], alameda: list[dict[str, str]],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _slow_readback(monkeypatch)
    # one id, two states: one reference, each file a part
    (m,) = reference.add(counties["alameda"], counties["portland"], id="us", complete=True)
    assert m.region == "" and [i.region for i in m.inputs] == ["CA", "OR"]
    assert {p["name"] for p in ReferenceIndex(m.index_path).parts} == {str(counties["alameda"]),
                                                                       str(counties["portland"])}
    # a county added: the installed inputs are not read again, and the index is the one a full add gives
    (m2,) = reference.add(counties["santa_clara"], id="us", append=True, complete=True)
    assert [i.name for i in m2.inputs] == [str(counties[k]) for k in ("alameda", "portland", "santa_clara")]
    full, full_ix = _rebuilt(tmp_path, "us", counties["alameda"], counties["portland"], counties["santa_clara"],
                             complete=True)
    assert array_differences(m2.index_path, full_ix) == []
    assert (m2.rows, m2.streets, m2.dropped, m2.complete_zips) == (full.rows, full.streets, full.dropped,
                                                                   full.complete_zips)
    assert m2.complete_zips  # vouched for (--complete): samples cover nothing by themselves (issue 28)
    engine = reference.open_installed()
    for text in ("2653 Meridian Ave, San Jose, CA 95124", "516 Centre Ct, Alameda, CA 94502"):
        assert engine.validate(SearchRequest.of(text)).result.confidence == Confidence.VERIFIED_MATCH, text
    # a county replaced (the same file downloaded again, changed): only it is read
    _write(counties["alameda"], alameda[:3000])
    (m3,) = reference.add(counties["alameda"], id="us", append=True, complete=True)
    assert [i.name for i in m3.inputs] == [str(counties[k]) for k in ("portland", "santa_clara", "alameda")]
    assert m3.rows < m2.rows
    full3, full3_ix = _rebuilt(tmp_path, "us3", counties["portland"], counties["santa_clara"], counties["alameda"],
                               complete=True)
    assert array_differences(m3.index_path, full3_ix) == []
    assert (m3.rows, m3.dropped, m3.complete_zips) == (full3.rows, full3.dropped, full3.complete_zips)
    # a county removed, then a state removed (from the command line)
    m4 = reference.remove("us", part="santa_clara.csv")
    full4, full4_ix = _rebuilt(tmp_path, "us4", counties["portland"], counties["alameda"], complete=True)
    assert array_differences(m4.index_path, full4_ix) == [] and len(m4.inputs) == 2
    assert (m4.rows, m4.dropped, m4.complete_zips) == (full4.rows, full4.dropped, full4.complete_zips)
    assert main(["reference", "remove", "us", "--region", "OR", "--quiet"]) == 0
    assert "removed OR from us" in capsys.readouterr().out
    m5 = reference.info("us")
    full5, full5_ix = _rebuilt(tmp_path, "us5", counties["alameda"], complete=True)
    assert array_differences(m5.index_path, full5_ix) == [] and m5.region == "CA"
    assert (m5.rows, m5.dropped, m5.complete_zips) == (full5.rows, full5.dropped, full5.complete_zips)
    with pytest.raises(InputError, match=r"has no input 'nowhere\.csv'"):
        reference.remove("us", part="nowhere.csv")
    with pytest.raises(InputError, match="leave us empty"):
        reference.remove("us", region="CA")
    assert reference.info("us").rows == m5.rows  # a refused removal changes nothing


def test_nad_and_openaddresses_merged_each_address_once_with_its_source(
        tmp_path: Path, alameda: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """NAD appended to an OpenAddresses county: the addresses both hold are served once, from OpenAddresses (added
    first); NAD adds what OpenAddresses lacks; every point names its source and date; the manifest and every
    answer name both; removing OpenAddresses gives the index of NAD alone."""
    _slow_readback(monkeypatch)
    usable = [r for r in alameda if r["POSTCODE"] and r["LON"] and r["CITY"]]
    oa_rows, nad_rows = usable[:3000], usable[2000:4000]  # 1,000 addresses in both
    nad_rows = [{**r, "LON": f"{float(r['LON']) + 2e-5:.7f}"} for r in nad_rows]  # NAD's own rooftop points
    oa = _write(tmp_path / "dl" / "us" / "ca" / "alameda.csv", oa_rows)
    nad = tmp_path / "nad" / "NAD_r17.txt"
    nad.parent.mkdir()
    nad.write_text(nad_text([("CA", "Alameda", nad_rows)]), encoding="utf-8")
    (m_oa,) = reference.add(oa, id="alameda")
    (m,) = reference.add(nad, source="nad", state="CA", id="alameda", append=True)
    assert m.source == "openaddresses+nad" and "National Address Database" in m.attribution
    ix = ReferenceIndex(m.index_path)
    assert {p["source"] for p in ix.parts} == {"openaddresses", "nad"}
    both = sum(1 for _ in range(ix.address_count))
    assert m_oa.rows < both < m_oa.rows + 2000 and ix.meta["aside"] >= 900 and m.dropped["duplicate"] >= 900
    lines: dict[str, set[str]] = {}
    for a in range(ix.address_count):
        r = ix.address(a)
        lines.setdefault(f"{r.line}|{r.street.postcode}", set()).add(ix.part_of(a)["source"])
    assert all(len(s) == 1 for s in lines.values())  # no address served from both sources
    nad_only = [a for a in range(ix.address_count) if ix.part_of(a)["source"] == "nad"]
    assert 500 < len(nad_only) < 1100 and all(ix.part_of(a)["date"].startswith("2023-") for a in nad_only)
    shared = usable[2500]
    got = reference.open_installed().validate(SearchRequest.of(
        f"{shared['NUMBER']} {shared['STREET']} {shared['UNIT']}, {shared['CITY']} CA {shared['POSTCODE']}"))
    assert got.result.confidence == Confidence.VERIFIED_MATCH
    assert "alameda" in reference.describe() and "openaddresses+nad" in reference.describe()
    # the answer for a point says which source it is from, and of when (Add-Metadata: address_info.sources)
    engine = reference.open_installed()
    for a, want in ((nad_only[0], "nad 2023-"), (next(a for a in range(ix.address_count)
                                                       if ix.part_of(a)["source"] == "openaddresses"),
                                                  "openaddresses ")):
        r = ix.address(a)
        text = f"{r.line}, {r.street.city} CA {r.street.postcode}"
        key = engine.validate(SearchRequest.of(text)).result.global_address_key
        meta = engine.format(key, None, AddOns(metadata=True)).metadata
        assert meta is not None and meta.address_info is not None and meta.address_info.sources
        assert meta.address_info.sources[0].startswith(want), (text, meta.address_info.sources)
    # OpenAddresses taken out: what NAD alone gives (its points kept aside come back)
    m2 = reference.remove("alameda", part="alameda.csv")
    (alone,) = reference.add(nad, source="nad", state="CA", id="nad-alone")
    assert digest(m2.index_path) == digest(alone.index_path)
    assert m2.rows == alone.rows


def test_an_index_from_before_parts_still_grows_by_reading_it_back(tmp_path: Path,
                                                                   counties: dict[str, Path]) -> None:
    """An install made before indexes had parts: appending still works (read back, as then); removing a part is
    refused with what to do."""
    (m,) = reference.add(counties["alameda"], id="old")
    from dqkit.engines.address_index.build import build_index

    legacy = tmp_path / "legacy.dqidx"
    build_index([counties["alameda"]], legacy, country_iso2="US")
    import json

    from dqkit.engines.address_index.container import Container, write_container

    c = Container(legacy)
    meta = {k: v for k, v in c.meta.items() if k != "parts"}
    arrays = {k: v for k, v in c.arrays.items() if k != "a.part"}
    write_container(m.index_path, arrays, meta)
    (m2,) = reference.add(counties["santa_clara"], id="old", append=True)
    assert m2.rows > m.rows and json.loads(m2.to_json())["inputs"][0]["name"] == str(counties["alameda"])
    shutil.copyfile(m2.index_path, tmp_path / "keep.dqidx")
    write_container(m2.index_path, {k: v for k, v in Container(tmp_path / "keep.dqidx").arrays.items()
                                    if k != "a.part"},
                    {k: v for k, v in Container(tmp_path / "keep.dqidx").meta.items() if k != "parts"})
    with pytest.raises(InputError, match="built before references had parts"):
        reference.remove("old", part="alameda.csv")
