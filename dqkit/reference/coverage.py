"""Which areas a reference covers completely, so that a street it lacks there may be called "not found".

A reference holding some streets of a ZIP says nothing about the streets it lacks unless it holds all of them: a
county sample, a city's file, an extract cut by a box. Claiming "street not found" from such data turns real
addresses (a city hall) into invalid ones. So each reference records the ZIPs it covers completely, and engines
call a street absent only there; elsewhere it is "not checked".

Coverage comes from evidence, never from a file's name alone (a 5,306-row sample named `alameda.csv` is not Alameda
County). A ZIP is complete when either
* the user vouches for the file (`--complete`, `complete=True`): every ZIP it holds; or
* the file is of a kind the catalogue knows to be published whole (an OpenAddresses or NAD source of a county,
  named after it) AND its rows in that ZIP look whole: at least `MIN_ADDRESSES` addresses and, on average,
  `MIN_PER_STREET` per street (a whole ZIP holds tens of addresses per street; a 1% sample about one), an address
  being a house number on a street counted once (a row written twice, as files merged from two sources hold
  it, or a building's units, are no more of the ZIP: `benchmarks/bench_coverage.py` measured 13 of 50 ZIPs of the
  Alameda sample declared whole with each row written three times when rows were counted); and the ZIP
  lies in that county, and no city of the ZIP reaches into another county (Palo Alto, Los Gatos), where a street the
  file lacks may lie over the line.
Anything else (a sample, a slice, a file of another kind, `--partial`) covers nothing completely.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Final

from dqkit.engines.address_index.reader import Record

_COUNTY_WORDS: Final = re.compile(r"\b(COUNTY|PARISH|BOROUGH|CENSUS AREA|MUNICIPALITY|CITY AND)\b")
MIN_ADDRESSES: Final = 100  # fewer addresses in a ZIP are too few to show it whole
MIN_PER_STREET: Final = 5.0  # addresses per street of a ZIP below which the rows are a sample or a slice
WHOLE_KINDS: Final = frozenset({"openaddresses", "nad"})  # sources published as whole counties or states


def _key(text: str) -> str:
    return "".join(c for c in _COUNTY_WORDS.sub(" ", text.upper()) if c.isalnum())


_NUMBER_BITS: Final = 256  # distinct house numbers a street can show (a whole street's share of them is plenty)


class Density:
    """Distinct addresses and streets per ZIP of the records that stream through `count` (the evidence of
    wholeness). Each street keeps one bit per hash of a house number (`_NUMBER_BITS`, a few dozen bytes a street):
    a number seen twice sets the same bit, and collisions only count fewer addresses, never more."""

    def __init__(self) -> None:
        self.streets: dict[str, dict[tuple[str, str, str, str], int]] = {}

    def count(self, records: Iterable[Record]) -> Iterator[Record]:
        for r in records:
            on = self.streets.setdefault(r.postcode[:5], {})
            key = (r.predir, r.name, r.suffix, r.postdir)
            on[key] = on.get(key, 0) | 1 << (zlib.crc32(r.number.encode()) % _NUMBER_BITS)
            yield r

    @property
    def addresses(self) -> Counter[str]:
        """Distinct addresses (house numbers on a street) per ZIP, at most `_NUMBER_BITS` a street."""
        return Counter({pc: sum(bits.bit_count() for bits in on.values()) for pc, on in self.streets.items()})

    def whole(self, zip5: str) -> bool:
        """Whether the rows of `zip5` look like all of it (see the module docstring)."""
        on = self.streets.get(zip5, {})
        n = sum(bits.bit_count() for bits in on.values())
        return n >= MIN_ADDRESSES and n >= MIN_PER_STREET * len(on)


def complete_zips(place: str, postcodes: Iterable[tuple[str, str]], density: Density | None = None, *,
                  kind: str = "", vouched: bool = False) -> list[str]:
    """The ZIPs of `postcodes` ((state, zip) pairs a file holds) that the file covers completely (see the module
    docstring): all of them when `vouched`; else, for a source of a `kind` published whole, those in the county the
    file is named after (`place`, e.g. "santa-clara") whose rows `density` shows whole; empty otherwise."""
    if vouched:
        return sorted({z[:5] for _, z in postcodes if z[:5].isdigit() and len(z[:5]) == 5})
    if kind not in WHOLE_KINDS or density is None:
        return []
    from dqkit.engines import zipdata

    want = _key(place)
    if not want:
        return []
    tables = zipdata.tables()
    out = set()
    for _state, zip5 in postcodes:
        info = tables.by_zip.get(zip5[:5])
        if info is None or not info.county or _key(info.county) != want or not density.whole(zip5[:5]):
            continue
        if all(tables.counties_by_city.get((c, info.state), frozenset()) <= {info.county} for c in info.cities):
            out.add(zip5[:5])
    return sorted(out)
