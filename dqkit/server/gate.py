"""The ASGI layer every request passes first: checks, limits, deadline, where the work runs, timing.

Written as plain ASGI (no BaseHTTPMiddleware) because it sits on the hot path of every keystroke.

Order, so that the cheapest refusal comes first and nothing is read for a caller who may not call:
  1. a `Reference-Id` that is not the vendor's form (at most 256 characters of `[\\w\\-/:.,() ]`) -> 400, not echoed
  2. a query string over 8 KiB -> 414, over 64 parameters -> 400; a token in it -> 401 (the query string is
     blanked in the scope, so uvicorn's access log never shows it)
  3. missing or wrong `Auth-Token` (when tokens are configured) -> 401, counted as a failed login of the client
     address (IPv6: its /64); past the failed-login limit in this window -> 429 instead. A correct token is never
     refused for its address's failures (`FailureLimiter` says why). Behind a reverse proxy the client address is
     the one its `X-Forwarded-For` names, when the proxy is in `--trust-forwarded-for` (docs/server-stack.md).
  4. the per-token rate limit (when configured) -> 429 with Retry-After and the X-Rate-Limit-* headers
  5. `Content-Length` or the streamed body over the limit (lower for a lead: it has a few short fields; a bulk
     batch create has its own, `--max-bulk-body-bytes`) -> 413 (a declared length before a byte is read); a body
     slower than the body timeout -> 408. A bulk create beyond the creates already arriving (2 per caller, 4 in
     all) -> 429 at once, unread: each arriving body is held in memory until decoded, so few may be.
  6. a malformed `Timeout-Seconds` -> 400; the route then runs under that deadline -> 408 when it passes, and the
     deadline (`dqkit.engines.deadline`) is cancelled so the engine's loops stop their work too
A body is read only where a route takes one (`takes_body`): any other request is answered without reading it, with
`Connection: close`. Bodies over `OFFLOAD_BYTES` are decoded and answered on a second event loop in its own thread,
so parsing a large XML or JSON body never stalls `/healthz` or other clients on the main loop.
A client fault never produces a traceback: a ServiceError raised by a route answers with its status and the vendor
body; a too-deeply nested input answers 400, text that is not UTF-8 400. Only a fault of the server (500, with the
vendor's JSON body, never a plain-text one) logs one traceback.
Every answer, refusals included, echoes a valid `Reference-Id` and carries `Server-Timing: app;dur=<ms>`.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qsl

from dqkit.contract.errors import ServiceError
from dqkit.engines import deadline
from dqkit.engines.deadline import Deadline
from dqkit.server.config import ServerConfig
from dqkit.server.errors import send_error
from dqkit.server.ratelimit import FailureLimiter, FixedWindowLimiter, Verdict, client_key
from dqkit.server.ratestore import open_counts

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("dqkit.server")

# Paths anyone may read: health checks and the API description.
PUBLIC_PATHS: Final = frozenset({"/healthz", "/healthz/", "/openapi.json"})
# Query parameter names that look like a credential (compared lower case, without "-" and "_").
TOKEN_PARAM_NAMES: Final = frozenset({"authtoken", "token", "accesstoken", "apikey", "apitoken", "appkey",
                                      "xappkey"})
REDACTED: Final = b"query-string-redacted"
# The vendor's Reference-Id: at most 256 characters of word characters, "-", "/", ":", ".", ",", "(", ")", " ".
REFERENCE_ID: Final = re.compile(r"[\w\-/:.,() ]{0,256}", re.ASCII)
MAX_QUERY_BYTES: Final = 8192
MAX_QUERY_PARAMS: Final = 64
# Bodies at least this long are decoded and answered off the main event loop (a lead or a search is < 2 KiB).
OFFLOAD_BYTES: Final = 16_384
LEAD_PATHS: Final = frozenset({"/search", "/els/rest/enrich/v1/search"})
BULK_PATH: Final = "/address/bulk/v1/batches"
# Batch creates whose bodies are arriving or being decoded at once: per caller, and in all (issue 30: 200 half-sent
# batch bodies took the server from 255 to 3,453 MB). Past either, a create is refused at once, unread.
BULK_UPLOADS_PER_CALLER: Final = 2
BULK_UPLOADS: Final = 4


def query_has_token(query_string: bytes) -> bool:
    """True when a query parameter's name looks like a credential (Auth-Token, token, api_key, ...)."""
    try:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True,
                          max_num_fields=MAX_QUERY_PARAMS)
    except ValueError:
        return False
    return any(k.lower().replace("-", "").replace("_", "") in TOKEN_PARAM_NAMES for k, _ in pairs)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for k, v in scope["headers"]:
        if k == name:
            return bytes(v)
    return None


