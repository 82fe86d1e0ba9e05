"""Where address points lie, read from the points: their country, state and county, the path only a hint.

A folder named `nc/` is no country and `~/Downloads/alameda.csv` names no state, yet both files say where they are
in every row: a US ZIP whose centroid (bundled ZIP data) lies near the row's coordinates is a US address in that
ZIP's state and county; a REGION column names the state too. `locate` reads a sample of rows (the first
`SAMPLE_ROWS`) that way, and `settle` decides what a file is from the data first:

* the data say US (most rows with a ZIP and coordinates lie in their ZIP): the country is US, whatever the path
  says (a path that said otherwise gets a note); `--country XX` other than US is refused, naming both;
* the data say "not US" (many rows, almost none where their postcode would be as a US ZIP): the country is the
  option or the path; with neither, refused (no country is guessed);
* the data say nothing (no coordinates, no postcodes): the option, else the path, else US, as before.

The state of the id and manifest is the one ≥ 90 % of the located rows lie in; `--region` that disagrees is
refused. Rows keep the state of their own ZIP (a state the data inferred is never forced onto rows; an option or
an OpenAddresses path `us/ca/...` that agrees with the data still is). The county is the one ≥ 80 % of them lie in.
"""

from __future__ import annotations

import csv
import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.countries import country as country_facts
from dqkit.engines.address_index.countries import known_countries

SAMPLE_ROWS: Final = 2000
_NEAR_DEG: Final = 1.0  # a point within a degree (about 100 km) of its ZIP's centroid lies in that ZIP's area
_US_SHARE: Final = 0.8  # of the rows with a ZIP and coordinates, this share at their ZIP: US addresses
_NOT_US_ROWS: Final = 20  # at least this many rows with a postcode and coordinates ...
_NOT_US_SHARE: Final = 0.05  # ... of which at most this share at a US ZIP: not US addresses
_STATE_SHARE: Final = 0.9
_COUNTY_SHARE: Final = 0.8
_ZIP5: Final = re.compile(r"^\s*(\d{5})(?:-?\d{4})?\s*$")


@dataclass(frozen=True)
class Located:
    """What a sample of rows says about where they lie."""

    rows: int = 0  # rows read
    checked: int = 0  # rows with a postcode and coordinates
    at_zip: int = 0  # of those, rows whose postcode is a US ZIP whose centroid lies near them
    zip_only: int = 0  # rows with a known US ZIP and no coordinates
    foreign: int = 0  # rows whose postcode is no US ZIP
    states: Mapping[str, int] = field(default_factory=dict)  # state -> located rows (ZIP or REGION column)
    counties: Mapping[str, int] = field(default_factory=dict)  # "ALAMEDA COUNTY" -> rows, of the state found

    @property
    def us(self) -> bool:
        """The rows are US addresses: most of those with coordinates lie at their ZIP (or, without coordinates,
        most postcodes are US ZIPs)."""
        if self.checked:
            return self.at_zip >= 1 and self.at_zip >= _US_SHARE * self.checked
        return self.zip_only >= 1 and self.zip_only >= _US_SHARE * (self.zip_only + self.foreign)

    @property
    def not_us(self) -> bool:
        """Many rows with a postcode and coordinates, almost none at a US ZIP: addresses of another country."""
        return self.checked >= _NOT_US_ROWS and self.at_zip <= _NOT_US_SHARE * self.checked

    @property
    def region(self) -> str:
        """The state ≥ 90 % of the located rows lie in ("" when none does or nothing says)."""
        return _top(self.states, _STATE_SHARE)

    @property
    def county(self) -> str:
        """The county ("ALAMEDA COUNTY") ≥ 80 % of the located rows of `region` lie in ("" when none does)."""
        return _top(self.counties, _COUNTY_SHARE) if self.region else ""

    def evidence(self) -> str:
        """Why the rows are said to be where they are, for messages."""
        where = "/".join(x for x in ("US", self.region) if x)
        county = f", {self.county.title()}" if self.county else ""
        if self.checked:
            return (f"{where}{county}: {self.at_zip:,} of the first {self.checked:,} points with a postcode lie in "
                    "the US ZIP they name")
        return f"{where}{county}: {self.zip_only:,} of the first {self.rows:,} rows name a US ZIP"


def _top(counts: Mapping[str, int], share: float) -> str:
    total = sum(counts.values())
    if not total:
        return ""
    name, n = max(counts.items(), key=lambda kv: kv[1])
    return name if n >= share * total else ""


