"""Rows a reference must not serve, dropped by every build of real data (`reference add`, `build_index`, so
`--reference FILE` and `AddressEngine.from_files` too) and counted by reason.

Real county files carry junk: "123 FAKE ST, ANYTOWN" with no ZIP, points at 0/0 or in projected metres, rows that
repeat. Served, such a row makes a made-up address come back Verified match, the worst answer there is. So every
record of `reference add` passes `Hygiene.keep` first; what it drops is counted per reason, and the counts go
into the manifest (`dropped`), `dqkit reference info` and `reference list`. Exact duplicates are dropped by the
index build, where they sit side by side after the sort (`REASON_DUPLICATE`).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Final

from dqkit.engines.address_index.reader import Record

REASON_NO_POSTCODE: Final = "no_postcode"
REASON_NO_COORDINATES: Final = "no_coordinates"
REASON_BAD_COORDINATES: Final = "bad_coordinates"  # not degrees (projected metres) or 0/0
REASON_OUTSIDE_REGION: Final = "outside_region"
REASON_PLACEHOLDER: Final = "placeholder"
REASON_DUPLICATE: Final = "duplicate"
REASON_NO_STREET: Final = "no_street"  # counted by `reference add`: rows the reader skips (nothing to serve)
REASONS: Final = (REASON_NO_STREET, REASON_NO_POSTCODE, REASON_NO_COORDINATES, REASON_BAD_COORDINATES,
                   REASON_OUTSIDE_REGION,
                  REASON_PLACEHOLDER, REASON_DUPLICATE)
DESCRIPTIONS: Final = {
    REASON_NO_STREET: "no street (empty or unreadable)",
    REASON_NO_POSTCODE: "no postcode",
    REASON_NO_COORDINATES: "no coordinates",
    REASON_BAD_COORDINATES: "coordinates not in degrees, or 0/0",
    REASON_OUTSIDE_REGION: "coordinates outside the region",
    REASON_PLACEHOLDER: "placeholder street or city (FAKE ST, TEST, ANYTOWN)",
    REASON_DUPLICATE: "exact duplicate of another row",
}

# Whole street names and city names that only test and sample rows use.
PLACEHOLDER_STREETS: Final = frozenset({"FAKE", "TEST", "DUMMY", "PLACEHOLDER", "ANYSTREET", "NULL", "ASDF", "XXX"})
PLACEHOLDER_CITIES: Final = frozenset({"ANYTOWN", "ANY TOWN", "ANYCITY", "ANY CITY", "ANYWHERE", "SOMEWHERE",
                                       "TESTVILLE", "TEST CITY", "FAKETOWN", "SPRINGFIELD TEST"})
_MARGIN_DEG: Final = 0.75  # a state's box is its ZIP centroids' box widened by this much (coasts, islands)


class Hygiene:
    """Decides, row by row, whether a record may be served; counts what it drops."""

    def __init__(self, *, coordinates: bool = True) -> None:
        self.coordinates = coordinates  # False: the input has no coordinate columns, so none are asked for
        self.dropped: Counter[str] = Counter()
        self.postcodes: set[tuple[str, str]] = set()  # (region, postcode) of the rows kept

    def reason(self, iso2: str, r: Record) -> str:
        """Why `r` must not be served ("" when it may)."""
        if not r.postcode and iso2 == "US":
            return REASON_NO_POSTCODE  # elsewhere whole sources come without postcodes (many Canadian cities)
        if r.name in PLACEHOLDER_STREETS or r.city in PLACEHOLDER_CITIES:
            return REASON_PLACEHOLDER
        lon, lat = r.lon, r.lat
        if math.isnan(lon) or math.isnan(lat):
            return REASON_NO_COORDINATES if self.coordinates else ""
        if not (-180.0 <= lon <= 180.0 and -90.0 <= lat <= 90.0) or (abs(lon) < 1e-6 and abs(lat) < 1e-6):
            return REASON_BAD_COORDINATES
        if iso2 == "US" and r.region:
            box = state_box(r.region)
            if box is not None and not (box[0] <= lon <= box[2] and box[1] <= lat <= box[3]):
                return REASON_OUTSIDE_REGION
        return ""

    def keep(self, iso2: str, records: Iterable[Record]) -> Iterator[Record]:
        """The records that may be served, in order; the others counted in `dropped`."""
        seen = self.postcodes
        for r in records:
            why = self.reason(iso2, r)
            if why:
                self.dropped[why] += 1
                continue
            seen.add((r.region, r.postcode))
            yield r


@functools.lru_cache(maxsize=128)
def state_box(state: str) -> tuple[float, float, float, float] | None:
    """(min lon, min lat, max lon, max lat) around a US state's ZIP centroids, widened by a margin; None when
    the bundled ZIP data has no centroid of that state (then no point is refused for its place)."""
    from dqkit.engines import zipdata

    lons: list[float] = []
    lats: list[float] = []
    for z in zipdata.tables().by_zip.values():
        if z.state != state or not z.lat or not z.lng:
            continue
        try:
            lats.append(float(z.lat))
            lons.append(float(z.lng))
        except ValueError:
            continue
    if not lons:
        return None
    if max(lons) - min(lons) > 180:  # across the antimeridian (the Aleutians): no box says it
        return None
    m = _MARGIN_DEG
    return min(lons) - m, min(lats) - m, max(lons) + m, max(lats) + m


def summary(dropped: dict[str, int]) -> str:
    """"dropped 2 rows: 1 no postcode, 1 placeholder ..." (empty when nothing was dropped)."""
    total = sum(dropped.values())
    if not total:
        return ""
    parts = [f"{dropped[k]:,} {DESCRIPTIONS.get(k, k)}" for k in REASONS if dropped.get(k)]
    return f"dropped {total:,} row{'s' if total != 1 else ''}: " + "; ".join(parts)
