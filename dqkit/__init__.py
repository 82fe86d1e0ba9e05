"""dqkit: check the quality of sales leads and US postal addresses, offline or against the vendor services.

    import dqkit                      # also registers the pandas accessors df.leads, df.addr and Series.addr
    df.leads.verify()                 # the local engine by default; backend="vendor" or a `dqkit serve` URL
    dqkit.LocalBackend().verify_lead(dqkit.LeadRequest(full_name="Ann Lee", zip="20500"))

The public surface is what `__all__` lists; everything else lives in modules whose names say what they hold.
Heavy parts (HTTP clients, engines, widgets, plots) are imported on first use.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import TYPE_CHECKING, Any

from dqkit._version import __version__ as __version__
from dqkit.contract.address import (
    Address,
    Confidence,
    FormatResponse,
    LookupRequest,
    SearchRequest,
    SearchResponse,
    Suggestion,
    ValidateResponse,
)
from dqkit.contract.errors import (
    AuthenticationError,
    BadRequestError,
    DqkitError,
    InputError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProtocolError,
    RateLimitError,
    ReferenceDataError,
    RequestTimeoutError,
    ServerError,
    ServiceError,
    TransportError,
    TransportTimeout,
)
from dqkit.contract.lead import Attribute, ELSGenericMessage, LeadRequest, Phone, StandardizedAddress

# Public name -> module that defines it, imported on first access.
_LAZY: dict[str, str] = {
    "BatchItem": "dqkit.backends.base",
    "LocalBackend": "dqkit.backends.local",
    "BackendSpec": "dqkit.backends.select",
    "lead_backend": "dqkit.backends.select",
    "address_backend": "dqkit.backends.select",
    "LeadEngine": "dqkit.engines.lead.engine",
    "LeadProfile": "dqkit.engines.lead.engine",
    "SpoofList": "dqkit.engines.lead.spoof_list",
    "LeadRecords": "dqkit.engines.lead.records",
    "AddressEngine": "dqkit.engines.address",
    "ReferenceInfo": "dqkit.engines.address.provenance",
    "standardize": "dqkit.engines.usaddr",
    "AddressInput": "dqkit.engines.usaddr",
    "LeadClient": "dqkit.client",
    "AsyncLeadClient": "dqkit.client",
    "AddressClient": "dqkit.client",
    "AsyncAddressClient": "dqkit.client",
    "AddressAutocomplete": "dqkit.widgets",
    "LeadAuditDashboard": "dqkit.widgets",
}

__all__ = [
    "Address", "AddressAutocomplete", "AddressClient", "AddressEngine", "AddressInput", "AsyncAddressClient",
    "AsyncLeadClient", "Attribute", "AuthenticationError", "BackendSpec", "BadRequestError", "BatchItem",
    "Confidence", "DqkitError", "ELSGenericMessage", "FormatResponse", "InputError", "LeadAuditDashboard",
    "LeadClient", "LeadEngine", "LeadProfile", "LeadRecords", "LeadRequest", "LocalBackend", "LookupRequest",
    "NotFoundError", "PayloadTooLargeError", "PermissionDeniedError", "Phone", "ProtocolError", "RateLimitError",
    "ReferenceDataError", "ReferenceInfo", "RequestTimeoutError", "SearchRequest", "SearchResponse", "ServerError",
    "ServiceError", "SpoofList",
    "StandardizedAddress", "Suggestion", "TransportError", "TransportTimeout", "ValidateResponse",
    "address_backend", "lead_backend", "reference", "standardize",
]


def __getattr__(name: str) -> Any:
    if name == "reference":  # the subpackage: dqkit.reference.add / list / info / remove
        return importlib.import_module("dqkit.reference")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dqkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from dqkit import reference
    from dqkit.backends.base import BatchItem
    from dqkit.backends.local import LocalBackend
    from dqkit.backends.select import BackendSpec, address_backend, lead_backend
    from dqkit.client import AddressClient, AsyncAddressClient, AsyncLeadClient, LeadClient
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.address.provenance import ReferenceInfo
    from dqkit.engines.lead.engine import LeadEngine, LeadProfile
    from dqkit.engines.lead.records import LeadRecords
    from dqkit.engines.lead.spoof_list import SpoofList
    from dqkit.engines.usaddr import AddressInput, standardize
    from dqkit.widgets import AddressAutocomplete, LeadAuditDashboard


def _register_accessors() -> None:
    """df.leads / df.addr / Series.addr exist as soon as dqkit is imported (pandas is a core dependency)."""
    # A broken pandas install must not make the CLI or the engines unusable.
    with contextlib.suppress(ImportError):
        import dqkit.notebook  # noqa: F401  (registration happens on import)


_register_accessors()
