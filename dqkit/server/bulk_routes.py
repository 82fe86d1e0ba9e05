"""The HTTP side of bulk batches (`dqkit.server.bulk`): the six published operations, with the vendor's headers
(Add-Components / Add-Metadata / Add-ExtraMatchInfo at create, Add-Metadata on status) and error bodies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from dqkit.contract.errors import BadRequestError
from dqkit.server.address_routes import _flag, add_ons
from dqkit.server.bulk import BulkService, owner_of
from dqkit.server.engines import ServerEngines, run_engine

Handler = Callable[[Request], Awaitable[Response]]
Guard = Callable[[Callable[[Request], Awaitable[Any]]], Handler]


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
        return await run_engine(self.service.list, owner_of(request))

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
                ("bulk_create", "bulk_list", "bulk_start", "bulk_status", "bulk_results", "bulk_stop")}
