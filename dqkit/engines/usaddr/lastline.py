"""Read the last line (city, state, ZIP, country) out of tokens, and split a one-line address into its delivery
line and last line.

With commas the segments say where the city is. Without them the city is found from the end of the text: the
longest run of trailing words that is a city of the state (or of the ZIP) by its USPS name, else the closest
spelling, else whatever follows the first complete street ("123 MAIN ST" + "SPRINGFEILD").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from dqkit.contract.us_states import STATES
from dqkit.engines import zipdata
from dqkit.engines.usaddr.pub28 import (
    DIRECTIONALS,
    EXTRA_SUFFIX_VARIANTS,
    STATE_NAMES,
    SUFFIXES,
    UNITS,
    US_COUNTRY_NAMES,
)

_ZIP: Final = re.compile(r"^(\d{5})(?:-?(\d{4}))?$")
_ZIP4: Final = re.compile(r"^\d{4}$")
_ZIP9: Final = re.compile(r"^(\d{5})(\d{4})$")
_CANADA_POSTAL: Final = re.compile(r"^[A-Z]\d[A-Z]$")
# States whose ZIPs start with 0: a four-digit ZIP there lost its leading zero in a spreadsheet.
_ZERO_STATES: Final = frozenset({"CT", "MA", "ME", "NH", "NJ", "RI", "VT", "PR", "VI", "AE"})
FOREIGN_COUNTRIES: Final = frozenset({
    "CANADA", "MEXICO", "UK", "UNITED KINGDOM", "ENGLAND", "SCOTLAND", "WALES", "IRELAND", "GERMANY", "FRANCE",
    "SPAIN", "ITALY", "JAPAN", "CHINA", "INDIA", "AUSTRALIA", "NEW ZEALAND", "BRAZIL", "NETHERLANDS",
    "BELGIUM", "SWITZERLAND", "SWEDEN", "NORWAY", "DENMARK", "FINLAND", "POLAND", "ISRAEL", "SINGAPORE",
    "PHILIPPINES", "SOUTH KOREA", "KOREA", "TAIWAN", "HONG KONG", "ARGENTINA", "CHILE", "COLOMBIA", "PERU",
    "SOUTH AFRICA", "AUSTRIA", "PORTUGAL", "GREECE", "TURKEY", "RUSSIA", "UKRAINE",
})
_NOT_BEFORE_ZIP: Final = frozenset({"BOX", "BX", "POB", "#", "NO", "APT", "STE", "UNIT", "RM", "RR", "HC",
                                      "PSC", "CMR", "DRAWER", "CALLER", "SUITE"})
_COUNTRY_LAST_WORDS: Final = frozenset(n.split()[-1] for n in FOREIGN_COUNTRIES | US_COUNTRY_NAMES)
_CANADA_PROVINCES: Final = frozenset({"AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"})
# City words people abbreviate; compared in this spelled-out form.
_CITY_WORDS: Final = {"ST": "SAINT", "STE": "SAINTE", "MT": "MOUNT", "FT": "FORT", "PT": "POINT", "N": "NORTH",
                      "S": "SOUTH", "E": "EAST", "W": "WEST", "HTS": "HEIGHTS", "SPGS": "SPRINGS",
                      "SPRGS": "SPRINGS", "BCH": "BEACH", "CTY": "CITY", "VLY": "VALLEY", "JCT": "JUNCTION",
                      "LK": "LAKE", "VLG": "VILLAGE", "CTR": "CENTER", "IS": "ISLAND", "PK": "PARK",
                      "GRV": "GROVE", "HBR": "HARBOR", "SPG": "SPRING", "TWP": "TOWNSHIP", "MTN": "MOUNTAIN"}


@dataclass(slots=True)
class LastLine:
    """City, state and ZIP as written (normalized spacing and case; not yet checked against ZIP data)."""

    city: str = ""
    state: str = ""  # two-letter code when recognized; else the text as written
    zip: str = ""
    zip4: str = ""
    country: str = ""  # "" or "US" for the United States; else the foreign country found
    state_text: str = ""  # the state as written, when it was not recognized


@functools.lru_cache(maxsize=65536)
def city_key(city: str) -> str:
    """A city name with its abbreviations spelled out ("MT VIEW" -> "MOUNT VIEW"), for comparisons."""
    words = city.replace("-", " ").split()
    if _CITY_WORDS.keys().isdisjoint(words):  # most names: no abbreviation to spell out
        return " ".join(words)
    return " ".join([_CITY_WORDS.get(w, w) for w in words])


@functools.lru_cache(maxsize=65536)
def zip_city_keys(zip5: str) -> dict[str, str]:
    """city_key -> USPS name for the names (preferred and acceptable) of one ZIP."""
    info = zipdata.zip_info(zip5)
    return {city_key(c): c for c in info.cities} if info is not None else {}


@functools.cache
def city_index(state: str) -> dict[str, str]:
    """city_key -> the USPS city name for every city (preferred or acceptable) of a state."""
    first, clash = _state_keys(state)
    return {key: _named(state, key) if key in clash else name for key, name in first.items()}


@functools.cache
def _state_keys(state: str) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(city_key -> the state's first city name with that key, in sorted order; the keys several names share ->
    those names, in order): `city_index` without deciding between names that share a key (which reads each one's
    ZIPs), so that looking a typed city up in its state reads those only for the key asked. Keys in the order
    `city_index` has them."""
    names = zipdata.cities_of_state(state)
    first: dict[str, str] = {}
    clash: dict[str, list[str]] = {}
    for name, key in zip(names, _keys_of(names), strict=True):
        got = first.setdefault(key, name)
        if got is not name:
            clash.setdefault(key, [got]).append(name)
    return first, {k: tuple(v) for k, v in clash.items()}


