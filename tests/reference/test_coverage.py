"""What the lead engine may claim from an installed reference (issue 20 parts 4 and 5, issue 28 part 2): a street is
"not found" only in a ZIP the reference covers completely, and coverage comes from evidence, not from a file's name:
a county source whose rows look whole there (addresses per street), or the user's `--complete`. A sample named after
its county (`alameda.csv`, 5,306 rows of Alameda County) covers nothing: a street it lacks is "not checked" (ELS
103, no S102); so does `--partial`; a ZIP outside every reference stays 103; and no address is called residential
(650) by data that has no residential flag."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

import dqkit
from dqkit import reference
from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest
from dqkit.engines import zipdata
from dqkit.reference.coverage import MIN_ADDRESSES, MIN_PER_STREET

CITY_HALL = dict(first_name="Ann", last_name="Lee", street1="1 Frank H Ogawa Plz", city="Oakland", state="CA",
                 zip="94612")  # real, and not in the shared Alameda sample
HEADER = ["LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID"]


def _sample(shared_dir: Path, tmp_path: Path, name: str) -> Path:
    dst = tmp_path / "dl" / "us" / "ca" / f"{name}.csv"
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shared_dir / "data" / "openaddresses" / f"{name}.csv", dst)
    return dst


def _dense(path: Path, zips: dict[str, str], per_zip: int = 150, streets: int = 10) -> Path:
    """A county file whose rows look whole: `per_zip` addresses on `streets` streets in each ZIP (city by ZIP),
    at the ZIP's centroid (made up for the test: dense on purpose)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for zip5, city in zips.items():
            z = zipdata.zip_info(zip5)
            assert z is not None
            for i in range(per_zip):
                w.writerow([f"{float(z.lng) + i * 1e-5:.7f}", f"{float(z.lat):.7f}", 100 + 2 * i,
                            f"TESTWOOD {i % streets} ST", "", city, "", "CA", zip5, f"{zip5}-{i}"])
    return path


def _els(msg: object) -> str:
    return msg.stage1_data.residential_address_verification_result  # type: ignore[attr-defined, no-any-return]


def test_a_county_sample_covers_nothing_whatever_its_name(shared_dir: Path, tmp_path: Path) -> None:
    """Issue 28: the 5,306-row sample declared 48 ZIPs complete from its name on the start commit."""
    (m,) = reference.add(_sample(shared_dir, tmp_path, "alameda"), progress=False)
    assert not m.partial and m.complete_zips == [], m.complete_zips
    leads = dqkit.LocalBackend().lead_engine
    for street1 in ("1 Frank H Ogawa Plz", "820 Talwrn Ct", "99999 19th St"):
        got = leads.verify(LeadRequest(**dict(CITY_HALL, street1=street1)))
        assert got.message.result_code != "S102" and _els(got) == "103", (street1, got.message)


def test_a_sample_of_another_county_never_makes_a_real_address_not_found(shared_dir: Path, tmp_path: Path) -> None:
    """Issue 28: "1 Infinite Loop, Cupertino" was S102 "street not found" from the Santa Clara sample."""
    reference.add(_sample(shared_dir, tmp_path, "santa_clara"), progress=False)
    got = dqkit.LocalBackend().lead_engine.verify(LeadRequest(first_name="Ann", last_name="Lee",
                                                              street1="1 Infinite Loop", city="Cupertino",
                                                              state="CA", zip="95014"))
    assert got.message.result_code != "S102" and _els(got) == "103", got.message


def test_the_user_vouches_with_complete_and_takes_it_back_with_partial(shared_dir: Path, tmp_path: Path) -> None:
    src = _sample(shared_dir, tmp_path, "alameda")
    (full,) = reference.add(src, progress=False, complete=True)
    assert "94612" in full.complete_zips and "94501" in full.complete_zips and full.options["complete"] is True
    told = dqkit.LocalBackend().lead_engine.verify(LeadRequest(**CITY_HALL))
    assert told.message.result_code == "S102" and _els(told) == "490"  # the user said it is whole
    (sample,) = reference.add(src, progress=False, partial=True, replace=True)
    assert sample.partial and sample.complete_zips == []
    city_hall = dqkit.LocalBackend().lead_engine.verify(LeadRequest(**CITY_HALL))
    assert city_hall.message.result_code != "S102" and _els(city_hall) == "103"
    with pytest.raises(InputError, match="contradict"):
        reference.add(src, progress=False, partial=True, complete=True, replace=True)


