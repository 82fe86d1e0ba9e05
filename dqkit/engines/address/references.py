"""`ReferenceSet`: several installed references behind one AddressBackend method set.

Each installed reference is its own index file (one per source and region, installed and removed on its own), so
the set keeps one `AddressEngine` per reference rather than rebuilding a merged index whenever one changes:
opening is a memory map, and a request goes only to the references that hold its country (usually one). When
several do (two counties of one state), each answers and the most certain answer wins (ties: the first reference
in install order). Keys are signed per index, so a key finds its reference by trying each (a MAC check, no
search). A country that no reference holds is answered by the open-data-only engine, which never claims a street.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import zip_longest
from typing import TypeVar

from dqkit.contract.address import (
    DEFAULT_MAX_SUGGESTIONS,
    Confidence,
    Dataset,
    FormatRequest,
    FormatResponse,
    LookupRequest,
    LookupResponse,
    SearchRequest,
    SearchResponse,
    SuggestionList,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    ValidateResponse,
)
from dqkit.contract.address_components import NO_ADD_ONS, AddOns
from dqkit.contract.errors import NotFoundError
from dqkit.engines.address.engine import AddressEngine
from dqkit.engines.address.openonly import OpenOnlyEngine
from dqkit.engines.address.provenance import ReferenceInfo, combined
from dqkit.engines.address.suggestions_format import format_suggestions
from dqkit.engines.address_index.countries import iso2_of

R = TypeVar("R", SearchResponse, ValidateResponse)
_ZIP = re.compile(r"\b(\d{5})(?:-\d{4})?\b")

# How much an answer claims: the most certain answer of several references wins.
RANK: dict[str, int] = {
    Confidence.VERIFIED_MATCH: 10, Confidence.INTERACTION_REQUIRED: 9, Confidence.PREMISES_PARTIAL: 8,
    Confidence.MULTIPLE_MATCHES: 7, Confidence.STREET_PARTIAL: 6, Confidence.VERIFIED_STREET: 5,
    Confidence.TOO_MANY_MATCHES: 4, Confidence.VERIFIED_PLACE: 3, Confidence.INCOMPLETE_ADDRESS: 2,
    Confidence.INSUFFICIENT_SEARCH_TERMS: 1, Confidence.NO_MATCHES: 0,
}
_NO_STREET = frozenset({Confidence.VERIFIED_PLACE, Confidence.NO_MATCHES})


class ReferenceSet:
    """Installed references (each an AddressEngine with its ReferenceInfo) plus the open-data-only fallback."""

    def __init__(self, engines: Sequence[AddressEngine], *, fallback: OpenOnlyEngine | None = None) -> None:
        self.engines = list(engines)
        self.fallback = fallback or OpenOnlyEngine()
        infos = [e.reference for e in self.engines]
        self.reference: ReferenceInfo = combined(infos) if infos else self.fallback.reference
        self._by_country: dict[str, list[AddressEngine]] = {}
        for e in self.engines:
            for d in e.index.datasets:
                bucket = self._by_country.setdefault(d.iso2, [])
                if e not in bucket:
                    bucket.append(e)

    @property
    def name(self) -> str:
        """Names the exact builds (part of cache keys: a reference added again must not reuse old answers)."""
        if not self.engines:
            return f"references:{self.fallback.name}"
        return "references:" + "+".join(f"{e.reference.id}@{e.index.build_id[:12]}" for e in self.engines)

    @property
    def countries(self) -> list[str]:
        return sorted(self._by_country)

    def engines_for(self, country_iso: str) -> list[AddressEngine]:
        return self._by_country.get(iso2_of(country_iso or "") or "", [])

    def reference_for(self, country_iso: str) -> ReferenceInfo:
        """The reference that answers requests for `country_iso` (several: combined; none: open data only)."""
        got = self.engines_for(country_iso)
        return combined([e.reference for e in got]) if got else self.fallback.reference

    def covers(self, country_iso: str, postcode: str) -> bool:
        """True when an installed reference holds addresses in `postcode` (so a street there can be checked)."""
        for e in self.engines_for(country_iso):
            ds = next((d for d in e.index.datasets if d.iso2 == iso2_of(country_iso)), None)
            if ds is not None and e.index.streets_in_postcode(ds, postcode) != (0, 0):
                return True
        return False

    # -- the protocol ----------------------------------------------------------------------------------------
    def datasets(self, country_iso: str | None = None) -> list[Dataset]:
        out: dict[str, Dataset] = {}
        for e in self.engines:
            for d in e.datasets(country_iso):
                have = out.get(d.id)
                if have is None:
                    out[d.id] = Dataset(id=d.id, name=f"{d.name} [{e.reference.line()}]", country_iso=d.country_iso,
                                        addresses=d.addresses, synthetic=d.synthetic)
                else:  # two references of one country: one dataset id, both named
                    have.addresses += d.addresses
                    have.name += f" [{e.reference.line()}]"
                    have.synthetic = have.synthetic or d.synthetic
        held = {iso2_of(d.country_iso) for d in out.values()}
        if "US" not in held:
            for d in self.fallback.datasets(country_iso):
                out[d.id] = d
        return list(out.values())

    def search(self, request: SearchRequest) -> SearchResponse:
        engines = self.engines_for(request.country_iso)
        if len(engines) <= 1:
            return self._best(request, lambda e: e.search(request), self.fallback.search)
        # Type-ahead over several references: each one's suggestions, interleaved (best answers first), so a
        # street of either county shows while typing; a verified match in one of them is the answer.
        engines, _ = self._holders_first(engines, request)
        answers = []
        for e in engines:
            got = e.search(request)
            if got.result.confidence == Confidence.VERIFIED_MATCH:
                return got
            answers.append(got)
        answers.sort(key=lambda r: -RANK.get(r.result.confidence, 0))
        limit = request.max_suggestions or DEFAULT_MAX_SUGGESTIONS
        lists = [a.result.suggestions for a in answers]
        merged = [s for group in zip_longest(*lists) for s in group if s is not None]
        top = answers[0].result
        if len([a for a in answers if a.result.suggestions]) <= 1:
            return answers[0]
        out = SuggestionList(
            more_results_available=any(a.result.more_results_available for a in answers) or len(merged) > limit,
            confidence=Confidence.MULTIPLE_MATCHES if len(merged) > 1 else top.confidence,
            suggestions=merged[:limit], suggestions_key=top.suggestions_key, suggestions_prompt=top.suggestions_prompt)
        return SearchResponse(out)

    def validate(self, request: SearchRequest, add: AddOns = NO_ADD_ONS) -> ValidateResponse:
        got = self._best(request, lambda e: e.validate(request, add), lambda r: self.fallback.validate(r, add))
        if len(self.engines_for(request.country_iso)) > 1 and got.result.confidence in _NO_STREET:
            zips = _ZIP.findall(" ".join(request.components.unspecified))
            if zips and not self.covers(request.country_iso, zips[-1]):  # one reference's word is not all's
                got.set_note(f"street not checked: no installed reference holds ZIP {zips[-1]}")
        return got

    def suggestions_format(self, request: SuggestionsFormatRequest,
                           add: AddOns = NO_ADD_ONS) -> SuggestionsFormatResponse:
        return format_suggestions(self, request, add)

    def lookup(self, request: LookupRequest) -> LookupResponse:
        engines = self.engines_for(request.country_iso)
        if not engines:
            return self.fallback.lookup(request)
        answers = [e.lookup(request) for e in engines]
        return max(answers, key=lambda r: (RANK.get(r.confidence, 0), len(r.addresses)))

    def refine(self, key: str, refinement: str) -> SearchResponse:
        return self._owner(key).refine(key, refinement)

    def step_in(self, key: str) -> SearchResponse:
        return self._owner(key).step_in(key)

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
        return self._owner(key).format(key, request, add)

    def owner_reference(self, key: str) -> ReferenceInfo | None:
        """The reference that issued `key` (None when none did)."""
        try:
            return self._owner(key).reference
        except NotFoundError:
            return None

    # -- helpers ---------------------------------------------------------------------------------------------
    def _best(self, request: SearchRequest, ask: Callable[[AddressEngine], R], fallback: Callable[[SearchRequest], R],
              ) -> R:
        engines = self.engines_for(request.country_iso)
        if not engines:
            return fallback(request)
        if len(engines) == 1:
            return ask(engines[0])
        engines, n_held = self._holders_first(engines, request)
        best: R | None = None
        best_rank = -1
        for i, e in enumerate(engines):
            if i == n_held and n_held and best_rank >= RANK[Confidence.STREET_PARTIAL]:
                break  # the references holding the typed ZIP found its street: the others could only guess
            got = ask(e)
            rank = RANK.get(got.result.confidence, 0)
            if rank > best_rank:
                best, best_rank = got, rank
            if rank >= RANK[Confidence.VERIFIED_MATCH]:
                break
        assert best is not None
        return best

    @staticmethod
    def _holders_first(engines: list[AddressEngine], request: SearchRequest) -> tuple[list[AddressEngine], int]:
        """The references that hold the typed US ZIP first: a verified match there ends the search, so a set of
        many regional references costs about one lookup per address (the others are asked only when needed)."""
        if iso2_of(request.country_iso) != "US":
            return engines, 0
        zips = _ZIP.findall(" ".join(request.components.unspecified))
        if not zips:
            return engines, 0
        zip5 = zips[-1]

        def holds(e: AddressEngine) -> bool:
            ds = next((d for d in e.index.datasets if d.iso2 == "US"), None)
            return ds is not None and e.index.streets_in_postcode(ds, zip5) != (0, 0)

        held = [e for e in engines if holds(e)]
        return held + [e for e in engines if e not in held], len(held)

    def _owner(self, key: str) -> AddressEngine:
        for e in self.engines:
            try:
                e.keys.decode(key)
            except NotFoundError:
                continue
            return e
        if not self.engines:
            return self.fallback  # type: ignore[return-value]  # it answers NotFoundError for every key
        raise NotFoundError("unknown address key: it was not issued by any installed reference (made up, altered, "
                            "or from a reference since removed); search again to get a fresh key")

