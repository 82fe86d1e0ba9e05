"""The ASGI application of `dqkit serve`: routes, error handlers, lifespan, wrapped in the `Gate`.

`create_app(config)` is all a caller needs; `loader=` swaps the engines (tests use it to wrap the local ones).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from dqkit.contract.address import note_to_header
from dqkit.contract.errors import ServiceError
from dqkit.server.address_routes import AddressRoutes
from dqkit.server.bulk_routes import BulkRoutes
from dqkit.server.config import ServerConfig
from dqkit.server.engines import Loaded, ServerEngines, load_local
from dqkit.server.errors import error_bytes
from dqkit.server.gate import ASGIApp, Gate
from dqkit.server.lead_routes import lead_endpoint
from dqkit.server.openapi import openapi_document
from dqkit.server.operations import OPERATIONS, Op

log = logging.getLogger("dqkit.server")
Handler = Callable[[Request], Awaitable[Response]]


def body_routes(operations: tuple[Op, ...]) -> Callable[[str, str], bool]:
    """`takes_body(method, path)`: whether some route reads a body for that method and path (POST at an operation
    that accepts it); everything else, /healthz and /openapi.json included, is answered without reading one."""
    from starlette.routing import compile_path

    exact: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for op in operations:
        if "POST" not in op.methods:
            continue
        for path in (op.path, *op.aliases):
            if "{" in path:
                patterns.append(compile_path(path)[0])
                if not path.endswith("{key:path}"):
                    patterns.append(compile_path(path + "/")[0])
            else:
                exact.update((path, path + "/"))
    frozen = frozenset(exact)

    def takes_body(method: str, path: str) -> bool:
        return method == "POST" and (path in frozen or any(p.match(path) for p in patterns))

    return takes_body


def _not_ready(engines: ServerEngines, handler: Handler, *, provenance: bool = False) -> Handler:
    """Answer 503 (retried by clients) until the engines are loaded; every answer names its reference (lead
    answers the one their street checks used)."""

    async def guarded(request: Request) -> Response:
        if not engines.ready:
            detail = "the engines failed to load" if engines.error else "the engines are still loading"
            return Response(error_bytes(503, detail, request.url.path), status_code=503,
                             media_type="application/json", headers={"Retry-After": "1"})
        response = await handler(request)
        header = engines.loaded.reference_header if provenance else engines.loaded.lead_reference_header
        if header:  # percent-encoded past printable ASCII: an id or file name can never break the answer
            response.headers["X-Dqkit-Reference"] = note_to_header(header)
        return response

    return guarded


def create_app(config: ServerConfig | None = None, *,
               loader: Callable[[ServerConfig], Loaded] = load_local) -> ASGIApp:
    """The whole server as one ASGI callable. The engines load in a thread when the lifespan starts."""
    config = config or ServerConfig()
    engines = ServerEngines(config, loader)
    address_routes = AddressRoutes(engines)
    bulk_routes = BulkRoutes(engines)
    handlers: dict[str, Handler] = {"lead": lead_endpoint(engines), **address_routes.handlers(),  # type: ignore[dict-item]
                                    **bulk_routes.handlers(address_routes._guarded)}
    routes: list[Route] = []
    for op in OPERATIONS:
        handler = _not_ready(engines, handlers[op.handler], provenance=op.handler != "lead")
        for path in (op.path, *op.aliases):
            routes.append(Route(path, handler, methods=list(op.methods)))
            if not path.endswith("{key:path}"):  # a {key:path} already takes a trailing slash
                routes.append(Route(path + "/", handler, methods=list(op.methods)))
    document = msgspec.json.encode(openapi_document(config))

    async def healthz(request: Request) -> Response:
        if engines.ready:  # with --workers, only a ready worker accepts connections: 200 while any serves
            if config.workers <= 1:
                return Response(b'{"status":"ok"}', media_type="application/json")
            ready = engines.workers_ready()  # a few stat calls of the run folder
            return Response(msgspec.json.encode({"status": "ok", "workers": config.workers,
                                                 "workers_ready": max(1, ready)}), media_type="application/json")
        status = "failed" if engines.error else "starting"
        return Response(msgspec.json.encode({"status": status}), status_code=503, media_type="application/json")

    async def openapi(request: Request) -> Response:
        return Response(document, media_type="application/json")

    routes += [Route("/healthz", healthz, methods=["GET"]), Route("/openapi.json", openapi, methods=["GET"])]

    def load() -> None:
        try:
            engines.load()
            log.info("dqkit serve: engines ready")
            bulk_routes.service.resume()  # batches a stopped server was processing go on
        except Exception:
            log.exception("dqkit serve: the engines failed to load; /healthz answers 503")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if config.workers > 1:  # a worker of several accepts nothing before its engines load: the others answer
            await asyncio.to_thread(load)
        else:  # alone, load in the background so the port answers at once: /healthz says 503 "starting" till ready
            threading.Thread(target=load, name="dqkit-engine-loader", daemon=True).start()
        yield

    async def http_error(request: Request, exc: Any) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        where = request.url.path[:256]
        detail = {404: f"no operation at {where}",
                  405: f"{request.method} is not allowed on {where}"}.get(status, str(exc)[:512])
        headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
        return Response(error_bytes(status, detail, request.url.path[:256]), status_code=status,
                        media_type="application/json", headers=headers)

    async def service_error(request: Request, exc: Any) -> Response:
        """A ServiceError raised by a route (a 408 from the deadline, a 400 from an engine): its vendor body."""
        status = exc.status if isinstance(exc, ServiceError) else 400
        detail = ((exc.error.detail or exc.detail) if isinstance(exc, ServiceError)
                  else "the request is nested too deeply")
        return Response(error_bytes(status, detail, request.url.path[:256]), status_code=status,
                        media_type="application/json")

    async def not_utf8(request: Request, exc: Any) -> Response:
        """Text that is not UTF-8 where the wire requires it (a body, a path): the client's fault, a 400."""
        return Response(error_bytes(400, "the request holds text that is not valid UTF-8", request.url.path[:256]),
                        status_code=400, media_type="application/json")

    async def server_fault(request: Request, exc: Any) -> Response:
        """The vendor's JSON body for a fault of the server, never Starlette's plain-text 500 (the gate logs it)."""
        return Response(error_bytes(500, "internal error; the server log has the details", request.url.path[:256]),
                        status_code=500, media_type="application/json")

    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, ServiceError: service_error,
                                        RecursionError: service_error, UnicodeError: not_utf8,
                                        Exception: server_fault})
    app.router.redirect_slashes = False
    gate = Gate(app, config, body_routes(OPERATIONS))
    if not config.trusted_proxies:
        return gate
    # Behind trusted reverse proxies the client is the rightmost X-Forwarded-For address that is not one of them:
    # the failed-login limit, --allow-ip, the rate limit's address key and the access log all see that address.
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    return cast(ASGIApp, ProxyHeadersMiddleware(cast(Any, gate), [str(n) for n in config.trusted_proxies]))
