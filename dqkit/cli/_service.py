"""`--service URL` of the CLI commands: which service to call, with the token from the environment or a prompt,
the account's ids, and how long to wait.

The token is never a command-line argument (it would land in shell history and the process list): it is read
from an environment variable (`--token-env NAME`, default `DQKIT_LEAD_TOKEN` / `DQKIT_ADDRESS_TOKEN`) or, when
that is unset and a person is at the terminal, asked for without echo.

The account's ids (`--partner-id`, `--client-id`, else DQKIT_PARTNER_ID / DQKIT_CLIENT_ID) go on every lead. A
column of the file is sent as PARTNER_ID / CLIENT_ID only when `--map PARTNER_ID=COLUMN` says so: a "Lead Source"
column is the analyst's, kept for audits and drift, never the account's id.
"""

from __future__ import annotations

import argparse
import getpass
import math
import os
import sys
from typing import Any, Final, Literal

from dqkit.backends.select import BackendSpec, backend_spec
from dqkit.contract.errors import InputError

DEFAULT_TOKEN_ENV = {"lead": "DQKIT_LEAD_TOKEN", "address": "DQKIT_ADDRESS_TOKEN"}
# Seconds a lead (or an address) may take in all, its retries included: a vendor that trickles its answer a byte
# at a time is cut off here, not after six tries of the client's per-try timeout.
DEFAULT_TIMEOUT: Final = 60.0


def add_service_options(p: Any, service: Literal["lead", "address"]) -> None:
    p.add_argument("--service", metavar="URL",
                   help="send the rows to this service instead of the local engine: the URL of a dqkit serve or of "
                        "any server speaking the vendor's wire format, or 'vendor' (URLs from the DQKIT_* "
                        "variables)")
    p.add_argument("--token-env", metavar="NAME", default=DEFAULT_TOKEN_ENV[service],
                   help="environment variable holding the service's token (default: %(default)s); when it is unset "
                        "and you are at a terminal, the token is asked for without echo. Never pass a token as an "
                        "argument")
    p.add_argument("--timeout", type=float, metavar="SECONDS", default=DEFAULT_TIMEOUT,
                   help="with --service: the longest one row may take, retries included (default: %(default)g); "
                        "a row past it is kept without an answer and a rerun sends it again")
    if service == "lead":
        p.add_argument("--partner-id", metavar="ID",
                       help="with --service: your account's PARTNER_ID, sent with every lead (default: "
                            "$DQKIT_PARTNER_ID). A column of the file is sent as PARTNER_ID only with "
                            "--map PARTNER_ID=COLUMN")
        p.add_argument("--client-id", metavar="ID",
                       help="with --service: your account's CLIENT_ID, sent with every lead (default: "
                            "$DQKIT_CLIENT_ID)")
        p.add_argument("--wire", choices=("auto", "json", "xml", "form"), default="auto",
                       help="with --service: the request representation; auto (the default) sends JSON, and XML for "
                            "a lead JSON cannot carry (a '\"' or '&'); a pinned wire is always used")


def token_for(url: str, env_name: str) -> str | None:
    value = os.environ.get(env_name, "").strip()
    if value:
        return value
    if sys.stdin is not None and sys.stdin.isatty():
        entered = getpass.getpass(f"token for {url} (${env_name} is not set; input hidden, empty for none): ")
        return entered.strip() or None
    print(f"note: ${env_name} is not set: calling {url} without a token", file=sys.stderr)
    return None


def client_options(args: argparse.Namespace) -> tuple[tuple[str, object], ...]:
    """The HTTP client's settings from the command line: the time budget per row and, for leads, the account's
    ids and the wire."""
    timeout = float(getattr(args, "timeout", DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT)
    if not math.isfinite(timeout) or timeout <= 0:
        raise InputError(f"--timeout must be a number of seconds above 0, not {timeout!r}")
    options: list[tuple[str, object]] = [("deadline", timeout), ("timeout", min(timeout, 30.0))]
    for name in ("partner_id", "client_id"):
        value = getattr(args, name, None)
        if value is not None:
            options.append((name, value.strip()))
    wire = getattr(args, "wire", None)
    if wire:
        options.append(("fmt", wire))
    return tuple(options)


def service_spec(args: argparse.Namespace) -> BackendSpec | None:
    """The BackendSpec of `--service`, with its token and client options; None when the command runs locally."""
    url = getattr(args, "service", None)
    if not url:
        for flag in ("partner_id", "client_id"):
            if getattr(args, flag, None):
                raise InputError(f"--{flag.replace('_', '-')} is the account's id at a service: it needs --service")
        return None
    spec = backend_spec(url, token=token_for(url, args.token_env))
    from dataclasses import replace

    return replace(spec, options=client_options(args))
