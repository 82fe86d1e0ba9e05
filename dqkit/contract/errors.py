"""The one exception tree of dqkit. Every error dqkit raises on purpose is one of these.

    DqkitError
    ├── InputError (also ValueError)      the caller handed dqkit something unusable (columns, options, files)
    ├── ReferenceDataError                 a reference index or bundled data file is missing or unreadable
    ├── ProtocolError                      a server answered something that is not the service's wire format
    ├── TransportError                     the request did not get an answer (connection refused, reset, timeout)
    │   └── TransportTimeout
    └── ServiceError                       the service answered with an error status; carries the vendor body
        ├── BadRequestError        400
        ├── AuthenticationError    401     missing or wrong Auth-Token
        ├── PermissionDeniedError  403     token not entitled to the dataset
        ├── NotFoundError          404     unknown path, or an address key from another index build
        ├── RequestTimeoutError    408     the service gave up (Timeout-Seconds)
        ├── PayloadTooLargeError   413
        ├── RateLimitError         429     `.reset_at` / `.retry_after` say when to come back
        └── ServerError            5xx

Lead *outcomes* (E100, E600, ...) are not exceptions: they are answers, carried in ELSGenericMessage.Message.
Secrets never appear in an exception's text: messages are built from status, path and the vendor's body only.
"""

from __future__ import annotations

from typing import Any

import msgspec


class DqkitError(Exception):
    """Base class of every error dqkit raises on purpose."""


class InputError(DqkitError, ValueError):
    """The caller's input cannot be used (bad column mapping, unknown option, unreadable file)."""


class ReferenceDataError(DqkitError):
    """A reference index or bundled data file is missing, corrupt or of another format version."""


class ProtocolError(DqkitError):
    """The peer answered something that is not the service's wire format."""


class TransportError(DqkitError):
    """No answer: the connection failed, was reset, or timed out on the client side."""


class TransportTimeout(TransportError):
    """The client's own timeout ran out before an answer came."""


class NotSentError(DqkitError):
    """The request was never sent (the run was stopped first, e.g. by Ctrl-C): nothing was asked, nothing billed."""


class ErrorDetail(msgspec.Struct, omit_defaults=True, kw_only=True):
    """The vendor's error body: {"error": {"type", "title", "detail", "instance"}}."""

    type: str = ""
    title: str = ""
    detail: str = ""
    instance: str = ""


class ErrorBody(msgspec.Struct):
    error: ErrorDetail


class ServiceError(DqkitError):
    """The service answered with an HTTP error status."""

    status: int = 0
    title: str = "Service error"

    def __init__(
        self,
        detail: str = "",
        *,
        status: int | None = None,
        error: ErrorDetail | None = None,
        reference_id: str = "",
    ) -> None:
        if status is not None:
            self.status = status
        self.error = error or ErrorDetail(
            type=f"https://httpstatuses.io/{self.status}", title=self.title, detail=detail
        )
        self.reference_id = reference_id
        self.detail = detail or self.error.detail
        super().__init__(self._text())

    def _text(self) -> str:
        parts = [f"{self.status} {self.error.title or self.title}"]
        if self.detail:
            parts.append(self.detail)
        if self.reference_id:
            parts.append(f"Reference-Id {self.reference_id}")
        return ": ".join(parts[:2]) + (f" ({parts[2]})" if len(parts) > 2 else "")

    def body(self) -> ErrorBody:
        return ErrorBody(self.error)


class BadRequestError(ServiceError):
    status, title = 400, "Bad Request"


class AuthenticationError(ServiceError):
    status, title = 401, "Unauthorized"


class PermissionDeniedError(ServiceError):
    status, title = 403, "Forbidden"


class NotFoundError(ServiceError):
    status, title = 404, "Not Found"


class RequestTimeoutError(ServiceError):
    status, title = 408, "Request Timeout"


class PayloadTooLargeError(ServiceError):
    status, title = 413, "Payload Too Large"


class RateLimitError(ServiceError):
    status, title = 429, "Too Many Requests"

    def __init__(self, detail: str = "", *, retry_after: float | None = None, reset_at: float | None = None,
                 **kw: Any) -> None:
        self.retry_after = retry_after
        self.reset_at = reset_at
        super().__init__(detail, **kw)


class ServerError(ServiceError):
    status, title = 500, "Internal Server Error"


_BY_STATUS: dict[int, type[ServiceError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: RequestTimeoutError,
    413: PayloadTooLargeError,
    429: RateLimitError,
}


def error_class_for_status(status: int) -> type[ServiceError]:
    """The ServiceError subclass for an HTTP status (5xx -> ServerError, other 4xx -> ServiceError)."""
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, ServiceError)
