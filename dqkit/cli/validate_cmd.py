"""`dqkit validate INPUT -o OUTPUT`: validate every address of a CSV, Excel (.xlsx) or Parquet file, as
`df.addr.validate()` does, on the local engine (your installed references) or a service (`--service URL`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    from dqkit.cli._service import add_service_options

    p = sub.add_parser("validate", help="validate every address of a CSV, Excel or Parquet file and write it with "
                                        "result columns",
                       description="Validate every address of INPUT and write OUTPUT: every input row, in order, "
                                   "with the addr_* result columns of df.addr.validate() (confidence, the 7-line "
                                   "address, corrections, and the reference that answered). The address is read "
                                   "from a one-line column (address, full_address, ...) or from parts (street, "
                                   "city, state, zip, country); --map names the ones dqkit cannot guess.",
                       epilog="example: dqkit validate addresses.csv -o validated.csv --reference demo")
    p.add_argument("input", type=Path, help="file of addresses: .csv, .xlsx (the first sheet) or .parquet")
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="file to write: .csv, .xlsx or .parquet (by its extension)")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="read the address field FIELD (ADDRESS, STREET1, CITY, STATE, ZIP, COUNTRY) from COLUMN "
                        "(repeatable), e.g. --map ZIP=postcode")
    p.add_argument("--reference", metavar="FILE_OR_ID",
                   help="local engine only: the installed reference id to answer from, an OpenAddresses CSV (or "
                        ".gz) or an index from dqkit index build, or 'demo' for the synthetic demo (default: every "
                        "installed reference)")
    p.add_argument("--country", default="USA", help="country of rows without one (default: %(default)s)")
    p.add_argument("--components", action="store_true", help="add the component breakdown of each address")
    add_service_options(p, "address")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-escape-formulas", action="store_true",
                   help="write CSV and Excel cells exactly as they are (see dqkit verify --help)")
    p.set_defaults(handler=run)


def summary(confidence: Any) -> str:
    counts = confidence.astype(object).where(confidence.notna(), "(no answer)").value_counts()
    total = int(counts.sum())
    if not total:
        return "no addresses: the input has no data rows"
    lines = [f"{'confidence':<22} {'rows':>7} {'share':>7}"]
    lines += [f"{c!s:<22} {n:>7} {n / total:>7.1%}" for c, n in counts.items()]
    lines.append(f"{'total':<22} {total:>7}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from dqkit.cli._leadio import output_for, parse_map, read_summary, read_table, write_table
    from dqkit.cli._service import service_spec
    from dqkit.contract.errors import InputError
    from dqkit.notebook import addresses
    from dqkit.notebook.columns import describe_lead_columns

    output_for(args.output, args.input)  # refused before any address is validated
    service = service_spec(args)
    if service is not None and args.reference:
        raise InputError("--reference picks the local engine's data; a service answers from its own")
    backend: Any = service
    reference = args.reference
    if service is None and reference:
        from dqkit.backends.local import LocalBackend
        from dqkit.cli._reference_arg import file_engine, split_references

        files, _ = split_references([reference], demo=True)  # a file, or an installed id / demo
        if files:
            backend, reference = LocalBackend(address_engine=file_engine(files)), None
    df = read_table(args.input)
    mapping = {k: v for k, v in parse_map(args.map).items()} or None
    fields = addresses.validate_fields(df.columns, mapping, components=args.components)
    print("columns read:\n" + describe_lead_columns(fields), file=sys.stderr)  # what a wrong guess would show
    out = addresses.validate(df, backend=backend, mapping=mapping, country=args.country,
                             reference=None if service is not None else reference,
                             cache=False if args.no_cache else None, progress=False if args.quiet else None,
                             components=args.components)
    write_table(out, args.output, escape=not args.no_escape_formulas)
    print(summary(out[f"{addresses.PREFIX}confidence"]))
    if read_summary(df):
        print(read_summary(df))
    print(f"wrote {len(out)} rows to {args.output}", file=sys.stderr)
    return 0
