"""The HTTP side of bulk batches (`dqkit.server.bulk`): the six published operations, with the vendor's headers
(Add-Components / Add-Metadata / Add-ExtraMatchInfo at create, Add-Metadata on status) and error bodies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from dqkit.contract.errors import BadRequestError
from dqkit.server.address_routes import _flag, add_ons
from dqkit.server.bulk import BULK_PATH, MAX_PAGE, BulkService, owner_of
from dqkit.server.engines import ServerEngines, run_engine

Handler = Callable[[Request], Awaitable[Response]]
Guard = Callable[[Callable[[Request], Awaitable[Any]]], Handler]


def _whole(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    """A whole-number query parameter within [lo, hi] (a 400 naming it otherwise, however long the text)."""
    raw = request.query_params.get(name)
    if raw is None or not raw.strip():
        return default
    text = raw.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 9 and lo <= int(text) <= hi):
        raise BadRequestError(f"{name} must be a whole number from {lo} to {hi:,} (got {text[:20]!r})")
    return int(text)


def _batch_id(request: Request) -> str:
    batch_id = str(request.path_params.get("batch_id", "")).strip()
    if not batch_id or len(batch_id) > 64:
        raise BadRequestError("the path needs a batch_id")
    return batch_id


class BulkRoutes:
    def __init__(self, engines: ServerEngines) -> None:
        self.service = BulkService(engines)

    async def bulk_create(self, request: Request) -> Any:
        add = add_ons(request, enrichment=False)
        return await run_engine(self.service.create, owner_of(request), await request.body(), add,
                                _flag(request, "Add-ExtraMatchInfo"))

    async def bulk_list(self, request: Request) -> Any:
        limit = _whole(request, "limit", 100, 1, MAX_PAGE)
        offset = _whole(request, "offset", 0, 0, 10**9)
        page, total = await run_engine(self.service.list, owner_of(request), limit, offset)
        out = Response(msgspec.json.encode(page), media_type="application/json")
        out.headers["X-Total-Count"] = str(total)
        if offset + limit < total:
            out.headers["Link"] = f'<{BULK_PATH}?limit={limit}&offset={offset + limit}>; rel="next"'
        return out

    async def bulk_remove(self, request: Request) -> Any:
        return await run_engine(self.service.remove, owner_of(request), _batch_id(request))

    async def bulk_start(self, request: Request) -> Any:
        return await run_engine(self.service.start, owner_of(request), _batch_id(request))

    async def bulk_status(self, request: Request) -> Any:
        return await run_engine(self.service.status, owner_of(request), _batch_id(request),
                                _flag(request, "Add-Metadata"))

    async def bulk_results(self, request: Request) -> Any:
        return await run_engine(self.service.results, owner_of(request), _batch_id(request))

    async def bulk_stop(self, request: Request) -> Any:
        return await run_engine(self.service.stop, owner_of(request), _batch_id(request))

    def handlers(self, guard: Guard) -> dict[str, Handler]:
        return {name: guard(getattr(self, name)) for name in
                ("bulk_create", "bulk_list", "bulk_start", "bulk_status", "bulk_results", "bulk_stop",
                 "bulk_remove")}