@functools.lru_cache(maxsize=16384)
def _named(state: str, key: str) -> str:
    """The name `city_index(state)` gives `key`: of the names sharing it, the one that names more ZIPs (the first
    in sorted order among equals: "ST MARYS" / "SAINT MARYS")."""
    first, clash = _state_keys(state)
    best = first[key]
    for name in clash.get(key, ())[1:]:
        if len(zipdata.zips_for_city(name, state)) > len(zipdata.zips_for_city(best, state)):
            best = name
    return best


def _keys_of(names: tuple[str, ...]) -> list[str]:
    """city_key of each name, uncached: a state's names are keyed once (`_state_keys` keeps them), so they need not
    pass through, nor crowd, `city_key`'s cache."""
    key = city_key.__wrapped__
    return [key(n) for n in names]


@functools.cache
def _all_city_keys() -> frozenset[str]:
    return frozenset(city_key(c) for c in zipdata.city_names())


@functools.cache
def _city_keys(state: str) -> tuple[str, ...]:
    return tuple(_state_keys(state)[0])


def closest_city(city: str, choices: tuple[str, ...] | list[str]) -> str:
    """The one name in `choices` within a small edit distance of `city` (a swapped, missing or extra letter);
    "" when none is, or when two are equally close."""
    key = city_key(city)
    if not key or not choices:
        return ""
    keys = [city_key(c) for c in choices]
    limit = 1 if len(key) < 8 else 2
    best = process.extract(key, keys, scorer=DamerauLevenshtein.distance, score_cutoff=limit, limit=2)
    if not best or (len(best) > 1 and best[1][1] == best[0][1]):
        return ""
    return choices[best[0][2]]


@functools.lru_cache(maxsize=16384)
def closest_city_in_state(city: str, state: str) -> str:
    """USPS name of the state's city spelled like `city` (exactly, or within a small edit distance)."""
    key = city_key(city)
    if key in _state_keys(state)[0]:
        return _named(state, key)
    keys = _city_keys(state)
    limit = 1 if len(key) < 8 else 2
    if len(key) < 4:
        return ""
    best = process.extract(key, keys, scorer=DamerauLevenshtein.distance, score_cutoff=limit, limit=2)
    if not best or (len(best) > 1 and best[1][1] == best[0][1]):
        return ""
    return _named(state, best[0][0])


def state_code(text: str) -> str:
    """Two-letter code of a state written as a code, a name or a common abbreviation; "" if none."""
    t = " ".join(text.upper().replace(".", " ").replace(",", " ").split())
    return STATE_NAMES.get(t, "")


def parse_zip(text: str, state: str = "") -> tuple[str, str]:
    """(ZIP, ZIP+4) of ZIP text ("95124-1234", "951241234", "2134" for an MA ZIP that lost its zero)."""
    t = text.strip().replace(" ", "")
    m = _ZIP.match(t)
    if m:
        return m.group(1), m.group(2) or ""
    if state in _ZERO_STATES and t.isdigit() and len(t) in (4, 8):
        return parse_zip("0" + t)
    return t, ""


