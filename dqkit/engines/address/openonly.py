"""`OpenOnlyEngine`: what can be said about an address with no reference installed, and nothing more.

Without address points nothing can confirm that a street or a house exists. What open data can check is the last
line: the US standardizer reconciles ZIP, city and state against the bundled ZIP data (`dqkit.engines.usaddr`).
So validate answers at most `Verified place` ("matched to a locality (city, ZIP) only"), the one confidence value
of the eleven that claims no street and no premises; `Verified match`, `Interaction required`, `Premises partial`,
`Street partial` and `Verified street` all say something about the street and are never given here. The match
type is `post_code_no_address`. Search cannot suggest streets it does not know: it answers `No matches` with a
prompt saying why. The first answer warns once per process, in one sentence, how to add a reference.
"""

from __future__ import annotations

import threading
from typing import Final

from dqkit._warn import warn_user
from dqkit.contract.address import (
    Address,
    Confidence,
    Dataset,
    FormatRequest,
    FormatResponse,
    LookupRequest,
    LookupResponse,
    MatchConfidence,
    MatchType,
    SearchRequest,
    SearchResponse,
    SuggestionList,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    ValidateResponse,
    ValidationDetail,
    ValidationResult,
)
from dqkit.contract.address_components import NO_ADD_ONS, AddOns
from dqkit.contract.errors import BadRequestError, NotFoundError
from dqkit.engines.address.layout import country_name, mixed_case
from dqkit.engines.address.place import place_only
from dqkit.engines.address.provenance import HOW_TO_ADD, ReferenceInfo, open_only_info
from dqkit.engines.address.suggestions_format import format_suggestions
from dqkit.engines.address_index.countries import required_iso2
from dqkit.engines.limits import check_search_text

DATASET_ID: Final = "us-open-data"
PROMPT: Final = ("No address reference is installed: streets cannot be suggested or checked "
                 "(add one with `dqkit reference add`)")



class NoReferenceWarning(UserWarning):
    """No address reference is installed: answers check ZIP / city / state only."""


_warned = False
_warn_lock = threading.Lock()


def warn_once() -> None:
    """Say once per process, in one sentence, that no reference is installed and how to add one."""
    global _warned
    with _warn_lock:
        if _warned:
            return
        _warned = True
    warn_user(HOW_TO_ADD, NoReferenceWarning)


def mark_told() -> None:
    """A surface that says it its own way (the widget's banner) has told the user: no warning on top of it."""
    global _warned
    with _warn_lock:
        _warned = True