def _has_body(scope: Scope) -> bool:
    """True when the request announces a body (a Content-Length above 0, or a Transfer-Encoding)."""
    for k, v in scope["headers"]:
        if k == b"transfer-encoding" or (k == b"content-length" and v.strip() not in (b"0", b"")):
            return True
    return False


def _token_ok(token: bytes | None, accepted: tuple[bytes, ...]) -> bool:
    """Constant-time comparison against every accepted token (no early exit that times the match)."""
    if token is None:
        return False
    ok = False
    for t in accepted:
        ok |= hmac.compare_digest(token, t)
    return ok


class WorkerLoop:
    """A second event loop on a daemon thread. Routes for big bodies run there; their `send` and `receive` hop
    back to the main loop, so the connection is only ever touched by the loop that owns it."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def _get(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="dqkit-decode-loop", daemon=True).start()
                self._loop = loop
            return self._loop

    async def run(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        main = asyncio.get_running_loop()

        def on_main(coro: Coroutine[Any, Any, Any]) -> Awaitable[Any]:
            return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, main))

        async def sending(message: Message) -> None:
            await send(message)

        async def receiving() -> Message:
            return await receive()

        async def send_back(message: Message) -> None:
            await on_main(sending(message))

        async def receive_back() -> Message:
            result: Message = await on_main(receiving())
            return result

        async def run_app() -> None:
            await app(scope, receive_back, send_back)

        # The task on the worker loop inherits this context (the deadline); cancelling the wrapper cancels it.
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run_app(), self._get()))


class Gate:
    """Wraps the application; see the module docstring for what it checks, in which order."""

    def __init__(self, app: ASGIApp, config: ServerConfig,
                 takes_body: Callable[[str, str], bool] = lambda method, path: True) -> None:
        self.app = app
        self.config = config
        self.takes_body = takes_body  # (method, path) -> whether a route there reads a body
        self._tokens = tuple(t.encode() for t in sorted(config.tokens))
        self.limiter = (FixedWindowLimiter(config.rate_limit, config.rate_window_seconds,
                                           counts=open_counts(config.rate_store, config.run_dir,
                                                                  config.key_secret or config.rate_secret))
                        if config.rate_limit else None)
        self.failures = (FailureLimiter(config.auth_failures_per_window, config.rate_window_seconds)
                         if config.auth_failures_per_window and config.tokens else None)
        self.worker = WorkerLoop()
        self._uploads: dict[bytes, int] = {}  # bulk creates in progress per caller (main loop only)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        extra: list[tuple[bytes, bytes]] = []
        started = False
        # A body no route here reads (POST /healthz, a GET with a body) is never read nor buffered: the answer comes
        # at once and closes the connection, so the unread rest is never parsed either.
        skip_body = _has_body(scope) and not self.takes_body(scope["method"], scope["path"])
        if skip_body:
            extra.append((b"connection", b"close"))

        async def send_wrapped(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                ms = (time.perf_counter() - start) * 1000.0
                message["headers"] = [*message.get("headers", ()), *extra,
                                      (b"server-timing", f"app;dur={ms:.3f}".encode())]
            await send(message)

        path: str = scope["path"]
        instance = path[:256]
        reference_id = _header(scope, b"reference-id")
        if reference_id is not None:
            if not REFERENCE_ID.fullmatch(reference_id.decode("latin-1")):
                await send_error(send_wrapped, 400, "Reference-Id must be at most 256 characters of letters, "
                                 "digits and _ - / : . , ( ) or space", instance)
                return
            extra.append((b"reference-id", reference_id))
        query: bytes = scope.get("query_string") or b""
        if query:
            if query_has_token(query):
                scope["query_string"] = REDACTED
                await send_error(send_wrapped, 401, "the token is accepted in the Auth-Token header only, never "
                                 "in the query string", instance)
                return
            if len(query) > MAX_QUERY_BYTES:
                scope["query_string"] = b"query-string-too-long"
                await send_error(send_wrapped, 414, f"the query string is {len(query)} bytes; the limit is "
                                 f"{MAX_QUERY_BYTES}", instance)
                return
            if query.count(b"&") + query.count(b";") >= MAX_QUERY_PARAMS:
                scope["query_string"] = b"query-string-too-many-parameters"
                await send_error(send_wrapped, 400, f"the query string has more than {MAX_QUERY_PARAMS} "
                                 "parameters", instance)
                return
        token = _header(scope, b"auth-token")
        if token is None:  # the vendor's alternative credential header
            token = _header(scope, b"x-app-key")
        public = path in PUBLIC_PATHS
        if not public and self._tokens and not _token_ok(token, self._tokens):
            if self.failures is not None:
                client = client_key(f"{(scope.get('client') or ('?',))[0]}")
                blocked = self.failures.blocked(client)
                if blocked is not None:
                    retry = blocked.retry_after(time.time())
                    await send_error(send_wrapped, 429, f"too many failed logins from this address; retry after "
                                     f"{retry} s", instance, [(b"retry-after", str(retry).encode())])
                    return
                if self.failures.failed(client):
                    log.warning("%s: %d failed logins in this window; its wrong tokens get 429 until it ends",
                                client, self.failures.limit)
            detail = "missing Auth-Token (or x-app-key) header" if token is None else "the Auth-Token is not valid"
            await send_error(send_wrapped, 401, detail, instance)
            return
        if self.limiter is not None and not public:
            key = token.decode("latin-1") if token else f"ip:{(scope.get('client') or ('?',))[0]}"
            verdict: Verdict = self.limiter.hit(key)
            extra.extend(verdict.headers())
            if not verdict.allowed:
                retry = verdict.retry_after(time.time())
                await send_error(send_wrapped, 429, f"rate limit of {verdict.limit} requests per "
                                 f"{self.limiter.window} s reached; retry after {retry} s", instance,
                                 [(b"retry-after", str(retry).encode())])
                return
        timeout = self.config.timeout_seconds
        raw_timeout = _header(scope, b"timeout-seconds")
        if raw_timeout is not None:
            try:
                asked = float(raw_timeout.decode("latin-1").strip()[:32])
            except ValueError:
                asked = math.nan
            if not math.isfinite(asked) or asked <= 0:
                await send_error(send_wrapped, 400, "Timeout-Seconds must be a positive number of seconds",
                                 instance)
                return
            timeout = min(asked, timeout)

        upload: bytes | None = None
        if not skip_body and scope["method"] == "POST" and path.rstrip("/") == BULK_PATH:
            upload = token or f"ip:{(scope.get('client') or ('?',))[0]}".encode()
            mine, everyone = self._uploads.get(upload, 0), sum(self._uploads.values())
            if mine >= BULK_UPLOADS_PER_CALLER or everyone >= BULK_UPLOADS:
                who = (f"{mine} batch creates of this caller are" if mine >= BULK_UPLOADS_PER_CALLER
                       else f"{everyone} batch creates are")
                await send_error(send_wrapped, 429, f"{who} arriving already; retry once one is answered",
                                 instance, [(b"retry-after", b"1"), (b"connection", b"close")])
                return
            self._uploads[upload] = mine + 1
        # One asyncio timer (cheaper than two anyio scopes on this hot path): first the body timeout, then the
        # request's deadline once the body is in.
        loop = asyncio.get_running_loop()
        phase = "body"
        dl = Deadline(timeout)
        token_cv = deadline.set_current(dl)
        try:
            async with asyncio.timeout(self.config.body_timeout_seconds) as timer:
                body = b"" if skip_body else await self._read_body(scope, receive, send_wrapped, instance)
                if body is None:
                    return
                phase = "app"
                timer.reschedule(loop.time() + timeout)
                replayed = False

                async def replay() -> Message:
                    nonlocal replayed
                    if not replayed:
                        replayed = True
                        return {"type": "http.request", "body": body, "more_body": False}
                    return await receive()

                if len(body) >= OFFLOAD_BYTES:
                    await self.worker.run(self.app, scope, replay, send_wrapped)
                else:
                    await self.app(scope, replay, send_wrapped)
        except (TimeoutError, ServiceError, RecursionError) as exc:
            if started:
                return
            headers: list[tuple[bytes, bytes]] = []
            if isinstance(exc, ServiceError):
                status, detail = exc.status, exc.error.detail or exc.detail
            elif isinstance(exc, RecursionError):
                status, detail = 400, "the request is nested too deeply"
            elif phase == "body":
                status, detail = 408, (f"the request body did not arrive within "
                                       f"{self.config.body_timeout_seconds:g} s")
                headers = [(b"connection", b"close")]
            else:
                status, detail = 408, f"the request took longer than its Timeout-Seconds ({timeout:g} s)"
            await send_error(send_wrapped, status, detail, instance, headers)
        except Exception:
            log.exception("unhandled error on %s %s", scope["method"], instance)  # the one traceback of a fault
            if started:  # the app's handler already answered (its JSON 500): not re-raised, so not logged twice
                return
            await send_error(send_wrapped, 500, "internal error; the server log has the details", instance)
        finally:
            dl.cancel()  # the answer is out (or the client is gone): engine work still running stops
            deadline.reset_current(token_cv)
            if upload is not None:
                left = self._uploads.get(upload, 1) - 1
                if left > 0:
                    self._uploads[upload] = left
                else:
                    self._uploads.pop(upload, None)

    async def _read_body(self, scope: Scope, receive: Receive, send: Send, instance: str) -> bytes | None:
        """The whole body within the limits, or None once a refusal was sent (or the client left)."""
        limit = self.config.max_body_bytes
        if scope["path"].rstrip("/") in LEAD_PATHS:
            limit = min(limit, self.config.max_lead_body_bytes)
        elif scope["path"].rstrip("/") == BULK_PATH:  # a batch: its own documented limit (--max-bulk-body-bytes)
            limit = self.config.max_bulk_body_bytes
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                declared = int(length[:20])
            except ValueError:
                declared = -1
            if declared > limit:
                await send_error(send, 413, f"the request body is {declared} bytes; the limit is {limit} bytes",
                                 instance, [(b"connection", b"close")])
                return None
        if scope["method"] in ("GET", "HEAD"):
            return b""
        # One growing buffer, not a list of the chunks: a body trickled a byte at a time would otherwise hold a
        # million small objects per MiB, memory the allocator keeps after the connections close.
        buffer = bytearray()
        while True:  # under the caller's body timeout
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            if not buffer and not message.get("more_body", False) and len(chunk) <= limit:
                return bytes(chunk)  # the usual case: the whole body in one message
            buffer += chunk
            if len(buffer) > limit:
                await send_error(send, 413, f"the request body is over the limit of {limit} bytes",
                                 instance, [(b"connection", b"close")])
                return None
            if not message.get("more_body", False):
                return bytes(buffer)
