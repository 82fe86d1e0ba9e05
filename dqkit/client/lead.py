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

What is sent: each lead is prepared by `dqkit.engines.lead.prepare` (the same code the local backend answers
with): phones as digits, a unit at the end of a too-long STREET1 moved to STREET2, the seed's field lengths, and
the wire: `fmt="auto"` (the default) sends JSON, or XML / form data for a lead JSON cannot carry ('"', '&'); a
pinned `fmt` is always used. The account's `partner_id` / `client_id` (else DQKIT_PARTNER_ID / DQKIT_CLIENT_ID)
go on every lead that carries none of its own. `prepare(lead)` shows what a lead is sent as.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Final, Self

import msgspec

from dqkit.backends.base import BatchItem
from dqkit.client._core import AsyncCore, Drain, error_from_response, new_reference_id
from dqkit.client._loop import BACKGROUND
from dqkit.client._policy import ClientSettings, resolve
from dqkit.client._secret import Secret
from dqkit.client._sync import SyncClient
from dqkit.client._transport import RawResponse
from dqkit.contract.errors import InputError, ProtocolError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.contract.lead_wire import decode_message, encode_lead
from dqkit.engines.lead.prepare import PREPARE_VERSION, PreparedLead, Wire, prepare_lead

# Statuses whose body is an ELSGenericMessage under dqkit serve's mapping (see dqkit.server.status).
_MESSAGE_STATUSES = frozenset({200, 400, 403, 500})
_ACCEPT = {"json": "application/json", "xml": "application/xml", "form": "application/json"}
# The account's ids, when not passed: set on every lead that carries none of its own.
ACCOUNT_ENV: Final = {"partner_id": "DQKIT_PARTNER_ID", "client_id": "DQKIT_CLIENT_ID"}


class AsyncLeadClient:
    """Verifies leads over HTTP from async code. Create it (or at least use it) in one event loop.

    fmt: the request representation: "auto" (JSON, or XML / form data for a lead JSON cannot carry), or a pinned
    "json", "xml" or "form"; the answer comes in JSON except for XML requests.
    partner_id / client_id: the account's ids, set on every lead without its own (default: DQKIT_PARTNER_ID /
    DQKIT_CLIENT_ID).
    Settings (timeout, max_attempts, requests_per_second, max_concurrency, transport, ...): see ClientSettings.
    """

    service = "lead"
    remote = True

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, *,
                 fmt: Wire = "auto", path: str = "/search", partner_id: str | None = None,
                 client_id: str | None = None, **settings: Any) -> None:
        if fmt not in ("auto", "json", "xml", "form"):
            raise InputError(f"fmt must be 'auto', 'json', 'xml' or 'form', not {fmt!r}")
        url, secret = resolve(self.service, base_url, token)
        self.settings = ClientSettings(base_url=url, token=secret, **settings)
        self.fmt: Wire = fmt
        self.path = "/" + path.strip("/")
        self.partner_id = (partner_id if partner_id is not None else os.environ.get(ACCOUNT_ENV["partner_id"], "")
                           ).strip()
        self.client_id = (client_id if client_id is not None else os.environ.get(ACCOUNT_ENV["client_id"], "")
                          ).strip()
        self._core = AsyncCore(self.settings)
        self.reference_header = ""  # the X-Dqkit-Reference the service named last (token masked), "" if none

    def __repr__(self) -> str:
        token = "set" if self.settings.token else "none"
        ids = "".join(f", {k}={v!r}" for k, v in (("partner_id", self.partner_id), ("client_id", self.client_id))
                      if v)
        return (f"{type(self).__name__}({self.settings.base_url!r}, path={self.path!r}, fmt={self.fmt!r}{ids}, "
                f"token={token})")

    @property
    def name(self) -> str:
        """The service, the wire and the account's ids: what changes the answers (part of cache keys)."""
        extra = f";fmt={self.fmt};prepare={PREPARE_VERSION}"
        extra += f";partner={self.partner_id}" if self.partner_id else ""
        extra += f";client={self.client_id}" if self.client_id else ""
        return f"http-lead[{self.settings.base_url}{self.path}{extra}]"

    @property
    def url(self) -> str:
        return f"{self.settings.base_url}{self.path}"

    @property
    def drain(self) -> Drain:
        return self._core.drain

    def prepare(self, lead: LeadRequest) -> PreparedLead:
        """What `lead` is sent as: the account's ids added, then `dqkit.engines.lead.prepare.prepare_lead`."""
        ids = {k: v for k, v in (("partner_id", self.partner_id), ("client_id", self.client_id))
               if v and not getattr(lead, k)}
        return prepare_lead(msgspec.structs.replace(lead, **ids) if ids else lead, self.fmt)

    def _message(self, resp: RawResponse, ref: str) -> ELSGenericMessage:
        if resp.status in _MESSAGE_STATUSES:
            try:
                return decode_message(resp.body, resp.content_type)
            except ProtocolError:
                if resp.status == 200:
                    raise
        raise error_from_response(resp, "POST", self.path, ref)

    async def _verify(self, lead: LeadRequest, reference_id: str) -> ELSGenericMessage:
        prepared = self.prepare(lead)
        fmt = prepared.fmt or "json"
        body, content_type = encode_lead(prepared.lead, fmt)
        resp, ref = await self._core.call("POST", self.path, content=body, content_type=content_type,
                                          accept=_ACCEPT[fmt], reference_id=reference_id)
        named = resp.headers.get("x-dqkit-reference", "")
        if named:
            self.reference_header = named
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

    remote = True

    def __init__(self, base_url: str | None = None, token: str | Secret | None = None, *,
                 fmt: Wire = "auto", path: str = "/search", partner_id: str | None = None,
                 client_id: str | None = None, **settings: Any) -> None:
        async def make() -> AsyncLeadClient:  # created on the background loop, used only there
            return AsyncLeadClient(base_url, token, fmt=fmt, path=path, partner_id=partner_id,
                                   client_id=client_id, **settings)

        super().__init__(make)

    @property
    def name(self) -> str:
        return self._async.name

    @property
    def url(self) -> str:
        return self._async.url

    @property
    def fmt(self) -> Wire:
        return self._async.fmt

    @property
    def reference_header(self) -> str:
        """The X-Dqkit-Reference header of the service's last answer ("" when it names none)."""
        return self._async.reference_header

    def prepare(self, lead: LeadRequest) -> PreparedLead:
        return self._async.prepare(lead)

    @property
    def drain(self) -> Drain:
        """The brake the batch pipeline pulls on Ctrl-C: requests in flight finish, no new one starts."""
        return self._async.drain

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