def test_a_whole_county_source_covers_the_zips_its_rows_show_whole(tmp_path: Path) -> None:
    """A county file dense enough to be whole (MIN_ADDRESSES a ZIP, MIN_PER_STREET a street) covers its county's
    ZIPs; not a ZIP of another county, not a ZIP whose city reaches into another county (Palo Alto), not a ZIP of
    the county whose rows are sparse."""
    assert MIN_ADDRESSES <= 150 and MIN_PER_STREET <= 15
    zips = {"95124": "SAN JOSE", "94301": "PALO ALTO", "94577": "SAN LEANDRO"}
    path = _dense(tmp_path / "dl" / "us" / "ca" / "santa_clara.csv", zips)
    with open(path, "a", newline="") as f:  # a sparse ZIP of the county: one address a street
        w = csv.writer(f)
        z = zipdata.zip_info("95125")
        assert z is not None
        for i in range(150):
            w.writerow([z.lng, z.lat, 10, f"SPARSE {i} AVE", "", "SAN JOSE", "", "CA", "95125", f"s-{i}"])
    (m,) = reference.add(path, progress=False)
    assert m.complete_zips == ["95124"], m.complete_zips  # 94301: two counties; 94577: Alameda; 95125: sparse
    got = dqkit.LocalBackend().lead_engine.verify(LeadRequest(first_name="Ann", last_name="Lee",
                                                              street1="820 Talwrn Ct", city="San Jose", state="CA",
                                                              zip="95124"))
    assert got.message.result_code == "S102" and _els(got) == "490"
    pa = dqkit.LocalBackend().lead_engine.verify(LeadRequest(first_name="Ann", last_name="Lee",
                                                             street1="820 Talwrn Ct", city="Palo Alto", state="CA",
                                                             zip="94301"))
    assert pa.message.result_code != "S102" and _els(pa) == "103"


def test_rows_of_one_address_are_no_more_of_a_zip(shared_dir: Path, tmp_path: Path) -> None:
    """Wholeness counts addresses (a house number on a street), not rows: a sparse ZIP (two addresses a street)
    whose rows are a building's units, or the same point written again (a file merged from two sources), is no
    more whole. On the start commit (58338f9) both were declared complete (rows: 6 a street, 120 in the ZIP);
    benchmarks/bench_coverage.py: the Alameda sample with each row written three times had 13 of 50 ZIPs
    declared complete."""
    z = zipdata.zip_info("95124")
    assert z is not None
    for kind, unit_of in (("units", lambda k: f"APT {k + 1}"), ("copies", lambda k: "")):
        path = tmp_path / kind / "dl" / "us" / "ca" / "santa_clara.csv"
        path.parent.mkdir(parents=True)
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(HEADER)
            for i in range(40):  # 40 addresses on 20 streets, each written three times
                for k in range(3):
                    w.writerow([f"{float(z.lng) + i * 1e-4:.7f}", f"{float(z.lat) + k * 1e-6:.7f}", 100 + 2 * i,
                                f"SPARSEWOOD {i % 20} ST", unit_of(k), "SAN JOSE", "", "CA", "95124",
                                f"{kind}-{i}-{k}"])
        (m,) = reference.add(path, progress=False, replace=True)
        assert m.complete_zips == [], (kind, m.complete_zips)


def test_a_file_of_another_kind_covers_nothing_unless_vouched(tmp_path: Path) -> None:
    """Your own CSV (tabular, with a mapping) is no source the catalogue knows to be whole, however dense."""
    path = _dense(tmp_path / "mine" / "customers.csv", {"95124": "SAN JOSE"})
    mapping = {"number": "NUMBER", "street": "STREET", "city": "CITY", "region": "REGION", "postcode": "POSTCODE",
               "lon": "LON", "lat": "LAT"}
    (m,) = reference.add(path, progress=False, mapping=mapping)
    assert m.source == "tabular" and m.complete_zips == []
    (v,) = reference.add(path, progress=False, mapping=mapping, complete=True, replace=True)
    assert v.complete_zips == ["95124"]


def test_claims_only_the_data_supports(shared_dir: Path, tmp_path: Path) -> None:
    reference.add(_sample(shared_dir, tmp_path, "alameda"), progress=False)
    leads = dqkit.LocalBackend().lead_engine
    real = leads.verify(LeadRequest(**dict(CITY_HALL, street1="633 19th St")))
    assert real.message.result_code == "S100"
    assert _els(real) == "101"  # found, but OpenAddresses says nothing of homes: not 650 "residential"
    elsewhere = leads.verify(LeadRequest(first_name="Ann", last_name="Lee", street1="1 Main St", city="Springfield",
                                         state="IL", zip="62701"))
    assert _els(elsewhere) == "103"  # a ZIP outside every reference: not checked, not 660 "not in the database"


def test_the_address_engine_notes_follow_coverage(shared_dir: Path, tmp_path: Path) -> None:
    from dqkit.contract.address import Confidence, SearchRequest

    src = _sample(shared_dir, tmp_path, "alameda")
    text = "1 Frank H Ogawa Plz, Oakland, CA 94612"
    reference.add(src, progress=False, complete=True)
    got = reference.open_installed().validate(SearchRequest.of(text))
    assert got.result.confidence != Confidence.VERIFIED_MATCH
    assert "not found in ZIP 94612 of reference openaddresses-us-ca-alameda" in got.note
    for how in ({"partial": True}, {}):  # said partial, or said nothing: a sample
        reference.add(src, progress=False, replace=True, **how)  # type: ignore[arg-type]
        got = reference.open_installed().validate(SearchRequest.of(text))
        assert got.result.confidence != Confidence.VERIFIED_MATCH
        assert "not checked: reference openaddresses-us-ca-alameda holds only part of ZIP 94612" in got.note
        assert "not found" not in got.note
