"""ZIP facts from the bundled `zipcodes` package, indexed once.

`zipcodes.matching` scans its data on every call (~0.3 ms); the lead engine asks for the same facts for every
lead, so the whole table is turned into dicts on first use (about 40k ZIPs, well under a second) and every
later question is a dict lookup.

County FIPS codes come from the Census county table shipped in `usaddr/data/county_fips.tsv` (see
`dqkit.engines.usaddr.make_county_fips`), matched to `zipcodes`' county names. `zipcodes` holds one county per
ZIP, so "in several counties" is known per city (its ZIPs lie in more than one county), not per ZIP. No bundled
source gives metropolitan areas (CBSA / MSA codes), so none are offered.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


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
    county_fips: str = ""  # five-digit state + county FIPS code ("06085"); "" when the county is unknown

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
    counties_by_city: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)  # (CITY, ST)


# Bump when the cached row layout changes.
_CACHE_FORMAT = 1
_Row = tuple[str, str, str, list[str], str, str, list[str], str, str, str, bool, str]


def _source_rows() -> list[_Row]:
    """One row per ZIP from `zipcodes` (about 3 s: it decompresses and parses its JSON) plus county FIPS."""
    import zipcodes  # imported here: the data load is the cost we pay once

    fips_of = functools.lru_cache(maxsize=None)(_county_fips_lookup())
    rows: list[_Row] = []
    for z in zipcodes.list_all():  # type: ignore[no-untyped-call]
        county = (z["county"] or "").upper()
        rows.append((
            z["zip_code"], z["zip_code_type"], z["city"].upper(), [c.upper() for c in z["acceptable_cities"]],
            z["state"], county, sorted(z["area_codes"] or ()), _coord(z["lat"]), _coord(z["long"]),
            z["country"] or "", bool(z["active"]), fips_of(county, z["state"]) if county else "",
        ))
    return rows


def _cache_file() -> Path | None:
    """Where the prepared rows are kept between runs: keyed by the data's versions, so an upgrade rebuilds."""
    try:
        from importlib.metadata import version

        import platformdirs

        fips = COUNTY_FIPS_FILE.stat()
        key = f"{_CACHE_FORMAT}-{version('zipcodes')}-{fips.st_size}-{int(fips.st_mtime)}"
        return Path(platformdirs.user_cache_dir("dqkit")) / f"zipdata-{key}.msgpack"
    except Exception:  # no cache is a slower start, never a failure
        return None


def _rows() -> list[_Row]:
    """The prepared rows, from the user cache when it holds them (~0.1 s), else from the source (and cached)."""
    import msgspec

    path = _cache_file()
    if path is not None and path.exists():
        try:
            return msgspec.msgpack.decode(path.read_bytes(), type=list[_Row])
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass  # a damaged cache is rebuilt below
    rows = _source_rows()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(msgspec.msgpack.encode(rows))
            os.replace(tmp, path)
        except OSError:
            pass
    return rows


@functools.cache
def tables() -> ZipTables:
    """Build every index from the bundled data, once per process."""
    by_zip: dict[str, ZipInfo] = {}
    preferred: dict[tuple[str, str], list[str]] = defaultdict(list)
    alias: dict[tuple[str, str], list[str]] = defaultdict(list)
    codes_by_state: dict[str, set[str]] = defaultdict(set)
    states_by_code: dict[str, set[str]] = defaultdict(set)
    for zip5, kind, city, acceptable, state, county, codes, lat, lng, country, active, fips in _rows():
        info = ZipInfo(zip=zip5, kind=kind, city=city, acceptable_cities=tuple(acceptable), state=state,
                       county=county, area_codes=frozenset(codes), lat=lat, lng=lng, country=country,
                       active=active, county_fips=fips)
        by_zip[info.zip] = info
        preferred[(info.city, info.state)].append(info.zip)
        for c in info.acceptable_cities:
            alias[(c, info.state)].append(info.zip)
        codes_by_state[info.state] |= info.area_codes
        for code in info.area_codes:
            states_by_code[code].add(info.state)
    by_city: dict[tuple[str, str], tuple[str, ...]] = {}
    for key in preferred.keys() | alias.keys():
        pref = preferred.get(key, [])
        by_city[key] = tuple(pref) + tuple(z for z in alias.get(key, ()) if z not in pref)
    cities: dict[str, set[str]] = defaultdict(set)
    for city, state in by_city:
        cities[state].add(city)
    counties: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key, zips in preferred.items():
        for z5 in zips:
            if by_zip[z5].county and by_zip[z5].kind != "UNIQUE":
                counties[key].add(by_zip[z5].county)
    return ZipTables(
        by_zip=by_zip,
        by_city_state=by_city,
        area_codes_by_state={s: frozenset(c) for s, c in codes_by_state.items()},
        states_by_area_code={c: frozenset(s) for c, s in states_by_code.items()},
        cities_by_state={s: tuple(sorted(c)) for s, c in cities.items()},
        counties_by_city={k: frozenset(v) for k, v in counties.items()},
    )


def _coord(v: str | None) -> str:
    """zipcodes writes "0.0000" where it has no coordinates (military ZIPs): that is no coordinate."""
    if not v:
        return ""
    try:
        return "" if float(v) == 0.0 else v
    except ValueError:
        return ""


COUNTY_FIPS_FILE = Path(__file__).resolve().parent / "usaddr" / "data" / "county_fips.tsv"
_COUNTY_WORDS = re.compile(r"\b(COUNTY|PARISH|BOROUGH|CENSUS AREA|MUNICIPIO|MUNICIPALITY|CITY AND BOROUGH|OF)\b")


def _county_key(name: str) -> str:
    n = unicodedata.normalize("NFKD", name.upper()).encode("ascii", "ignore").decode()
    n = re.sub(r"\bSAINT\b", "ST", n.replace(".", "").replace("'", ""))
    return "".join(n.split())


def _county_fips_lookup() -> Callable[[str, str], str]:
    """A function (county name, state) -> FIPS over the bundled Census table; exact names first, then names
    without their kind word ("MUNICIPALITY OF ANCHORAGE" = "Anchorage Municipality") when that is unique."""
    exact: dict[tuple[str, str], str] = {}
    loose: dict[tuple[str, str], set[str]] = defaultdict(set)
    try:
        lines = COUNTY_FIPS_FILE.read_text(encoding="utf-8").splitlines()[1:]
    except OSError:
        lines = []  # a broken install loses county codes, not the whole standardizer
    for line in lines:
        fips, state, name = line.split("\t")
        exact[(_county_key(name), state)] = fips
        loose[(_county_key(_COUNTY_WORDS.sub(" ", name.upper())), state)].add(fips)

    def fips_of(county: str, state: str) -> str:
        hit = exact.get((_county_key(county), state))
        if hit:
            return hit
        cands = loose.get((_county_key(_COUNTY_WORDS.sub(" ", county)), state), set())
        return next(iter(cands)) if len(cands) == 1 else ""

    return fips_of


def zip_info(zip5: str) -> ZipInfo | None:
    """Facts of a five-digit ZIP, or None when the bundled data does not know it."""
    return tables().by_zip.get(zip5)


def zips_for_city(city: str, state: str) -> tuple[str, ...]:
    """ZIPs of a city (preferred or acceptable name) in a state; upper-case names."""
    return tables().by_city_state.get((city.upper(), state.upper()), ())


def counties_for_city(city: str, state: str) -> frozenset[str]:
    """Counties the (non-unique) ZIPs of a city's preferred name lie in; more than one means status 10."""
    return tables().counties_by_city.get((city.upper(), state.upper()), frozenset())
