"""NameParser: prefix and suffix codes, first / middle / last, business name, indicator and title."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dqkit.contract.codes import BUSINESS_NAME_IND
from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead.names import PREFIX_CODES, SUFFIX_CODES, parse_full_name, parse_name

# FULL_NAME -> (PREFIX_CD, FIRST, MIDDLE, LAST, SUFFIX_CD)
PEOPLE = [
    ("John A Smith", ("", "JOHN", "A", "SMITH", "")),
    ("Smith, John A", ("", "JOHN", "A", "SMITH", "")),
    ("smith, john a.", ("", "JOHN", "A", "SMITH", "")),
    ('Dr. John "Jack" Smith Jr.', ("D", "JOHN", "", "SMITH", "JR")),
    ("Mrs Mary Ann (Molly) Jones", ("R", "MARY", "ANN", "JONES", "")),
    ("Mr. Robert B. Brown III", ("M", "ROBERT", "B", "BROWN", "III")),
    ("Rev. Dr. Martin Luther King Jr", ("V", "MARTIN", "LUTHER", "KING", "JR")),
    ("Smith Jr, John", ("", "JOHN", "", "SMITH", "JR")),
    ("John Smith, Jr.", ("", "JOHN", "", "SMITH", "JR")),
    ("Smith, John, MD", ("", "JOHN", "", "SMITH", "MD")),
    ("Jane Doe Esq", ("", "JANE", "", "DOE", "ESQ")),
    ("Ludwig van Beethoven", ("", "LUDWIG", "", "VAN BEETHOVEN", "")),
    ("Maria de la Cruz", ("", "MARIA", "", "DE LA CRUZ", "")),
    ("Jean-Luc Picard", ("", "JEAN-LUC", "", "PICARD", "")),
    ("José Álvarez", ("", "JOSE", "", "ALVAREZ", "")),
    ("Ms Ann Lee 2nd", ("S", "ANN", "", "LEE", "II")),
    ("Madonna", ("", "MADONNA", "", "", "")),
    ("Capt. James T Kirk", ("C", "JAMES", "T", "KIRK", "")),
]


@pytest.mark.parametrize(("text", "expected"), PEOPLE)
def test_full_name_forms(text: str, expected: tuple[str, str, str, str, str]) -> None:
    n = parse_full_name(text)
    assert (n.prefix_cd, n.first_name, n.middle_name, n.last_name, n.suffix_cd) == expected
    assert n.business_name_ind == "N" and not n.business_name and not n.business_title


def test_separate_fields_win_and_are_cleaned() -> None:
    n = parse_name(LeadRequest(prefix="Mr.", first_name="John", middle_name="Q", last_name="Public", suffix="Jr."))
    assert (n.prefix_cd, n.first_name, n.middle_name, n.last_name, n.suffix_cd) == ("M", "JOHN", "Q", "PUBLIC", "JR")
    n = parse_name(LeadRequest(first_name="Dr John A", last_name="Smith Jr", full_name="ignored for the person"))
    assert (n.prefix_cd, n.first_name, n.middle_name, n.last_name, n.suffix_cd) == ("D", "JOHN", "A", "SMITH", "JR")
    n = parse_name(LeadRequest(first_name="D Arcy", last_name="OBrien"))  # apostrophes already removed
    assert (n.first_name, n.middle_name, n.last_name) == ("D", "ARCY", "OBRIEN")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"full_name": "Acme Plumbing LLC"}, ("", "", "", "Y", "ACME PLUMBING LLC", "")),
        ({"full_name": "Jane Roe, CFO, Acme Inc"}, ("JANE", "", "ROE", "Y", "ACME INC", "CFO")),
        ({"full_name": "Jane Roe - VP of Sales - Globex Corp"}, ("JANE", "", "ROE", "Y", "GLOBEX CORP", "VP OF SALES")),
        ({"full_name": "John Smith CEO"}, ("JOHN", "", "SMITH", "N", "", "CEO")),
        ({"full_name": "Bank of America"}, ("", "", "", "Y", "BANK OF AMERICA", "")),
        ({"full_name": "Garcia and Sons"}, ("", "", "", "Y", "GARCIA AND SONS", "")),
        ({"full_name": "John Church"}, ("JOHN", "", "CHURCH", "N", "", "")),
        ({"first_name": "Jane", "last_name": "Roe", "business_name": "Acme Inc"},
         ("JANE", "", "ROE", "Y", "ACME INC", "")),
        ({"business_name": "Jane Roe, CFO, Acme Inc"}, ("JANE", "", "ROE", "Y", "ACME INC", "CFO")),
        ({"business_name": "Bobs Pizza"}, ("", "", "", "Y", "BOBS PIZZA", "")),
        ({"first_name": "Ann", "last_name": "Lee", "full_name": "Ann Lee, Owner, Lee Dental"},
         ("ANN", "", "LEE", "Y", "LEE DENTAL", "OWNER")),
    ],
)
def test_business_forms(fields: dict[str, Any], expected: tuple[str, ...]) -> None:
    """(FIRST, MIDDLE, LAST, BUSINESS_NAME_IND, BUSINESS_NAME, BUSINESS_TITLE)."""
    n = parse_name(LeadRequest(**fields))
    got = (n.first_name, n.middle_name, n.last_name, n.business_name_ind, n.business_name, n.business_title)
    assert got == expected


def test_codes_are_one_character_and_documented() -> None:
    assert all(len(code) == 1 for code in PREFIX_CODES)
    assert len(set(PREFIX_CODES.values())) == len(PREFIX_CODES)
    assert all(len(code) <= 10 for code in SUFFIX_CODES)
    assert set(BUSINESS_NAME_IND) == {"Y", "N"}


def test_lengths_follow_the_seed() -> None:
    n = parse_name(LeadRequest(first_name="A" * 30, middle_name="B" * 20, last_name="C" * 30,
                               business_name="D " * 25))
    assert len(n.first_name) <= 30 and len(n.middle_name) <= 20 and len(n.last_name) <= 30
    assert len(n.business_name) <= 40 and n.business_name_ind == "Y"


def test_latin_letters_without_an_upper_case_come_back_upper_case() -> None:
    # Latin subscript letters have no upper case of their own; folded they are plain small letters (found by
    # test_any_text_parses with business name 'ᵢ', which came back as 'i').
    n = parse_name(LeadRequest(first_name="Jₐne", last_name="Smᵢth", business_name="ᵢ"))
    assert (n.first_name, n.last_name, n.business_name) == ("JANE", "SMITH", "I")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=50), st.text(max_size=30), st.text(max_size=30), st.text(max_size=50))
@example("", "", "", "ᵢ")
def test_any_text_parses(full: str, first: str, last: str, business: str) -> None:
    n = parse_name(LeadRequest(full_name=full, first_name=first, last_name=last, business_name=business))
    assert n.business_name_ind in ("Y", "N")
    assert n.prefix_cd in ("", *PREFIX_CODES)
    for value in (n.first_name, n.middle_name, n.last_name, n.business_name, n.business_title):
        assert value == value.upper()
