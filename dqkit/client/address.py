"""Clients of the address validation service (seed 001): `AsyncAddressClient` and the sync `AddressClient`.

    with AddressClient("http://127.0.0.1:8000", token="...") as client:   # or DQKIT_ADDRESS_URL / _TOKEN
        result = client.search(SearchRequest.of("1 Main St"))              # or simply client.search("1 Main St")
        formatted = client.format(result.result.suggestions[0].global_address_key)

Errors are raised from `dqkit.contract.errors` (NotFoundError for an unknown key, BadRequestError, ...). "Nothing
matched" is not an error: it is a 200 with confidence "No matches".
Paths follow the vendor: search/validate v1, refine v1, format v1 (GET, or POST with a FormatRequest),
stepin v1 (GET), lookup v2, datasets v1. Opt-in headers: add_components / add_metadata / add_enrichment;
`timeout_seconds` sends `Timeout-Seconds` (the server answers 408 past it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Self, TypeVar
from urllib.parse import quote

import msgspec

from dqkit.backends.base import BatchItem
from dqkit.client._core import AsyncCore, error_from_response
from dqkit.client._loop import BACKGROUND
from dqkit.client._policy import ClientSettings, resolve
from dqkit.client._secret import Secret
from dqkit.client._sync import SyncClient
from dqkit.contract.address import (
    Dataset,
    DatasetsResponse,
    FormatRequest,
    FormatResponse,
    LookupRequest,
    RefineRequest,
    SearchRequest,
    SearchResponse,
    ValidateResponse,
)
from dqkit.contract.errors import ProtocolError

R = TypeVar("R")
_encoder = msgspec.json.Encoder()
_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {
    t: msgspec.json.Decoder(t) for t in (SearchResponse, ValidateResponse, FormatResponse, DatasetsResponse)
}
_JSON = "application/json"


def _as_request(request: SearchRequest | str) -> SearchRequest:
    return SearchRequest.of(request) if isinstance(request, str) else request


def _key(key: str) -> str:
    return quote(key, safe="")


class AsyncAddressClient:
    """Searches, validates, refines and formats addresses over HTTP from async code (one event loop)."""

    service = "address"

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, *,
                 add_components: bool = False, add_metadata: bool = False, add_enrichment: bool = False,
                 timeout_seconds: float | None = None, **settings: Any) -> None:
        url, secret = resolve(self.service, base_url, token)
        headers = dict(settings.pop("headers", {}) or {})
        for name, on in (("Add-Components", add_components), ("Add-Metadata", add_metadata),
                         ("Add-Enrichment", add_enrichment)):
            if on:
                headers[name] = "true"
        if timeout_seconds is not None:
            headers["Timeout-Seconds"] = f"{timeout_seconds:g}"
        self.settings = ClientSettings(base_url=url, token=secret, headers=headers, **settings)
        self._core = AsyncCore(self.settings)

    def __repr__(self) -> str:
        token = "set" if self.settings.token else "none"
        return f"{type(self).__name__}({self.settings.base_url!r}, token={token})"

    @property
    def name(self) -> str:
        return f"http-address[{self.settings.base_url}]"

    async def _send(self, method: str, path: str, body: Any, model: type[R], reference_id: str | None) -> R:
        content = None if body is None else _encoder.encode(body)
        resp, ref = await self._core.call(method, path, content=content,
                                          content_type=_JSON if content is not None else None,
                                          reference_id=reference_id)
        if not 200 <= resp.status < 300:
            raise error_from_response(resp, method, path, ref)
        try:
            result: R = _DECODERS[model].decode(resp.body)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ProtocolError(f"{method} {path}: not a {model.__name__}: {exc} (Reference-Id {ref})") from None
        return result

    async def search(self, request: SearchRequest | str, *, reference_id: str | None = None) -> SearchResponse:
        return await self._send("POST", "/address/search/v1", _as_request(request), SearchResponse, reference_id)

    async def validate(self, request: SearchRequest | str, *, reference_id: str | None = None) -> ValidateResponse:
        return await self._send("POST", "/address/validate/v1", _as_request(request), ValidateResponse,
                                reference_id)

    async def refine(self, key: str, refinement: str, *, reference_id: str | None = None) -> SearchResponse:
        return await self._send("POST", f"/address/suggestions/refine/v1/{_key(key)}", RefineRequest(refinement),
                                SearchResponse, reference_id)

    async def step_in(self, key: str, *, reference_id: str | None = None) -> SearchResponse:
        return await self._send("GET", f"/address/suggestions/stepin/v1/{_key(key)}", None, SearchResponse,
                                reference_id)

    async def format(self, key: str, request: FormatRequest | None = None, *,
                     reference_id: str | None = None) -> FormatResponse:
        path = f"/address/format/v1/{_key(key)}"
        if request is None:
            return await self._send("GET", path, None, FormatResponse, reference_id)
        return await self._send("POST", path, request, FormatResponse, reference_id)

    async def lookup(self, request: LookupRequest, *, reference_id: str | None = None) -> SearchResponse:
        return await self._send("POST", "/address/lookup/v2", request, SearchResponse, reference_id)

    async def datasets(self, country_iso: str | None = None, *, reference_id: str | None = None) -> list[Dataset]:
        path = "/address/datasets/v1" + (f"?country_iso={quote(country_iso, safe='')}" if country_iso else "")
        return (await self._send("GET", path, None, DatasetsResponse, reference_id)).result

    async def search_many(self, requests: Sequence[SearchRequest | str], *,
                          on_item: Callable[[BatchItem[SearchResponse]], None] | None = None,
                          concurrency: int | None = None) -> list[BatchItem[SearchResponse]]:
        """Search many: one BatchItem per request, in input order."""
        async def one(req: SearchRequest | str, ref: str) -> SearchResponse:
            return await self.search(req, reference_id=ref)

        return await self._core.batch(list(requests), one, on_item, concurrency)

    async def validate_many(self, requests: Sequence[SearchRequest | str], *,
                            on_item: Callable[[BatchItem[ValidateResponse]], None] | None = None,
                            concurrency: int | None = None) -> list[BatchItem[ValidateResponse]]:
        """Validate many: one BatchItem per request, in input order."""
        async def one(req: SearchRequest | str, ref: str) -> ValidateResponse:
            return await self.validate(req, reference_id=ref)

        return await self._core.batch(list(requests), one, on_item, concurrency)

    async def format_many(self, keys: Sequence[str], *,
                          on_item: Callable[[BatchItem[FormatResponse]], None] | None = None,
                          concurrency: int | None = None) -> list[BatchItem[FormatResponse]]:
        """Format many keys (default layout): one BatchItem per key, in input order."""
        async def one(key: str, ref: str) -> FormatResponse:
            return await self.format(key, reference_id=ref)

        return await self._core.batch(list(keys), one, on_item, concurrency)

    async def aclose(self) -> None:
        await self._core.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class AddressClient(SyncClient[AsyncAddressClient]):
    """The sync client; implements the AddressBackend protocol. Runs on dqkit's background loop (Jupyter-safe)."""

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, **options: Any) -> None:
        async def make() -> AsyncAddressClient:  # created on the background loop, used only there
            return AsyncAddressClient(base_url, token, **options)

        super().__init__(make)

    @property
    def name(self) -> str:
        return self._async.name

    @property
    def settings(self) -> ClientSettings:
        return self._async.settings

    def search(self, request: SearchRequest | str, *, reference_id: str | None = None) -> SearchResponse:
        return BACKGROUND.run(self._async.search(request, reference_id=reference_id))

    def validate(self, request: SearchRequest | str, *, reference_id: str | None = None) -> ValidateResponse:
        return BACKGROUND.run(self._async.validate(request, reference_id=reference_id))

    def refine(self, key: str, refinement: str, *, reference_id: str | None = None) -> SearchResponse:
        return BACKGROUND.run(self._async.refine(key, refinement, reference_id=reference_id))

    def step_in(self, key: str, *, reference_id: str | None = None) -> SearchResponse:
        return BACKGROUND.run(self._async.step_in(key, reference_id=reference_id))

    def format(self, key: str, request: FormatRequest | None = None, *,
               reference_id: str | None = None) -> FormatResponse:
        return BACKGROUND.run(self._async.format(key, request, reference_id=reference_id))

    def lookup(self, request: LookupRequest, *, reference_id: str | None = None) -> SearchResponse:
        return BACKGROUND.run(self._async.lookup(request, reference_id=reference_id))

    def datasets(self, country_iso: str | None = None, *, reference_id: str | None = None) -> list[Dataset]:
        return BACKGROUND.run(self._async.datasets(country_iso, reference_id=reference_id))

    def search_many(self, requests: Sequence[SearchRequest | str], *,
                    on_item: Callable[[BatchItem[SearchResponse]], None] | None = None,
                    concurrency: int | None = None) -> list[BatchItem[SearchResponse]]:
        return BACKGROUND.run(self._async.search_many(requests, on_item=on_item, concurrency=concurrency))

    def validate_many(self, requests: Sequence[SearchRequest | str], *,
                      on_item: Callable[[BatchItem[ValidateResponse]], None] | None = None,
                      concurrency: int | None = None) -> list[BatchItem[ValidateResponse]]:
        return BACKGROUND.run(self._async.validate_many(requests, on_item=on_item, concurrency=concurrency))

    def format_many(self, keys: Sequence[str], *,
                    on_item: Callable[[BatchItem[FormatResponse]], None] | None = None,
                    concurrency: int | None = None) -> list[BatchItem[FormatResponse]]:
        return BACKGROUND.run(self._async.format_many(keys, on_item=on_item, concurrency=concurrency))
