"""What the server serves: the local backend (both protocols) and the lead engine's error answers.

The engines load in a worker thread after the socket is open, so `/healthz` can say "starting" (503) and then
"ok" (200); any other request meanwhile gets a 503 that clients retry.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

from dqkit.backends.base import AddressBackend, LeadBackend
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.contract.lead_wire import WireProblem
from dqkit.server.config import ServerConfig

T = TypeVar("T")


class LeadAnswers(Protocol):
    """The part of the lead engine that answers requests the engine never saw (E300, E500)."""

    def error_message(self, code: str, value: str = "", lead: LeadRequest | None = None) -> ELSGenericMessage: ...

    def reject(self, problem: WireProblem) -> ELSGenericMessage: ...


@dataclass(frozen=True)
class Loaded:
    lead_engine: LeadAnswers
    lead: LeadBackend
    address: AddressBackend
    dataset_ids: frozenset[str]


@dataclass
class ServerEngines:
    """Holds the engines once loaded; `ready` flips when they are."""

    config: ServerConfig
    loader: Callable[[ServerConfig], Loaded]
    _loaded: Loaded | None = None
    error: BaseException | None = None

    def load(self) -> None:
        """Load the engines (blocking); a failure is kept and reported by /healthz instead of crashing."""
        try:
            self._loaded = self.loader(self.config)
        except Exception as exc:
            self.error = exc
            raise

    @property
    def ready(self) -> bool:
        return self._loaded is not None

    @property
    def loaded(self) -> Loaded:
        if self._loaded is None:
            raise RuntimeError("the engines are not loaded yet")
        return self._loaded

    @property
    def lead_engine(self) -> LeadAnswers:
        return self.loaded.lead_engine

    @property
    def lead(self) -> LeadBackend:
        return self.loaded.lead

    @property
    def address(self) -> AddressBackend:
        return self.loaded.address


def load_local(config: ServerConfig) -> Loaded:
    """The local engines for a configuration: lead profile from the access lists, address index from files."""
    from dqkit.backends.local import LocalBackend
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.lead.engine import LeadEngine, LeadProfile

    if config.index is not None:
        address = AddressEngine.open(config.index)
    elif config.references:
        address = AddressEngine.from_files(list(config.references))
    else:
        address = AddressEngine.demo()
    # A real reference (not the synthetic demo) also serves the lead engine's address-point matching: one
    # store, built once, behind both services.
    points = address.index if (config.index is not None or config.references) else None
    profile = LeadProfile(allowed_client_ids=config.client_ids, allowed_partner_ids=config.partner_ids,
                          points=points)
    lead_engine = LeadEngine(profile)
    backend = LocalBackend(lead_engine=lead_engine, address_engine=address)
    dataset_ids = frozenset(d.id for d in backend.datasets(None))
    warm_up(backend)
    return Loaded(lead_engine, backend, backend, dataset_ids)


def warm_up(backend: LeadBackend | AddressBackend) -> None:
    """One lead and one search through the engines, so lazily built indexes exist before /healthz says ready
    (the first lead otherwise pays several seconds of ZIP indexing)."""
    from dqkit.contract.address import SearchRequest
    from dqkit.contract.lead import Phone

    if isinstance(backend, LeadBackend):
        backend.verify_lead(LeadRequest(first_name="Warm", last_name="Up", street1="1 Main St", city="Springfield",
                                        state="IL", zip="62701",
                                        phones=(Phone(phone_type="H", phone_number="2175550100"),)))
    if isinstance(backend, AddressBackend):
        backend.search(SearchRequest.of("1 Main"))


# Engine calls run on a small pool of their own: engines are CPU-bound under the GIL, so more threads would
# only add contention; a few let a timed-out call be abandoned while others go on. Measured on loopback, this
# costs ~70 µs less per request than anyio's to_thread, and keeps 408 on time (inline calls could not).
# DQKIT_ENGINE_THREADS overrides the count (1 measured far worse under autocomplete load than 8).
ENGINE_THREADS: Final = int(os.environ.get("DQKIT_ENGINE_THREADS", "8"))
_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(ENGINE_THREADS, thread_name_prefix="dqkit-engine")
    return _pool


async def run_engine(fn: Callable[..., T], *args: object) -> T:
    """Run blocking engine work in a worker thread, so the Timeout-Seconds deadline can answer 408 on time.

    A timed-out call is abandoned (its thread finishes in the background; engines hold no per-call state).
    """
    return await asyncio.get_running_loop().run_in_executor(_executor(), functools.partial(fn, *args))
