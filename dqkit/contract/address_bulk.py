"""The vendor's bulk batch operations (`/address/bulk/v1/batches`): request and answer models, shared by `dqkit
serve` and the clients so both ends speak the published shapes through the same code.

    POST /address/bulk/v1/batches                      create: up to 10,000 addresses and their `defaults`
    POST /address/bulk/v1/batches/{batch_id}/start     start processing in the background
    GET  /address/bulk/v1/batches/{batch_id}           status: created -> processing -> completed (or stopped)
    GET  /address/bulk/v1/batches/{batch_id}/results   one answer per address, in input order, with statistics
    POST /address/bulk/v1/batches/{batch_id}/stop      stop (the addresses done so far are kept)
    GET  /address/bulk/v1/batches                      the caller's batches
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

import msgspec

from dqkit.contract.address import Address, Answer, MatchInfo, ValidateResponse, ValidationResult
from dqkit.contract.address_components import AddressComponents, AddressMetadata

MAX_BATCH_ADDRESSES: Final = 10_000
MAX_ADDRESS_CHARS: Final = 1000
DEFAULT_LAYOUT: Final = "default"
NOT_PROCESSED: Final = "Not processed"  # the statistic of addresses a stopped batch never reached


class BatchStatus(StrEnum):
    CREATED = "created"
    PROCESSING = "processing"
    COMPLETED = "completed"
    STOPPED = "stopped"


class BulkAddress(msgspec.Struct, omit_defaults=True, kw_only=True, forbid_unknown_fields=True):
    """One address of a batch: free text, and its country and datasets when not the batch's defaults."""

    address: str | None = None
    country_iso: str | None = None
    datasets: list[str] | None = None


class BulkDefaults(msgspec.Struct, omit_defaults=True, kw_only=True, forbid_unknown_fields=True):
    """`defaults` of a batch. `max_processing_time`: seconds ("600") or "[HH:]MM:SS"; past it the batch stops."""

    country_iso: str | None = None
    datasets: list[str] | None = None
    batch_reference_id: str | None = None
    max_processing_time: str | None = None


class BulkCreateRequest(msgspec.Struct, omit_defaults=True, kw_only=True, forbid_unknown_fields=True):
    addresses: list[BulkAddress]
    defaults: BulkDefaults | None = None


class BatchRef(msgspec.Struct, omit_defaults=True, kw_only=True):
    """What create, start and stop answer."""

    batch_id: str | None = None
    batch_reference_id: str | None = None
    status: str | None = None


class BatchRefResponse(Answer, omit_defaults=True):
    result: BatchRef


class BatchInfo(msgspec.Struct, omit_defaults=True, kw_only=True):
    """A batch's status (and an entry of the list). Times are ISO 8601 UTC."""

    batch_id: str | None = None
    batch_reference_id: str | None = None
    status: str | None = None
    reason: str | None = None
    records: int | None = None
    records_processed: int | None = None
    date_submitted: str | None = None
    date_started: str | None = None
    date_ended: str | None = None


class BatchConfig(msgspec.Struct, omit_defaults=True, kw_only=True):
    country_iso: str | None = None
    datasets: list[str] | None = None
    add_components: bool | None = None
    add_metadata: bool | None = None
    add_extra_match_info: bool | None = None
    max_processing_time: str | None = None


class BatchStatusMetadata(msgspec.Struct, omit_defaults=True, kw_only=True):
    batch_config: BatchConfig | None = None


class BatchStatusResponse(Answer, omit_defaults=True):
    result: BatchInfo
    metadata: BatchStatusMetadata | None = None


class BatchList(msgspec.Struct, kw_only=True):  # an empty list is still sent
    batches: list[BatchInfo] = []


class BatchListResponse(Answer, omit_defaults=True):
    result: BatchList


class BulkFormatted(msgspec.Struct, omit_defaults=True, kw_only=True):
    """The validated address in a layout (`default`: the 7 lines address_line_1 .. country)."""

    layout_name: str | None = None
    address: dict[str, str] | None = None


