"""Bulk batches from the client side (`AsyncAddressClient.bulk`): many addresses sent as batches of the vendor's
`/address/bulk/v1/batches`, polled to the end, answers back in input order.

Resuming: every batch is named by a reference id made from a hash of what it holds (its addresses, countries,
datasets and options) and its position, so calling `bulk` again with the same addresses after an interruption
(a crash, a closed notebook) finds the batches the server already has, by listing them, and only polls or fetches
them instead of sending them again.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

import msgspec

from dqkit.contract.address import SearchRequest
from dqkit.contract.address_bulk import (
    MAX_BATCH_ADDRESSES,
    BatchInfo,
    BatchListResponse,
    BatchRefResponse,
    BatchResultsResponse,
    BatchStatus,
    BatchStatusResponse,
    BulkAddress,
    BulkCreateRequest,
    BulkDefaults,
    BulkResultAddress,
)
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import InputError, ProtocolError

PATH: Final = "/address/bulk/v1/batches"
FIRST_POLL_SECONDS: Final = 0.2
_ENDED: Final = (BatchStatus.COMPLETED, BatchStatus.STOPPED)


class Sends(Protocol):
    """What the bulk flow needs of a client: one call of the service, decoded to a model."""

    def __call__(self, method: str, path: str, body: Any, model: type[Any], reference_id: str | None,
                 add: AddOns | None = None) -> Awaitable[Any]: ...


def bulk_addresses(addresses: Sequence[SearchRequest | str], country_iso: str) -> list[BulkAddress]:
    out: list[BulkAddress] = []
    for a in addresses:
        if isinstance(a, str):
            out.append(BulkAddress(address=a, country_iso=country_iso))
        else:
            out.append(BulkAddress(address=a.text, country_iso=a.country_iso or country_iso,
                                   datasets=list(a.datasets) or None))
    return out


def reference_ids(chunks: Sequence[Sequence[BulkAddress]], add: AddOns, max_processing_time: str | None) -> list[str]:
    """One reference id per batch: a hash of everything the batches hold, and the batch's position."""
    h = hashlib.sha256(msgspec.json.encode([list(c) for c in chunks]))
    h.update(f"|{add.components}|{add.metadata}|{max_processing_time}".encode())
    digest = h.hexdigest()[:24]
    return [f"dqkit-{digest}-{i}" for i in range(len(chunks))]


async def run_bulk(send: Sends, addresses: Sequence[BulkAddress], *, add: AddOns, batch_size: int,
                   poll_seconds: float, max_processing_time: str | None,
                   on_progress: Callable[[int, int], None] | None) -> list[BulkResultAddress]:
    """The answers of `addresses`, in order: batches created (or found again), started, polled, fetched."""
    if not 1 <= batch_size <= MAX_BATCH_ADDRESSES:
        raise InputError(f"batch_size must be from 1 to {MAX_BATCH_ADDRESSES:,}")
    chunks = [list(addresses[i:i + batch_size]) for i in range(0, len(addresses), batch_size)]
    refs = reference_ids(chunks, add, max_processing_time)
    known: dict[str, BatchInfo] = {}
    if chunks:
        listed: BatchListResponse = await send("GET", PATH, None, BatchListResponse, None)
        for b in listed.result.batches:  # oldest first: the latest batch of a reference wins
            if b.batch_reference_id and b.batch_id:
                known[b.batch_reference_id] = b
    done = [0] * len(chunks)

    def report() -> None:
        if on_progress is not None:
            on_progress(sum(done), len(addresses))

    async def one(i: int) -> list[BulkResultAddress]:
        found = known.get(refs[i])
        if found is None or found.batch_id is None:
            created: BatchRefResponse = await send("POST", PATH, BulkCreateRequest(
                addresses=chunks[i], defaults=BulkDefaults(batch_reference_id=refs[i],
                                                           max_processing_time=max_processing_time)),
                BatchRefResponse, None, add)
            batch_id, status = created.result.batch_id, created.result.status
        else:
            batch_id, status = found.batch_id, found.status
        if not batch_id:
            raise ProtocolError("the service created a batch without a batch_id")
        if status == BatchStatus.CREATED:
            await send("POST", f"{PATH}/{batch_id}/start", None, BatchRefResponse, None)
        wait = FIRST_POLL_SECONDS
        while True:
            state: BatchStatusResponse = await send("GET", f"{PATH}/{batch_id}", None, BatchStatusResponse, None)
            done[i] = state.result.records_processed or 0
            report()
            if state.result.status in _ENDED:
                break
            await asyncio.sleep(wait)
            wait = min(poll_seconds, wait * 2)
        got: BatchResultsResponse = await send("GET", f"{PATH}/{batch_id}/results", None, BatchResultsResponse, None)
        answers = got.result.addresses or []
        if len(answers) != len(chunks[i]):
            raise ProtocolError(f"batch {batch_id}: {len(answers)} answers for {len(chunks[i])} addresses")
        done[i] = len(chunks[i])
        report()
        return answers

    out: list[BulkResultAddress] = []
    for i in range(len(chunks)):  # one batch at a time: the server works on one at a time anyway
        out += await one(i)
    return out
