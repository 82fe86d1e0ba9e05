"""Typed models of the address validation service (seed 001), shaped as the vendor's published OpenAPI document.

Field names are the wire names (already snake case), so `msgspec.json.encode(x)` is the service's JSON. Where the
seed names a field it is kept; where it says "not shown" the published structure decides
(`shared/notes/address-vendor-schemas.json`). Optional members are left out of the JSON when unset, so a field
dqkit cannot know is absent, never invented. Decoding ignores members these models do not know (msgspec's default);
`dqkit.client.address` keeps the raw JSON beside the typed answer so a newer vendor answer loses nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final
from urllib.parse import quote, unquote

import msgspec

from dqkit.contract.address_components import AddressComponents, AddressMetadata, Enrichment


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
# ISO 3166 numeric codes and the country names the vendor writes (its US examples say "UNITED STATES OF AMERICA").
ISO_NUMERIC_BY_ISO3: Final[dict[str, str]] = {"USA": "840", "CAN": "124", "GBR": "826"}
VENDOR_COUNTRY_NAMES: Final[dict[str, str]] = {"USA": "UNITED STATES OF AMERICA", "CAN": "CANADA",
                                               "GBR": "UNITED KINGDOM"}


class LocalityRestriction(msgspec.Struct, omit_defaults=True, kw_only=True):
    exists: bool | None = None
    must_be: list[str] | None = None
    must_not_be: list[str] | None = None


class LocalityConstraints(msgspec.Struct, omit_defaults=True, kw_only=True):
    region: LocalityRestriction | None = None


class InputName(msgspec.Struct, omit_defaults=True, kw_only=True):
    forename: str | None = None
    middlename: str | None = None
    surname: str | None = None


def unknown_members(raw: Any, known: Any) -> Any:
    """What `raw` (JSON as received) holds that `known` (the typed answer, as builtins) does not: the members a
    newer vendor answer added. None when nothing is unknown."""
    if isinstance(raw, dict) and isinstance(known, dict):
        out = {}
        for k, v in raw.items():
            if k not in known:
                if v not in (None, "", [], {}, False):  # an empty value is a default the typed side omits
                    out[k] = v
            else:
                sub = unknown_members(v, known[k])
                if sub is not None:
                    out[k] = sub
        return out or None
    if isinstance(raw, list) and isinstance(known, list) and len(raw) == len(known):
        subs = [unknown_members(r, k) for r, k in zip(raw, known, strict=True)]
        return subs if any(x is not None for x in subs) else None
    return None


class Answer(msgspec.Struct, dict=True):
    """Base of every top-level answer. A client keeps the JSON it received beside the typed fields (`raw`), so
    members these models do not know are not lost (`unknown`)."""

    @property
    def raw(self) -> dict[str, Any]:
        """The JSON as received by a client; {} for an answer built in this process."""
        kept: dict[str, Any] = self.__dict__.get("_raw", {})
        return kept

    def keep_raw(self, raw: dict[str, Any]) -> None:
        self.__dict__["_raw"] = raw

    @property
    def unknown(self) -> dict[str, Any]:
        """The members of the received JSON that the typed fields do not hold (nested as received)."""
        found = unknown_members(self.raw, msgspec.to_builtins(self))
        return found if isinstance(found, dict) else {}

    @property
    def note(self) -> str:
        """dqkit's word on what this answer did not check or had to change ("" when nothing): "unit APT 5 not
        checked: ...". The published shapes allow no extra member, so over HTTP it travels in `X-Dqkit-Note`."""
        return str(self.__dict__.get("_note", ""))

    def set_note(self, text: str) -> None:
        self.__dict__["_note"] = text


class Components(msgspec.Struct, omit_defaults=True):
    """The search terms: `unspecified` holds the free text (seed 2.1); `names` and `locality` are published too."""

    unspecified: list[str] = []
    names: list[InputName] | None = None
    locality: LocalityConstraints | None = None


