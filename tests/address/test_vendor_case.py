"""The vendor's casing of US answers: mixed-case lines and locality, directionals and unit values upper."""

from __future__ import annotations

import pytest

from dqkit.engines.address.layout import country_name, mixed_case


@pytest.mark.parametrize(("reference", "vendor"), [
    ("1216 SANTA CLARA AVE", "1216 Santa Clara Ave"),
    ("1620 S LOOP RD APT 4B", "1620 S Loop Rd Apt 4B"),
    ("236 47TH LN", "236 47th Ln"),
    ("100 MCARTHUR BLVD NW", "100 McArthur Blvd NW"),
    ("12 O'FARRELL ST # A", "12 O'Farrell St # A"),
    ("4-1200 MAIN ST", "4-1200 Main St"),
    ("PO BOX 12", "PO Box 12"),
    ("SAN LEANDRO", "San Leandro"),
    ("", ""),
])
def test_mixed_case(reference: str, vendor: str) -> None:
    assert mixed_case(reference) == vendor
    assert mixed_case(vendor) == vendor  # idempotent


def test_country_names_are_the_vendors() -> None:
    assert country_name("US") == "UNITED STATES OF AMERICA"
    assert (country_name("CA"), country_name("GB")) == ("CANADA", "UNITED KINGDOM")