def _take_country(toks: list[str]) -> tuple[list[str], str]:
    if not toks or toks[-1] not in _COUNTRY_LAST_WORDS:
        return toks, ""
    for k in (5, 3, 2, 1):
        if len(toks) > k:
            cand = " ".join(toks[-k:])
            if cand in US_COUNTRY_NAMES:
                return _trim(toks[:-k]), "US"
            if cand in FOREIGN_COUNTRIES:
                return _trim(toks[:-k]), cand
    return toks, ""


def _trim(toks: list[str]) -> list[str]:
    while toks and toks[-1] == ",":
        toks = toks[:-1]
    return toks


def _take_zip(toks: list[str]) -> tuple[list[str], str, str]:
    if not toks:
        return toks, "", ""
    last = toks[-1]
    if _ZIP4.match(last) and len(toks) >= 2 and re.match(r"^\d{5}$", toks[-2]):
        return _trim(toks[:-2]), toks[-2], last
    m = _ZIP.match(last) or _ZIP9.match(last)
    if m and len(toks) >= 2 and toks[-2] in _NOT_BEFORE_ZIP:
        return toks, "", ""  # "PO BOX 11418", "APT 12345"
    if m:
        return _trim(toks[:-1]), m.group(1), m.group(2) or ""
    if last.isdigit() and len(last) == 4 and len(toks) >= 2 and toks[-2] in _ZERO_STATES:
        return _trim(toks[:-1]), "0" + last, ""
    return toks, "", ""


def _take_state(toks: list[str]) -> tuple[list[str], str]:
    for k in (4, 3, 2, 1):
        if len(toks) > k or (k == 1 and toks):
            cand = " ".join(toks[-k:])
            code = STATE_NAMES.get(cand)
            if code:
                return _trim(toks[:-k]), code
    return toks, ""


def split_one_line(tokens: list[str]) -> tuple[list[str], LastLine]:
    """(delivery-line tokens, last line) of a whole address in one string. Tokens keep their "," marks."""
    toks = _trim(list(tokens))
    ll = LastLine()
    toks, ll.country = _take_country(toks)
    if (len(toks) >= 3 and _CANADA_POSTAL.match(toks[-2]) and re.match(r"^\d[A-Z]\d$", toks[-1])) or (
        toks and toks[-1] in _CANADA_PROVINCES and ll.country in ("", "CANADA") and "," in toks
        and not any(_ZIP.match(t) for t in toks[-3:])
    ):
        ll.country = "CANADA"
    toks, ll.zip, ll.zip4 = _take_zip(toks)
    before_state = toks
    toks, ll.state = _take_state(toks)
    # "123 MAIN ST NE": without a ZIP or a comma a trailing code is a directional, unless a city precedes
    if ll.state and not ll.zip and toks and "," not in toks and not _city_end(toks, ll.state):
        toks, ll.state = before_state, ""
    if not ll.state and ll.zip:
        info = zipdata.zip_info(ll.zip)
        state_hint = info.state if info else ""
    else:
        state_hint = ll.state
    if not toks:
        return [], ll
    if toks[-1] == ",":
        toks = _trim(toks)
    # city: the segment before the state, unless that segment is the delivery line itself
    if "," in toks:
        cut = len(toks) - 1 - toks[::-1].index(",")
        seg = toks[cut + 1 :]
        head = toks[:cut]
        if seg and not _looks_like_street(seg):
            if (len(seg) > 1 and seg[0] in DIRECTIONALS and state_hint
                    and city_key(" ".join(seg)) not in _state_keys(state_hint)[0]
                    and city_key(" ".join(seg[1:])) in _state_keys(state_hint)[0]):
                return [*head, seg[0]], LastLine(" ".join(seg[1:]), ll.state, ll.zip, ll.zip4, ll.country)
            ll.city = " ".join(seg)
            return head, ll
        if seg:
            street, city = _split_city(seg, state_hint, ll.zip)
            ll.city = city
            return [*head, ",", *street] if head else street, ll
        return head, ll
    street, city = _split_city(toks, state_hint, ll.zip)
    ll.city = city
    return street, ll


