"""Part 2: every Stage 1 field local data supports, checked against the meanings in the seed's own tables."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_wire import encode_message
from dqkit.engines.address import AddressEngine
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.lead.records import LeadRecords


def seed_codes(seed: str, label: str) -> dict[str, str]:
    """`code meaning; code meaning; ...` after `label` in the seed text."""
    line = next(x for x in seed.splitlines() if x.startswith(label))
    body = line.split(":", 1)[1]
    return {m.group(1): m.group(2).strip().rstrip(".") for m in re.finditer(r"(\d{3}) ([^;]+)", body)}


def seed_flags(seed: str) -> dict[str, str]:
    line = next(x for x in seed.splitlines() if x.startswith("EXECUTION_STATUS_FLAG values"))
    return {m.group(1): m.group(2).strip().rstrip(".") for m in re.finditer(r"([A-Z]) = ([^;]+)", line)}


@pytest.fixture(scope="module")
def alameda(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[AddressEngine, dict[str, str]]:
    src = shared_dir / "data" / "openaddresses" / "alameda.csv"
    with src.open() as fh:
        row = next(r for r in csv.DictReader(fh) if r["NUMBER"] and r["CITY"] and r["POSTCODE"] and not r["UNIT"])
    # vouched for as complete (`--complete`): what is asked here is what a complete reference lets S102 say
    return AddressEngine.from_files([src], out=tmp_path_factory.mktemp("idx") / "alameda.idx", complete=True), row


def lead_at(row: dict[str, str], street: str, **kw: object) -> LeadRequest:
    base: dict[str, object] = dict(first_name="Ann", last_name="Lee", street1=street, city=row["CITY"], state="CA",
                                   zip=row["POSTCODE"])
    base.update(kw)
    return LeadRequest(**base)  # type: ignore[arg-type]


def test_address_codes_from_the_installed_reference(alameda: tuple[AddressEngine, dict[str, str]],
                                                    seed_lead_text: str) -> None:
    engine, row = alameda
    meanings = seed_codes(seed_lead_text, "ELSResidentialAddressVerificationResult codes")
    leads = LeadEngine(LeadProfile(points=engine.points()))
    real = leads.verify(lead_at(row, f"{row['NUMBER']} {row['STREET']}"))
    assert real.message.result_code == "S100"
    sa = real.standardized_address
    # matched to a point with no ZIP+4: GEOMATCH 0, and not ADDRESS_CODE 1 ("add-on assigned", seed 000)
    assert sa is not None and (sa.geomatch, sa.address_code, sa.zipplus, sa.matchzipnine) == ("0", "", "", "F")
    made_up = leads.verify(lead_at(row, "123 Imaginary Unicorn Blvd"))
    assert made_up.message.result_code == "S102" and "not found in ZIP" in made_up.message.value
    assert made_up.standardized_address is not None and made_up.standardized_address.address_code == "-99"
    s1 = made_up.stage1_data
    assert s1 is not None and "road name" in meanings[s1.residential_address_verification_result].lower()
    no_number = leads.verify(lead_at(row, f"99999 {row['STREET']}"))
    assert no_number.message.result_code == "S102" and no_number.stage1_data is not None
    code = no_number.stage1_data.residential_address_verification_result
    assert meanings[code].lower() == "house number not found on street"
    other_zip = leads.verify(LeadRequest(full_name="Ann Lee", street1="1 Main St", city="Springfield", state="IL",
                                         zip="62701"))
    assert other_zip.stage1_data is not None
    # a ZIP outside every reference: its street was not checked (not "not in the database")
    assert meanings[other_zip.stage1_data.residential_address_verification_result] == "data not available"


def test_without_a_reference_the_answer_says_the_street_was_not_checked(seed_lead_text: str) -> None:
    meanings = seed_codes(seed_lead_text, "ELSResidentialAddressVerificationResult codes")
    msg = LeadEngine().verify(LeadRequest(full_name="Ann Lee", street1="123 Imaginary Unicorn Blvd",
                                          city="Alameda", state="CA", zip="94501"))
    assert msg.message.result_code == "S100" and msg.stage1_data is not None
    assert meanings[msg.stage1_data.residential_address_verification_result] == "data not available"
    assert msg.standardized_address is not None and msg.standardized_address.address_code == ""


@pytest.mark.parametrize(("lead", "phrase"), [
    (LeadRequest(full_name="Ann Lee", zip="62701"), "incomplete or blank address"),
    (LeadRequest(full_name="Ann Lee", street1="Main", city="Springfield", state="IL", zip="62701"),
     "incomplete or blank address"),
    (LeadRequest(full_name="Ann Lee", street1="1 Main St", city="Peoria", state="IL", zip="00009"),
     "invalid data"),
    (LeadRequest(full_name="Ann Lee", street1="1 Main St", city="Chicago", state="IL", zip="62701"),
     "city/state zip mismatch"),
    (LeadRequest(full_name="Ann Lee", street1="1 Main St", city="Bakersfield", state="IL", zip="62701"),
     "city/state mismatch"),
])
def test_address_codes_from_the_standardizer(lead: LeadRequest, phrase: str, seed_lead_text: str) -> None:
    meanings = seed_codes(seed_lead_text, "ELSResidentialAddressVerificationResult codes")
    msg = LeadEngine().verify(lead)
    assert msg.stage1_data is not None
    assert phrase in meanings[msg.stage1_data.residential_address_verification_result].lower()


RECORDS = LeadRecords.from_rows([
    {"first_name": "Ann", "last_name": "Lee", "street1": "1 Old State Capitol Plz", "zip": "62701",
     "phone": "217-782-2000", "line_class": "R"},
    {"first_name": "Bo", "last_name": "Diaz", "street1": "200 Main St", "zip": "62701", "phone": "2177822001",
     "line_class": "B"},
])


def test_reverse_phone_append_flags(seed_lead_text: str) -> None:
    flags = seed_flags(seed_lead_text)
    plain, with_records = LeadEngine(), LeadEngine(LeadProfile(records=RECORDS))

    def flag(engine: LeadEngine, lead: LeadRequest) -> str:
        msg = engine.verify(lead)
        assert msg.stage1_data is not None and msg.stage1_data.reverse_phone_append is not None
        return msg.stage1_data.reverse_phone_append.execution_status_flag

    with_street = LeadRequest(full_name="Ann Lee", street1="1 Old State Capitol Plz", city="Springfield",
                              state="IL", zip="62701", phones=(Phone(phone_number="2177822000"),))
    assert "already has a standardized address" in flags[flag(plain, with_street)]
    no_street = LeadRequest(full_name="Ann Lee", zip="62701")
    assert flags[flag(plain, no_street)] == "phone number empty"
    bad = LeadRequest(full_name="Ann Lee", zip="62701", phones=(Phone(phone_number="21778"),))
    assert "not 10 digits" in flags[flag(plain, bad)]
    unknown = LeadRequest(full_name="Ann Lee", zip="62701", phones=(Phone(phone_number="2177829999"),))
    assert plain.verify(unknown).stage1_data.reverse_phone_append is None  # type: ignore[union-attr]
    assert flags[flag(with_records, unknown)] == "append unsuccessful"
    known = LeadRequest(full_name="Ann Lee", zip="62701", phones=(Phone(phone_number="2177822000"),))
    msg = with_records.verify(known)
    rpa = msg.stage1_data.reverse_phone_append  # type: ignore[union-attr]
    assert rpa is not None and flags[rpa.execution_status_flag] == "append successful"
    assert (rpa.first_name, rpa.last_name) == ("ANN", "LEE")
    assert rpa.address is not None and (rpa.address.street1, rpa.address.city, rpa.address.zip) == (
        "1 OLD STATE CAPITOL PLZ", "SPRINGFIELD", "62701")


def test_phone_verification_result_and_name_match_codes_with_records(seed_lead_text: str) -> None:
    score_meanings = seed_codes(seed_lead_text, "SCORE_RESULT codes")
    addr_meanings = seed_codes(seed_lead_text, "ELSResidentialAddressVerificationResult codes")
    engine = LeadEngine(LeadProfile(records=RECORDS))
    lead = LeadRequest(first_name="Ann", last_name="Lee", street1="1 Old State Capitol Plz", city="Springfield",
                       state="IL", zip="62701", phones=(Phone(phone_number="2177822000"),))
    msg = engine.verify(lead)
    s1 = msg.stage1_data
    assert s1 is not None and msg.message.result_code == "S100"
    assert score_meanings[s1.residential_phone_verification_result].startswith("full name and address")
    assert addr_meanings[s1.residential_address_verification_result] == "full name match, residential address"
    surname = engine.verify(LeadRequest(first_name="Zed", last_name="Lee", street1="1 Old State Capitol Plz",
                                        city="Springfield", state="IL", zip="62701"))
    code = surname.stage1_data.residential_address_verification_result  # type: ignore[union-attr]
    assert addr_meanings[code] == "surname match, residential address"
    business = engine.verify(LeadRequest(first_name="Zed", last_name="Quux", street1="200 Main St",
                                         city="Springfield", state="IL", zip="62701"))
    assert business.stage1_data is not None
    assert business.stage1_data.residential_address_verification_result == "101"  # records there, no name


def test_s101_exactly_when_nothing_matched_the_records(seed_lead_text: str) -> None:
    assert "| S101 | No match | Input did not match the records" in seed_lead_text
    engine = LeadEngine(LeadProfile(records=RECORDS))
    stranger = LeadRequest(first_name="Zed", last_name="Quux", street1="9 Elm St", city="Springfield", state="IL",
                           zip="62701", phones=(Phone(phone_number="2177829999"),))
    assert engine.verify(stranger).message.result_code == "S101"
    known_phone = LeadRequest(first_name="Ann", last_name="Lee", zip="62701",
                              phones=(Phone(phone_number="2177822000"),))
    assert engine.verify(known_phone).message.result_code == "S100"
    known_address = LeadRequest(first_name="Ann", last_name="Lee", street1="1 Old State Capitol Plz",
                                city="Springfield", state="IL", zip="62701")
    assert engine.verify(known_address).message.result_code == "S100"
    assert LeadEngine().verify(stranger).message.result_code == "S100"  # no records: nothing to match against


def test_firmline_and_business_name_ind_reach_the_wire() -> None:
    engine = LeadEngine()
    biz = engine.verify(LeadRequest(business_name="Acme Widgets Inc", address_type="B", street1="200 Main St",
                                    city="Springfield", state="IL", zip="62701"))
    assert biz.standardized_address is not None and biz.standardized_address.firmline == "ACME WIDGETS INC"
    person = engine.verify(LeadRequest(full_name="Ann Lee", zip="62701"))
    body, _ = encode_message(person)
    assert b'"BUSINESS_NAME_IND":"N"' in body
    xml, _ = encode_message(person, "xml")
    assert b"<BUSINESS_NAME_IND>N</BUSINESS_NAME_IND>" in xml
