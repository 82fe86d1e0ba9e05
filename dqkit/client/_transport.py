"""The one module of dqkit that imports httpx: it sends a request and returns status, headers and body.

Why the aiohttp transport by default: on loopback against `dqkit serve`, `httpx.AsyncClient` with its own
transport (httpcore) loses throughput as concurrency rises (the issue measured ~900 req/s at 1 concurrent request
and ~260 at 32, client CPU saturated), while aiohttp sustains several thousand. httpx stays the client API and
`httpx_aiohttp.AiohttpTransport` carries the bytes. `benchmarks/bench_http.py` re-measures both on every run
(rows "raw httpx", "LeadClient transport=httpx" and "LeadClient transport=aiohttp"); pass `transport="httpx"`
to a client to use httpx's own transport (e.g. for HTTP/2 or a proxy aiohttp cannot reach).

The token reaches the wire through `SecretAuth`, an httpx `Auth` flow that sets the `Auth-Token` header on the
outgoing request from the masked `Secret`: no dict or local variable of dqkit holds the plain token, so tracebacks
with locals, `pytest --showlocals` and error trackers have nothing to print.

Every exception of the HTTP stack (httpx's, and aiohttp's that httpx-aiohttp leaves unmapped, such as the
`ClientResponseError` of an oversized response header, whose `request_info` holds the request's headers) becomes a
dqkit `TransportError` raised *outside* the except block, so no object of the stack (whose request carries the
Auth-Token header) stays attached to the error as its cause or context; its text is masked too.

An answer's body is read up to `max_bytes` once decoded (gzip included): a vendor that answers a gigabyte, or a
small gzip that inflates to one, costs at most that much memory and fails that request with a ProtocolError.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Final, Literal

import httpx

from dqkit.client._secret import Secret
from dqkit.contract.errors import InputError, ProtocolError, TransportError, TransportTimeout

TransportName = Literal["aiohttp", "httpx"]
DEFAULT_TRANSPORT: Final[TransportName] = "aiohttp"


@dataclass(frozen=True, slots=True)
class RawResponse:
    """An HTTP answer: status, headers (lower-case names) and the whole body."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes | None:
    """The decoded body, or None as soon as it grows past `max_bytes` (the rest is never read)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            return None
        parts.append(chunk)
    return b"".join(parts)


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:300] if str(exc) else ""


def _masked(text: str, token: Secret | None) -> str:
    return token.mask(text) if token is not None else text


class SecretAuth(httpx.Auth):
    """Sets `Auth-Token` from a Secret on each outgoing request, at the last moment."""

    def __init__(self, token: Secret) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Auth-Token"] = self._token.reveal()
        yield request

    def __repr__(self) -> str:
        return "SecretAuth(********)"


def _authorized(request: httpx.Request, token: Secret | None) -> httpx.Request:
    if token is None:
        return request
    return next(SecretAuth(token).sync_auth_flow(request))


def check_base_url(base_url: str) -> str:
    """A base URL without a trailing slash; credentials in it are refused (they would end up in logs)."""
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise InputError(f"not a URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise InputError("the base URL must be http:// or https:// with a host")
    if url.userinfo:
        raise InputError("the base URL must not hold credentials; pass token= (sent as the Auth-Token header)")
    if url.query:
        raise InputError("the base URL must not hold a query string (tokens go in the Auth-Token header only)")
    return base_url.rstrip("/")


class AsyncTransport:
    """An httpx transport created lazily inside the event loop that first uses it, and only used there.

    Requests go straight to the transport (`handle_async_request` with an `httpx.Request`): the AsyncClient
    layer above it (cookies, redirects, auth flows, default-header merging) is work this client never needs,
    and on loopback it cost about as much CPU per request as aiohttp itself (see benchmarks/bench_http.py).
    """

    def __init__(self, base_url: str, *, max_connections: int, transport: TransportName = DEFAULT_TRANSPORT) -> None:
        if transport not in ("aiohttp", "httpx"):
            raise InputError(f"unknown transport {transport!r}; use 'aiohttp' or 'httpx'")
        self.base_url = check_base_url(base_url)
        self.kind: TransportName = transport
        self._max_connections = max_connections
        self._transport: httpx.AsyncBaseTransport | None = None
        self._urls: dict[str, httpx.URL] = {}

    def _make_transport(self) -> httpx.AsyncBaseTransport:
        limits = httpx.Limits(max_connections=self._max_connections,
                              max_keepalive_connections=self._max_connections)
        if self.kind == "aiohttp":
            from httpx_aiohttp import AiohttpTransport

            return AiohttpTransport(limits=limits, trust_env=False)
        return httpx.AsyncHTTPTransport(limits=limits, trust_env=False)

    def _url(self, path: str) -> httpx.URL:
        url = self._urls.get(path)
        if url is None:
            url = httpx.URL(self.base_url + path)
            if len(self._urls) < 256:  # the fixed paths; per-key paths are not worth keeping
                self._urls[path] = url
        return url

    async def request(self, method: str, path: str, *, headers: Mapping[str, str], content: bytes | None,
                      timeout: float, token: Secret | None = None,
                      max_bytes: int = 8 * 1024 * 1024) -> RawResponse:
        """Send one request; TransportTimeout / TransportError when no answer came, ProtocolError when the answer
        is larger than `max_bytes` once decoded."""
        if self._transport is None:
            self._transport = self._make_transport()
        error: TransportError | ProtocolError | None = None
        limits = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
        try:
            async with asyncio.timeout(timeout):
                request = _authorized(httpx.Request(method, self._url(path), headers=headers, content=content,
                                                    extensions={"timeout": limits}), token)
                response = await self._transport.handle_async_request(request)
                try:
                    body = await _read_capped(response, max_bytes)
                finally:
                    await response.aclose()
            if body is None:
                error = ProtocolError(f"{method} {path}: the answer is larger than {max_bytes:,} bytes "
                                      "(decoded); it was not read")
            else:
                return RawResponse(response.status_code, dict(response.headers), body)
        except TimeoutError:
            error = TransportTimeout(f"{method} {path}: no answer within {timeout:.3g} s")
        except httpx.TimeoutException as exc:
            # httpx-aiohttp maps some disconnects to ConnectTimeout: only a timeout underneath is a timeout.
            cause = exc.__cause__
            if cause is None or isinstance(cause, TimeoutError):
                error = TransportTimeout(f"{method} {path}: no answer within {timeout:.3g} s")
            else:
                error = TransportError(f"{method} {path}: {type(cause).__name__}: {cause}".rstrip(": "))
        except httpx.TransportError as exc:
            error = TransportError(_masked(f"{method} {path}: {type(exc).__name__}: {exc}".rstrip(": "), token))
        except httpx.HTTPError as exc:  # anything else httpx raises (e.g. a broken response)
            error = TransportError(f"{method} {path}: {type(exc).__name__}")
        except Exception as exc:
            # What httpx-aiohttp leaves unmapped (aiohttp's ClientResponseError for a header too large, a broken
            # chunked body, ...): its text only, masked; never the object (its request_info holds the token).
            error = TransportError(_masked(f"{method} {path}: {type(exc).__name__}: {_first_line(exc)}", token))
        raise error

    async def aclose(self) -> None:
        if self._transport is not None:
            transport, self._transport = self._transport, None
            await transport.aclose()
