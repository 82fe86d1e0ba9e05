"""Typed models of the address validation service (seed 001) and the facts of `shared/notes/api-facts.md`.

Field names are the wire names (already snake case), so `msgspec.json.encode(x)` is the service's JSON.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

import msgspec


class Confidence(StrEnum):
    """The 11 confidence values of search and validate results."""

    VERIFIED_MATCH = "Verified match"
    MULTIPLE_MATCHES = "Multiple matches"
    TOO_MANY_MATCHES = "Too many matches"
    INTERACTION_REQUIRED = "Interaction required"
    PREMISES_PARTIAL = "Premises partial"
    STREET_PARTIAL = "Street partial"
    VERIFIED_PLACE = "Verified place"
    VERIFIED_STREET = "Verified street"
    INCOMPLETE_ADDRESS = "Incomplete address"
    INSUFFICIENT_SEARCH_TERMS = "Insufficient search terms"
    NO_MATCHES = "No matches"


CONFIDENCE_MEANINGS: Final[dict[str, str]] = {
    Confidence.VERIFIED_MATCH: "One deliverable match, maybe corrected or completed",
    Confidence.MULTIPLE_MATCHES: "Several equally good matches",
    Confidence.TOO_MANY_MATCHES: "Too many matches to list; type more",
    Confidence.INTERACTION_REQUIRED: "One match, less sure: the user should confirm it",
    Confidence.PREMISES_PARTIAL: "The building matched; its unit is missing or not found",
    Confidence.STREET_PARTIAL: "The street matched; the house number is missing or not in range",
    Confidence.VERIFIED_PLACE: "Matched to a locality (city, ZIP) only",
    Confidence.VERIFIED_STREET: "Matched to a street with no premises data",
    Confidence.INCOMPLETE_ADDRESS: "Part of the address is missing",
    Confidence.INSUFFICIENT_SEARCH_TERMS: "Not enough was typed to search",
    Confidence.NO_MATCHES: "Nothing matched",
}


class MatchType(StrEnum):
    UNPROCESSED = "unprocessed"
    BLANK = "blank"
    UNMATCHED = "unmatched"
    POST_CODE_NO_ADDRESS = "post_code_no_address"
    MULTIPLE_NO_POST_CODE = "multiple_no_post_code"
    MULTIPLE_WITH_POST_CODE = "multiple_with_post_code"
    PARTIAL_NO_POST_CODE = "partial_no_post_code"
    PARTIAL_WITH_POST_CODE = "partial_with_post_code"
    FULL_NO_POST_CODE = "full_no_post_code"
    FULL_WITH_POST_CODE = "full_with_post_code"


class MatchConfidence(StrEnum):
    NONE = "none"
    MEDIUM = "medium"
    HIGH = "high"


class SearchType(StrEnum):
    AUTOCOMPLETE = "autocomplete"
    SINGLELINE = "singleline"
    TYPEDOWN = "typedown"


DEFAULT_MAX_SUGGESTIONS: Final = 7
MAX_SUGGESTIONS: Final[dict[SearchType, int]] = {
    SearchType.AUTOCOMPLETE: 25,
    SearchType.SINGLELINE: 100,
    SearchType.TYPEDOWN: 100,
}

# Datasets by three-letter country code (country_iso is accepted in any case) and by two-letter code.
DATASET_BY_COUNTRY: Final[dict[str, str]] = {"USA": "us-address", "CAN": "ca-address", "GBR": "gb-address"}
ISO2_BY_ISO3: Final[dict[str, str]] = {"USA": "US", "CAN": "CA", "GBR": "GB"}
ISO3_BY_ISO2: Final[dict[str, str]] = {v: k for k, v in ISO2_BY_ISO3.items()}


class Components(msgspec.Struct, omit_defaults=True):
    unspecified: list[str] = []


class Option(msgspec.Struct):
    name: str
    value: str


class SearchRequest(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Body of search and validate (section 2.1). `max_suggestions` and `location` are body fields too."""

    country_iso: str = "USA"
    components: Components = msgspec.field(default_factory=Components)
    datasets: list[str] = []
    options: list[Option] = []
    max_suggestions: int | None = None
    location: str | None = None

    @property
    def text(self) -> str:
        return " ".join(s for s in self.components.unspecified if s).strip()

    @property
    def search_type(self) -> SearchType:
        for o in self.options:
            if o.name.lower() == "search_type":
                try:
                    return SearchType(o.value.lower())
                except ValueError:
                    break
        return SearchType.AUTOCOMPLETE

    @classmethod
    def of(cls, text: str, country_iso: str = "USA", *, search_type: SearchType | str | None = None,
           max_suggestions: int | None = None, datasets: list[str] | None = None) -> SearchRequest:
        """Convenience constructor for one free-text query."""
        options = [Option("search_type", str(SearchType(search_type)))] if search_type else []
        return cls(country_iso=country_iso, components=Components([text]), datasets=datasets or [],
                   options=options, max_suggestions=max_suggestions)


