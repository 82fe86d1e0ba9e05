"""The seam between the standardizer and an index of address points (for example OpenAddresses).

The standardizer never reads address files itself: it asks a `PointSource` for the points on one street of one
ZIP, and for the street names of a ZIP when it must correct a name. `dqkit.engines.address_index` implements it over a
persistent on-disk index; `InMemoryPoints` below implements it over CSV rows held in memory (small files, tests).

Rules both sides keep, so that names agree:

* Every point's `street` is `parse_street(f"{NUMBER} {STREET} {UNIT}")` of its row (see `point_from_row`), so its
  parts are Publication 28 parts in upper case, and `street.name` is the key of `points_on_street`.
* A source answers only for the ZIPs it holds. `street_names(zip5)` empty means "no reference here", which the
  standardizer treats as "not verifiable at address level", never as "address invalid".
* Nothing is invented: ZIP+4, carrier route and delivery point come only from columns of the user's file, carried
  in `AddressPoint.extra` under the `EXTRA_*` keys below.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol, runtime_checkable

from dqkit.engines.usaddr.parser import parse_street
from dqkit.engines.usaddr.street import Street

# Keys of AddressPoint.extra that the standardizer reads when a reference file carries them.
EXTRA_ZIP4: Final = "zip4"  # four-digit ZIP+4 add-on
EXTRA_CARRIER_ROUTE: Final = "carrier_route"  # e.g. "C001", "R002"
EXTRA_DELIVERY_POINT: Final = "delivery_point"  # two-digit delivery point (DPBC), e.g. "12"
# Column names accepted for them in a CSV (upper-cased before lookup).
EXTRA_COLUMNS: Final[Mapping[str, str]] = {
    "ZIP4": EXTRA_ZIP4, "ZIPPLUS": EXTRA_ZIP4, "PLUS4": EXTRA_ZIP4, "ZIP_4": EXTRA_ZIP4,
    "CARRIER_ROUTE": EXTRA_CARRIER_ROUTE, "CRRT": EXTRA_CARRIER_ROUTE, "CARRIER": EXTRA_CARRIER_ROUTE,
    "DELIVERY_POINT": EXTRA_DELIVERY_POINT, "DPBC": EXTRA_DELIVERY_POINT, "DP": EXTRA_DELIVERY_POINT,
}


@dataclass(frozen=True, slots=True)
class AddressPoint:
    """One address point of a reference file.

    id:     the file's ID (or a row number when the file has none); stable for one index build.
    number: street.number, repeated for convenience ("1200", "1200A").
    street: the Publication 28 parts of NUMBER + STREET + UNIT (see module docstring).
    unit:   street.unit, repeated ("101" of "# 101"); "" for a building without units.
    city, state, zip: upper case; zip is five digits ("" when the file has none).
    lat, lon: decimal degrees as the file writes them.
    extra:  optional carried-through data, keys EXTRA_ZIP4, EXTRA_CARRIER_ROUTE, EXTRA_DELIVERY_POINT.
    """

    id: str
    number: str
    street: Street
    unit: str
    city: str
    state: str
    zip: str
    lat: str
    lon: str
    extra: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class PointSource(Protocol):
    """What the standardizer needs from an index of address points. Implementations must be safe to call
    many times per address (the standardizer may ask about several ZIPs of one city) and must not raise for
    unknown ZIPs or names: they answer with an empty sequence."""

    def points_on_street(self, zip5: str, name: str) -> Sequence[AddressPoint]:
        """Every point whose `street.name == name` and whose zip is `zip5`, all numbers and units, in any order.
        `name` is a Street.name as `parse_street` spells it ("MAIN", "1ST", "MARTIN LUTHER KING JR")."""
        ...

    def street_names(self, zip5: str) -> Sequence[str]:
        """The distinct `street.name` values in `zip5` (used to correct a misspelt name); empty when the
        source holds nothing for that ZIP."""
        ...


def point_from_row(row: Mapping[str, str], *, state: str = "", row_id: str = "") -> AddressPoint | None:
    """An AddressPoint from one OpenAddresses-style row (LON, LAT, NUMBER, STREET, UNIT, CITY, REGION,
    POSTCODE, ID, plus any EXTRA_COLUMNS), or None when the row has no street. `state` fills an empty REGION."""
    get = {k.upper(): (v or "").strip() for k, v in row.items() if k}.get
    number, street_text, unit = get("NUMBER", ""), get("STREET", ""), get("UNIT", "")
    if not street_text:
        return None
    s = parse_street(f"{number} {street_text} {unit}".strip())
    if not s.name:
        return None
    extra = {key: v for col, key in EXTRA_COLUMNS.items() if (v := get(col, ""))}
    zip5 = get("POSTCODE", "")[:5]
    return AddressPoint(
        id=get("ID", "") or get("HASH", "") or row_id,
        number=s.number,
        street=s,
        unit=s.unit,
        city=get("CITY", "").upper(),
        state=(get("REGION", "") or state).upper(),
        zip=zip5 if zip5.isdigit() and len(zip5) == 5 else "",
        lat=get("LAT", ""),
        lon=get("LON", ""),
        extra=extra,
    )


class InMemoryPoints:
    """A PointSource over points held in memory: fine for a few hundred thousand points; the persistent index
    of `dqkit.engines.address_index` is the one to use for whole states."""

    def __init__(self, points: Iterable[AddressPoint]) -> None:
        by_street: dict[tuple[str, str], list[AddressPoint]] = defaultdict(list)
        for p in points:
            by_street[(p.zip, p.street.name)].append(p)
        self._by_street = {k: tuple(v) for k, v in by_street.items()}
        names: dict[str, set[str]] = defaultdict(set)
        for zip5, name in self._by_street:
            names[zip5].add(name)
        self._names = {z: tuple(sorted(n)) for z, n in names.items()}

    @classmethod
    def from_csv(cls, paths: Iterable[str | Path], *, state: str = "") -> InMemoryPoints:
        """Load OpenAddresses-format CSV files; `state` fills REGION when the files leave it empty."""
        return cls(p for path in paths for p in read_points_csv(path, state=state))

    def points_on_street(self, zip5: str, name: str) -> Sequence[AddressPoint]:
        return self._by_street.get((zip5, name), ())

    def street_names(self, zip5: str) -> Sequence[str]:
        return self._names.get(zip5, ())

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_street.values())


def read_points_csv(path: str | Path, *, state: str = "") -> list[AddressPoint]:
    """Every usable point of one OpenAddresses-format CSV file (rows without a street are skipped)."""
    out: list[AddressPoint] = []
    with open(path, newline="", encoding="utf-8") as f:
        for i, row in enumerate(csv.DictReader(f)):
            p = point_from_row(row, state=state, row_id=f"{Path(path).stem}:{i + 1}")
            if p is not None:
                out.append(p)
    return out
