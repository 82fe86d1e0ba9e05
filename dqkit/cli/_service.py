"""`--service URL` of the CLI commands: which service to call, with the token from the environment or a prompt.

The token is never a command-line argument (it would land in shell history and the process list): it is read
from an environment variable (`--token-env NAME`, default `DQKIT_LEAD_TOKEN` / `DQKIT_ADDRESS_TOKEN`) or, when
that is unset and a person is at the terminal, asked for without echo.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any, Literal

from dqkit.backends.select import BackendSpec, backend_spec

DEFAULT_TOKEN_ENV = {"lead": "DQKIT_LEAD_TOKEN", "address": "DQKIT_ADDRESS_TOKEN"}


def add_service_options(p: Any, service: Literal["lead", "address"]) -> None:
    p.add_argument("--service", metavar="URL",
                   help="send the rows to this service instead of the local engine: the URL of a dqkit serve or of "
                        "any server speaking the vendor's wire format, or 'vendor' (URLs from the DQKIT_* "
                        "variables)")
    p.add_argument("--token-env", metavar="NAME", default=DEFAULT_TOKEN_ENV[service],
                   help="environment variable holding the service's token (default: %(default)s); when it is unset "
                        "and you are at a terminal, the token is asked for without echo. Never pass a token as an "
                        "argument")


def token_for(url: str, env_name: str) -> str | None:
    value = os.environ.get(env_name, "").strip()
    if value:
        return value
    if sys.stdin is not None and sys.stdin.isatty():
        entered = getpass.getpass(f"token for {url} (${env_name} is not set; input hidden, empty for none): ")
        return entered.strip() or None
    print(f"note: ${env_name} is not set: calling {url} without a token", file=sys.stderr)
    return None


def service_spec(args: argparse.Namespace) -> BackendSpec | None:
    """The BackendSpec of `--service`, with its token; None when the command runs locally."""
    url = getattr(args, "service", None)
    if not url:
        return None
    return backend_spec(url, token=token_for(url, args.token_env))