class AdditionalAttribute(msgspec.Struct):
    name: str
    value: str


class Suggestion(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One suggestion. A final address carries `format`; a group (street, building, range) does not."""

    global_address_key: str
    text: str
    matched: list[tuple[int, int]] = []
    format: str = ""
    additional_attributes: list[AdditionalAttribute] = []

    def attribute(self, name: str, default: str = "") -> str:
        for a in self.additional_attributes:
            if a.name == name:
                return a.value
        return default

    @property
    def is_final(self) -> bool:
        return bool(self.format)


class SuggestionList(msgspec.Struct, omit_defaults=True, kw_only=True):
    """`more_results_available`, `confidence` and `suggestions` are required: always on the wire."""

    more_results_available: bool
    confidence: str
    suggestions: list[Suggestion]
    suggestions_key: str = ""
    suggestions_prompt: str = ""


class SearchResponse(msgspec.Struct):
    result: SuggestionList


class RefineRequest(msgspec.Struct):
    refinement: str = ""


class ValidationDetail(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Boolean flags naming what was corrected or retained to reach the match."""

    building_firm_name_corrected: bool = False
    primary_number_corrected: bool = False
    street_corrected: bool = False
    rural_route_highway_contract_matched: bool = False
    city_name_corrected: bool = False
    city_name_alias_matched: bool = False
    state_corrected: bool = False
    zip_code_corrected: bool = False
    secondary_num_retained: bool = False
    iden_pre_st_info_retained: bool = False
    gen_pre_st_info_retained: bool = False
    post_st_info_retained: bool = False


VALIDATION_DETAIL_FLAGS: Final = tuple(ValidationDetail.__struct_fields__)


class Address(msgspec.Struct, kw_only=True):
    """The 7-line address. Empty lines are empty strings; `country` is upper case."""

    address_line_1: str = ""
    address_line_2: str = ""
    address_line_3: str = ""
    locality: str = ""
    region: str = ""
    postal_code: str = ""
    country: str = ""


class ValidationResult(msgspec.Struct, omit_defaults=True, kw_only=True):
    """`confidence` is required so that it is always on the wire; the rest is present when it applies."""

    confidence: str
    global_address_key: str = ""
    validation_detail: ValidationDetail | None = None
    match_type: str = ""
    match_confidence: str = ""
    address: Address | None = None
    components: dict[str, str] | None = None
    suggestions: list[Suggestion] = []


class ValidateResponse(msgspec.Struct):
    result: ValidationResult


class FormatRequest(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Body of POST format: choose layouts and whether to add the component breakdown."""

    layouts: list[str] = []
    layout_format: str = ""
    add_components: bool = False


class FormatResult(msgspec.Struct, omit_defaults=True, kw_only=True):
    global_address_key: str
    confidence: str
    address: Address = msgspec.field(default_factory=Address)
    components: dict[str, str] | None = None
    metadata: dict[str, str] | None = None


class FormatResponse(msgspec.Struct):
    result: FormatResult


class LookupKey(msgspec.Struct):
    value: str
    type: str = "postal_code"


class LookupRequest(msgspec.Struct, omit_defaults=True, kw_only=True):
    country_iso: str = "USA"
    key: LookupKey
    datasets: list[str] = []
    max_suggestions: int | None = None


class Dataset(msgspec.Struct, omit_defaults=True, kw_only=True):
    id: str
    name: str = ""
    country_iso: str = ""
    addresses: int = 0
    synthetic: bool = False


class DatasetsResponse(msgspec.Struct):
    result: list[Dataset]