class OpenOnlyEngine:
    """The AddressBackend method set over open data only: ZIP / city / state, never the street."""

    def __init__(self, *, quiet: bool = False) -> None:
        self.reference: ReferenceInfo = open_only_info()
        self._quiet = quiet

    @property
    def name(self) -> str:
        return "open-data-only"

    def _check_datasets(self, datasets: list[str]) -> None:
        for name in datasets:
            if name.strip().lower() != DATASET_ID:
                raise BadRequestError(f"unknown dataset {name!r}: no address reference is installed (this service "
                                      f"holds only {DATASET_ID}); add one with `dqkit reference add`")

    def _tell(self) -> None:
        if not self._quiet:
            warn_once()

    def datasets(self, country_iso: str | None = None) -> list[Dataset]:
        if country_iso and required_iso2(country_iso) != "US":
            return []
        return [Dataset(id=DATASET_ID, name="United States: ZIP / city / state only (no street reference "
                                            "installed; streets not checked)", country_iso="USA")]

    def validate(self, request: SearchRequest, add: AddOns = NO_ADD_ONS) -> ValidateResponse:
        """ZIP / city / state only (`add` is accepted: with no street there are no components to add)."""
        check_search_text(request.text)
        iso2 = required_iso2(request.country_iso)
        self._check_datasets(request.datasets)
        self._tell()
        parts = [p.strip() for p in request.components.unspecified if p and p.strip()]
        text = ", ".join(parts)
        if not text or not any(t.isalnum() for t in text):
            return ValidateResponse(ValidationResult(
                confidence=Confidence.INSUFFICIENT_SEARCH_TERMS, match_type=MatchType.BLANK,
                match_confidence=MatchConfidence.NONE))
        if iso2 != "US":
            return ValidateResponse(ValidationResult(
                confidence=Confidence.NO_MATCHES, match_type=MatchType.UNPROCESSED,
                match_confidence=MatchConfidence.NONE))
        place = place_only(text)
        if place is not None:  # "95124", "San Jose, CA": the place is the whole question
            return ValidateResponse(ValidationResult(
                confidence=Confidence.VERIFIED_PLACE, validation_detail=place.detail(),
                match_type=MatchType.POST_CODE_NO_ADDRESS if place.zip else MatchType.UNMATCHED,
                match_confidence=MatchConfidence.NONE, address=place.address()))
        from dqkit.engines.usaddr.standardize import MatchLevel, standardize

        st = standardize(text)
        a = st.address
        if not a.zip:
            # a street with a city and state but no ZIP ("5770 Balboa Dr, Oakland CA"): the city is checked as
            # "San Jose, CA" is, and answered as the place (issue 29); no ZIP is guessed for a city of several
            city = place_only(f"{a.city}, {a.state}") if a.city and a.state else None
            if city is None:
                return ValidateResponse(ValidationResult(
                    confidence=Confidence.NO_MATCHES, match_type=MatchType.UNMATCHED,
                    match_confidence=MatchConfidence.NONE))
            detail = city.detail()
            detail.city_name_corrected = detail.city_name_corrected or "city" in st.corrected
            detail.state_corrected = detail.state_corrected or "state" in st.corrected
            return ValidateResponse(ValidationResult(
                confidence=Confidence.VERIFIED_PLACE, validation_detail=detail,
                match_type=MatchType.POST_CODE_NO_ADDRESS if city.zip else MatchType.UNMATCHED,
                match_confidence=MatchConfidence.NONE, address=city.address()))
        if st.match == MatchLevel.NONE:
            return ValidateResponse(ValidationResult(
                confidence=Confidence.NO_MATCHES, match_type=MatchType.UNMATCHED,
                match_confidence=MatchConfidence.NONE))
        detail = ValidationDetail(
            city_name_corrected="city" in st.corrected, city_name_alias_matched=st.alias,
            state_corrected="state" in st.corrected, zip_code_corrected="zip" in st.corrected)
        address = Address(locality=mixed_case(a.city), region=a.state, postal_code=a.zip, country=country_name("US"))
        return ValidateResponse(ValidationResult(
            confidence=Confidence.VERIFIED_PLACE, validation_detail=detail,
            match_type=MatchType.POST_CODE_NO_ADDRESS, match_confidence=MatchConfidence.NONE, address=address))

    def search(self, request: SearchRequest) -> SearchResponse:
        check_search_text(request.text)
        required_iso2(request.country_iso)
        self._check_datasets(request.datasets)
        self._tell()
        return SearchResponse(_nothing())

    def lookup(self, request: LookupRequest) -> LookupResponse:
        required_iso2(request.country_iso)
        self._tell()
        return LookupResponse.of(_nothing(), "")

    def suggestions_format(self, request: SuggestionsFormatRequest,
                           add: AddOns = NO_ADD_ONS) -> SuggestionsFormatResponse:
        return format_suggestions(self, request, add)

    def refine(self, key: str, refinement: str) -> SearchResponse:
        raise NotFoundError("unknown address key: no reference is installed, so this service issued no keys")

    def step_in(self, key: str) -> SearchResponse:
        raise NotFoundError("unknown address key: no reference is installed, so this service issued no keys")

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
        raise NotFoundError("unknown address key: no reference is installed, so this service issued no keys")


def _nothing() -> SuggestionList:
    return SuggestionList(more_results_available=False, confidence=Confidence.NO_MATCHES, suggestions=[],
                          suggestions_prompt=PROMPT)
