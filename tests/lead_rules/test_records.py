"""LeadRecords: the match-level SCORE_RESULT codes, header data, reading the CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dqkit.contract.codes import SCORE_RESULTS, LineClass, MatchLevel
from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.engines.lead.names import parse_name
from dqkit.engines.lead.phones import check_phone
from dqkit.engines.lead.records import LeadRecords

RECORDS = LeadRecords.from_rows([
    {"first_name": "Maria", "last_name": "Garcia", "street1": "12 Oak Street Apt 4", "zip": "94103",
     "phone": "415-234-5678", "line_class": "R"},
    {"first_name": "Tom", "last_name": "Baker", "business_name": "Baker Plumbing LLC", "street1": "9 Elm Ave",
     "zip": "94103", "phone": "4152345000", "line_class": "B"},
    {"first_name": "Lee", "last_name": "Wong", "street1": "3 Pine Rd", "zip": "94103", "phone": "4152345111",
     "line_class": "M"},
    {"first_name": "Ana", "last_name": "Diaz", "street1": "5 Bay St", "zip": "94103", "phone": "4152345222",
     "line_class": "C"},
    {"first_name": "Kim", "last_name": "Park", "street1": "7 Hill Dr", "zip": "94103", "phone": "4152345333",
     "line_class": "R"},
])


def score(records: LeadRecords, **fields: Any) -> str:
    phone = fields.pop("phone", "")
    lead = LeadRequest(zip="94103", phones=(Phone(phone_number=phone),) if phone else (), **fields)
    name = parse_name(lead)
    return records.score(lead, name, check_phone(phone, "94103", records=records))


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"first_name": "Maria", "last_name": "Garcia", "street1": "12 Oak St", "phone": "4152345678"}, "840"),
        ({"full_name": "GARCIA, MARIA", "street1": "12 OAK STREET #4", "phone": "(415) 234-5678"}, "840"),
        ({"first_name": "M", "last_name": "Garcia", "street1": "12 Oak", "phone": "4152345678"}, "840"),
        ({"first_name": "Jose", "last_name": "Garcia", "street1": "12 Oak St", "phone": "4152345678"}, "780"),
        ({"first_name": "Maria", "last_name": "Garcia", "street1": "99 Elm St", "phone": "4152345678"}, "810"),
        ({"first_name": "Jose", "last_name": "Garcia", "street1": "99 Elm St", "phone": "4152345678"}, "750"),
        ({"first_name": "Ann", "last_name": "Smith", "street1": "12 Oak St", "phone": "4152345678"}, "630"),
        ({"first_name": "Ann", "last_name": "Smith", "street1": "1 Other Rd", "phone": "4152345678"}, "570"),
        ({"first_name": "Tom", "last_name": "Baker", "street1": "9 Elm Ave", "phone": "4152345000"}, "830"),
        ({"first_name": "Sue", "last_name": "Ray", "business_name": "Baker Plumbing", "street1": "9 Elm Avenue",
          "phone": "4152345000"}, "680"),
        ({"first_name": "Sue", "last_name": "Ray", "business_name": "Baker Plumbing Inc", "street1": "1 Far Rd",
          "phone": "4152345000"}, "640"),
        ({"first_name": "Lee", "last_name": "Wong", "street1": "3 Pine Rd", "phone": "4152345111"}, "820"),
        ({"first_name": "Ann", "last_name": "Smith", "street1": "1 Other Rd", "phone": "4152345111"}, "550"),
        ({"first_name": "Ana", "last_name": "Diaz", "street1": "5 Bay St", "phone": "4152345222"}, "590"),
        ({"first_name": "Kim", "last_name": "Park", "street1": "7 Hill Drive", "phone": "4155550199"}, "530"),
        ({"first_name": "Kim", "last_name": "Park", "street1": "7 Hill Drive", "phone": "4152349999"}, "850"),
        ({"first_name": "Ann", "last_name": "Smith", "street1": "1 Other Rd", "phone": "4152349999"}, "540"),
        ({"first_name": "Ann", "last_name": "Smith", "phone": "12345"}, "510"),
        ({"first_name": "Ann", "last_name": "Smith", "phone": "0152349999"}, "520"),
        ({"first_name": "Ann", "last_name": "Smith"}, "450"),
    ],
)
def test_match_levels(fields: dict[str, str], code: str) -> None:
    assert score(RECORDS, **fields) == code


def test_codes_decode_as_their_level() -> None:
    full = SCORE_RESULTS[score(RECORDS, first_name="Maria", last_name="Garcia", street1="12 Oak St",
                               phone="4152345678")]
    assert (full.match_level, full.line_class) == (MatchLevel.FULL_NAME_ADDRESS, LineClass.RESIDENTIAL)
    assert SCORE_RESULTS[score(RECORDS, first_name="X", last_name="Y", street1="1 Q St",
                               phone="4152345111")].match_level == MatchLevel.NO_MATCH


def test_csv_round_trip_and_fingerprint(tmp_path: Path) -> None:
    p = tmp_path / "records.csv"
    p.write_text("First_Name,last_name,business_name,street1,zip,phone,line_class,extra\n"
                 "Maria,Garcia,,12 Oak St,94103,415-234-5678,residential,x\n", encoding="utf-8")
    recs = LeadRecords.from_csv(p)
    assert len(recs) == 1 and recs.line_class("4152345678") == "R"
    assert recs.fingerprint == LeadRecords.from_csv(p).fingerprint
    assert recs.fingerprint != RECORDS.fingerprint


def test_bad_csv_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.csv"
    with pytest.raises(InputError, match="cannot be read"):
        LeadRecords.from_csv(missing)
    no_phone = tmp_path / "no_phone.csv"
    no_phone.write_text("first_name,last_name,zip\nA,B,10001\n", encoding="utf-8")
    with pytest.raises(InputError, match="phone"):
        LeadRecords.from_csv(no_phone)
    bad_class = tmp_path / "bad_class.csv"
    bad_class.write_text("last_name,zip,phone,line_class\nB,10001,2024561111,Z\n", encoding="utf-8")
    with pytest.raises(InputError, match="line_class"):
        LeadRecords.from_csv(bad_class)


def test_bundled_sample_records_load() -> None:
    from dqkit._resources import data_file

    recs = LeadRecords.from_csv(data_file("sample_lead_records.csv"))
    assert len(recs) > 1000 and len(recs.fingerprint) == 16
