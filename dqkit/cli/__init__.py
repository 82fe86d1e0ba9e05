"""The `dqkit` command. Each subcommand lives in its own module and registers itself here.

Subcommand modules import their heavy dependencies (pandas, starlette, ...) inside their handlers, so that
`dqkit --help` and every command start fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dqkit import __version__

# Module name (under dqkit.cli) of each subcommand, in the order `--help` lists them.
_COMMANDS: tuple[str, ...] = ("demo", "verify", "index", "reference", "serve", "report", "codes")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dqkit", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"dqkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"dqkit.cli.{name}_cmd")
        except ModuleNotFoundError as exc:  # a subcommand not built yet in this checkout
            if exc.name != f"dqkit.cli.{name}_cmd":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    from dqkit.contract.errors import DqkitError

    try:
        return int(args.handler(args) or 0)
    except DqkitError as exc:
        print(f"dqkit {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"dqkit {args.command}: interrupted", file=sys.stderr)
        return 130