def _float(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if value == value else None


def locate(rows: Iterable[Mapping[str, str]]) -> Located:
    """What OpenAddresses-column rows (LON, LAT, REGION, POSTCODE; keys upper case) say about where they lie."""
    from dqkit.engines import zipdata
    from dqkit.engines.usaddr.pub28 import STATE_NAMES

    by_zip = zipdata.tables().by_zip
    n = checked = at_zip = zip_only = foreign = 0
    states: Counter[str] = Counter()
    counties: Counter[tuple[str, str]] = Counter()
    for row in rows:
        n += 1
        lon, lat = _float(row.get("LON")), _float(row.get("LAT"))
        coords = lon is not None and lat is not None and not (abs(lon) < 1e-6 and abs(lat) < 1e-6)
        pc = (row.get("POSTCODE") or "").strip()
        m = _ZIP5.match(pc)
        info = by_zip.get(m.group(1)) if m else None
        state = ""
        if pc and coords:
            checked += 1
            if info is not None and info.lat and info.lng and lon is not None and lat is not None and \
                    abs(float(info.lat) - lat) <= _NEAR_DEG and abs(float(info.lng) - lon) <= _NEAR_DEG:
                at_zip += 1
                state = info.state
        elif info is not None:
            zip_only += 1
            state = info.state
        elif pc:
            foreign += 1
        if state and info is not None:
            counties[(state, info.county)] += 1
        region = STATE_NAMES.get((row.get("REGION") or "").strip().upper(), "")
        state = state or region
        if state:
            states[state] += 1
    top = _top(states, _STATE_SHARE)
    return Located(n, checked, at_zip, zip_only, foreign, dict(states),
                   {c: k for (s, c), k in counties.items() if s == top and c})


def sample_csv(lines: Iterable[str], limit: int = SAMPLE_ROWS) -> list[dict[str, str]]:
    """The first `limit` rows of OpenAddresses CSV `lines`, keyed by upper-case column name."""
    reader = csv.reader(lines)
    out: list[dict[str, str]] = []
    try:
        header = [h.strip().upper() for h in next(reader)]
        for row in reader:
            out.append(dict(zip(header, row, strict=False)))
            if len(out) >= limit:
                break
    except (StopIteration, csv.Error, InputError, UnicodeDecodeError):
        pass  # the rows before a broken one: the import itself names it and its line
    return out


@dataclass(frozen=True)
class Settled:
    """What a file is: its country, the state its rows are read with (`parse_region`: "" lets each row take its
    ZIP's state), the state and county the data say (for ids and manifests), and notes for the user."""

    iso2: str
    parse_region: str
    region: str
    county: str
    notes: tuple[str, ...] = ()


def settle(name: str, located: Located, *, hint_iso2: str, hint_region: str, hinted: bool,
           country: str | None = None, region: str | None = None) -> Settled:
    """Country and state of the file `name` from its rows (`located`), the options (`country`, `region`) and its
    path (`hint_iso2`, `hint_region`; `hinted`: the path said the country, it is not the US default). A
    disagreement between the data and an option is refused with one line naming both."""
    want = (country or "").strip().upper()
    if want and want not in known_countries():
        raise InputError(f"unknown country code {country!r} (use a two-letter ISO code such as US)")
    want_region = (region or "").strip().upper()
    notes: list[str] = []
    if located.us:
        if want and want != "US":
            raise InputError(f"{name}: --country {want} ({_country_name(want)}), but its addresses are in "
                             f"{located.evidence()}; leave out --country")
        if hinted and hint_iso2 != "US" and not want:
            notes.append(f"{name}: the path's {hint_iso2.lower()!r} is not taken as the country "
                         f"({_country_name(hint_iso2)}): its addresses are in {located.evidence()}")
        data_region = located.region
        states = set(located.states)
        if want_region:
            if (data_region and want_region != data_region) or (states and want_region not in states):
                raise InputError(f"{name}: --region {want_region}, but its addresses are in {located.evidence()}; "
                                 "leave out --region")
            return Settled("US", want_region, want_region, located.county, tuple(notes))
        if hint_region and hint_iso2 == "US":
            if data_region and hint_region != data_region:
                notes.append(f"{name}: the path says {hint_region}, but its addresses are in "
                             f"{located.evidence()}: read as {data_region}")
                return Settled("US", "", data_region, located.county, tuple(notes))
            return Settled("US", hint_region, hint_region, located.county, tuple(notes))
        return Settled("US", "", data_region, located.county, tuple(notes))
    if located.not_us:
        if want == "US":
            raise InputError(f"{name}: --country US, but its points are not US addresses (only {located.at_zip:,} "
                             f"of the first {located.checked:,} lie in a US ZIP of their postcode); give the country "
                             "of the file with --country")
        iso2 = want or (hint_iso2 if hinted else "")
        if not iso2:
            raise InputError(f"{name}: its points are not US addresses (only {located.at_zip:,} of the first "
                             f"{located.checked:,} lie in a US ZIP of their postcode) and its path names no "
                             "country; give it with --country (a two-letter code, e.g. --country CA)")
        reg = want_region or (hint_region if iso2 == hint_iso2 else "")
        return Settled(iso2, reg, reg, "", tuple(notes))
    iso2 = want or hint_iso2 or "US"
    reg = want_region or (hint_region if iso2 == hint_iso2 else "")
    return Settled(iso2, reg, reg or (located.region if iso2 == "US" else ""), "", tuple(notes))


def _country_name(iso2: str) -> str:
    return country_facts(iso2).name.title()


def located_source(path: str | Path, country: str | None = None) -> tuple[Path, Settled]:
    """A plain OpenAddresses CSV (or .csv.gz) file settled by its rows (`dqkit index build`, `--reference FILE`)."""
    from dqkit.engines.address_index.reader import open_text, source_of

    p = Path(path)
    hint = source_of(p)
    hinted = path_names_country(p)
    rows: list[dict[str, str]] = []
    if p.is_file():
        with open_text(p) as f:
            rows = sample_csv(f)
    return p, settle(str(p), locate(rows), hint_iso2=hint.iso2 if hinted else "", hint_region=hint.region,
                     hinted=hinted, country=country)


def path_names_country(p: Path) -> bool:
    """Whether a folder of the path is a country code (what `source_of` reads), not the US default."""
    parts = [x.upper() for x in p.parts[:-1]]
    known = known_countries()
    return bool(parts) and (parts[-1] in known or (len(parts) >= 2 and parts[-2] in known and len(parts[-1]) == 2))


@functools.cache
def _county_keys(state: str) -> frozenset[str]:
    from dqkit.engines import zipdata

    return frozenset(place_key(i.county) for i in zipdata.tables().by_zip.values() if i.state == state and i.county)


@functools.cache
def _city_keys(state: str) -> frozenset[str]:
    from dqkit.engines import zipdata

    return frozenset(place_key(c) for c in zipdata.tables().cities_by_state.get(state, ()))


_PLACE_WORDS: Final = re.compile(r"\b(COUNTY|PARISH|BOROUGH|CENSUS AREA|MUNICIPALITY|CITY AND)\b")


def place_key(text: str) -> str:
    """A county or city name reduced for comparison: "Santa Clara County", "santa-clara" -> "SANTACLARA"."""
    return "".join(c for c in _PLACE_WORDS.sub(" ", text.upper().replace("-", " ")) if c.isalnum())


def place_slug(county: str) -> str:
    """"SANTA CLARA COUNTY" -> "santa-clara", the place part of a reference id."""
    words = re.split(r"[^a-z0-9]+", _PLACE_WORDS.sub(" ", county.upper()).lower())
    return "-".join(w for w in words if w)


def state_name(code: str) -> str:
    """"CA" -> "CALIFORNIA" ("" for a code that is no US state)."""
    from dqkit.contract.us_states import STATES

    return str(STATES.get(code.upper(), "")).upper()


def place_of_data(name_place: str, settled: Settled) -> tuple[str, str]:
    """(place for coverage, place for the id) of a file whose name says `name_place` ("alameda", "" ...):

    the name's place when it is the county the data lie in (coverage then counts it complete there) or a city of
    their state (a city's file: complete nowhere); else the data's county names the id and nothing counts as
    complete (a file called "export.csv" may be any extract)."""
    if settled.iso2 != "US" or not settled.region:
        return name_place, name_place
    key = place_key(name_place)
    data = settled.county
    if key and data and key == place_key(data):
        return name_place, name_place
    if key and not data and key in _county_keys(settled.region):
        return name_place, name_place  # the data spread over counties: the name may still be the county's
    if key and key in _city_keys(settled.region) and key not in _county_keys(settled.region):
        return name_place, name_place
    return "", place_slug(data) if data else ("" if key in _county_keys(settled.region) else name_place)


def place_notes(name: str, name_place: str, settled: Settled, id_place: str) -> Sequence[str]:
    """A note when the file's name says another county than its points."""
    if name_place and id_place and place_key(name_place) != place_key(id_place) and settled.county and \
            place_key(name_place) in _county_keys(settled.region):
        return (f"{name}: the name says {name_place}, but its addresses are in {settled.county.title()}, "
                f"{settled.region}: named after the data",)
    return ()
