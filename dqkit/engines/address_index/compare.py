"""Comparing two indexes: array by array (the same build, whichever way it was made), or by content (the points a
region holds in each, whatever else the indexes hold), to show that a merged, grown or national index answers
from exactly the data a direct build would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from dqkit.engines.address_index.container import Container
from dqkit.engines.address_index.store import ReferenceIndex

VOLATILE = frozenset({"build_id", "built_at"})


def array_differences(a: str | Path, b: str | Path, *, ignore_meta: Collection[str] = ()) -> list[str]:
    """What differs between two index files: arrays (name, dtype, shape, values) and metadata (less the build's id
    and time, and `ignore_meta`); empty when they are the same index."""
    ca, cb = Container(a), Container(b)
    out = [f"only in {'the first' if k in ca.arrays else 'the second'}: {k}"
           for k in sorted(set(ca.arrays) ^ set(cb.arrays))]
    for k in sorted(set(ca.arrays) & set(cb.arrays)):
        x, y = ca.arrays[k], cb.arrays[k]
        if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            out.append(f"{k}: {x.dtype}{x.shape} != {y.dtype}{y.shape}")
    skip = VOLATILE | set(ignore_meta)
    ma = {k: v for k, v in ca.meta.items() if k not in skip}
    mb = {k: v for k, v in cb.meta.items() if k not in skip}
    out += [f"meta {k}: {ma.get(k)!r} != {mb.get(k)!r}" for k in sorted(set(ma) | set(mb)) if ma.get(k) != mb.get(k)]
    return out


def points(index: str | Path | ReferenceIndex, regions: Collection[str] | None = None) -> Iterator[tuple[Any, ...]]:
    """Every served point of `index` (of `regions` only, when given) in index order: street parts, locality, number,
    unit, coordinates, source id, ZIP+4 and the name of the part it came from."""
    ix = index if isinstance(index, ReferenceIndex) else ReferenceIndex(index)
    want = None if regions is None else {r.upper() for r in regions}
    for s in range(ix.street_count):
        st = ix.street(s)
        if want is not None and st.region not in want:
            continue
        for a in range(st.lo, st.hi):
            r = ix.address(a)
            yield (st.predir, st.name, st.suffix, st.postdir, st.city, st.region, st.postcode, r.number,
                   r.unit_desig, r.unit, r.lon, r.lat, r.source_id, r.zip4, ix.part_of(a).get("name", ""))


def digest(index: str | Path | ReferenceIndex, regions: Collection[str] | None = None) -> tuple[int, str]:
    """(points, SHA-256 of them in order): two indexes holding the same points of `regions` give the same."""
    h = hashlib.sha256()
    n = 0
    for p in points(index, regions):
        h.update(repr(p).encode())
        n += 1
    return n, h.hexdigest()
