"""Error answers in the vendor's body `{"error": {"type", "title", "detail", "instance"}}`.

Built from `dqkit.contract.errors` so that the server writes exactly what the clients parse. Texts are made from
the status, the path and what went wrong, never from headers (a token cannot leak into an error body); a detail
that quotes the caller's input is cut at `MAX_DETAIL_CHARS`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

import msgspec

from dqkit.contract.errors import ErrorBody, ErrorDetail, ServiceError, error_class_for_status

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

TITLES: Final[dict[int, str]] = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    507: "Insufficient Storage",
}
_encoder = msgspec.json.Encoder()


MAX_DETAIL_CHARS: Final = 512  # an error that quotes the caller's input (a 1 MB `location`) quotes its start only


def clip(text: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """`text`, or its first `limit` characters and how long it was: an answer never echoes a whole big input."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters, cut)"


def error_detail(status: int, detail: str, instance: str = "") -> ErrorDetail:
    title = TITLES.get(status) or error_class_for_status(status).title
    return ErrorDetail(type=f"https://httpstatuses.io/{status}", title=title, detail=clip(detail),
                       instance=clip(instance, 256))


def error_bytes(status: int, detail: str, instance: str = "") -> bytes:
    return _encoder.encode(ErrorBody(error_detail(status, detail, instance)))


def service_error_bytes(exc: ServiceError, instance: str) -> bytes:
    """The body of a ServiceError raised by an engine, with `instance` set to the request path."""
    detail = exc.error.detail or exc.detail
    return error_bytes(exc.status, detail, instance)


async def send_error(send: Send, status: int, detail: str, instance: str = "",
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer a whole error response at the ASGI level (used before any route runs)."""
    body = error_bytes(status, detail, instance)
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    *(headers or [])],
    })
    await send({"type": "http.response.body", "body": body})
