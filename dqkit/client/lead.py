"""Clients of the lead verification service (seed 000): `AsyncLeadClient` and the sync `LeadClient`.

    with LeadClient("http://127.0.0.1:8000", token="...") as client:      # or DQKIT_LEAD_URL / DQKIT_LEAD_TOKEN
        message = client.verify_lead(lead)                                  # an ELSGenericMessage
        items = client.verify_leads(leads)                                  # BatchItems, in input order

A lead's E-codes (E100, E600, ..., also E300/E500/E501 that come with HTTP 400/403) are *answers*, returned as
messages, not raised. Exceptions (from `dqkit.contract.errors`) mean no message could be had: TransportError,
AuthenticationError (401), RateLimitError (429 not waited out), ServerError (5xx without a message after every
retry), ProtocolError (an answer that is not an ELSGenericMessage).

The base URL is the service's root: requests go to `{base_url}{path}`, path `/search` by default (the vendor's is
`/els/rest/enrich/v1/search`: pass base_url="https://HOST/els/rest/enrich/v1" or path=).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Self

from dqkit.backends.base import BatchItem
from dqkit.client._core import AsyncCore, error_from_response, new_reference_id
from dqkit.client._loop import BACKGROUND
from dqkit.client._policy import ClientSettings, resolve
from dqkit.client._secret import Secret
from dqkit.client._sync import SyncClient
from dqkit.client._transport import RawResponse
from dqkit.contract.errors import InputError, ProtocolError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.contract.lead_input import normalize_lead
from dqkit.contract.lead_wire import RequestFormat, decode_message, encode_lead

# Statuses whose body is an ELSGenericMessage under dqkit serve's mapping (see dqkit.server.status).
_MESSAGE_STATUSES = frozenset({200, 400, 403, 500})
_ACCEPT = {"json": "application/json", "xml": "application/xml", "form": "application/json"}


class AsyncLeadClient:
    """Verifies leads over HTTP from async code. Create it (or at least use it) in one event loop.

    fmt: the request representation ("json", "xml" or "form"); the answer comes in JSON except for XML requests.
    Settings (timeout, max_attempts, requests_per_second, max_concurrency, transport, ...): see ClientSettings.
    """

    service = "lead"

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, *,
                 fmt: RequestFormat = "json", path: str = "/search", **settings: Any) -> None:
        if fmt not in ("json", "xml", "form"):
            raise InputError(f"fmt must be 'json', 'xml' or 'form', not {fmt!r}")
        url, secret = resolve(self.service, base_url, token)
        self.settings = ClientSettings(base_url=url, token=secret, **settings)
        self.fmt: RequestFormat = fmt
        self.path = "/" + path.strip("/")
        self._core = AsyncCore(self.settings)

    def __repr__(self) -> str:
        token = "set" if self.settings.token else "none"
        return f"{type(self).__name__}({self.settings.base_url!r}, path={self.path!r}, fmt={self.fmt!r}, token={token})"

    @property
    def name(self) -> str:
        return f"http-lead[{self.settings.base_url}{self.path}]"

    def _message(self, resp: RawResponse, ref: str) -> ELSGenericMessage:
        if resp.status in _MESSAGE_STATUSES:
            try:
                return decode_message(resp.body, resp.content_type)
            except ProtocolError:
                if resp.status == 200:
                    raise
        raise error_from_response(resp, "POST", self.path, ref)

    async def _verify(self, lead: LeadRequest, reference_id: str) -> ELSGenericMessage:
        body, content_type = encode_lead(normalize_lead(lead), self.fmt)
        resp, ref = await self._core.call("POST", self.path, content=body, content_type=content_type,
                                          accept=_ACCEPT[self.fmt], reference_id=reference_id)
        return self._message(resp, ref)

    async def verify_lead(self, lead: LeadRequest, *, reference_id: str | None = None) -> ELSGenericMessage:
        """Verify one lead. `reference_id`: the Reference-Id to send (a fresh UUID when omitted)."""
        return await self._verify(lead, reference_id or new_reference_id())

    async def verify_leads(self, leads: Sequence[LeadRequest], *,
                           on_item: Callable[[BatchItem[ELSGenericMessage]], None] | None = None,
                           concurrency: int | None = None) -> list[BatchItem[ELSGenericMessage]]:
        """Verify many leads concurrently: one BatchItem per lead, in input order, each with its Reference-Id.

        `on_item` is called as each item finishes (in completion order), e.g. to drive a progress bar.
        """
        return await self._core.batch(list(leads), self._verify, on_item, concurrency)

    async def aclose(self) -> None:
        await self._core.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class LeadClient(SyncClient[AsyncLeadClient]):
    """Verifies leads over HTTP from ordinary (also notebook) code; implements the LeadBackend protocol.

    All work runs on dqkit's background event loop, so it works inside a running loop (Jupyter) too.
    """

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, *,
                 fmt: RequestFormat = "json", path: str = "/search", **settings: Any) -> None:
        async def make() -> AsyncLeadClient:  # created on the background loop, used only there
            return AsyncLeadClient(base_url, token, fmt=fmt, path=path, **settings)

        super().__init__(make)

    @property
    def name(self) -> str:
        return self._async.name

    @property
    def settings(self) -> ClientSettings:
        return self._async.settings

    def verify_lead(self, lead: LeadRequest, *, reference_id: str | None = None) -> ELSGenericMessage:
        return BACKGROUND.run(self._async.verify_lead(lead, reference_id=reference_id))

    def verify_leads(self, leads: Sequence[LeadRequest], *,
                     on_item: Callable[[BatchItem[ELSGenericMessage]], None] | None = None,
                     concurrency: int | None = None) -> list[BatchItem[ELSGenericMessage]]:
        """As AsyncLeadClient.verify_leads; `on_item` runs on dqkit's loop thread (keep it quick)."""
        return BACKGROUND.run(self._async.verify_leads(leads, on_item=on_item, concurrency=concurrency))