class Option(msgspec.Struct):
    name: str
    value: str


class SearchRequest(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Body of search and validate (section 2.1). `max_suggestions` and `location` are body fields too.

    The published schema requires `country_iso`, `components` and `datasets`: `wire()` is the body with them always
    present (members left at their default are otherwise not encoded, and validate's schema forbids the search-only
    ones). The server checks the required ones (dqkit's own callers may leave `datasets` empty: the country's
    dataset is used).
    """

    country_iso: str = "USA"
    components: Components = msgspec.field(default_factory=Components)
    datasets: list[str] = []
    options: list[Option] = []
    max_suggestions: int | None = None
    location: str | None = None
    preferred_language: list[str] | None = None
    preferred_script: list[str] | None = None
    layouts: list[str] | None = None  # validate only; custom layouts are not served (see `layouts_note`)

    @property
    def text(self) -> str:
        return " ".join(s for s in self.components.unspecified if s).strip()

    def wire(self) -> dict[str, Any]:
        """The JSON body: every set member, and the required ones always."""
        body: dict[str, Any] = msgspec.to_builtins(self)
        body.update(country_iso=self.country_iso, components=msgspec.to_builtins(self.components),
                    datasets=list(self.datasets))
        return body

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


# Members each request body must carry (the published schema's `required`), by body.
SEARCH_REQUIRED: Final = ("country_iso", "components", "datasets")


class AdditionalAttribute(msgspec.Struct):
    name: str
    value: str


class Suggestion(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One suggestion. A final address carries `format` (an absolute URL on the wire); a group (street, building,
    range) does not, and carries `stepin` instead when the server can open it."""

    global_address_key: str = ""
    text: str = ""
    matched: list[tuple[int, int]] = []
    format: str = ""
    stepin: str = ""
    number_of_addresses: int | None = None
    dataset: str = ""
    additional_attributes: list[AdditionalAttribute] = []
    names: list[str] | None = None
    uprn: str | None = None

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


class SearchResponse(Answer):
    """Answer of search, refine and step-in (`AddressSearchV1Response`)."""

    result: SuggestionList


class RefineRequest(msgspec.Struct):
    refinement: str = ""


class ValidationDetail(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Boolean flags naming what was corrected or retained to reach the match (only the flags that are true are
    on the wire; false is the default)."""

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


class MatchInfo(msgspec.Struct, omit_defaults=True, kw_only=True):
    """`match_info` of validate (the vendor's `Add-ExtraMatchInfo`); country-specific codes dqkit does not make."""

    postcode_action: str | None = None
    address_action: str | None = None
    generic_info: list[str] | None = None
    aus_info: list[str] | None = None
    deu_info: list[str] | None = None
    fra_info: list[str] | None = None
    gbr_info: list[str] | None = None
    nld_info: list[str] | None = None
    nzl_info: list[str] | None = None
    sgp_info: list[str] | None = None


class Address(msgspec.Struct, kw_only=True):
    """The 7-line address. Empty lines are empty strings; `country` is upper case."""

    address_line_1: str = ""
    address_line_2: str = ""
    address_line_3: str = ""
    locality: str = ""
    region: str = ""
    postal_code: str = ""
    country: str = ""


class AddressLine(msgspec.Struct, omit_defaults=True, kw_only=True):
    label: str | None = None
    line: str | None = None
    has_overflown_to_other_line: bool | None = None
    is_truncated: bool | None = None
    line_content: str | None = None


class FormattedAddress(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One entry of `addresses_formatted` (a custom layout): dqkit has no layouts but the default, so it never
    sends these; the model decodes them from the vendor."""

    layout_name: str | None = None
    not_enough_lines: bool | None = None
    has_truncated_lines: bool | None = None
    address: dict[str, Any] | None = None
    has_missing_sub_premises: bool | None = None
    address_lines: list[AddressLine] | None = None


class ValidationResult(msgspec.Struct, omit_defaults=True, kw_only=True):
    """`confidence` is required so that it is always on the wire; the rest is present when it applies."""

    confidence: str
    global_address_key: str = ""
    more_results_available: bool | None = None
    validation_detail: ValidationDetail | None = None
    match_type: str = ""
    match_confidence: str = ""
    address: Address | None = None
    addresses_formatted: list[FormattedAddress] | None = None
    components: AddressComponents | None = None
    suggestions_key: str = ""
    suggestions_prompt: str = ""
    suggestions: list[Suggestion] = []
    match_info: MatchInfo | None = None


NOTE_HEADER: Final = "X-Dqkit-Note"
_NOTE_SAFE: Final = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "%")


def note_to_header(note: str) -> str:
    """A note as a header value: printable ASCII as is, anything else (line breaks, non-ASCII) percent-encoded, so
    typed text inside a note can never end or add a header."""
    return quote(note, safe=_NOTE_SAFE)


def note_from_header(value: str) -> str:
    return unquote(value)


class ValidateResponse(Answer, omit_defaults=True):
    """`metadata` and `enrichment` sit beside `result`, present only when asked for (Add-Metadata,
    Add-Enrichment) and known. `note` is dqkit's word on what the answer did not check or had to change; the
    published result allows no extra member, so over HTTP it travels in the `X-Dqkit-Note` header."""

    result: ValidationResult
    metadata: AddressMetadata | None = None
    enrichment: Enrichment | None = None



def layouts_note(layouts: Sequence[str] | None) -> str:
    """What to say when a request names custom layouts: dqkit serves the default 7-line address only, so no
    `addresses_formatted` comes back (an empty string when none was asked for)."""
    names = [n for n in layouts or () if n]
    if not names:
        return ""
    shown = ", ".join(repr(n[:64]) for n in names[:5]) + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")
    return (f"layouts {shown} not applied: only the default 7-line address is served (custom layouts are not "
            "supported)")


class FormatRequest(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Body of POST format: layouts by name and the layout format; `attributes` asks for enrichment datasets.

    dqkit knows the default layout only; other layout names are accepted, the default is returned, and the
    answer's note says so (`layouts_note`; `X-Dqkit-Note` over HTTP).
    """

    layouts: list[str] = []
    layout_format: str = ""
    attributes: dict[str, list[str]] | None = None


class FormatResult(msgspec.Struct, omit_defaults=True, kw_only=True):
    global_address_key: str = ""
    confidence: str = ""
    address: Address = msgspec.field(default_factory=Address)
    addresses_formatted: list[FormattedAddress] | None = None
    components: AddressComponents | None = None


class FormatResponse(Answer, omit_defaults=True):
    """Answer of format (`AddressFormatV1Response`): `metadata` and `enrichment` beside `result`."""

    result: FormatResult
    metadata: AddressMetadata | None = None
    enrichment: Enrichment | None = None


class SuggestionsFormatRequest(msgspec.Struct, kw_only=True):
    """Body of POST /address/suggestions/format/v1: a search whose final suggestions come back formatted."""

    country_iso: str = "USA"
    components: Components = msgspec.field(default_factory=Components)
    datasets: list[str] = []
    max_suggestions: int | None = None
    layouts: list[str] | None = None

    def as_search(self) -> SearchRequest:
        return SearchRequest(country_iso=self.country_iso, components=self.components, datasets=self.datasets,
                             options=[Option("search_type", SearchType.SINGLELINE.value)],
                             max_suggestions=self.max_suggestions)


class FormattedSuggestion(msgspec.Struct, omit_defaults=True, kw_only=True):
    global_address_key: str = ""
    address: Address | None = None
    addresses_formatted: list[dict[str, Any]] | None = None
    components: AddressComponents | None = None
    metadata: AddressMetadata | None = None


class SuggestionsFormatResult(msgspec.Struct, omit_defaults=True, kw_only=True):
    more_results_available: bool
    confidence: str
    suggestions: list[FormattedSuggestion]


class SuggestionsFormatResponse(Answer):
    result: SuggestionsFormatResult


class LookupKey(msgspec.Struct):
    value: str
    type: str = "postal_code"


class LookupRequest(msgspec.Struct, kw_only=True):
    """Body of POST /address/lookup/v2 (and the seed's legacy /address/lookup/v1); every member is encoded."""

    country_iso: str = "USA"
    key: LookupKey
    datasets: list[str] = []
    max_suggestions: int | None = None
    max_addresses: int | None = None
    attributes: dict[str, list[str]] = {}
    preferred_language: list[str] | None = None
    preferred_script: list[str] | None = None
    names: list[InputName] | None = None
    layouts: list[str] | None = None


class LookupLocality(msgspec.Struct, omit_defaults=True, kw_only=True):
    region: dict[str, str | None] | None = None
    sub_region: dict[str, str | None] | None = None
    town: dict[str, str | None] | None = None
    district: dict[str, str | None] | None = None
    sub_district: dict[str, str | None] | None = None
    type: str | None = None


class LookupSuggestion(msgspec.Struct, omit_defaults=True, kw_only=True):
    """A locality or postal code found by lookup (the published `Suggestion`)."""

    locality: LookupLocality | None = None
    postal_code: dict[str, str | None] | None = None
    postal_code_key: str | None = None
    locality_key: str | None = None
    what3words: dict[str, str | None] | None = None


class LookupAddress(msgspec.Struct, omit_defaults=True, kw_only=True):
    """An address found by lookup (the published `AddressSuggestionV2Hub`)."""

    text: str = ""
    matched: list[tuple[int, int]] | None = None
    global_address_key: str = ""
    format: str = ""
    dataset: str = ""
    names: list[str] | None = None
    uprn: str | None = None


class LookupResponse(Answer, omit_defaults=True, kw_only=True):
    """Answer of lookup v2. The published schema has no `result` wrapper here: the members are top level."""

    more_results_available: bool
    confidence: str
    suggestions_key: str = ""
    suggestions_prompt: str = ""
    suggestions: list[LookupSuggestion] | None = None
    addresses: list[LookupAddress] = []
    addresses_formatted: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, found: SuggestionList, dataset: str) -> LookupResponse:
        """The addresses of a search-shaped list, as lookup v2 lists them."""
        return cls(more_results_available=found.more_results_available, confidence=found.confidence,
                   suggestions_key=found.suggestions_key, suggestions_prompt=found.suggestions_prompt,
                   addresses=[LookupAddress(text=s.text, global_address_key=s.global_address_key, format=s.format,
                                            dataset=dataset) for s in found.suggestions])


class Dataset(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One dataset a backend holds (dqkit's view: with its size and whether it is synthetic)."""

    id: str
    name: str = ""
    country_iso: str = ""
    addresses: int = 0
    synthetic: bool = False
    country_name: str = ""


class DatasetElement(msgspec.Struct, omit_defaults=True, kw_only=True):
    id: str = ""
    name: str = ""


class DatasetsCountry(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One country of the datasets answer: its datasets and which of them may be combined in one request."""

    country_iso_3: str = ""
    country_name: str = ""
    datasets: list[DatasetElement] = []
    valid_combinations: list[list[str]] = []

    @classmethod
    def group(cls, datasets: list[Dataset]) -> list[DatasetsCountry]:
        """Datasets by country, in first-seen order; each dataset is valid on its own."""
        out: dict[str, DatasetsCountry] = {}
        for d in datasets:
            c = out.setdefault(d.country_iso, cls(country_iso_3=d.country_iso,
                                                  country_name=d.country_name or
                                                  VENDOR_COUNTRY_NAMES.get(d.country_iso, "")))
            c.datasets.append(DatasetElement(id=d.id, name=d.name))
            c.valid_combinations.append([d.id])
        return list(out.values())


class DatasetsResponse(Answer):
    result: list[DatasetsCountry]

