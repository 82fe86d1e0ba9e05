"""PHONE_STATUS E800..E810 and the phone-alone SCORE_RESULT, from the bundled numbering data."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dqkit.contract.codes import PHONE_STATUSES, SCORE_RESULTS
from dqkit.engines import zipdata
from dqkit.engines.lead.phones import PhoneCheck, check_phone, nanp_digits
from dqkit.engines.lead.records import LeadRecords


@pytest.mark.parametrize(
    ("number", "zip5", "status", "score"),
    [
        ("202-456-1111", "20500", "E801", "540"),  # DC number, DC ZIP
        ("(650)253-0000", "94043", "E801", "540"),
        ("1 628 234 5678", "94103", "E801", "540"),  # overlay code listed for San Francisco
        ("718-234-5678", "10001", "E801", "540"),
        ("+1 650 253 0000", "10001", "E807", "530"),  # California code, New York ZIP
        ("416-234-5678", "10001", "E807", "530"),  # Toronto code
        ("800-234-5678", "10001", "E807", "530"),  # toll free serves no ZIP
        ("516-234-5678", "10001", "E810", "530"),  # Long Island code: New York state, not Manhattan
        ("315-234-5678", "10001", "E810", "530"),
        ("202-456-1111", "99999", "E807", "530"),  # unknown ZIP
        ("123-456-7890", "10001", "E805", "520"),  # area codes never start with 0 or 1
        ("999-234-5678", "10001", "E805", "520"),  # not an area code
        ("911-234-5678", "10001", "E805", "520"),
        ("212-911-1234", "10001", "E806", "530"),  # N11 prefix
        ("212-555-1234", "10001", "E806", "530"),  # 555
        ("212-023-4567", "10001", "E806", "530"),  # prefixes never start with 0 or 1
        ("268-222-1234", "10001", "E806", "530"),  # Antigua: the prefix is not one of its patterns
        ("555-1234", "10001", "E808", "510"),
        ("202456111", "20500", "E808", "510"),
        ("20245611111", "20500", "E808", "510"),  # 11 digits not starting with 1
        ("1-800-FLOWERS", "10001", "E808", "510"),
        ("+44 20 7946 0958", "10001", "E808", "510"),
        ("call me", "10001", "E808", "510"),
    ],
)
def test_statuses(number: str, zip5: str, status: str, score: str) -> None:
    check = check_phone(number, zip5)
    assert (check.status, check.score) == (status, score)
    assert check.status in PHONE_STATUSES and check.score in SCORE_RESULTS
    assert check.digits == (nanp_digits(number) if status != "E808" else "")


def test_blank_number_is_missing() -> None:
    assert check_phone("  ", "10001") == PhoneCheck("E808", "450", "")


@pytest.mark.parametrize("written", ["2024561111", "202-456-1111", "(202) 456-1111", "202.456.1111",
                                     "1-202-456-1111", "+1 (202) 456 1111", "12024561111"])
def test_formats(written: str) -> None:
    assert nanp_digits(written) == "2024561111"


def test_every_zip_area_code_is_a_valid_area_code() -> None:
    """The area codes zipcodes lists for ZIPs are all NANP area codes in the phonenumbers metadata."""
    codes = sorted({c for info in zipdata.tables().by_zip.values() for c in info.area_codes})
    assert len(codes) > 300
    bad = [c for c in codes if check_phone(c + "2345678", "10001").status in ("E805", "E802")]
    assert bad == []


def test_records_turn_statuses_into_matches() -> None:
    records = LeadRecords.from_rows([
        {"first_name": "Ann", "last_name": "Lee", "street1": "1 Main St", "zip": "10001", "phone": "2024561111",
         "line_class": "R"},
        {"first_name": "Bo", "last_name": "Li", "zip": "10001", "phone": "516-234-5678", "line_class": "C"},
        {"first_name": "Cy", "last_name": "Ng", "zip": "10001", "phone": "212-555-1234", "line_class": "P"},
    ])
    assert check_phone("202-456-1111", "20500", records=records).status == "E800"
    assert check_phone("202-456-1111", "10001", records=records).status == "E804"
    assert check_phone("516-234-5678", "10001", records=records).status == "E809"
    assert check_phone("212-555-1234", "10001", records=records).status == "E803"
    assert check_phone("650-253-0000", "94043", records=records).status == "E801"  # not in the records
    assert check_phone("202-456-1111", "20500", records=records).score == "570"  # in records, no name yet
    assert check_phone("516-234-5678", "10001", records=records).score == "530"  # mismatch stays
    mobile = LeadRecords.from_rows([{"last_name": "Li", "zip": "10001", "phone": "718-234-5678", "line_class": "C"}])
    assert check_phone("718-234-5678", "10001", records=mobile).score == "590"


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=20), st.text(alphabet="0123456789", min_size=0, max_size=6))
def test_any_input_gets_a_known_code(number: str, zip5: str) -> None:
    check = check_phone(number, zip5)
    assert check.status in PHONE_STATUSES and check.score in SCORE_RESULTS
    assert check.digits == "" or (len(check.digits) == 10 and check.digits.isdigit())
