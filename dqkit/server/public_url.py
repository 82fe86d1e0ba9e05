"""The base of the URLs the server writes into answers (`format`, `stepin`), never taken from an arbitrary `Host`.

A client that follows a `format` URL sends its Auth-Token there, so a URL built from the request's `Host` header
would let whoever sets that header (a link, a cache, a rebinding page) collect tokens. In order:
1. `--public-url`: the address clients use (behind a proxy, the proxy's);
2. `--trust-host-header`: the request's own scheme and `Host` (only behind a proxy that sets it);
3. else the local address the connection arrived on (the ASGI `server`), which this server really listens on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from dqkit.server.config import ServerConfig


def base_from_scope(scope: Mapping[str, Any]) -> str:
    """`scheme://host:port/` of the socket the request came in on (IPv6 hosts in brackets)."""
    scheme = "https" if scope.get("scheme") == "https" else "http"
    server = scope.get("server")
    if not server:
        return f"{scheme}://127.0.0.1/"
    host, port = str(server[0]), server[1]
    if ":" in host:
        host = f"[{host.split('%', 1)[0]}]"
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{host}/" if port in (None, default) else f"{scheme}://{host}:{port}/"


def public_base(request: Request, config: ServerConfig) -> str:
    """The base URL (ending in "/") of this server for links in the answer to `request` (module docstring)."""
    if config.public_url:
        return config.public_url
    if config.trust_host_header:
        return str(request.base_url)
    return base_from_scope(request.scope)
