"""The one protocol every backend speaks: the in-process local engine and the HTTP clients alike.

Surfaces (accessors, widgets, CLI, server) are written against these protocols only, so any backend can be
swapped in. Batch methods return one `BatchItem` per input, in input order, each holding a result or an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from dqkit.contract.address import (
    Dataset,
    FormatRequest,
    FormatResponse,
    LookupRequest,
    LookupResponse,
    SearchRequest,
    SearchResponse,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    ValidateResponse,
)
from dqkit.contract.address_components import NO_ADD_ONS, AddOns
from dqkit.contract.errors import DqkitError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BatchItem(Generic[T]):
    """The outcome of one input of a batch: `index` is the input's position; exactly one of result/error is set."""

    index: int
    result: T | None = None
    error: DqkitError | None = None
    reference_id: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


@runtime_checkable
class LeadBackend(Protocol):
    """Verifies leads (seed 000)."""

    @property
    def name(self) -> str:
        """A stable identity of the backend and its configuration, used as part of cache keys."""
        ...

    def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage: ...

    def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]: ...


@runtime_checkable
class AddressBackend(Protocol):
    """Searches, validates, refines and formats addresses (seed 001)."""

    @property
    def name(self) -> str: ...

    def search(self, request: SearchRequest) -> SearchResponse: ...

    def validate(self, request: SearchRequest, add: AddOns = NO_ADD_ONS) -> ValidateResponse:
        """`add` asks for the opt-in blocks (Add-Components, Add-Metadata, Add-Enrichment)."""
        ...

    def refine(self, key: str, refinement: str) -> SearchResponse: ...

    def step_in(self, key: str) -> SearchResponse: ...

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
        ...

    def lookup(self, request: LookupRequest) -> LookupResponse: ...

    def datasets(self, country_iso: str | None = None) -> list[Dataset]: ...


@runtime_checkable
class SuggestionsFormatBackend(Protocol):
    """Search and format in one call (the vendor's POST /address/suggestions/format/v1). Apart from
    AddressBackend so that backends without it still count as address backends."""

    def suggestions_format(self, request: SuggestionsFormatRequest,
                           add: AddOns = NO_ADD_ONS) -> SuggestionsFormatResponse: ...
