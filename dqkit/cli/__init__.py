"""dqkit: check sales leads and US postal addresses (offline engine, HTTP clients and a local server).

Run `dqkit COMMAND --help` for the options of one command.
"""

# Each subcommand lives in its own module (dqkit/cli/<name>_cmd.py) and imports its heavy dependencies inside its
# handler, so that `dqkit --help` and every command start fast.

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TextIO

from dqkit._version import __version__

# Module name (under dqkit.cli) of each subcommand, in the order `--help` lists them.
_COMMANDS: tuple[str, ...] = ("demo", "verify", "validate", "compare", "history", "report", "reference", "serve",
                               "index", "codes")

_EPILOG = """\
examples:
  dqkit demo                                   verify the bundled sample leads, write results and a report
  dqkit verify data/sample_leads.csv -o checked.csv
  dqkit verify leads.csv -o checked.csv --service URL --prescreen    pay only for leads worth a call
  dqkit validate addresses.csv -o validated.csv
  dqkit compare leads.csv --a local --b URL     shadow run: where two answers agree
  dqkit history --drift                        real changes per lead source across recorded runs
  dqkit report data/sample_leads.csv -o report.html
  dqkit reference add us_ca_alameda.csv.gz     install real address data (OpenAddresses, NAD, Overture, ...)
  dqkit codes RESULT_CODE                      what each result code means
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dqkit", description=__doc__.strip() if __doc__ else None, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
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


def _quiet_broken_pipe() -> int:
    """The reader of our output went away (`dqkit codes | head`): stop quietly, as Unix tools do."""
    # Python flushes stdout at exit and would report the broken pipe again: point it at /dev/null first.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 128 + signal.SIGPIPE if hasattr(signal, "SIGPIPE") else 1


def _plain_warnings(command: str) -> Callable[..., None]:
    """A `warnings.showwarning` that says dqkit's own warnings (no reference installed, a column not found) in one
    line, as the errors are, not with the file and source line of the script that raised them."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        if category.__module__.startswith("dqkit."):
            print(f"dqkit {command}: warning: {message}", file=file or sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    from dqkit.contract.errors import DqkitError

    with warnings.catch_warnings():  # the one-line form for this command only, restored after it
        warnings.showwarning = _plain_warnings(str(args.command))
        try:
            code = int(args.handler(args) or 0)
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            return _quiet_broken_pipe()
        except DqkitError as exc:  # before OSError: an OutputError is both, and is said in one line
            print(f"dqkit {args.command}: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                return _quiet_broken_pipe()
            raise
        except KeyboardInterrupt as exc:
            print(f"dqkit {args.command}: interrupted", file=sys.stderr)
            for note in getattr(exc, "__notes__", ()):  # what finished, what may be billed again
                print(f"dqkit {args.command}: {note.removeprefix('dqkit: ')}", file=sys.stderr)
            return 130
