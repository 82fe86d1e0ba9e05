"""Input that names only a place: a ZIP ("95124"), a city and state ("San Jose, CA"), or both ("San Jose CA 95124").

Such input asks no street question, so with or without an address reference the honest answer is the place itself
(`Verified place`), checked against the bundled ZIP data, never a street whose name happens to contain the city's
("San Jose Ave"). A city with several ZIPs and no ZIP typed gets no postal code: choosing one would be a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from dqkit.contract.address import Address, ValidationDetail
from dqkit.engines.address.layout import country_name, mixed_case

_SPLIT: Final = re.compile(r"[\s,;]+")
_ZIP: Final = re.compile(r"^(\d{5})(?:-?(\d{4}))?$")
_COUNTRY_WORDS: Final = ("UNITED STATES OF AMERICA", "UNITED STATES", "USA", "US", "U S A", "U S", "AMERICA")
_COUNTRY_MOST: Final = max(len(c.split()) for c in _COUNTRY_WORDS)  # the most words a country name takes


@dataclass(frozen=True, slots=True)
class Place:
    """A checked place: USPS preferred city (upper case), state code, ZIP ("" when the city has several)."""

    city: str
    state: str
    zip: str
    corrected: frozenset[str] = frozenset()  # "city", "state", "zip": changed from what was typed
    alias: bool = False  # the typed city is another name USPS accepts for the ZIP

    def address(self) -> Address:
        """The locality lines of the place, in the casing and country name of every other US answer."""
        return Address(locality=mixed_case(self.city), region=self.state, postal_code=self.zip,
                       country=country_name("US"))

    def detail(self) -> ValidationDetail:
        return ValidationDetail(city_name_corrected="city" in self.corrected, city_name_alias_matched=self.alias,
                                state_corrected="state" in self.corrected, zip_code_corrected="zip" in self.corrected)


def place_only(text: str) -> Place | None:
    """The place `text` names when it names nothing else (no house number, no street); None otherwise or when the
    bundled ZIP data does not know it."""
    toks = [t for t in _SPLIT.split(text.upper().replace(".", " ")) if t]
    if len(toks) > _COUNTRY_MOST + 1 and any(c.isdigit() for c in toks[0]):
        return None  # a house number first and words after it even without a country named last: an address
    from dqkit.engines.usaddr.lastline import LastLine, state_code
    from dqkit.engines.usaddr.reconcile import reconcile

    toks = _without_country(toks)
    if not toks or len(toks) > 8 or any(c.isdigit() for t in toks[:-1] for c in t):
        return None  # a number before the last word is a house number or a unit: an address, not a place
    zip5 = ""
    m = _ZIP.match(toks[-1])
    if m:
        zip5 = m.group(1)
        toks = toks[:-1]
    state = ""
    for k in (3, 2, 1):
        if len(toks) >= k and (code := state_code(" ".join(toks[-k:]))):
            if k == len(toks) and not zip5:
                continue  # "New York" alone is a city or a state: not a place this can settle
            state, toks = code, toks[:-k]
            break
    city = " ".join(toks)
    if any(c.isdigit() for c in city) or (city and not state and not zip5):
        return None  # a number left is a house number or a unit; a bare city without state is ambiguous
    if not city and not zip5:
        return None
    if city and zip5 and not _city_of_zip(city, zip5):
        return None  # words that are not the ZIP's city: a street or a firm line, not a place
    r = reconcile(LastLine(city=city, state=state, zip=zip5))
    if r.info is None and not r.city_zips:
        return None
    if zip5 and r.zip != zip5 and r.info is None:
        return None
    corrected = set(r.corrected)
    if not city:
        corrected.discard("city")
    if not state:
        corrected.discard("state")
    return Place(city=r.city or (r.info.city if r.info else ""), state=r.state, zip=r.zip if r.info else "",
                 corrected=frozenset(corrected), alias=r.alias)


def _city_of_zip(city: str, zip5: str) -> bool:
    """Whether `city` is a name USPS gives `zip5` (or one letter off it)."""
    from dqkit.engines import zipdata
    from dqkit.engines.usaddr.lastline import city_key, closest_city

    info = zipdata.zip_info(zip5)
    if info is None:
        return False
    return city_key(city) in {city_key(c) for c in info.cities} or bool(closest_city(city, info.cities))


def _without_country(toks: list[str]) -> list[str]:
    joined = " ".join(toks)
    for name in _COUNTRY_WORDS:
        if joined == name:
            return []
        if joined.endswith(" " + name):
            return toks[:-len(name.split())]
    return toks
