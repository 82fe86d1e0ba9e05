"""suggestions/format (search and format in one call) over any engine: one reference, a set of them, or none."""

from __future__ import annotations

from typing import Protocol

from dqkit.contract.address import (
    FormatRequest,
    FormatResponse,
    FormattedSuggestion,
    SearchRequest,
    SearchResponse,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    SuggestionsFormatResult,
)
from dqkit.contract.address_components import NO_ADD_ONS, AddOns


class SearchesAndFormats(Protocol):
    def search(self, request: SearchRequest) -> SearchResponse: ...

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse: ...


def format_suggestions(engine: SearchesAndFormats, request: SuggestionsFormatRequest,
                       add: AddOns = NO_ADD_ONS) -> SuggestionsFormatResponse:
    """suggestions/format over any engine (one reference, a set of them, or none): search, then format every final
    suggestion with the engine that issued its key."""
    found = engine.search(request.as_search()).result
    out: list[FormattedSuggestion] = []
    for s in found.suggestions:
        if not s.is_final:
            continue
        f = engine.format(s.global_address_key, None, add)
        out.append(FormattedSuggestion(global_address_key=s.global_address_key, address=f.result.address,
                                       components=f.result.components, metadata=f.metadata))
    return SuggestionsFormatResponse(SuggestionsFormatResult(
        more_results_available=found.more_results_available, confidence=found.confidence, suggestions=out))
