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


@pytest.mark.parametrize("written", ["555-CALL-NOW", "n/a", "+1 800 FLOWERS"])
def test_what_is_no_number_is_kept_as_written(written: str) -> None:
    number, ext, country = split_phone(written)
    assert (number, ext, country) == (written, "", "")


@pytest.mark.parametrize(("written", "digits"), [
    ("+1 555", "+1555"), ("+999 123", "+999123"), ("0044", "0044"), ("12345", "12345"),
    ("(000) 523-4412", "0005234412"), ("000-523-4412", "0005234412"), ("000.523.4412", "0005234412"),
    ("(510) 555-01423", "51055501423"),
])
def test_digits_of_no_valid_number_are_sent_as_digits(written: str, digits: str) -> None:
    """Every way of writing the same digits is one request, so one answer: "(000) 523-4412" was sent as typed
    (14 characters, E300 "longer than 12") while "000-523-4412" was E805; both are now "0005234412"."""
    assert split_phone(written) == (digits, "", "")


@pytest.mark.parametrize(("written", "expected"), [
    ("217-555-0142 x12", ("2175550142", "12", "")), ("217-555-0142 X12", ("2175550142", "12", "")),
    ("217-555-0142 Ext. 12", ("2175550142", "12", "")), ("217-555-0142, EXTENSION 12", ("2175550142", "12", "")),
    ("(217) 555-0142 #12", ("2175550142", "12", "")), ("217 555 0142 extn 9", ("2175550142", "9", "")),
    ("2175550142", ("2175550142", "", "")), ("217-555-0142 e12", ("217-555-0142 e12", "", "")),
])
def test_extensions_in_every_written_form(written: str, expected: tuple[str, str, str]) -> None:
    """The extension is looked for only where an x or a # is written (every form of it has one): the forms with
    one are still read, those without are numbers or text as before."""
    assert split_phone(written) == expected


@pytest.mark.parametrize(("written", "expected"), [
    ("555-BOX9", ("555-BOX9", "", "")),  # the X of a vanity number is a letter of it: was ("555-BO", "9")
    ("555-BOX9 x12", ("555-BOX9", "12", "")),
    ("217-555-0142x12", ("2175550142", "12", "")),  # a marker right after a digit is still one
    ("2175550142 EXT12", ("2175550142", "12", "")),
])
def test_an_extension_marker_never_follows_a_letter(written: str, expected: tuple[str, str, str]) -> None:
    assert split_phone(written) == expected


@pytest.mark.parametrize("written", ["555-BOX9 x12", "555-BOX9", "(217) 555-0142 ext. 12", "+44 20 7946 0958 #3",
                                     "1-800-FLOWERS x5", "n/a", "217.555.0142"])
def test_normalizing_a_lead_twice_changes_nothing_more(written: str) -> None:
    """The clients normalize what the accessors already normalized: a second pass must be a no-op
    ("555-BOX9 x12" became "555-BO" with extension 12 on the second pass)."""
    from dqkit.contract.lead import LeadRequest, Phone
    from dqkit.contract.lead_input import normalize_lead

    once = normalize_lead(LeadRequest(phones=(Phone(phone_type="Mobile", phone_number=written),)))
    assert normalize_lead(once) == once
