"""Clients of the address validation service (seed 001): `AsyncAddressClient` and the sync `AddressClient`.

    with AddressClient("http://127.0.0.1:8000", token="...") as client:   # or DQKIT_ADDRESS_URL / _TOKEN
        result = client.search(SearchRequest.of("1 Main St"))              # or simply client.search("1 Main St")
        formatted = client.format(result.result.suggestions[0].global_address_key)

Errors are raised from `dqkit.contract.errors` (NotFoundError for an unknown key, BadRequestError, ...). "Nothing
matched" is not an error: it is a 200 with confidence "No matches".
Paths follow the vendor: search/validate v1, refine v1, format v1 (GET, or POST with a FormatRequest),
suggestions/format v1, stepin v1 (GET), lookup v2, datasets v1. Opt-in headers: add_components / add_metadata /
add_enrichment (or `add=AddOns(...)` per call); `app_key` sends `x-app-key`; `timeout_seconds` (2..15) sends
`Timeout-Seconds` (the server answers 408 past it). Every answer keeps the JSON it came from (`.raw`), so members
a newer vendor answer adds are not lost (`.unknown`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Self, TypeVar
from urllib.parse import quote

import msgspec

from dqkit._progress import Bar
from dqkit.backends.base import BatchItem
from dqkit.client._core import AsyncCore, error_from_response
from dqkit.client._loop import BACKGROUND
from dqkit.client._policy import ClientSettings, resolve
from dqkit.client._secret import Secret
from dqkit.client._sync import SyncClient
from dqkit.client.bulk import bulk_addresses, run_bulk
from dqkit.contract.address import (
    DATASET_BY_COUNTRY,
    NOTE_HEADER,
    Answer,
    Dataset,
    DatasetsResponse,
    FormatRequest,
    FormatResponse,
    LookupRequest,
    LookupResponse,
    RefineRequest,
    SearchRequest,
    SearchResponse,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    ValidateResponse,
    note_from_header,
)
from dqkit.contract.address_bulk import MAX_BATCH_ADDRESSES, BulkResultAddress, as_validate_response
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import DqkitError, InputError, ProtocolError

R = TypeVar("R", bound=Answer)
_encoder = msgspec.json.Encoder()
_raw_decoder = msgspec.json.Decoder()
_JSON = "application/json"
TIMEOUT_RANGE = (2, 15)


def _as_request(request: SearchRequest | str) -> SearchRequest:
    return SearchRequest.of(request) if isinstance(request, str) else request


D = TypeVar("D", SearchRequest, SuggestionsFormatRequest, LookupRequest)


def _key(key: str) -> str:
    return quote(key, safe="")


def _drop_nulls(value: Any) -> Any:
    """null is the vendor's "absent" for optional members: drop it so the typed models see a default."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def decode_answer(body: bytes, model: type[R]) -> R:
    """The typed answer of a JSON body, with the JSON kept beside it (`.raw`, `.unknown`): members the models do
    not know are kept, nulls read as absent. Raises msgspec errors for a body that is not the answer."""
    raw = _raw_decoder.decode(body)
    if not isinstance(raw, dict):
        raise msgspec.ValidationError(f"expected a JSON object, got {type(raw).__name__}")
    typed = msgspec.convert(_drop_nulls(raw), type=model)
    typed.keep_raw(raw)
    return typed


def _flag_headers(add: AddOns) -> dict[str, str]:
    """The Add-* headers that are on (off is the service's default, so it is not sent)."""
    return {name: "true" for name, on in (("add-components", add.components), ("add-metadata", add.metadata),
                                          ("add-enrichment", add.enrichment)) if on}


