"""An address index as the standardizer's and the lead engine's point source, saying where its reference holds
every street.

The lead engine calls a street "not found" (S102, ELS 490) and the street-form rule bounds a street by its house
numbers only where the reference is complete (`dqkit.reference.coverage`). An index alone cannot tell: a file given
as `--reference FILE` may be a sample. So the index travels with its coverage: `covers_completely(zip5)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dqkit.engines.address_index.store import ReferenceIndex
    from dqkit.engines.usaddr.points import AddressPoint


class CoveredPoints:
    """`index` as a PointSource, complete where `complete(zip5)` says."""

    def __init__(self, index: ReferenceIndex, complete: Callable[[str], bool]) -> None:
        self.index = index
        self._complete = complete

    def covers_completely(self, zip5: str) -> bool:
        return bool(self._complete(zip5))

    @property
    def build_id(self) -> str:
        return self.index.build_id

    def points_on_street(self, zip5: str, name: str) -> Sequence[AddressPoint]:
        return self.index.points_on_street(zip5, name)

    def street_names(self, zip5: str) -> Sequence[str]:
        return self.index.street_names(zip5)

    def street_names_held(self, zips: list[str]) -> list[int] | None:
        return self.index.street_names_held(zips)

    def street_name_candidates(self, zips: list[str], key: str, limit: int) -> list[tuple[str, ...]] | None:
        return self.index.street_name_candidates(zips, key, limit)
