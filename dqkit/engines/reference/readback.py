"""The records of a built index, read back street by street: what `reference add --append` rebuilds from, so an
installed reference grows without its original files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dqkit.engines.reference.reader import Record
from dqkit.engines.reference.store import ReferenceIndex


def records_of_index(path: str | Path) -> Iterator[tuple[str, Record]]:
    """(iso2, Record) of every address of the index at `path`, in index order."""
    idx = ReferenceIndex(path)
    st = idx.strings
    iso_of = {d.ordinal: d.iso2 for d in idx.datasets}
    extras = idx.a_extra
    for s in range(idx.street_count):
        row = idx.street(s)
        lo, hi = row.lo, row.hi
        if lo == hi:
            continue
        iso2 = iso_of[row.dataset]
        nums = st.many(idx.a_number[lo:hi].tolist())
        desigs = st.many(idx.a_desig[lo:hi].tolist())
        units = st.many(idx.a_unit[lo:hi].tolist())
        lons = idx.a_lon[lo:hi].tolist()
        lats = idx.a_lat[lo:hi].tolist()
        sids = idx.source_ids.range(lo, hi)
        cols = {k: st.many(extras[k][lo:hi].tolist()) if k in extras else [""] * (hi - lo)
                for k in ("zip4", "crrt", "dp")}
        for j in range(hi - lo):
            yield iso2, Record(nums[j], row.predir, row.name, row.suffix, row.postdir, desigs[j], units[j],
                               row.city, row.region, row.postcode, lons[j], lats[j], sids[j], cols["zip4"][j],
                               cols["crrt"][j], cols["dp"][j])
