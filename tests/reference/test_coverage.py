"""What the lead engine may claim from an installed reference (issue 20 parts 4 and 5): a street is "not found"
only in a ZIP the reference covers completely (an OpenAddresses county file, for its county); in a partial one (a
sample, `--partial`) it is "not checked" (ELS 103, no S102); a ZIP outside every reference stays 103; and no
address is called residential (650) by data that has no residential flag."""

from __future__ import annotations

import shutil
from pathlib import Path

import dqkit
from dqkit import reference
from dqkit.contract.lead import LeadRequest
from dqkit.engines import zipdata

CITY_HALL = dict(first_name="Ann", last_name="Lee", street1="1 Frank H Ogawa Plz", city="Oakland", state="CA",
                 zip="94612")  # real, and not in the shared Alameda sample


def _alameda(shared_dir: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "dl" / "us" / "ca" / "alameda.csv"
    dst.parent.mkdir(parents=True)
    shutil.copyfile(shared_dir / "data" / "openaddresses" / "alameda.csv", dst)
    return dst


def _els(msg: object) -> str:
    return msg.stage1_data.residential_address_verification_result  # type: ignore[attr-defined, no-any-return]


def test_a_county_file_covers_its_county_and_a_sample_covers_nothing(shared_dir: Path, tmp_path: Path) -> None:
    src = _alameda(shared_dir, tmp_path)
    (full,) = reference.add(src, progress=False)
    assert not full.partial and "94612" in full.complete_zips and "94501" in full.complete_zips
    assert {zipdata.zip_info(z).county for z in full.complete_zips} == {"ALAMEDA COUNTY"}  # type: ignore[union-attr]
    leads = dqkit.LocalBackend().lead_engine
    told = leads.verify(LeadRequest(**CITY_HALL))  # complete, as the user said by not saying --partial
    assert told.message.result_code == "S102" and _els(told) == "490"

    (sample,) = reference.add(src, progress=False, partial=True, replace=True)
    assert sample.partial and sample.complete_zips == [] and sample.options["partial"] is True
    leads = dqkit.LocalBackend().lead_engine
    city_hall = leads.verify(LeadRequest(**CITY_HALL))
    assert city_hall.message.result_code != "S102" and _els(city_hall) == "103"  # not checked, never not valid
    made_up = leads.verify(LeadRequest(**dict(CITY_HALL, street1="820 Talwrn Ct")))
    assert made_up.message.result_code != "S102" and _els(made_up) == "103"
    no_number = leads.verify(LeadRequest(**dict(CITY_HALL, street1="99999 19th St")))
    assert no_number.message.result_code != "S102" and _els(no_number) == "103"


def test_claims_only_the_data_supports(shared_dir: Path, tmp_path: Path) -> None:
    reference.add(_alameda(shared_dir, tmp_path), progress=False)
    leads = dqkit.LocalBackend().lead_engine
    real = leads.verify(LeadRequest(**dict(CITY_HALL, street1="633 19th St")))
    assert real.message.result_code == "S100"
    assert _els(real) == "101"  # found, but OpenAddresses says nothing of homes: not 650 "residential"
    elsewhere = leads.verify(LeadRequest(first_name="Ann", last_name="Lee", street1="1 Main St", city="Springfield",
                                         state="IL", zip="62701"))
    assert _els(elsewhere) == "103"  # a ZIP outside every reference: not checked, not 660 "not in the database"


def test_a_file_named_after_no_county_covers_nothing_completely(shared_dir: Path, tmp_path: Path) -> None:
    dst = tmp_path / "dl" / "us" / "or" / "portland_metro.csv"
    dst.parent.mkdir(parents=True)
    shutil.copyfile(shared_dir / "data" / "openaddresses" / "portland_metro.csv", dst)
    (m,) = reference.add(dst, progress=False)
    assert m.complete_zips == [] and not m.partial
    got = dqkit.LocalBackend().lead_engine.verify(LeadRequest(first_name="Ann", last_name="Lee",
                                                              street1="820 Talwrn Ct", city="Beaverton", state="OR",
                                                              zip="97007"))
    assert got.message.result_code != "S102" and _els(got) == "103"


def test_the_address_engine_notes_follow_coverage(shared_dir: Path, tmp_path: Path) -> None:
    from dqkit.contract.address import Confidence, SearchRequest

    src = _alameda(shared_dir, tmp_path)
    text = "1 Frank H Ogawa Plz, Oakland, CA 94612"
    reference.add(src, progress=False)
    got = reference.open_installed().validate(SearchRequest.of(text))
    assert got.result.confidence != Confidence.VERIFIED_MATCH
    assert "not found in ZIP 94612 of reference openaddresses-us-ca-alameda" in got.note
    reference.add(src, progress=False, partial=True, replace=True)
    got = reference.open_installed().validate(SearchRequest.of(text))
    assert got.result.confidence != Confidence.VERIFIED_MATCH
    assert "not checked: reference openaddresses-us-ca-alameda holds only part of ZIP 94612" in got.note
    assert "not found" not in got.note


def test_a_zip_whose_city_reaches_into_another_county_is_not_complete(shared_dir: Path, tmp_path: Path) -> None:
    dst = tmp_path / "dl" / "us" / "ca" / "santa_clara.csv"
    dst.parent.mkdir(parents=True)
    shutil.copyfile(shared_dir / "data" / "openaddresses" / "santa_clara.csv", dst)
    (m,) = reference.add(dst, progress=False)
    assert "95124" in m.complete_zips  # San Jose: Santa Clara County only
    assert "94301" not in m.complete_zips and "95032" not in m.complete_zips  # Palo Alto, Los Gatos: two counties
    got = dqkit.LocalBackend().lead_engine.verify(LeadRequest(first_name="Ann", last_name="Lee",
                                                              street1="820 Talwrn Ct", city="Palo Alto", state="CA",
                                                              zip="94301"))
    assert got.message.result_code != "S102" and _els(got) == "103"