class AsyncAddressClient:
    """Searches, validates, refines and formats addresses over HTTP from async code (one event loop).

    `add_components`, `add_metadata`, `add_enrichment` set the Add-* headers of validate, format and
    suggestions/format (each call may override them with `add=`); `app_key` is sent as `x-app-key` (the vendor's
    alternative to Auth-Token); `timeout_seconds` (2..15) is sent as `Timeout-Seconds`.
    """

    service = "address"

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, *,
                 add_components: bool = False, add_metadata: bool = False, add_enrichment: bool = False,
                 timeout_seconds: int | None = None, app_key: str | Secret | None = None,
                 **settings: Any) -> None:
        url, secret = resolve(self.service, base_url, token)
        headers = dict(settings.pop("headers", {}) or {})
        if timeout_seconds is not None:
            lo, hi = TIMEOUT_RANGE
            if isinstance(timeout_seconds, bool) or int(timeout_seconds) != timeout_seconds or \
                    not lo <= timeout_seconds <= hi:
                raise InputError(f"timeout_seconds must be a whole number from {lo} to {hi} (the service's range)")
            headers["Timeout-Seconds"] = str(int(timeout_seconds))
        if any(k.lower() == "x-app-key" for k in headers):
            raise InputError("pass the app key as app_key=, not as a header")
        self.add = AddOns(components=add_components, metadata=add_metadata, enrichment=add_enrichment)
        self._app_key = app_key if isinstance(app_key, Secret) or app_key is None else Secret(app_key)
        self.settings = ClientSettings(base_url=url, token=secret, headers=headers, **settings)
        self._core = AsyncCore(self.settings)
        self._country_datasets: dict[str, str] = {}

    def __repr__(self) -> str:
        token = "set" if self.settings.token else "none"
        return f"{type(self).__name__}({self.settings.base_url!r}, token={token})"

    @property
    def name(self) -> str:
        return f"http-address[{self.settings.base_url}]"

    async def _send(self, method: str, path: str, body: Any, model: type[R], reference_id: str | None,
                    add: AddOns | None = None) -> R:
        content = None if body is None else _encoder.encode(body)
        headers = _flag_headers(add) if add is not None else {}
        if self._app_key:
            headers["x-app-key"] = self._app_key.reveal()
        resp, ref = await self._core.call(method, path, content=content,
                                          content_type=_JSON if content is not None else None,
                                          reference_id=reference_id, headers=headers or None)
        if not 200 <= resp.status < 300:
            raise error_from_response(resp, method, path, ref)
        try:
            answer = decode_answer(resp.body, model)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ProtocolError(f"{method} {path}: not a {model.__name__}: {exc} (Reference-Id {ref})") from None
        note = resp.headers.get(NOTE_HEADER.lower())
        if note and isinstance(answer, Answer):  # dqkit's note rides beside the published answer
            answer.set_note(note_from_header(note))
        return answer

    async def _with_datasets(self, request: D) -> D:
        """The vendor requires `datasets`: when the caller names none, the server's own dataset for the country
        (asked once per client and country: a `dqkit serve --demo` holds `us-demo-synthetic`, not `us-address`),
        else the vendor's standard id."""
        if request.datasets:
            return request
        country = request.country_iso.strip().upper()
        ds = self._country_datasets.get(country)
        if ds is None:
            try:
                held = [d.id for d in await self.datasets(country)]
            except DqkitError:
                held = []
            ds = self._country_datasets[country] = held[0] if held else DATASET_BY_COUNTRY.get(country, "")
        return msgspec.structs.replace(request, datasets=[ds] if ds else [])

    async def search(self, request: SearchRequest | str, *, reference_id: str | None = None) -> SearchResponse:
        req = await self._with_datasets(_as_request(request))
        return await self._send("POST", "/address/search/v1", req.wire(), SearchResponse, reference_id)

    async def validate(self, request: SearchRequest | str, add: AddOns | None = None, *,
                       reference_id: str | None = None) -> ValidateResponse:
        req = await self._with_datasets(_as_request(request))
        return await self._send("POST", "/address/validate/v1", req.wire(), ValidateResponse,
                                reference_id, add if add is not None else self.add)

    async def refine(self, key: str, refinement: str, *, reference_id: str | None = None) -> SearchResponse:
        return await self._send("POST", f"/address/suggestions/refine/v1/{_key(key)}", RefineRequest(refinement),
                                SearchResponse, reference_id)

    async def step_in(self, key: str, *, reference_id: str | None = None) -> SearchResponse:
        return await self._send("GET", f"/address/suggestions/stepin/v1/{_key(key)}", None, SearchResponse,
                                reference_id)

    async def format(self, key: str, request: FormatRequest | None = None, add: AddOns | None = None, *,
                     reference_id: str | None = None) -> FormatResponse:
        path = f"/address/format/v1/{_key(key)}"
        chosen = add if add is not None else self.add
        if request is None:
            return await self._send("GET", path, None, FormatResponse, reference_id, chosen)
        return await self._send("POST", path, request, FormatResponse, reference_id, chosen)

    async def suggestions_format(self, request: SuggestionsFormatRequest | str, add: AddOns | None = None, *,
                                 reference_id: str | None = None) -> SuggestionsFormatResponse:
        """Search and format in one call (POST /address/suggestions/format/v1)."""
        if isinstance(request, str):
            request = SuggestionsFormatRequest(components=SearchRequest.of(request).components)
        request = await self._with_datasets(request)
        return await self._send("POST", "/address/suggestions/format/v1", request, SuggestionsFormatResponse,
                                reference_id, add if add is not None else AddOns(components=self.add.components,
                                                            metadata=self.add.metadata))

    async def lookup(self, request: LookupRequest, *, reference_id: str | None = None) -> LookupResponse:
        request = await self._with_datasets(request)
        return await self._send("POST", "/address/lookup/v2", request, LookupResponse, reference_id)

    async def datasets_answer(self, country_iso: str | None = None, *,
                              reference_id: str | None = None) -> DatasetsResponse:
        """The datasets answer as published: `result` holds one entry per country."""
        path = "/address/datasets/v1" + (f"?country_iso={quote(country_iso, safe='')}" if country_iso else "")
        return await self._send("GET", path, None, DatasetsResponse, reference_id)

    async def datasets(self, country_iso: str | None = None, *, reference_id: str | None = None) -> list[Dataset]:
        """The datasets, one per entry (the AddressBackend view; size and synthetic are not on the wire)."""
        return [Dataset(id=d.id, name=d.name, country_iso=c.country_iso_3, country_name=c.country_name)
                for c in (await self.datasets_answer(country_iso, reference_id=reference_id)).result
                for d in c.datasets]

    async def search_many(self, requests: Sequence[SearchRequest | str], *,
                          on_item: Callable[[BatchItem[SearchResponse]], None] | None = None,
                          concurrency: int | None = None) -> list[BatchItem[SearchResponse]]:
        """Search many: one BatchItem per request, in input order."""
        async def one(req: SearchRequest | str, ref: str) -> SearchResponse:
            return await self.search(req, reference_id=ref)

        return await self._core.batch(list(requests), one, on_item, concurrency)

    async def validate_many(self, requests: Sequence[SearchRequest | str], *,
                            on_item: Callable[[BatchItem[ValidateResponse]], None] | None = None,
                            concurrency: int | None = None,
                            add: AddOns | None = None) -> list[BatchItem[ValidateResponse]]:
        """Validate many: one BatchItem per request, in input order."""
        async def one(req: SearchRequest | str, ref: str) -> ValidateResponse:
            return await self.validate(req, add, reference_id=ref)

        return await self._core.batch(list(requests), one, on_item, concurrency)

    async def format_many(self, keys: Sequence[str], *,
                          on_item: Callable[[BatchItem[FormatResponse]], None] | None = None,
                          concurrency: int | None = None) -> list[BatchItem[FormatResponse]]:
        """Format many keys (default layout): one BatchItem per key, in input order."""
        async def one(key: str, ref: str) -> FormatResponse:
            return await self.format(key, reference_id=ref)

        return await self._core.batch(list(keys), one, on_item, concurrency)

    async def bulk(self, addresses: Sequence[SearchRequest | str], *, country_iso: str = "USA",
                   add: AddOns | None = None, batch_size: int = MAX_BATCH_ADDRESSES, progress: bool = False,
                   poll_seconds: float = 2.0, max_processing_time: str | None = None,
                   on_progress: Callable[[int, int], None] | None = None) -> list[BulkResultAddress]:
        """Validate many addresses as the vendor's bulk batches (`/address/bulk/v1/batches`): sent as batches of
        `batch_size` (at most 10,000), each started and polled (`progress=True`: a progress bar; `on_progress(done,
        total)`), answers in input order. Calling it again with the same addresses after an interruption finds
        the batches the server already holds and fetches them instead of sending them again."""
        bar: Bar | None = None
        if progress and addresses:  # saved in a notebook as it ended, not "0%"
            bar = Bar(total=len(addresses), desc="bulk validate", unit="address", dynamic_ncols=True)

        def moved(done: int, total: int) -> None:
            if bar is not None:
                bar.update(done - bar.n)
            if on_progress is not None:
                on_progress(done, total)

        try:
            return await run_bulk(self._send, bulk_addresses(addresses, country_iso),
                                  add=add if add is not None else self.add, batch_size=batch_size,
                                  poll_seconds=poll_seconds, max_processing_time=max_processing_time,
                                  on_progress=moved)
        finally:
            if bar is not None:
                bar.close()

    async def validate_bulk(self, requests: Sequence[SearchRequest | str], *,
                            add: AddOns | None = None) -> list[BatchItem[ValidateResponse]]:
        """`bulk` in the shape of `validate_many` (one BatchItem per request, in order), for frames."""
        answers = await self.bulk(requests, add=add)
        return [BatchItem(i, as_validate_response(a)) for i, a in enumerate(answers)]

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

    def validate(self, request: SearchRequest | str, add: AddOns | None = None, *,
                 reference_id: str | None = None) -> ValidateResponse:
        return BACKGROUND.run(self._async.validate(request, add, reference_id=reference_id))

    def refine(self, key: str, refinement: str, *, reference_id: str | None = None) -> SearchResponse:
        return BACKGROUND.run(self._async.refine(key, refinement, reference_id=reference_id))

    def step_in(self, key: str, *, reference_id: str | None = None) -> SearchResponse:
        return BACKGROUND.run(self._async.step_in(key, reference_id=reference_id))

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns | None = None, *,
               reference_id: str | None = None) -> FormatResponse:
        return BACKGROUND.run(self._async.format(key, request, add, reference_id=reference_id))

    def suggestions_format(self, request: SuggestionsFormatRequest | str, add: AddOns | None = None, *,
                           reference_id: str | None = None) -> SuggestionsFormatResponse:
        return BACKGROUND.run(self._async.suggestions_format(request, add, reference_id=reference_id))

    def lookup(self, request: LookupRequest, *, reference_id: str | None = None) -> LookupResponse:
        return BACKGROUND.run(self._async.lookup(request, reference_id=reference_id))

    def datasets(self, country_iso: str | None = None, *, reference_id: str | None = None) -> list[Dataset]:
        return BACKGROUND.run(self._async.datasets(country_iso, reference_id=reference_id))

    def datasets_answer(self, country_iso: str | None = None, *,
                        reference_id: str | None = None) -> DatasetsResponse:
        return BACKGROUND.run(self._async.datasets_answer(country_iso, reference_id=reference_id))

    def search_many(self, requests: Sequence[SearchRequest | str], *,
                    on_item: Callable[[BatchItem[SearchResponse]], None] | None = None,
                    concurrency: int | None = None) -> list[BatchItem[SearchResponse]]:
        return BACKGROUND.run(self._async.search_many(requests, on_item=on_item, concurrency=concurrency))

    def validate_many(self, requests: Sequence[SearchRequest | str], *,
                      on_item: Callable[[BatchItem[ValidateResponse]], None] | None = None,
                      concurrency: int | None = None,
                      add: AddOns | None = None) -> list[BatchItem[ValidateResponse]]:
        return BACKGROUND.run(self._async.validate_many(requests, on_item=on_item, concurrency=concurrency,
                                                        add=add))

    def format_many(self, keys: Sequence[str], *,
                    on_item: Callable[[BatchItem[FormatResponse]], None] | None = None,
                    concurrency: int | None = None) -> list[BatchItem[FormatResponse]]:
        return BACKGROUND.run(self._async.format_many(keys, on_item=on_item, concurrency=concurrency))

    def bulk(self, addresses: Sequence[SearchRequest | str], *, country_iso: str = "USA", add: AddOns | None = None,
             batch_size: int = MAX_BATCH_ADDRESSES, progress: bool = False, poll_seconds: float = 2.0,
             max_processing_time: str | None = None,
             on_progress: Callable[[int, int], None] | None = None) -> list[BulkResultAddress]:
        """See `AsyncAddressClient.bulk`."""
        return BACKGROUND.run(self._async.bulk(addresses, country_iso=country_iso, add=add, batch_size=batch_size,
                                               progress=progress, poll_seconds=poll_seconds,
                                               max_processing_time=max_processing_time, on_progress=on_progress))

    def validate_bulk(self, requests: Sequence[SearchRequest | str], *,
                      add: AddOns | None = None) -> list[BatchItem[ValidateResponse]]:
        return BACKGROUND.run(self._async.validate_bulk(requests, add=add))
