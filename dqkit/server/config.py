"""What `dqkit serve` is configured with: one frozen object, built from the command line or by tests."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from dqkit.contract.errors import InputError

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_MAX_BODY_BYTES: Final = 1_048_576
DEFAULT_MAX_BULK_BODY_BYTES: Final = 16 << 20  # a batch: up to 10,000 addresses of 1,000 characters
DEFAULT_TIMEOUT_SECONDS: Final = 15.0  # the vendor's default and maximum Timeout-Seconds
DEFAULT_RATE_WINDOW_SECONDS: Final = 60  # X-Rate-Limit-Limit is "per minute" at the vendor
DEFAULT_MAX_LEAD_BODY_BYTES: Final = 32_768  # a lead is a few hundred bytes; parsing 1 MB of XML costs ~0.4 s
DEFAULT_MAX_CONNECTIONS: Final = 1000  # also kept below the process's descriptor limit at start
DEFAULT_MAX_HEADER_BYTES: Final = 32_768  # request line plus headers
DEFAULT_HEADER_TIMEOUT_SECONDS: Final = 10.0  # from connection (or end of the previous answer) to complete headers
DEFAULT_BODY_TIMEOUT_SECONDS: Final = 30.0  # to receive the whole body once the headers are in
DEFAULT_SEND_TIMEOUT_SECONDS: Final = 30.0  # a client that reads nothing of its answers for that long is dropped
DEFAULT_AUTH_FAILURES: Final = 20  # failed Auth-Tokens per client address per window before 429
MIN_SECRET_BYTES: Final = 16
BLANK_BYTES: Final = b" \t\r\n\x0b\x0c"


@dataclass(frozen=True)
class ServerConfig:
    """Settings of one server. Empty `tokens` means no Auth-Token is required (a local, open server).

    tokens: accepted `Auth-Token` values (secrets: never logged, never in a repr).
    client_ids / partner_ids: accepted lead CLIENT_ID / PARTNER_ID values; when set, others get E501.
    allow_ips: networks a lead request may come from; when set, other addresses get E500.
    references: OpenAddresses CSV files for the address index; `index`: a prebuilt index file; `demo`: the
    synthetic demo reference. None of them: the installed references (`dqkit reference add`). `complete`: the user
    vouches that the files (or the index) hold every street of every ZIP they hold, so a street they lack is "not
    found"; else it is "not checked" (`dqkit.reference.coverage`). `reference_ids`: the installed references to serve
    (none: all of them).
    spoof_list: a text file of whole names (one a line) whose leads get E100, beside the bundled lists.
    rate_limit: requests per window per token (0: off); rate_window_seconds: the window.
    max_body_bytes: larger request bodies get 413 (lead bodies: over max_lead_body_bytes; bulk batch creates: over
    max_bulk_body_bytes).
    timeout_seconds: the default and ceiling of Timeout-Seconds.
    max_connections: open connections at most; the next one gets a 503 and is closed (also held below the
    descriptor limit). max_header_bytes: a longer request head gets 431. header_timeout_seconds /
    body_timeout_seconds: a client slower than that to send its head / body gets 408 and is disconnected.
    send_timeout_seconds: a client that reads nothing of its answers for that long (the server's send buffer full)
    is disconnected.
    auth_failures_per_window: failed Auth-Tokens per client address per rate window before 429 (0: off).
    trusted_proxies: networks of reverse proxies whose `X-Forwarded-For` (and `X-Forwarded-Proto`) name the client;
    from any other peer those headers are ignored.
    public_url: the base of the URLs the server writes into answers (`format`, `stepin`); None: the address the
    connection arrived on, or the request's `Host` when `trust_host_header` (never an arbitrary Host otherwise).
    """

    tokens: frozenset[str] = field(default=frozenset(), repr=False)
    client_ids: frozenset[str] | None = None
    partner_ids: frozenset[str] | None = None
    allow_ips: tuple[IPNetwork, ...] = ()
    references: tuple[Path, ...] = ()
    reference_ids: tuple[str, ...] = ()  # installed references to serve (none: all of them)
    index: Path | None = None
    complete: bool = False
    rate_limit: int = 0
    rate_window_seconds: int = DEFAULT_RATE_WINDOW_SECONDS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_bulk_body_bytes: int = DEFAULT_MAX_BULK_BODY_BYTES
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    max_lead_body_bytes: int = DEFAULT_MAX_LEAD_BODY_BYTES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    header_timeout_seconds: float = DEFAULT_HEADER_TIMEOUT_SECONDS
    body_timeout_seconds: float = DEFAULT_BODY_TIMEOUT_SECONDS
    send_timeout_seconds: float = DEFAULT_SEND_TIMEOUT_SECONDS
    auth_failures_per_window: int = DEFAULT_AUTH_FAILURES
    demo: bool = False
    spoof_list: Path | None = None
    trusted_proxies: tuple[IPNetwork, ...] = ()
    public_url: str | None = None
    trust_host_header: bool = False
    # Several processes and machines (issue 21): see `dqkit.server.workers` and the README's "Running on more than
    # one machine". key_secret signs address keys (with the index build) so every replica given it accepts the
    # keys of the others; rate_store is where the rate limit counts (redis://..., sqlite:PATH; "" = the workers'
    # run folder, else this process); workers / run_dir / worker_slot describe this process's place among the
    # workers of one `dqkit serve`.
    key_secret: bytes = field(default=b"", repr=False)
    rate_store: str = field(default="", repr=False)
    # What the rate store's keys are hashed with when no key secret is given (the workers' own run-folder store): a
    # random secret the supervisor makes for one run.
    rate_secret: bytes = field(default=b"", repr=False)
    workers: int = 1
    run_dir: Path | None = None
    worker_slot: int = 0

    def __post_init__(self) -> None:
        if self.rate_limit < 0:
            raise InputError("the rate limit must be 0 (off) or a positive number of requests per window")
        if self.rate_window_seconds < 1:
            raise InputError("the rate-limit window must be at least 1 second")
        if self.max_body_bytes < 1024 or self.max_bulk_body_bytes < 1024:
            raise InputError("the body limits must be at least 1024 bytes")
        if not 0 < self.timeout_seconds <= 3600:
            raise InputError("the timeout must be between 0 and 3600 seconds")
        if self.max_lead_body_bytes < 1024:
            raise InputError("the lead body limit must be at least 1024 bytes")
        if self.max_connections < 1:
            raise InputError("the connection limit must be at least 1")
        if self.max_header_bytes < 1024:
            raise InputError("the header limit must be at least 1024 bytes")
        if not all(0 < t <= 3600 for t in (self.header_timeout_seconds, self.body_timeout_seconds,
                                            self.send_timeout_seconds)):
            raise InputError("the header, body and send timeouts must be between 0 and 3600 seconds")
        if self.auth_failures_per_window < 0:
            raise InputError("the failed-login limit must be 0 (off) or a positive number per window")
        if self.public_url is not None:
            object.__setattr__(self, "public_url", public_base_url(self.public_url))
        if any(not t or t != t.strip() for t in self.tokens):
            raise InputError("a token must be non-empty and carry no surrounding spaces")
        if self.workers < 1:
            raise InputError("--workers must be at least 1")
        if self.key_secret and len(self.key_secret.translate(None, BLANK_BYTES)) < MIN_SECRET_BYTES:
            raise InputError(f"the key secret must hold at least {MIN_SECRET_BYTES} bytes that are not blanks (e.g. "
                             "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
        if self.rate_store and not self.rate_store.startswith(("redis://", "rediss://", "unix://", "sqlite:")):
            raise InputError("--rate-store must be a redis://, rediss:// or unix:// URL, or sqlite:PATH")
        if self.rate_store and not self.key_secret:
            raise InputError("--rate-store needs the key secret (--key-secret-file or DQKIT_KEY_SECRET, the same on "
                             "every replica): the store sees each token only as a hash keyed with it")

    def __repr__(self) -> str:
        return (f"ServerConfig(tokens=<{len(self.tokens)} hidden>, client_ids={self.client_ids!r}, "
                f"partner_ids={self.partner_ids!r}, allow_ips={[str(n) for n in self.allow_ips]}, "
                f"references={[str(p) for p in self.references]}, reference_ids={list(self.reference_ids)}, "
                f"index={self.index!r}, demo={self.demo}, "
                f"spoof_list={self.spoof_list!r}, "
                f"rate_limit={self.rate_limit}/{self.rate_window_seconds}s, max_body_bytes={self.max_body_bytes}, "
                f"max_bulk_body_bytes={self.max_bulk_body_bytes}, "
                f"timeout_seconds={self.timeout_seconds}, max_lead_body_bytes={self.max_lead_body_bytes}, "
                f"max_connections={self.max_connections}, "
                f"max_header_bytes={self.max_header_bytes}, header_timeout_seconds={self.header_timeout_seconds}, "
                f"body_timeout_seconds={self.body_timeout_seconds}, send_timeout_seconds={self.send_timeout_seconds}, "
                f"auth_failures_per_window={self.auth_failures_per_window}, "
                f"trusted_proxies={[str(n) for n in self.trusted_proxies]}, public_url={self.public_url!r}, "
                f"trust_host_header={self.trust_host_header}, "
                f"key_secret=<{'set' if self.key_secret else 'none'}>, rate_store={_shown_store(self.rate_store)!r}, "
                f"workers={self.workers})")

    @property
    def auth_required(self) -> bool:
        return bool(self.tokens)

    def ip_allowed(self, host: str | None) -> bool:
        """True when no allow list is set, or `host` lies in one of its networks."""
        if not self.allow_ips:
            return True
        if not host:
            return False
        try:
            addr = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        return any(addr.version == net.version and addr in net for net in self.allow_ips)


def _shown_store(url: str) -> str:
    from dqkit.server.ratestore import describe

    return describe(url)


def parse_networks(values: Iterable[str], option: str = "--allow-ip") -> tuple[IPNetwork, ...]:
    """CIDR texts (or single addresses) to networks; a bad one is an InputError naming it."""
    out: list[IPNetwork] = []
    for text in values:
        try:
            out.append(ipaddress.ip_network(text.strip(), strict=False))
        except ValueError:
            raise InputError(f"{option} {text!r} is not an IP address or CIDR network") from None
    return tuple(out)


def public_base_url(text: str) -> str:
    """`--public-url` checked and normalised: http(s)://host[:port][/path]/, no query, fragment or credentials."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--public-url {text[:200]!r} must be an http:// or https:// URL with a host")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise InputError("--public-url must not hold a query, a fragment or credentials")
    try:
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise InputError(f"--public-url {text[:200]!r} has a bad port") from None
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/", "", ""))
