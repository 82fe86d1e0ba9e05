"""Reading OpenAddresses-format CSV files (plain or gzip) into normalized address records.

Columns: LON, LAT, NUMBER, STREET, UNIT, CITY, DISTRICT, REGION, POSTCODE, ID (HASH when ID is empty), plus the
optional ZIP+4 / carrier route / delivery point columns of `dqkit.engines.usaddr.points.EXTRA_COLUMNS`.

`source_of` reads a file's country from an explicit option, else its OpenAddresses path
(`<country>/<region>/<source>.csv` or `<country>/<source>.csv`), else US; builds settle it from the rows first
(`located`), the path only a hint. US streets go through the standardizer's `parse_street`, so the index and the
standardizer agree on Publication 28 forms; parsing is cached per distinct STREET and UNIT text, which makes it
a small part of the build even on a million rows. An empty US CITY or REGION is filled from the ZIP.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, NamedTuple

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.bounded import bounded_lines
from dqkit.engines.address_index.countries import country, known_countries, normalize_postcode
from dqkit.engines.address_index.tokens import tokens
from dqkit.engines.usaddr.points import EXTRA_COLUMNS
from dqkit.engines.usaddr.pub28 import STATE_NAMES, UNITS

_LEADING_DIGITS: Final = re.compile(r"\d+")
_SPACES: Final = re.compile(r"\s+")
NUMINT_MAX: Final = (1 << 24) - 1


class Record(NamedTuple):
    """One address point, normalized. Parts are upper case, "" when absent."""

    number: str
    predir: str
    name: str
    suffix: str
    postdir: str
    unit_desig: str
    unit: str
    city: str
    region: str
    postcode: str
    lon: float
    lat: float
    source_id: str
    zip4: str
    carrier_route: str
    delivery_point: str


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    iso2: str
    region: str  # from the path, "" when it does not say


def source_of(path: str | Path, country_iso2: str | None = None) -> SourceFile:
    """Country and region of a reference file: explicit option, else its OpenAddresses path, else US."""
    p = Path(path)
    parts = [x.lower() for x in p.parts[:-1]]
    known = known_countries()
    if country_iso2:
        c = country_iso2.upper()
        if c not in known:
            raise InputError(f"unknown country code {country_iso2!r} (use a two-letter ISO code such as US)")
        region = parts[-1].upper() if len(parts) >= 2 and parts[-2].upper() == c and len(parts[-1]) == 2 else ""
        return SourceFile(p, c, region)
    if len(parts) >= 2 and len(parts[-1]) == 2 and parts[-2].upper() in known:
        return SourceFile(p, parts[-2].upper(), parts[-1].upper())
    if parts and parts[-1].upper() in known:
        return SourceFile(p, parts[-1].upper(), "")
    return SourceFile(p, "US", "")


def open_text(path: Path) -> IO[str]:
    """A text stream over a CSV file, transparently gunzipped (by magic bytes, whatever the name)."""
    try:
        with open(path, "rb") as probe:
            gz = probe.read(2) == b"\x1f\x8b"
        if gz:
            return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
        return open(path, encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise InputError(f"cannot read reference file {path}: {exc}") from exc


def numint(number: str) -> int:
    """The leading integer of a house number ("1200A" -> 1200, "N123W456" -> 0), for ordering and ranges."""
    m = _LEADING_DIGITS.match(number)
    return min(int(m.group()), NUMINT_MAX) if m else 0


class _UsParts:
    """parse_street, cached per distinct street text and unit text."""

    def __init__(self) -> None:
        from dqkit.engines.usaddr.parser import parse_street

        self._parse = parse_street
        self._streets: dict[str, tuple[str, str, str, str] | None] = {}
        self._units: dict[str, tuple[str, str]] = {}

    def street(self, text: str) -> tuple[str, str, str, str] | None:
        got = self._streets.get(text, ())
        if got == ():
            s = self._parse(f"1 {text}")
            got = (s.predir, s.name, s.suffix, s.postdir) if s.name else None
            self._streets[text] = got
        return got  # type: ignore[return-value]

    def unit(self, text: str) -> tuple[str, str]:
        got = self._units.get(text)
        if got is None:
            s = self._parse(f"1 MAIN ST {text}")
            got = (s.unit_desig, s.unit) if (s.unit_desig or s.unit) else generic_unit(text)
            self._units[text] = got
        return got


def generic_unit(text: str) -> tuple[str, str]:
    """(designator, unit) of a unit text outside the US: "FLAT 4" -> ("FLAT", "4"), "4" -> ("", "4")."""
    words = tokens(text)
    if not words:
        return "", ""
    head = words[0]
    if head == "#" or head in UNITS or head in ("FLAT", "FLOOR"):
        desig = UNITS.get(head, head) if head not in ("FLAT",) else head
        return desig, " ".join(words[1:])
    return "", " ".join(words)


def read_stream(stream: Iterable[str], src: SourceFile) -> Iterator[Record]:
    """`read_records` over lines already open (a zip member, a decompressing pipe, rows converted from another
    source); `src` names them in errors and gives their country and region."""
    return read_records(src, stream)


def read_records(src: SourceFile, stream: Iterable[str] | None = None) -> Iterator[Record]:
    """Every usable record of one file. Rows without a street are skipped; a missing column is an error."""
    facts = country(src.iso2)
    parts = _UsParts() if src.iso2 == "US" else None
    zips: Any = None  # ZIP facts, loaded on the first row that lacks a city or a state
    opened = open_text(src.path) if stream is None else None
    lines: Iterable[str] = bounded_lines(opened, str(src.path)) if opened is not None else (stream or ())
    with opened if opened is not None else contextlib.nullcontext():
        reader = csv.reader(lines)
        try:
            header = [h.strip().upper() for h in next(reader)]
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"{src.path}: not a CSV file ({exc})") from exc
        col = {h: i for i, h in enumerate(header)}
        if "STREET" not in col or "NUMBER" not in col:
            raise InputError(f"{src.path}: not an OpenAddresses file (needs NUMBER and STREET columns)")
        extra_cols = {EXTRA_COLUMNS[h]: col[h] for h in header if h in EXTRA_COLUMNS}
        n = len(header)
        i_num, i_street = col["NUMBER"], col["STREET"]
        i_unit, i_city, i_region = col.get("UNIT", -1), col.get("CITY", -1), col.get("REGION", -1)
        i_pc, i_lon, i_lat = col.get("POSTCODE", -1), col.get("LON", -1), col.get("LAT", -1)
        i_id, i_hash = col.get("ID", -1), col.get("HASH", -1)
        stem = src.path.name
        street_cache: dict[str, tuple[str, str, str, str] | None] = {}
        # Per-distinct-text caches: a state holds millions of rows but few distinct numbers, units and
        # (city, region, postcode) triples, so each is normalized once (bounded, in case a file is all distinct).
        num_cache: dict[str, str] = {}
        unit_cache: dict[str, tuple[str, str]] = {}
        loc_cache: dict[tuple[str, str, str], tuple[str, str, str, str]] = {}
        has_extra = bool(extra_cols)
        nan = float("nan")
        for rowno, row in enumerate(reader, start=2):
            if len(row) < n:
                row = row + [""] * (n - len(row))
            street_raw = row[i_street].strip()
            if not street_raw:
                continue
            if parts is not None:
                st = parts.street(street_raw.upper())
                if st is None:
                    continue
            else:
                st = street_cache.get(street_raw)
                if st is None:
                    st = ("", " ".join(tokens_upper(street_raw)), "", "")
                    street_cache[street_raw] = st
                if not st[1]:
                    continue
            predir, name, suffix, postdir = st
            num_raw = row[i_num]
            number = num_cache.get(num_raw)
            if number is None:
                number = _SPACES.sub(" ", num_raw.strip().upper())
                if len(num_cache) < _CACHE_MAX:
                    num_cache[num_raw] = number
            unit_raw = row[i_unit].strip() if i_unit >= 0 else ""
            if unit_raw:
                du = unit_cache.get(unit_raw)
                if du is None:
                    du = parts.unit(unit_raw.upper()) if parts is not None else generic_unit(unit_raw)
                    if len(unit_cache) < _CACHE_MAX:
                        unit_cache[unit_raw] = du
                desig, unit = du
            else:
                desig = unit = ""
            lk = (row[i_city] if i_city >= 0 else "", row[i_region] if i_region >= 0 else "",
                  row[i_pc] if i_pc >= 0 else "")
            loc = loc_cache.get(lk)
            if loc is None:
                loc, zips = _locality(src, facts, lk, zips)
                if len(loc_cache) < _CACHE_MAX:
                    loc_cache[lk] = loc
            city, region, postcode, zip4 = loc
            try:
                lon = float(row[i_lon]) if i_lon >= 0 and row[i_lon] else nan
                lat = float(row[i_lat]) if i_lat >= 0 and row[i_lat] else nan
            except ValueError:
                lon = lat = nan
            sid = (row[i_id].strip() if i_id >= 0 else "") or (row[i_hash].strip() if i_hash >= 0 else "")
            if has_extra:
                zip4 = extra_get(row, extra_cols, "zip4") or zip4
                crrt = extra_get(row, extra_cols, "carrier_route")
                dp = extra_get(row, extra_cols, "delivery_point")
            else:
                crrt = dp = ""
            yield Record(
                number, predir, name, suffix, postdir, desig, unit, city, region, postcode, lon, lat,
                sid or f"{stem}:{rowno}", zip4, crrt, dp,
            )


_CACHE_MAX: Final = 1 << 20


def _locality(src: SourceFile, facts: Any, raw: tuple[str, str, str],
              zips: Any) -> tuple[tuple[str, str, str, str], Any]:
    """(city, region, postcode, zip4) of one row's raw CITY, REGION and POSTCODE; and the ZIP table if loaded.

    US: the state name becomes its code, the ZIP+4 extension of a 9-digit postcode is kept, and an empty city
    or state is filled from the ZIP. Elsewhere the region name becomes its code.
    """
    city_raw, region_raw, pc_raw = (x.strip() for x in raw)
    postcode = normalize_postcode(src.iso2, pc_raw)
    city = _SPACES.sub(" ", city_raw.upper())
    region = region_raw.upper()
    zip4 = ""
    if src.iso2 == "US":
        region = STATE_NAMES.get(region, region) if region else src.region
        digits = re.sub(r"\D", "", pc_raw)
        if len(digits) == 9:
            zip4 = digits[5:]
        if postcode and not (city and region):
            if zips is None:
                from dqkit.engines import zipdata

                zips = zipdata.tables().by_zip
            z = zips.get(postcode)
            if z is not None:
                city = city or z.city
                region = region or z.state
    else:
        region = facts.region_codes.get(region, region) if region else src.region
    return (city, region, postcode, zip4), zips


def extra_get(row: list[str], cols: dict[str, int], key: str) -> str:
    i = cols.get(key, -1)
    return row[i].strip().upper() if i >= 0 else ""


def tokens_upper(text: str) -> list[str]:
    """Words of a street name outside the US, upper case, punctuation kept inside words ("ST. JOHN'S")."""
    return _SPACES.sub(" ", text.upper()).strip().split(" ")
