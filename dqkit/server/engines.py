"""What the server serves: the local backend (both protocols) and the lead engine's error answers.

The engines load in a worker thread after the socket is open, so `/healthz` can say "starting" (503) and then
"ok" (200); any other request meanwhile gets a 503 that clients retry.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

from dqkit.backends.base import AddressBackend, LeadBackend
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.contract.lead_wire import WireProblem
from dqkit.server.config import ServerConfig

T = TypeVar("T")
log = logging.getLogger("dqkit.server")


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
    reference_header: str = ""  # X-Dqkit-Reference of address answers: which reference, how old
    lead_reference_header: str = ""  # the same for lead answers: the reference their street checks used


@dataclass
class ServerEngines:
    """Holds the engines once loaded; `ready` flips when they are."""

    config: ServerConfig
    loader: Callable[[ServerConfig], Loaded]
    _loaded: Loaded | None = None
    error: BaseException | None = None

    def load(self) -> None:
        """Load the engines (blocking); a failure is kept and reported by /healthz instead of crashing."""
        from dqkit.server.workers import mark_ready

        try:
            self._loaded = self.loader(self.config)
        except Exception as exc:
            self.error = exc
            raise
        mark_ready(self.config)

    @property
    def ready(self) -> bool:
        """This process's engines are loaded (it can answer)."""
        return self._loaded is not None

    def workers_ready(self) -> int:
        """How many workers of the server have their engines loaded (with --workers; else 1 or 0)."""
        from dqkit.server.workers import ready_slots

        return len(ready_slots(self.config)) if self._loaded is not None else 0

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
    """The local engines for a configuration: lead profile from the access lists, addresses from (in order) an
    index file, reference files, the synthetic demo when asked for, else the installed references (or, with none,
    the open-data-only engine, which never claims a street)."""
    from dqkit.backends.local import LocalBackend
    from dqkit.engines.address import AddressEngine, keys
    from dqkit.engines.address.provenance import ReferenceInfo
    from dqkit.engines.lead.engine import LeadEngine, LeadProfile
    from dqkit.engines.lead.spoof_list import SpoofList

    keys.use_secret(config.key_secret)  # before any engine is built: its keys are signed with it
    points: object = None
    address: object
    if config.index is not None:
        complete = None if config.complete else frozenset[str]()  # partial unless the user vouches (--complete)
        address = AddressEngine.open(config.index, ReferenceInfo(f"index:{config.index.name}", source="index file",
                                                                 complete_postcodes=complete))
        points = address.points()
    elif config.references:
        engine = AddressEngine.from_files(list(config.references), complete=config.complete)
        engine.reference = ReferenceInfo("files:" + "+".join(p.name for p in config.references),
                                         source="reference files", built=engine.reference.built,
                                         complete_postcodes=engine.reference.complete_postcodes)
        address, points = engine, engine.points()
    elif config.demo:
        address = AddressEngine.demo()  # synthetic: never the lead engine's address points
    else:
        from dqkit.reference.opened import InstalledReferences

        installed = InstalledReferences(list(config.reference_ids) or None)
        address = installed.engine()
        points = installed.points()
        if not installed:
            from dqkit.engines.address.openonly import warn_once

            warn_once()
    # A real reference (not the synthetic demo) also serves the lead engine's address-point matching: one
    # store, built once, behind both services.
    spoof_list = SpoofList.from_file(config.spoof_list) if config.spoof_list is not None else None
    profile = LeadProfile(allowed_client_ids=config.client_ids, allowed_partner_ids=config.partner_ids,
                          points=points, spoof_list=spoof_list)  # type: ignore[arg-type]
    lead_engine = LeadEngine(profile)
    backend = LocalBackend(lead_engine=lead_engine, address_engine=address, prepare=False)  # the wire is strict
    dataset_ids = frozenset(d.id for d in backend.datasets(None))
    warm_up(backend)
    info = backend.reference
    log.info("dqkit serve: addresses from %s", info.line())
    from dqkit.engines.address.provenance import open_only_info

    lead_info = open_only_info() if points is None else backend.reference_for("USA")
    return Loaded(lead_engine, backend, backend, dataset_ids, info.header(), lead_info.header())


def warm_up(backend: LeadBackend | AddressBackend) -> None:
    """One lead and one search through the engines, so lazily built indexes exist before /healthz says ready
    (the first lead otherwise pays several seconds of ZIP indexing). The search asks a country the reference
    holds (a reference of Canada and Britain alone has no US data to search)."""
    from dqkit.contract.address import SearchRequest
    from dqkit.contract.lead import Phone

    if isinstance(backend, LeadBackend):
        backend.verify_lead(LeadRequest(first_name="Warm", last_name="Up", street1="1 Main St", city="Springfield",
                                        state="IL", zip="62701",
                                        phones=(Phone(phone_type="H", phone_number="2175550100"),)))
    if isinstance(backend, AddressBackend):
        held = [d.country_iso for d in backend.datasets(None) if d.country_iso]
        country = "USA" if "USA" in held or not held else held[0]
        backend.search(SearchRequest.of("1 Main", country))


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

    A timed-out call is abandoned: the engines check the deadline in their loops and stop soon after.
    """
    # The call runs in a copy of the caller's context, so the request's deadline (`dqkit.engines.deadline`)
    # reaches the engine's loops and a timed-out call stops instead of running on.
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_executor(), functools.partial(context.run, fn, *args))
