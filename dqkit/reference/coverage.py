"""Which areas a reference covers completely, so that a street it lacks there may be called "not found".

A reference holding some streets of a ZIP says nothing about the streets it lacks unless it holds all of them: a
county sample, a city's file, an extract cut by a box. Claiming "street not found" from such data turns real
addresses (a city hall) into invalid ones. So each reference records the ZIPs it covers completely, and engines
call a street absent only there; elsewhere it is "not checked".

An OpenAddresses county file ("alameda.csv", "us_ca_santa_clara-addresses-county.geojson.gz") covers its county
completely: the ZIPs it holds whose county (bundled ZIP data) is the one the file is named after, except a ZIP
one of whose cities reaches into another county (the ZIP may too: Palo Alto, Los Gatos), where a street the
file lacks may lie over the line. Anything else, or any file added with `--partial`, covers nothing completely.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

_COUNTY_WORDS: Final = re.compile(r"\b(COUNTY|PARISH|BOROUGH|CENSUS AREA|MUNICIPALITY|CITY AND)\b")


def _key(text: str) -> str:
    return "".join(c for c in _COUNTY_WORDS.sub(" ", text.upper()) if c.isalnum())


def complete_zips(place: str, postcodes: Iterable[tuple[str, str]]) -> list[str]:
    """The ZIPs of `postcodes` ((state, zip) pairs a file holds) that lie in the county the file is named after
    (`place`, e.g. "santa-clara"); empty when the place is no county of those ZIPs."""
    from dqkit.engines import zipdata

    want = _key(place)
    if not want:
        return []
    tables = zipdata.tables()
    out = set()
    for _state, zip5 in postcodes:
        info = tables.by_zip.get(zip5[:5])
        if info is None or not info.county or _key(info.county) != want:
            continue
        if all(tables.counties_by_city.get((c, info.state), frozenset()) <= {info.county} for c in info.cities):
            out.add(zip5[:5])
    return sorted(out)
