"""Client settings and the retry rules, as plain data and pure functions (easy to read, easy to test).

Retry rules: connection errors, client-side timeouts, 5xx and 408 are retried with exponential backoff and jitter
(`backoff_base` doubling up to `backoff_max`, each wait drawn between half and all of it), up to `max_attempts`
sends in all and within `deadline` seconds in all (each try gets at most `timeout` seconds, and never more than
what is left of the deadline). 429 is retried after the wait the server names (`Retry-After`, else
`X-Rate-Limit-Reset`), up to `max_rate_waits` times, and only when that wait is at most `max_rate_wait` seconds
(a 429 wait does not count against `deadline`). Other 4xx are never retried.
"""

from __future__ import annotations

import email.utils
import math
import os
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from dqkit.client._secret import Secret
from dqkit.client._transport import DEFAULT_TRANSPORT, TransportName
from dqkit.contract.errors import InputError

# Environment variables read when base_url / token are not passed.
ENV_VARS: Final[dict[str, tuple[str, str]]] = {
    "lead": ("DQKIT_LEAD_URL", "DQKIT_LEAD_TOKEN"),
    "address": ("DQKIT_ADDRESS_URL", "DQKIT_ADDRESS_TOKEN"),
}
RETRY_STATUSES: Final = frozenset({408, 500, 502, 503, 504})


@dataclass(frozen=True)
class ClientSettings:
    """Everything a client is configured with. `token` is a Secret and never shown."""

    base_url: str
    token: Secret | None = field(default=None, repr=False)
    timeout: float = 30.0
    # The longest one request may take in all, its retries and their backoff included (waits the server asks for
    # with 429 are not counted): a vendor that trickles its answers is cut off here. None: no limit but the tries.
    deadline: float | None = 90.0
    max_answer_bytes: int = 8 * 1024 * 1024  # an answer's decoded body; past it the request fails (no retry)
    max_attempts: int = 6
    backoff_base: float = 0.5
    backoff_max: float = 15.0
    max_rate_waits: int = 10
    max_rate_wait: float = 120.0
    requests_per_second: float | None = None
    max_concurrency: int = 32
    transport: TransportName = DEFAULT_TRANSPORT
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise InputError("timeout must be positive")
        if self.deadline is not None and not self.deadline > 0:
            raise InputError("deadline must be positive (or None for no limit but the tries)")
        if self.max_answer_bytes < 1024:
            raise InputError("max_answer_bytes must be at least 1024")
        if self.max_attempts < 1:
            raise InputError("max_attempts must be at least 1")
        if self.max_concurrency < 1:
            raise InputError("max_concurrency must be at least 1")
        if self.requests_per_second is not None and self.requests_per_second <= 0:
            raise InputError("requests_per_second must be positive (or None for no limit)")
        if self.backoff_base < 0 or self.backoff_max < 0 or self.max_rate_wait < 0 or self.max_rate_waits < 0:
            raise InputError("backoff and wait settings cannot be negative")
        if any(k.lower() == "auth-token" for k in self.headers):
            raise InputError("pass the token as token=, not as a header")


def resolve(service: str, base_url: str | None, token: str | Secret | None) -> tuple[str, Secret | None]:
    """Base URL and token from the arguments, else from the service's environment variables."""
    url_var, token_var = ENV_VARS[service]
    url = base_url or os.environ.get(url_var, "")
    if not url:
        raise InputError(f"no base URL for the {service} service: pass base_url= or set {url_var}")
    if token is None:
        token = os.environ.get(token_var) or None
    secret = token if isinstance(token, Secret) or token is None else Secret(token)
    return url, secret


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """The wait after failed send number `attempt` (1-based): between half and all of min(cap, base * 2^(n-1))."""
    full = min(cap, base * 2.0 ** (attempt - 1))
    jitter: float = (rng or random.Random()).uniform(0, full / 2)
    return full / 2 + jitter


def rate_limit_wait(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait after a 429: Retry-After (seconds or HTTP date), else X-Rate-Limit-Reset (epoch seconds)."""
    now = time.time() if now is None else now
    value = headers.get("retry-after")
    if value:
        try:
            seconds = float(value)
            if math.isfinite(seconds):
                return max(0.0, seconds)
        except ValueError:
            try:
                when: float = email.utils.parsedate_to_datetime(value).timestamp()
                return max(0.0, when - now)
            except (TypeError, ValueError):
                pass
    reset = headers.get("x-rate-limit-reset")
    if reset:
        try:
            at = float(reset)
        except ValueError:
            return None
        if math.isfinite(at):
            # Epoch seconds per the vendor; a small number is read as "seconds from now".
            return max(0.0, at - now) if at > 1e9 else max(0.0, at)
    return None


def reset_epoch(headers: Mapping[str, str]) -> float | None:
    try:
        return float(headers["x-rate-limit-reset"])
    except (KeyError, ValueError):
        return None
