"""The records of a built index, read back street by street: what `reference add --append` rebuilds from, so an
installed reference grows without its original files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dqkit.engines.address_index.reader import Record
from dqkit.engines.address_index.store import ReferenceIndex
from dqkit.engines.usaddr.points import EXTRA_CARRIER_ROUTE, EXTRA_DELIVERY_POINT, EXTRA_ZIP4


def records_of_index(path: str | Path) -> Iterator[tuple[str, Record]]:
    """(iso2, Record) of every address of the index at `path`, in index order (coordinates exact: the points
    write them as the shortest text that reads back as the stored double)."""
    idx = ReferenceIndex(path)
    iso_of = {d.ordinal: d.iso2 for d in idx.datasets}
    for s in range(idx.street_count):
        row = idx.street(s)
        iso2 = iso_of[row.dataset]
        for p in idx.street_points(s):
            ex = p.extra
            yield iso2, Record(p.number, row.predir, row.name, row.suffix, row.postdir, p.street.unit_desig,
                               p.street.unit, row.city, row.region, row.postcode, _float(p.lon), _float(p.lat),
                               p.id, ex.get(EXTRA_ZIP4, ""), ex.get(EXTRA_CARRIER_ROUTE, ""),
                               ex.get(EXTRA_DELIVERY_POINT, ""))


def _float(text: str) -> float:
    return float(text) if text else float("nan")
