"""The address paths of seed 001 and of the vendor's documentation, each with and without a trailing slash.

    POST /address/search/v1                          search (autocomplete, singleline, typedown)
    POST /address/validate/v1                        validate
    POST /address/suggestions/refine/v1/{key}        refine a list or a suggestion: {"refinement": "..."}
    GET  /address/format/v1/{key}                    format with the default layout
    POST /address/format/v1/{key}                    format with a FormatRequest body
    GET  /address/suggestions/stepin/v1/{key}        step into a group (POST too; `stepIn` spelling too)
    POST /address/suggestions/stepIn                 step in, the key in the body: {"global_address_key": "..."}
    POST /address/lookup/v1, /address/lookup/v2      lookup by key (postal_code, locality, ...)
    GET  /address/datasets/v1?country_iso=usa        datasets this server holds

`country_iso` is accepted in any case. A dataset the server does not hold is a 403 (the vendor's answer for a
dataset the token is not entitled to). Bodies are JSON; a body that does not decode to the request model is a 400.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from dqkit.contract.address import (
    MAX_SUGGESTIONS,
    DatasetsResponse,
    FormatRequest,
    LookupRequest,
    RefineRequest,
    SearchRequest,
    SearchType,
)
from dqkit.contract.errors import BadRequestError, PermissionDeniedError, ServiceError
from dqkit.server.engines import ServerEngines, run_engine
from dqkit.server.errors import service_error_bytes

S = TypeVar("S")
Handler = Callable[[Request], Awaitable[Response]]
_encoder = msgspec.json.Encoder()


class StepInRequest(msgspec.Struct, kw_only=True):
    global_address_key: str


def _json(obj: Any, status: int = 200) -> Response:
    return Response(_encoder.encode(obj), status_code=status, media_type="application/json")


def _error(exc: ServiceError, request: Request) -> Response:
    return Response(service_error_bytes(exc, request.url.path), status_code=exc.status,
                    media_type="application/json")


def _decode(body: bytes, model: type[S], *, empty_ok: bool = False) -> S:
    if not body.strip():
        if empty_ok:
            return msgspec.json.decode(b"{}", type=model)
        raise BadRequestError(f"a JSON body ({model.__name__}) is required")
    try:
        return msgspec.json.decode(body, type=model)
    except msgspec.ValidationError as exc:
        raise BadRequestError(f"the body is not a valid {model.__name__}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise BadRequestError(f"the body is not JSON: {exc}") from None


def _path_key(request: Request) -> str:
    key = str(request.path_params.get("key", "")).strip("/")
    if not key:
        raise BadRequestError("the path needs a global_address_key or suggestions_key")
    return key


class ResponseCache:
    """The encoded answers of recent searches, by normalized request (LRU).

    Autocomplete traffic repeats itself most where it costs most: the first keystrokes ("1", "12", "12 M") are
    shared by many users and match the most addresses. The index never changes while the server runs, so an
    answer stays right; only the event loop touches the cache, so it needs no lock.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[bytes, bytes] = OrderedDict()

    def get(self, key: bytes) -> bytes | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: bytes, value: bytes) -> None:
        self._data[key] = value
        if len(self._data) > self.size:
            self._data.popitem(last=False)


SEARCH_CACHE_SIZE: Final = 4096


class AddressRoutes:
    """The handlers, bound to the server's engines."""

    def __init__(self, engines: ServerEngines) -> None:
        self.engines = engines
        self.search_cache = ResponseCache(SEARCH_CACHE_SIZE)

    def _guarded(self, fn: Callable[[Request], Awaitable[Any]]) -> Handler:
        async def handler(request: Request) -> Response:
            try:
                result = await fn(request)
            except ServiceError as exc:
                return _error(exc, request)
            if isinstance(result, bytes):
                return Response(result, media_type="application/json")
            return _json(result)

        return handler

    def _check_datasets(self, country_iso: str, datasets: list[str]) -> None:
        held = self.engines.loaded.dataset_ids
        for ds in datasets:
            if ds.lower() not in held:
                raise PermissionDeniedError(f"this server holds no dataset {ds!r} (it holds: "
                                            f"{', '.join(sorted(held)) or 'none'})")

    def _search_request(self, body: bytes) -> SearchRequest:
        req = _decode(body, SearchRequest)
        req = msgspec.structs.replace(req, country_iso=req.country_iso.strip().upper(),
                                      datasets=[d.strip().lower() for d in req.datasets])
        self._check_datasets(req.country_iso, req.datasets)
        if req.max_suggestions is not None:
            ceiling = MAX_SUGGESTIONS[req.search_type]
            if not 1 <= req.max_suggestions <= ceiling:
                raise BadRequestError(f"max_suggestions must be between 1 and {ceiling} for "
                                      f"{req.search_type.value} searches")
        for opt in req.options:
            if opt.name.lower() == "search_type" and opt.value.lower() not in {s.value for s in SearchType}:
                raise BadRequestError(f"unknown search_type {opt.value!r}; use "
                                      f"{', '.join(s.value for s in SearchType)}")
        return req

    async def search(self, request: Request) -> Any:
        req = self._search_request(await request.body())
        key = _encoder.encode(req)
        cached = self.search_cache.get(key)
        if cached is None:
            cached = _encoder.encode(await run_engine(self.engines.address.search, req))
            self.search_cache.put(key, cached)
        return cached

    async def validate(self, request: Request) -> Any:
        req = self._search_request(await request.body())
        return await run_engine(self.engines.address.validate, req)

    async def refine(self, request: Request) -> Any:
        key = _path_key(request)
        body = _decode(await request.body(), RefineRequest, empty_ok=True)
        return await run_engine(self.engines.address.refine, key, body.refinement)

    async def format(self, request: Request) -> Any:
        key = _path_key(request)
        fmt: FormatRequest | None = None
        if request.method == "POST":
            fmt = _decode(await request.body(), FormatRequest, empty_ok=True)
        if request.headers.get("add-components", "").strip().lower() in ("true", "1", "yes"):
            fmt = msgspec.structs.replace(fmt or FormatRequest(), add_components=True)
        return await run_engine(self.engines.address.format, key, fmt)

    async def step_in(self, request: Request) -> Any:
        if "key" in request.path_params:
            key = _path_key(request)
        else:
            key = _decode(await request.body(), StepInRequest).global_address_key.strip()
            if not key:
                raise BadRequestError("global_address_key is empty")
        return await run_engine(self.engines.address.step_in, key)

    async def lookup(self, request: Request) -> Any:
        req = _decode(await request.body(), LookupRequest)
        req = msgspec.structs.replace(req, country_iso=req.country_iso.strip().upper(),
                                      datasets=[d.strip().lower() for d in req.datasets])
        self._check_datasets(req.country_iso, req.datasets)
        if req.max_suggestions is not None and not 1 <= req.max_suggestions <= 100:
            raise BadRequestError("max_suggestions must be between 1 and 100")
        return await run_engine(self.engines.address.lookup, req)

    async def datasets(self, request: Request) -> Any:
        country = request.query_params.get("country_iso", "").strip().upper() or None
        return DatasetsResponse(await run_engine(self.engines.address.datasets, country))

    def handlers(self) -> dict[str, Handler]:
        return {name: self._guarded(getattr(self, name))
                for name in ("search", "validate", "refine", "format", "step_in", "lookup", "datasets")}
