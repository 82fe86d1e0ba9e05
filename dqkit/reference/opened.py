"""The installed references as the local backend uses them: listed at once (cheap), opened on first use.

One `InstalledReferences` serves both services of a `LocalBackend`: the address engine (a `ReferenceSet`) and the
lead engine's address-point matching (a `PointSource` over the US references). Its fingerprint, part of the lead
profile's identity and so of cache keys, comes from the manifests, without opening any index.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dqkit.reference import store
from dqkit.reference.store import Manifest

if TYPE_CHECKING:
    from dqkit.engines.address.references import ReferenceSet
    from dqkit.engines.usaddr.points import AddressPoint


class InstalledReferences:
    """The installed references (all, or the ids given), opened lazily and once."""

    def __init__(self, ids: Sequence[str] | None = None) -> None:
        self.manifests: list[Manifest] = [store.find(i) for i in ids] if ids is not None else store.installed()
        self._set: ReferenceSet | None = None
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self.manifests)

    @property
    def fingerprint(self) -> str:
        return "+".join(f"{m.id}@{m.built}" for m in self.manifests) or "none"

    @property
    def has_us(self) -> bool:
        return any(m.country == "US" for m in self.manifests)

    def engine(self) -> ReferenceSet:
        if self._set is None:
            with self._lock:
                if self._set is None:
                    from dqkit.engines.address import AddressEngine
                    from dqkit.engines.address.references import ReferenceSet

                    self._set = ReferenceSet([AddressEngine.open(m.index_path, m.info()) for m in self.manifests])
        return self._set

    def points(self) -> InstalledPoints | None:
        """The lead engine's PointSource over the US references (None when there is none)."""
        return InstalledPoints(self) if self.has_us else None


class InstalledPoints:
    """PointSource over the installed US references, opening them on the first lead that needs them.

    Beyond the PointSource protocol it says what the data can support: `covers_completely(zip5)` (some reference
    holds every street of the ZIP, see `dqkit.reference.coverage`), and `residential` (whether any reference says
    which addresses are homes: none of the sources does)."""

    residential = False

    def __init__(self, refs: InstalledReferences) -> None:
        self._refs = refs
        self._sources: list[object] | None = None
        self._complete = frozenset(z for m in refs.manifests if m.country == "US" and not m.partial
                                   for z in m.complete_zips)

    def covers_completely(self, zip5: str) -> bool:
        """Whether a street missing from this ZIP is missing from the ZIP (not only from a partial list)."""
        return zip5 in self._complete

    @property
    def fingerprint(self) -> str:
        return self._refs.fingerprint

    def _all(self) -> list[object]:
        if self._sources is None:
            self._sources = [e.index for e in self._refs.engine().engines_for("USA")]
        return self._sources

    def points_on_street(self, zip5: str, name: str) -> Sequence[AddressPoint]:
        out: list[AddressPoint] = []
        for s in self._all():
            out.extend(s.points_on_street(zip5, name))  # type: ignore[attr-defined]
        return out

    def street_names(self, zip5: str) -> Sequence[str]:
        names: dict[str, None] = {}
        for s in self._all():
            names.update(dict.fromkeys(s.street_names(zip5)))  # type: ignore[attr-defined]
        return list(names)
