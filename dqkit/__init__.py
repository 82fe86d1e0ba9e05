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
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
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
    "read_table": "dqkit.cli._leadio",
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
    "address_backend", "lead_backend", "read_table", "reference", "standardize",
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
    """df.leads / df.addr / Series.addr exist as soon as both dqkit and pandas are imported, in either order.

    With pandas already imported they are registered now; else when pandas is first imported (a finder on
    sys.meta_path runs the registration right after pandas' own module code): `import dqkit`, the CLI and
    `dqkit serve` no longer pay pandas' 0.3 s import unless they use it."""
    # A broken pandas install must not make the CLI or the engines unusable.
    if "pandas" in sys.modules:
        with contextlib.suppress(ImportError):
            import dqkit.notebook  # noqa: F401  (registration happens on import)
        return
    if not any(isinstance(f, _AfterPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterPandas())


class _AfterPandas:
    """Finds nothing itself: wraps the loader that imports pandas, so the accessors register once pandas is.
    (A finder and a loader are any objects with these methods: importlib.abc's base classes would import
    importlib.resources and tempfile into every `import dqkit`, ~10 ms of a CLI start.)"""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name != "pandas":
            return None
        sys.meta_path.remove(self)  # once
        spec = importlib.util.find_spec("pandas")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        inner = spec.loader

        class _ThenRegister:
            def create_module(self, spec: ModuleSpec) -> ModuleType | None:
                return inner.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                inner.exec_module(module)
                _register_accessors()

        spec.loader = _ThenRegister()  # type: ignore[assignment]  # a loader by its methods (see the class)
        return spec


_register_accessors()
