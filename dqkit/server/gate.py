"""The ASGI layer every request passes first: token, rate limit, body limit, timeout, Reference-Id, timing.

Written as plain ASGI (no BaseHTTPMiddleware) because it sits on the hot path of every keystroke.

Order, so that the cheapest refusal comes first and nothing is read for a caller who may not call:
  1. a token in the query string -> 401 (the query string is blanked in the scope, so uvicorn's access log never
     shows it; the log filter of `dqkit.server.runner` is a second guard)
  2. missing or wrong `Auth-Token` (when tokens are configured) -> 401
  3. the per-token rate limit (when configured) -> 429 with Retry-After and the X-Rate-Limit-* headers
  4. `Content-Length` or the streamed body over the limit -> 413
  5. a malformed `Timeout-Seconds` -> 400; the route then runs under that deadline -> 408 when it passes
Every answer, refusals included, echoes `Reference-Id` and carries `Server-Timing: app;dur=<ms>`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qsl

import anyio

from dqkit.server.config import ServerConfig
from dqkit.server.errors import send_error
from dqkit.server.ratelimit import FixedWindowLimiter, Verdict

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("dqkit.server")

# Paths anyone may read: health checks and the API description.
PUBLIC_PATHS: Final = frozenset({"/healthz", "/healthz/", "/openapi.json"})
# Query parameter names that look like a credential (compared lower case, without "-" and "_").
TOKEN_PARAM_NAMES: Final = frozenset({"authtoken", "token", "accesstoken", "apikey", "apitoken"})
REDACTED: Final = b"query-string-redacted"


def query_has_token(query_string: bytes) -> bool:
    """True when a query parameter's name looks like a credential (Auth-Token, token, api_key, ...)."""
    try:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    except ValueError:
        return False
    return any(k.lower().replace("-", "").replace("_", "") in TOKEN_PARAM_NAMES for k, _ in pairs)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for k, v in scope["headers"]:
        if k == name:
            return bytes(v)
    return None


class Gate:
    """Wraps the application; see the module docstring for what it checks, in which order."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config
        self._tokens = frozenset(t.encode() for t in config.tokens)
        self.limiter = (FixedWindowLimiter(config.rate_limit, config.rate_window_seconds)
                        if config.rate_limit else None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        extra: list[tuple[bytes, bytes]] = []
        reference_id = _header(scope, b"reference-id")
        if reference_id is not None:
            extra.append((b"reference-id", reference_id))
        started = False

        async def send_wrapped(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                ms = (time.perf_counter() - start) * 1000.0
                message["headers"] = [*message.get("headers", ()), *extra,
                                      (b"server-timing", f"app;dur={ms:.3f}".encode())]
            await send(message)

        path: str = scope["path"]
        instance = path
        if scope.get("query_string") and query_has_token(scope["query_string"]):
            scope["query_string"] = REDACTED
            await send_error(send_wrapped, 401, "the token is accepted in the Auth-Token header only, never in "
                             "the query string", instance)
            return
        token = _header(scope, b"auth-token")
        public = path in PUBLIC_PATHS
        if not public and self._tokens and token not in self._tokens:
            detail = "missing Auth-Token header" if token is None else "the Auth-Token is not valid"
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
                asked = float(raw_timeout.decode("latin-1").strip())
            except ValueError:
                asked = math.nan
            if not math.isfinite(asked) or asked <= 0:
                await send_error(send_wrapped, 400, "Timeout-Seconds must be a positive number of seconds",
                                 instance)
                return
            timeout = min(asked, timeout)

        limit = self.config.max_body_bytes
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                declared = -1
            if declared > limit:
                await send_error(send_wrapped, 413, f"the request body is {declared} bytes; the limit is "
                                 f"{limit} bytes", instance, [(b"connection", b"close")])
                return
        chunks: list[bytes] = []
        size = 0
        if scope["method"] not in ("GET", "HEAD"):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await send_error(send_wrapped, 413, f"the request body is over the limit of {limit} bytes",
                                     instance, [(b"connection", b"close")])
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        try:
            with anyio.fail_after(timeout):
                await self.app(scope, replay, send_wrapped)
        except TimeoutError:
            if not started:
                await send_error(send_wrapped, 408, f"the request took longer than its Timeout-Seconds "
                                 f"({timeout:g} s)", instance)
        except Exception:
            log.exception("unhandled error on %s %s", scope["method"], path)
            if started:
                raise
            await send_error(send_wrapped, 500, "internal error; the server log has the details", instance)