class BulkResultAddress(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One address's answer. No `confidence`: not processed (a stopped batch); `match_info.generic_info` says why
    an address could not be validated (a country the server holds no data for, text too long)."""

    address: str | None = None
    country_iso: str | None = None
    datasets: list[str] | None = None
    confidence: str | None = None
    match_type: str | None = None
    match_confidence: str | None = None
    match_info: MatchInfo | None = None
    addresses_formatted: list[BulkFormatted] | None = None
    components: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None


class BulkStatistic(msgspec.Struct, kw_only=True):
    name: str
    value: int


class BatchResults(msgspec.Struct, omit_defaults=True, kw_only=True):
    batch_id: str | None = None
    batch_reference_id: str | None = None
    credits_charged: int = 0
    status: str | None = None
    reason: str | None = None
    statistics: list[BulkStatistic] | None = None
    addresses: list[BulkResultAddress] | None = None


class BatchResultsResponse(Answer, omit_defaults=True):
    result: BatchResults


def parse_max_processing_time(text: str | None) -> float | None:
    """Seconds of a `max_processing_time` ("600", "10:00", "01:00:00"); None when not set; ValueError if bad."""
    if text is None or not text.strip():
        return None
    t = text.strip()
    parts = t.split(":")
    if len(parts) > 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"max_processing_time {t!r} is not seconds or [HH:]MM:SS")
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + int(p)
    if seconds < 1:
        raise ValueError("max_processing_time must be at least 1 second")
    return float(seconds)



def as_validate_response(answer: BulkResultAddress) -> ValidateResponse:
    """A bulk answer in validate's shape (for frames and pipelines): the default layout's lines as `address`; no
    key (bulk answers carry none); an address the service could not validate or never reached says so in the
    note, and one never reached has confidence "No matches" with match_type "unprocessed"."""
    lines = next((f.address for f in answer.addresses_formatted or [] if f.layout_name == DEFAULT_LAYOUT), None)
    result = ValidationResult(
        confidence=answer.confidence or "No matches",
        match_type=answer.match_type or ("" if answer.confidence else "unprocessed"),
        match_confidence=answer.match_confidence or ("" if answer.confidence else "none"),
        address=msgspec.convert(lines, Address) if lines else None,
        components=msgspec.convert(answer.components, AddressComponents) if answer.components else None,
    )
    out = ValidateResponse(result, metadata=msgspec.convert(answer.metadata, AddressMetadata)
                           if answer.metadata else None)
    info = answer.match_info.generic_info if answer.match_info else None
    if not answer.confidence:
        out.set_note("not processed: the bulk batch stopped before this address")
    elif info and any(i.startswith("not validated") for i in info):
        out.set_note("; ".join(info))
    return out


# Members of validate's components and metadata that the published bulk result does not have (its objects allow
# no others): left out of bulk answers.
_NOT_IN_BULK_COMPONENTS: Final = frozenset({"country_iso_numeric", "additional_elements"})
_BULK_DPV: Final = frozenset({"cmra_indicator", "seed_indicator", "dpv_indicator", "footnotes", "vacancy_indicator",
                              "no_stats_indicator", "pbsa_indicator"})


def bulk_components(c: AddressComponents) -> dict[str, Any]:
    """Validate's components in the bulk result's shape."""
    return {k: v for k, v in msgspec.to_builtins(c).items() if k not in _NOT_IN_BULK_COMPONENTS}


def bulk_metadata(m: AddressMetadata) -> dict[str, Any]:
    """Validate's metadata in the bulk result's shape (its address type is a code; its DPV has fewer members)."""
    out: dict[str, Any] = msgspec.to_builtins(m)
    kind = (out.get("address_classification") or {}).get("address_type")
    if isinstance(kind, dict):
        out["address_classification"]["address_type"] = {k: v for k, v in kind.items() if k == "code"}
    if isinstance(out.get("dpv"), dict):
        out["dpv"] = {k: v for k, v in out["dpv"].items() if k in _BULK_DPV}
    return out
