"""The in-process backend: the local engines behind the same protocol as the HTTP clients. The default."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dqkit.backends.base import BatchItem
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
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.engines.lead.engine import LeadEngine, LeadProfile

if TYPE_CHECKING:
    from dqkit.engines.address import AddressEngine


class LocalBackend:
    """Verifies leads and answers address questions in this process: no account, no network.

    The address engine opens lazily (on the first address call) so that lead-only work never pays for it;
    without one given, it is the bundled synthetic demo reference.
    """

    def __init__(self, lead_engine: LeadEngine | None = None, address_engine: AddressEngine | None = None,
                 *, profile: LeadProfile | None = None) -> None:
        if lead_engine is not None and profile is not None:
            raise ValueError("give either lead_engine or profile, not both")
        self.lead_engine = lead_engine or LeadEngine(profile or LeadProfile())
        self._address_engine = address_engine
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalBackend(lead={self.lead_engine.profile.identity()!r})"

    @property
    def name(self) -> str:
        addr = self._address_engine.name if self._address_engine is not None else "demo"
        return f"local[{self.lead_engine.profile.identity()}|{addr}]"

    # ---- leads

    def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage:
        return self.lead_engine.verify(lead)

    def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        verify = self.lead_engine.verify  # never raises: every lead gets a message
        return [BatchItem(i, verify(lead)) for i, lead in enumerate(leads)]

    # ---- addresses

    @property
    def address_engine(self) -> AddressEngine:
        if self._address_engine is None:
            with self._lock:
                if self._address_engine is None:
                    from dqkit.engines.address import AddressEngine

                    self._address_engine = AddressEngine.demo()
        return self._address_engine

    def search(self, request: SearchRequest) -> SearchResponse:
        return self.address_engine.search(request)

    def validate(self, request: SearchRequest, add: AddOns = NO_ADD_ONS) -> ValidateResponse:
        return self.address_engine.validate(request, add)

    def refine(self, key: str, refinement: str) -> SearchResponse:
        return self.address_engine.refine(key, refinement)

    def step_in(self, key: str) -> SearchResponse:
        return self.address_engine.step_in(key)

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
        return self.address_engine.format(key, request, add)

    def suggestions_format(self, request: SuggestionsFormatRequest,
                           add: AddOns = NO_ADD_ONS) -> SuggestionsFormatResponse:
        return self.address_engine.suggestions_format(request, add)

    def lookup(self, request: LookupRequest) -> LookupResponse:
        return self.address_engine.lookup(request)

    def datasets(self, country_iso: str | None = None) -> list[Dataset]:
        return self.address_engine.datasets(country_iso)
