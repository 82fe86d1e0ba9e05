"""ZIP facts from the bundled `zipcodes` package, indexed once.

`zipcodes.matching` scans its data on every call (~0.3 ms); the lead engine asks for the same facts for every
lead, so the whole table is turned into dicts on first use (about 40k ZIPs, well under a second) and every
later question is a dict lookup.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ZipInfo:
    """One ZIP code as the bundled data knows it."""

    zip: str
    kind: str  # STANDARD, PO BOX, UNIQUE, MILITARY
    city: str  # preferred city name, upper case
    acceptable_cities: tuple[str, ...]  # other names USPS accepts, upper case
    state: str
    county: str  # e.g. "SAN FRANCISCO COUNTY"
    area_codes: frozenset[str]
    lat: str
    lng: str
    country: str  # "US" for the states and territories; else the country of a military/foreign entry
    active: bool

    @property
    def cities(self) -> tuple[str, ...]:
        return (self.city, *self.acceptable_cities)


@dataclass(frozen=True, slots=True)
class ZipTables:
    by_zip: Mapping[str, ZipInfo]
    by_city_state: Mapping[tuple[str, str], tuple[str, ...]]  # (CITY, ST) -> ZIPs, preferred-name ZIPs first
    area_codes_by_state: Mapping[str, frozenset[str]]
    states_by_area_code: Mapping[str, frozenset[str]]
    cities_by_state: Mapping[str, tuple[str, ...]]


@functools.cache
def tables() -> ZipTables:
    """Build every index from the bundled data, once per process."""
    import zipcodes  # imported here: the data load is the cost we pay once

    by_zip: dict[str, ZipInfo] = {}
    preferred: dict[tuple[str, str], list[str]] = defaultdict(list)
    alias: dict[tuple[str, str], list[str]] = defaultdict(list)
    codes_by_state: dict[str, set[str]] = defaultdict(set)
    states_by_code: dict[str, set[str]] = defaultdict(set)
    for z in zipcodes.list_all():
        info = ZipInfo(
            zip=z["zip_code"],
            kind=z["zip_code_type"],
            city=z["city"].upper(),
            acceptable_cities=tuple(c.upper() for c in z["acceptable_cities"]),
            state=z["state"],
            county=(z["county"] or "").upper(),
            area_codes=frozenset(z["area_codes"] or ()),
            lat=z["lat"] or "",
            lng=z["long"] or "",
            country=z["country"] or "",
            active=bool(z["active"]),
        )
        by_zip[info.zip] = info
        preferred[(info.city, info.state)].append(info.zip)
        for c in info.acceptable_cities:
            alias[(c, info.state)].append(info.zip)
        codes_by_state[info.state] |= info.area_codes
        for code in info.area_codes:
            states_by_code[code].add(info.state)
    by_city: dict[tuple[str, str], tuple[str, ...]] = {}
    for key in preferred.keys() | alias.keys():
        by_city[key] = tuple(preferred.get(key, ())) + tuple(z for z in alias.get(key, ()) if z not in preferred)
    cities: dict[str, set[str]] = defaultdict(set)
    for city, state in by_city:
        cities[state].add(city)
    return ZipTables(
        by_zip=by_zip,
        by_city_state=by_city,
        area_codes_by_state={s: frozenset(c) for s, c in codes_by_state.items()},
        states_by_area_code={c: frozenset(s) for c, s in states_by_code.items()},
        cities_by_state={s: tuple(sorted(c)) for s, c in cities.items()},
    )


def zip_info(zip5: str) -> ZipInfo | None:
    """Facts of a five-digit ZIP, or None when the bundled data does not know it."""
    return tables().by_zip.get(zip5)


def zips_for_city(city: str, state: str) -> tuple[str, ...]:
    """ZIPs of a city (preferred or acceptable name) in a state; upper-case names."""
    return tables().by_city_state.get((city.upper(), state.upper()), ())
