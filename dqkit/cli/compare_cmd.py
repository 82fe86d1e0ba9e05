"""`dqkit compare`: a shadow run, two answers of the same rows side by side.

    dqkit compare leads.csv --a local --b https://service.example     run both, then compare
    dqkit compare checked_local.csv checked_vendor.csv                two result files already written
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Literal


def register(sub: Any) -> None:
    p = sub.add_parser("compare", help="compare two answers of the same rows (two backends or two result files)",
                       description="Shadow run: answer the rows of INPUT by --a and by --b (each 'local', 'demo', "
                                   "'vendor' or a service URL), or compare two result files of the same input "
                                   "(outputs of dqkit verify or dqkit validate). Prints the agreement per field and "
                                   "the confusion table of RESULT_CODE (leads) or confidence (addresses); -o writes "
                                   "the rows that differ, both answers side by side.",
                       epilog="examples:\n  dqkit compare leads.csv --a local --b http://127.0.0.1:8080\n"
                              "  dqkit compare checked_a.csv checked_b.csv -o differences.csv",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", type=Path, nargs="+", metavar="FILE",
                   help="INPUT (with --a/--b), or two result files to compare")
    p.add_argument("--a", metavar="BACKEND", help="first backend: local, demo, vendor or a URL")
    p.add_argument("--b", metavar="BACKEND", help="second backend")
    p.add_argument("--kind", choices=("lead", "address"),
                   help="what the rows are (default: leads, or addresses when the files hold addr_ results)")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN", help="as for dqkit verify / validate")
    p.add_argument("-o", "--output", type=Path, help="CSV or Parquet file of the rows that differ")
    p.add_argument("--token-env-a", metavar="NAME", help="environment variable of --a's token")
    p.add_argument("--token-env-b", metavar="NAME", help="environment variable of --b's token")
    p.add_argument("--partner-id", metavar="ID", help="your account's PARTNER_ID at a service side (default: "
                                                      "$DQKIT_PARTNER_ID)")
    p.add_argument("--client-id", metavar="ID", help="your account's CLIENT_ID at a service side (default: "
                                                     "$DQKIT_CLIENT_ID)")
    p.add_argument("--settled-codes-out", type=Path, metavar="FILE",
                   help="leads: write the RESULT_CODEs a pre-screen may settle by, from this shadow run (--a the "
                        "local engine, --b the vendor): codes whose whole answer b gave on every row where a gave "
                        "it, with a lower confidence bound of at least --level; use it as dqkit verify "
                        "--settled-codes @FILE")
    p.add_argument("--level", type=float, default=0.95, metavar="P",
                   help="the least one-sided 95%% lower bound on the agreement for --settled-codes-out "
                        "(default: %(default)g; about 59 agreeing rows give 0.95, 299 give 0.99)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def _side(choice: str, env: str | None, kind: str, args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from dqkit.backends.select import backend_spec
    from dqkit.cli._service import DEFAULT_TOKEN_ENV, client_options, token_for

    if choice.strip().lower() in ("local", "demo"):
        return choice.strip().lower()
    spec = backend_spec(choice, token=token_for(choice, env or DEFAULT_TOKEN_ENV[kind]))
    return replace(spec, options=client_options(args))


def run(args: argparse.Namespace) -> int:
    from dqkit.cli._leadio import output_for, parse_map, read_table, write_table
    from dqkit.contract.errors import InputError
    from dqkit.notebook.compare import compare_files, compare_rows

    if args.output is not None:
        output_for(args.output, *args.files)  # never over one of the files compared
    if len(args.files) == 2 and not (args.a or args.b):
        a, b = read_table(args.files[0]), read_table(args.files[1])
        result = compare_files(a, b, kind=args.kind, names=(args.files[0].name, args.files[1].name))
    elif len(args.files) == 1 and args.a and args.b:
        df = read_table(args.files[0])
        kind: Literal["lead", "address"] = "address" if args.kind == "address" else "lead"
        result = compare_rows(df, _side(args.a, args.token_env_a, kind, args),
                              _side(args.b, args.token_env_b, kind, args),
                              kind=kind, mapping=parse_map(args.map) or None, names=(args.a, args.b),
                              cache=False if args.no_cache else None, progress=False if args.quiet else None)
    else:
        raise InputError("give one INPUT with --a and --b, or two result files (and no --a/--b)")
    print(result)
    if args.output is not None:
        write_table(result.disagreements, args.output)
        print(f"wrote {len(result.disagreements)} differing rows to {args.output}", file=sys.stderr)
    if args.settled_codes_out is not None:
        if result.kind != "lead":
            raise InputError("--settled-codes-out is about leads: compare lead answers")
        codes = result.settleable(args.level)
        args.settled_codes_out.write_text(",".join(codes) + "\n", encoding="utf-8")
        print(f"settled codes with evidence (lower bound >= {args.level:g}): {','.join(codes) or 'none'}; written "
              f"to {args.settled_codes_out} (dqkit verify --settled-codes @{args.settled_codes_out})",
              file=sys.stderr)
    return 0