def _looks_like_street(seg: list[str]) -> bool:
    first = seg[0]
    return first[0].isdigit() or first in ("PO", "P", "BOX", "POBOX", "RR", "HC", "PSC", "CMR", "GENERAL") or (
        first in UNITS and len(seg) <= 3) or first == "#"


def _city_end(toks: list[str], state: str) -> int:
    """How many trailing tokens of `toks` name a city of `state` exactly (longest first); 0 if none."""
    idx = _state_keys(state)[0] if state else {}
    for k in range(min(5, len(toks) - 1), 0, -1):
        if city_key(" ".join(toks[-k:])) in idx:
            return k
    return 0


def _split_city(toks: list[str], state: str, zip5: str) -> tuple[list[str], str]:
    """(street tokens, city) of "123 MAIN ST SAN JOSE" given the state / ZIP."""
    if not toks:
        return toks, ""
    if not (state or zip5):
        end = _street_end(toks)
        if end and end < len(toks) and city_key(" ".join(toks[end:])) in _all_city_keys():
            return toks[:end], " ".join(toks[end:])
        return toks, ""
    if not _looks_like_street(toks) and city_key(" ".join(toks)) in _state_keys(state)[0]:
        return [], " ".join(toks)  # "ANCHOR POINT, AK": a last line only
    if len(toks) < 2:
        return toks, ""
    info = zipdata.zip_info(zip5) if zip5 else None
    zip_cities = zip_city_keys(zip5) if info else {}
    idx = _state_keys(state)[0] if state else {}
    for k in range(min(5, len(toks) - 1), 0, -1):
        key = city_key(" ".join(toks[-k:]))
        if key in zip_cities or key in idx:
            return toks[:-k], " ".join(toks[-k:])
    # a misspelt city: the closest city name of the ZIP, else what follows the street, else the closest
    # city name of the state, over the last 1..4 words
    choices = list(info.cities) if info else []
    for k in range(min(4, len(toks) - 1), 0, -1):
        cand = " ".join(toks[-k:])
        if choices and closest_city(cand, choices):
            return toks[:-k], cand
    end = _street_end(toks)
    if end and end < len(toks):
        return toks[:end], " ".join(toks[end:])
    for k in range(min(4, len(toks) - 1), 0, -1):
        cand = " ".join(toks[-k:])
        if len(cand) >= 5 and state and closest_city_in_state(cand, state):
            return toks[:-k], cand
    return toks, ""


def _street_end(toks: list[str]) -> int:
    """Index just after the delivery line in "123 MAIN ST APT 4 SPRINGFEILD": after the first suffix that
    follows a house number and a name, plus a post-directional and a unit; 0 when unclear."""
    if not toks or not toks[0][0].isdigit():
        return 0
    i = 2
    while i < len(toks):
        if toks[i] in SUFFIXES and toks[i] not in EXTRA_SUFFIX_VARIANTS and i >= 2:
            while i + 1 < len(toks) and toks[i + 1] in SUFFIXES:
                i += 1  # "PARK VIEW DR"
            j = i + 1
            if j < len(toks) and toks[j] in DIRECTIONALS:
                j += 1
            if j < len(toks) and (toks[j] in UNITS or toks[j] == "#") and j + 1 < len(toks):
                j += 2
            return j if j < len(toks) else 0
        i += 1
    return 0


def parse_last_line(city: str, state: str, zip_text: str, country: str = "") -> LastLine:
    """A LastLine from separate fields (the state may be a name, the ZIP may carry its +4)."""
    from dqkit.engines.usaddr.tokens import tokenize

    code = state_code(state) if state.strip() else ""
    zip5, zip4 = parse_zip(zip_text, code) if zip_text.strip() else ("", "")
    ctry = " ".join(country.upper().replace(".", " ").split())
    if ctry in US_COUNTRY_NAMES or ctry in ("", "US"):
        ctry = "US" if ctry else ""
    elif ctry in STATE_NAMES and STATE_NAMES[ctry] in STATES:
        code, ctry = code or STATE_NAMES[ctry], "US"  # "Puerto Rico" in the country field
    return LastLine(
        city=" ".join(t for t in tokenize(city) if t != ","),
        state=code,
        zip=zip5,
        zip4=zip4,
        country=ctry,
        state_text="" if code else state.strip().upper(),
    )
