"""The other source kinds, each in its real layout: the NAD text release (streamed, filtered by state and county),
Overture Maps GeoParquet (local files and folders, the addresses schema), and any CSV / Parquet with a mapping."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from ref_layouts import NAD_HEADER, nad_text, oa_csv_text, overture_table, write_parquet

from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.errors import InputError


def _validate(text: str) -> str:
    return str(reference.open_installed().validate(SearchRequest.of(text)).result.confidence)


def test_nad_text_release_filtered_by_state_and_county(tmp_path: Path, alameda: list[dict[str, str]],
                                                      santa_clara: list[dict[str, str]],
                                                      portland: list[dict[str, str]],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text = nad_text([("CA", "Alameda", alameda), ("CA", "Santa Clara", santa_clara), ("OR", "Washington", portland)])
    assert next(csv.reader(io.StringIO(text))) == NAD_HEADER
    release = tmp_path / "NAD_r18_TXT.zip"
    with zipfile.ZipFile(release, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("TXT/NAD_r18.txt", text)
        zf.writestr("TXT/schema.ini", "[NAD_r18.txt]\nFormat=CSVDelimited\n")
    assert main(["reference", "add", str(release), "--state", "CA", "--county", "Alameda County", "--quiet"]) == 0
    assert "installed nad-us-ca" in capsys.readouterr().out
    m = reference.info("nad-us-ca")
    assert (m.source, m.region, m.rows) == ("nad", "CA", 5300)
    assert m.inputs[0].rows_read == len(alameda) + len(santa_clara) + len(portland)  # every row read, few kept
    assert m.source_date == "2023-09-15"  # the newest DateUpdate of the rows kept
    assert "public domain" in m.licence and "--county" in m.command
    r = alameda[3]
    assert _validate(f"{r['NUMBER']} {r['STREET']}, {r['CITY']} CA {r['POSTCODE']}") == Confidence.VERIFIED_MATCH
    sc = santa_clara[0]  # filtered out: not in the reference
    assert _validate(f"{sc['NUMBER']} {sc['STREET']}, {sc['CITY']} CA {sc['POSTCODE']}") != Confidence.VERIFIED_MATCH

    plain = tmp_path / "NAD_r18.txt"
    plain.write_text(text, encoding="utf-8")
    (whole_state,) = reference.add(plain, state="OR", id="nad-oregon")
    assert whole_state.rows == 767 and whole_state.source == "nad"
    with pytest.raises(InputError, match="--county needs --state"):
        reference.add(plain, source="nad", county="Alameda")
    not_nad = tmp_path / "other.txt"
    not_nad.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(InputError, match=r"other\.txt, line 1: not a NAD text file \(no column Add_Number"):
        reference.add(not_nad, source="nad", state="CA", id="other")


def test_overture_geoparquet_from_a_local_folder(tmp_path: Path, alameda: list[dict[str, str]],
                                                 portland: list[dict[str, str]]) -> None:
    release = tmp_path / "overture" / "release" / "2024-08-20.0" / "theme=addresses" / "type=address"
    write_parquet(overture_table(alameda, "CA"), release / "part-00000.zstd.parquet")
    write_parquet(overture_table(portland, "OR"), release / "part-00001.zstd.parquet")
    (m,) = reference.add(tmp_path / "overture", country="US", region="CA")
    assert (m.id, m.source, m.rows, m.source_date) == ("overture-us-ca", "overture", 5300, "2024-08-20")
    # the country filter is pushed down; the region (address_levels[0]) is checked per row
    assert [i.rows_read for i in m.inputs] == [5305, 767] and [i.rows_kept for i in m.inputs] == [5300, 0]
    r = alameda[10]
    assert _validate(f"{r['NUMBER']} {r['STREET']}, {r['CITY']} CA {r['POSTCODE']}") == Confidence.VERIFIED_MATCH
    # a bbox around Portland keeps only Oregon rows, read from the parquet statistics and the bbox column
    (p,) = reference.add(release / "part-00001.zstd.parquet", bbox=(-123.5, 45.0, -122.0, 46.0), country="US",
                         region="OR")
    inside = sum(1 for r in portland if -123.5 <= float(r["LON"]) <= -122.0 and 45.0 <= float(r["LAT"]) <= 46.0)
    assert 0 < inside < 767 and p.rows == inside
    with pytest.raises(InputError, match="give --country"):
        reference.add(tmp_path / "overture", source="overture")


def test_own_csv_and_parquet_with_a_column_mapping(tmp_path: Path, alameda: list[dict[str, str]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"house_no": r["NUMBER"], "st_name": r["STREET"], "apt": r["UNIT"], "town": r["CITY"],
             "zip": r["POSTCODE"], "x": r["LON"], "y": r["LAT"], "pid": r["ID"]} for r in alameda]
    path = tmp_path / "points.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter=";")
        w.writeheader()
        w.writerows(rows)
    mapping = ["number=house_no", "street=st_name", "unit=apt", "city=town", "postcode=zip", "lon=x", "lat=y",
               "id=pid"]
    args = ["reference", "add", str(path), "--region", "CA", "--id", "county-points", "--quiet"]
    assert main([*args[:3], *[a for m in mapping for a in ("--map", m)], *args[3:]]) == 0
    m = reference.info("county-points")
    assert (m.source, m.rows, m.region) == ("tabular", 5300, "CA") and m.options["mapping"] == mapping
    r = alameda[20]
    assert _validate(f"{r['NUMBER']} {r['STREET']} {r['POSTCODE']}") == Confidence.VERIFIED_MATCH

    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "points.parquet", row_group_size=2000)
    (pm,) = reference.add(tmp_path / "points.parquet", mapping={"number": "house_no", "street": "st_name",
                                                                 "postcode": "zip"}, region="CA", id="pq")
    assert pm.rows == 5300
    with pytest.raises(InputError, match=r"points\.csv, line 1: no column 'street_name'"):
        reference.add(path, mapping=["street=street_name"])
    with pytest.raises(InputError, match="unknown field 'colour'"):
        reference.add(path, mapping=["street=st_name", "colour=x"])
    assert oa_csv_text(alameda[:1]).startswith("LON,LAT")
