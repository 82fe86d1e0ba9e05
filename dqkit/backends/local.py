"""The in-process backend: the local engines behind the same protocol as the HTTP clients. The default."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from dqkit.contract.errors import InputError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.engines.address.provenance import ReferenceInfo
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.lead.prepare import PreparedLead, note_in_process, prepare_lead

if TYPE_CHECKING:
    from dqkit.engines.address import AddressEngine

DEMO = "demo"


class LocalBackend:
    """Verifies leads and answers address questions in this process: no account, no network.

    Addresses are answered from `reference`:
        None / "installed"   the installed references (`dqkit reference add`); a country none of them holds gets
                             the open-data-only engine (ZIP / city / state checked, the street never claimed)
        "demo"               the bundled SYNTHETIC demo reference, only when asked for; its answers say so
        an id or ids         those installed references
        a path               an index file built by `dqkit index build`
    (None reads the environment variable DQKIT_REFERENCE first), or from `address_engine` given as is. The
    address engine opens lazily (on the first address call) so that lead-only work never pays for it. The lead
    engine's address checks use the same installed references (unless a `lead_engine`, or a `profile` with its
    own `points`, is given); never the synthetic demo.

    Leads are prepared as the HTTP client prepares them before sending (`dqkit.engines.lead.prepare`: phones as
    digits, a unit moved out of a too-long STREET1, the seed's lengths), so the local answer is the answer to the
    lead the client would send. `prepare=False` answers leads exactly as given: what `dqkit serve` does with a
    request it received (the wire is strict; a too-long field there is E300).
    """

    def __init__(self, lead_engine: LeadEngine | None = None, address_engine: Any = None,
                 *, profile: LeadProfile | None = None, reference: str | Path | Sequence[str] | None = None,
                 prepare: bool = True) -> None:
        if lead_engine is not None and profile is not None:
            raise ValueError("give either lead_engine or profile, not both")
        if address_engine is not None and reference is not None:
            raise ValueError("give either address_engine or reference, not both")
        if reference is None and address_engine is None:
            reference = os.environ.get("DQKIT_REFERENCE", "").strip() or None  # CI / nbval: DQKIT_REFERENCE=demo
        self._reference = reference
        self._installed: Any = None
        if address_engine is None and _is_installed(reference):
            from dqkit.reference.opened import InstalledReferences

            ids = None if reference in (None, "installed") else [str(r) for r in _as_list(reference)]
            self._installed = InstalledReferences(ids)
        if lead_engine is None and self._installed is not None and (profile is None or profile.points is None):
            points = self._installed.points()
            if points is not None:
                profile = replace(profile or LeadProfile(), points=points)
        self.lead_engine = lead_engine or LeadEngine(profile or LeadProfile())
        self.prepares = prepare
        self._address_engine = address_engine
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalBackend(lead={self.lead_engine.profile.identity()!r}, reference={self._ref_label()!r})"

    def _ref_label(self) -> str:
        if self._address_engine is not None:
            return str(getattr(getattr(self._address_engine, "reference", None), "id", "") or
                       self._address_engine.name)
        if self._installed is not None:
            return f"installed:{self._installed.fingerprint}"
        return str(self._reference)

    @property
    def name(self) -> str:
        addr = self._address_engine.name if self._address_engine is not None else self._ref_label()
        return f"local[{self.lead_engine.profile.identity()}{'' if self.prepares else ';as-given'}|{addr}]"

    @property
    def reference(self) -> ReferenceInfo:
        """Where address answers come from (opens the address engine)."""
        info: ReferenceInfo = self.address_engine.reference
        return info

    def reference_for(self, country_iso: str) -> ReferenceInfo:
        """The reference that answers requests for `country_iso`."""
        engine = self.address_engine
        pick = getattr(engine, "reference_for", None)
        return pick(country_iso) if callable(pick) else engine.reference

    def covers(self, country_iso: str, postcode: str) -> bool | None:
        """Whether the reference holds addresses in `postcode` (None: this engine cannot say)."""
        check = getattr(self.address_engine, "covers", None)
        return bool(check(country_iso, postcode)) if callable(check) else None

    # ---- leads

    def prepare(self, lead: LeadRequest) -> PreparedLead:
        """The lead this backend's engine answers (no wire: it is answered in-process)."""
        return prepare_lead(lead, None) if self.prepares else PreparedLead(lead, None)

    def prepare_note(self, lead: LeadRequest) -> str:
        """`self.prepare(lead).note`, the `sent` column, without preparing a lead that fits again."""
        return note_in_process(lead) if self.prepares else ""

    def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage:
        return self.lead_engine.verify(self.prepare(lead).lead)

    def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        verify = self.lead_engine.verify  # never raises: every lead gets a message
        prepare = self.prepare
        return [BatchItem(i, verify(prepare(lead).lead)) for i, lead in enumerate(leads)]

    # ---- addresses

    @property
    def address_engine(self) -> AddressEngine:
        if self._address_engine is None:
            with self._lock:
                if self._address_engine is None:
                    self._address_engine = self._open()
        return self._address_engine  # type: ignore[no-any-return]

    def _open(self) -> Any:
        from dqkit.engines.address import AddressEngine

        if self._installed is not None:
            return self._installed.engine()
        ref = self._reference
        if ref == DEMO:
            return AddressEngine.demo()
        path = Path(str(ref))
        if not path.is_file():
            raise InputError(f"reference {ref!r}: not 'demo', an installed reference id (see `dqkit reference "
                             "list`) nor an index file")
        from dqkit.engines.address.provenance import ReferenceInfo as Info

        return AddressEngine.open(path, Info(f"index:{path.name}", source="index file"))

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


def _as_list(reference: str | Path | Sequence[str]) -> list[str]:
    if isinstance(reference, str | Path):
        return [str(reference)]
    return [str(r) for r in reference]


def _is_installed(reference: str | Path | Sequence[str] | None) -> bool:
    """True when `reference` names installed references (None, "installed", ids), not the demo or a file."""
    if reference is None or reference == "installed":
        return True
    if isinstance(reference, Path) or reference == DEMO:
        return False
    items = _as_list(reference)
    return not any(i == DEMO or i.endswith(".dqidx") or Path(i).is_file() for i in items)
