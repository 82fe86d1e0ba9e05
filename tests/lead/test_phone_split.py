"""Phones written with a country code are split by libphonenumber (`phonenumbers`), whatever exit code they use."""

from __future__ import annotations

import pytest

from dqkit.contract.lead_input import split_phone


@pytest.mark.parametrize(("written", "expected"), [
    ("001 408 555 0142", ("4085550142", "", "")),  # the "00" exit code of most countries, then NANP's 1
    ("00 1 408 555 0142 x7", ("4085550142", "7", "")),
    ("011 44 20 7946 0958", ("2079460958", "", "44")),  # the US exit code
    ("0044 20 7946 0958", ("2079460958", "", "44")),
    ("+44 20 7946 0958", ("2079460958", "", "44")),
    ("+442079460958", ("2079460958", "", "44")),  # no blank to say where the country code ends
    ("+39 06 1234 5678", ("0612345678", "", "39")),  # Italy keeps its leading 0
    ("+353 1 234 5678", ("12345678", "", "353")),
    ("+1 (217) 555-0142", ("2175550142", "", "")),
])
def test_numbers_with_a_country_code(written: str, expected: tuple[str, str, str]) -> None:
    assert split_phone(written) == expected


@pytest.mark.parametrize("written", ["+1 555", "+999 123", "0044", "555-CALL-NOW", "n/a", "12345", "+1 800 FLOWERS"])
def test_what_is_no_number_is_kept_as_written(written: str) -> None:
    number, ext, country = split_phone(written)
    assert (number, ext, country) == (written, "", "")
