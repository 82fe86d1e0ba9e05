"""The one way to choose a backend: the local engine (default), the vendor services, or a `dqkit serve`.

Every surface (accessors, report, CLI) accepts what `lead_backend` / `address_backend` accept:

    None or "local"            the in-process engines (no account, no network); one shared instance per process,
                               answering addresses from the installed references (`dqkit reference add`)
    "demo"                     the in-process engines over the bundled SYNTHETIC demo reference (answers say so)
    "vendor"                   the vendor services; base URLs and token from the arguments or the environment
                               variables the HTTP clients document
    "http://host:port"         a `dqkit serve` (or any server speaking the vendor's wire format) at that URL
    BackendSpec(...)           the same choice as a value that can be sent to Dask workers (no live connection)
    a backend object           used as is (LocalBackend, LeadClient, AddressClient, or your own)

A BackendSpec is frozen and picklable; its token never shows in its repr.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, cast

from dqkit.backends.base import AddressBackend, LeadBackend
from dqkit.contract.errors import InputError

Kind = Literal["local", "vendor", "serve"]


@dataclass(frozen=True)
class BackendSpec:
    """Which backend to build. `url` is the base URL of both services for "serve"; for "vendor" the two services
    have their own base URLs (`lead_url`, `address_url`), each falling back to the clients' environment variables.
    """

    kind: Kind = "local"
    url: str | None = None
    reference: str | None = None  # local only: None (installed references), "demo", an installed id, an index
    lead_url: str | None = None
    address_url: str | None = None
    token: str | None = field(default=None, repr=False)
    # Keyword settings of the HTTP client (timeout=, partner_id=, client_id=, fmt=, ...), as (name, value) pairs.
    options: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("local", "vendor", "serve"):
            raise InputError(f"unknown backend kind {self.kind!r}; use 'local', 'vendor' or a URL")
        if self.kind == "serve" and not self.url:
            raise InputError("a 'serve' backend needs the server's URL")
        if self.options and self.kind == "local":
            raise InputError("client options (timeout, account ids, wire) apply to a service, not the local engine")
        if self.reference is not None and self.kind != "local":
            raise InputError("reference= chooses the data of the local engine; a server or the vendor answers from "
                             "its own reference data")


BackendLike: TypeAlias = "str | BackendSpec | LeadBackend | AddressBackend | None"


def backend_spec(backend: str | BackendSpec | None = None, *, token: str | None = None) -> BackendSpec:
    """The BackendSpec of a string choice (see the module docstring)."""
    if isinstance(backend, BackendSpec):
        return backend
    if backend is None or backend.strip().lower() == "local":
        return BackendSpec("local")
    if backend.strip().lower() == "demo":
        return BackendSpec("local", reference="demo")
    text = backend.strip()
    if text.lower() == "vendor":
        return BackendSpec("vendor", token=token)
    if text.lower().startswith(("http://", "https://")):
        return BackendSpec("serve", url=text.rstrip("/"), token=token)
    raise InputError(f"unknown backend {backend!r}: use 'local', 'vendor', a URL of a dqkit serve, or a backend "
                     "object")


_BUILT: dict[tuple[BackendSpec, str], object] = {}
_BUILT_LOCK = threading.Lock()


def _build(spec: BackendSpec, service: Literal["lead", "address"]) -> object:
    """Build (once per process) the backend of `spec` for `service`."""
    with _BUILT_LOCK:
        got = _BUILT.get((spec, service))
        if got is not None:
            return got
        if spec.kind == "local":
            # One LocalBackend serves both protocols: share it so the address engine opens once.
            got = _BUILT.get((spec, "lead" if service == "address" else "address"))
            if got is None:
                from dqkit.backends.local import LocalBackend

                got = LocalBackend(reference=spec.reference)
        else:
            got = _client(spec, service)
        _BUILT[(spec, service)] = got
        return got


def forget_local() -> None:
    """Drop the shared local backends, so the next call opens the references installed now (after `add` /
    `remove`)."""
    with _BUILT_LOCK:
        for key in [k for k in _BUILT if k[0].kind == "local"]:
            del _BUILT[key]


def _client(spec: BackendSpec, service: Literal["lead", "address"]) -> object:
    try:
        from dqkit.client import AddressClient, LeadClient
    except ImportError as exc:  # the HTTP clients are an optional part of some builds
        raise InputError(f"the HTTP clients are not available in this installation ({exc})") from exc
    base = spec.url if spec.kind == "serve" else spec.lead_url if service == "lead" else spec.address_url
    cls: type = LeadClient if service == "lead" else AddressClient
    lead_only = ("partner_id", "client_id", "fmt")
    kwargs: dict[str, object] = {k: v for k, v in spec.options if service == "lead" or k not in lead_only}
    if base:
        kwargs["base_url"] = base
    if spec.token:
        kwargs["token"] = spec.token
    return cls(**kwargs)


def lead_backend(backend: BackendLike = None, *, token: str | None = None) -> LeadBackend:
    """A LeadBackend for `backend` (see the module docstring)."""
    if backend is None or isinstance(backend, str | BackendSpec):
        return cast(LeadBackend, _build(backend_spec(backend, token=token), "lead"))
    if not isinstance(backend, LeadBackend):
        raise InputError(f"{type(backend).__name__} cannot verify leads (it has no verify_leads); pass 'local', "
                         "'vendor', a URL or a lead backend")
    return backend


def address_backend(backend: BackendLike = None, *, token: str | None = None,
                    reference: str | None = None) -> AddressBackend:
    """An AddressBackend for `backend` (see the module docstring); `reference` chooses the local engine's data."""
    if backend is None or isinstance(backend, str | BackendSpec):
        spec = backend_spec(backend, token=token)
        if reference is not None:
            if spec.kind != "local":
                raise InputError("reference= chooses the data of the local engine; a server or the vendor answers "
                                 "from its own reference data")
            spec = replace(spec, reference=str(reference))
        return cast(AddressBackend, _build(spec, "address"))
    if reference is not None:
        raise InputError("reference= applies to the local backend chosen by name; this backend object already has "
                         "its reference data")
    if not isinstance(backend, AddressBackend):
        raise InputError(f"{type(backend).__name__} cannot answer address questions (it has no validate/search); "
                         "pass 'local', 'vendor', a URL or an address backend")
    return backend


def is_remote(backend: object) -> bool:
    """True when calls to `backend` leave the process (HTTP clients), so that batches should run concurrently.

    A backend can say so itself with a boolean `remote` attribute; otherwise dqkit's own clients are remote and
    everything else (the local engines, a test double) runs in-process.
    """
    flag = getattr(backend, "remote", None)
    if isinstance(flag, bool):
        return flag
    return type(backend).__module__.startswith("dqkit.client")
