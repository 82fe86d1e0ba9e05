"""`dqkit serve`: the local engine behind the vendors' HTTP APIs (lead `/search`, address `/address/...`).

Tokens can also come from the environment variable DQKIT_SERVE_TOKENS (comma-separated), which keeps them out of
the process list; they add to any `--token`. The key secret comes from a file or DQKIT_KEY_SECRET, the rate store
URL (which may hold a password) from `--rate-store` or DQKIT_RATE_STORE, for the same reason.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

TOKENS_ENV = "DQKIT_SERVE_TOKENS"
KEY_SECRET_ENV = "DQKIT_KEY_SECRET"
RATE_STORE_ENV = "DQKIT_RATE_STORE"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the local engine over HTTP with the vendors' wire formats",
        description="Serve the lead service (POST /search, also at /els/rest/enrich/v1/search) and the address "
                    "service (/address/...) from the local engine. GET /healthz answers 200 once ready; the "
                    "OpenAPI document is at /openapi.json.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one and prints it)")
    p.add_argument("--token", action="append", default=[], metavar="TOKEN",
                   help=f"accepted Auth-Token value (repeatable; also ${TOKENS_ENV}); none: no token needed")
    p.add_argument("--client-id", action="append", default=None, metavar="ID",
                   help="accepted lead CLIENT_ID (repeatable); others get E501")
    p.add_argument("--partner-id", action="append", default=None, metavar="ID",
                   help="accepted lead PARTNER_ID (repeatable); others get E501")
    p.add_argument("--allow-ip", action="append", default=[], metavar="CIDR",
                   help="network a lead request may come from (repeatable); others get E500")
    p.add_argument("--reference", action="append", default=[], metavar="FILE_OR_ID", type=Path,
                   help="OpenAddresses CSV for the address index, or an installed reference id (dqkit reference "
                        "list); repeatable; none of --reference, --index, --demo: every installed reference")
    p.add_argument("--complete", action="store_true",
                   help="the --reference files (or --index) hold every street of every ZIP they hold: a street they "
                        "lack is then 'not found' (S102); by default it is 'not checked', as a sample's would be")
    p.add_argument("--index", type=Path, default=None, metavar="FILE",
                   help="a prebuilt address index (from `dqkit index`) instead of --reference files")
    p.add_argument("--demo", action="store_true",
                   help="serve the bundled SYNTHETIC demo reference (invented addresses; answers say so)")
    p.add_argument("--rate-limit", type=int, default=0, metavar="N",
                   help="requests per token per window before 429 (default 0: off)")
    p.add_argument("--rate-window", type=int, default=60, metavar="SECONDS",
                   help="length of the rate-limit window (default 60)")
    p.add_argument("--max-body-bytes", type=int, default=1_048_576, metavar="BYTES",
                   help="larger request bodies get 413 (default 1 MiB)")
    p.add_argument("--max-bulk-body-bytes", type=int, default=16 << 20, metavar="BYTES",
                   help="larger bulk batch creates get 413, before a byte of them is read when they say their "
                        "length (default 16 MiB: 10,000 addresses of 1,000 characters)")
    p.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                   help="default and ceiling of the Timeout-Seconds header (default 15; past it: 408)")
    p.add_argument("--max-connections", type=int, default=1000, metavar="N",
                   help="open connections at most, per worker (default 1000, always below the descriptor limit); "
                        "past it the "
                        "slowest unfinished request head is dropped with 408, or the newcomer gets 503")
    p.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="time a client has to send its request line and headers (default 10; past it: 408)")
    p.add_argument("--body-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="time a client has to send its request body (default 30; past it: 408)")
    p.add_argument("--send-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="a client that reads nothing of its answers for this long is disconnected (default 30)")
    p.add_argument("--trust-forwarded-for", action="append", default=[], metavar="CIDR",
                   help="a reverse proxy (address or network, repeatable) whose X-Forwarded-For names the client: "
                        "failed logins, --allow-ip and rate limits then count that client, not the proxy")
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the base URL clients reach this server at (e.g. https://dq.example.com/), used in the "
                        "format and stepin URLs of answers; default: the address the connection arrived on")
    p.add_argument("--trust-host-header", action="store_true",
                   help="build answer URLs from the request's Host header (only behind a proxy that sets it: a "
                        "client following such a URL sends its token there)")
    p.add_argument("--spoof-list", type=Path, default=None, metavar="FILE",
                   help="your own list of fake names, one whole name a line: leads bearing one get E100")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes answering on the one port (default: one per core; 1: a single process). They "
                        "share the address index file, the key secret and the rate limit")
    p.add_argument("--key-secret-file", type=Path, default=None, metavar="FILE",
                   help=f"file holding the secret that signs address keys (also ${KEY_SECRET_ENV}); replicas "
                        "given the same secret and index file accept each other's keys")
    p.add_argument("--rate-store", default=None, metavar="URL",
                   help=f"where the rate limit counts, shared by replicas: redis://HOST:PORT/DB (also "
                        f"${RATE_STORE_ENV}); default: shared by this server's workers, not by other machines")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.add_argument("--no-access-log", action="store_true", help="do not log one line per request")
    p.set_defaults(handler=run)


def config_from_args(args: argparse.Namespace) -> Any:
    """The ServerConfig the options describe (InputError for a bad value)."""
    from dqkit.contract.errors import InputError
    from dqkit.server.config import ServerConfig, parse_networks

    tokens = [t for t in args.token]
    tokens += [t.strip() for t in os.environ.get(TOKENS_ENV, "").split(",") if t.strip()]
    from dqkit.cli._reference_arg import split_references

    files, ids = split_references(args.reference)  # --reference: files, or installed reference ids
    for path in [*([args.index] if args.index else []),
                 *([args.spoof_list] if getattr(args, "spoof_list", None) else [])]:
        if not path.is_file():
            raise InputError(f"no such file: {path}")
    if sum(map(bool, (args.index, args.reference, args.demo))) > 1:
        raise InputError("give one of --index, --reference files or --demo")
    from dqkit.server.workers import default_workers

    workers = args.workers if getattr(args, "workers", None) is not None else default_workers()
    store = (getattr(args, "rate_store", None) or os.environ.get(RATE_STORE_ENV, "")).strip()
    if store.startswith("sqlite:"):  # a file dqkit made or none: refused here, before any worker starts
        from dqkit._own_sqlite import RATE_MARK, check_store

        check_store(Path(store[len("sqlite:"):]), RATE_MARK, "rate store", ("counts",))
    return ServerConfig(
        key_secret=key_secret(getattr(args, "key_secret_file", None)),
        rate_store=(getattr(args, "rate_store", None) or os.environ.get(RATE_STORE_ENV, "")).strip(),
        workers=workers,
        tokens=frozenset(tokens),
        client_ids=frozenset(args.client_id) if args.client_id else None,
        partner_ids=frozenset(args.partner_id) if args.partner_id else None,
        allow_ips=parse_networks(args.allow_ip),
        references=tuple(files),
        reference_ids=tuple(ids),
        index=args.index,
        complete=bool(getattr(args, "complete", False)),
        spoof_list=getattr(args, "spoof_list", None),
        rate_limit=args.rate_limit,
        rate_window_seconds=args.rate_window,
        max_body_bytes=args.max_body_bytes,
        max_bulk_body_bytes=getattr(args, "max_bulk_body_bytes", 16 << 20),
        timeout_seconds=args.timeout,
        max_connections=args.max_connections,
        header_timeout_seconds=args.header_timeout,
        body_timeout_seconds=args.body_timeout,
        send_timeout_seconds=getattr(args, "send_timeout", 30.0),
        demo=args.demo,
        trusted_proxies=parse_networks(getattr(args, "trust_forwarded_for", []), "--trust-forwarded-for"),
        public_url=getattr(args, "public_url", None),
        trust_host_header=getattr(args, "trust_host_header", False),
    )


def key_secret(path: Path | None) -> bytes:
    """The key secret: the file's content (surrounding blanks dropped), else $DQKIT_KEY_SECRET, else none. A file or
    variable given but blank is refused (it would otherwise run silently with no secret); a file that others may read
    or write is used with a warning."""
    import stat
    import sys

    from dqkit.contract.errors import InputError

    if path is not None:
        try:
            with open(path, "rb") as f:
                mode = os.fstat(f.fileno()).st_mode
                secret = f.read(1 << 16).strip()
        except OSError as exc:
            raise InputError(f"cannot read the key secret file {path}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(mode):
            raise InputError(f"the key secret file {path} is not a regular file")
        if not secret:
            raise InputError(f"the key secret file {path} is empty")
        if mode & 0o077:
            who = "anyone" if mode & 0o006 else "its group"
            print(f"dqkit serve: warning: the key secret file {path} may be read or written by {who} (mode "
                  f"{stat.S_IMODE(mode):04o}); `chmod 600 {path}` keeps it to its owner", file=sys.stderr)
        return secret
    raw = os.environ.get(KEY_SECRET_ENV)
    if raw is not None and not raw.strip():
        raise InputError(f"{KEY_SECRET_ENV} is set but blank; unset it or give a secret of at least 16 bytes")
    return (raw or "").strip().encode()


def run(args: argparse.Namespace) -> int:
    from dqkit.contract.errors import InputError
    from dqkit.server.runner import serve

    config = config_from_args(args)
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port} is not a port number")
    try:
        return serve(config, args.host, args.port, log_level=args.log_level, access_log=not args.no_access_log)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
