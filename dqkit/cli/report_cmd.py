"""`dqkit report INPUT -o report.html`: verify a file of leads and write one self-contained HTML report.

INPUT is a CSV, Excel (.xlsx) or Parquet file of leads (columns found by forgiving names, as for `dqkit verify`),
or a file that `dqkit verify` already wrote (its result columns are then reported as they are, nothing is
verified again).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("report", help="write an HTML report (figures and audit tables) of a file of leads",
                       description="Verify the leads of INPUT (or read a file that dqkit verify wrote) and write one "
                                   "HTML file with the result-code summary, the audit per lead source and the figures. "
                                   "It needs no network to open and can be mailed.",
                       epilog="example: dqkit report data/sample_leads.csv -o report.html")
    p.add_argument("input", type=Path,
                   help="file of leads (.csv, .xlsx or .parquet), or the output of dqkit verify")
    p.add_argument("-o", "--output", type=Path, default=Path("report.html"),
                   help="HTML file to write (default: report.html)")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="read the lead field FIELD (PHONE_NUMBER, PARTNER_ID, ...) from the file's column COLUMN, "
                        "for columns dqkit does not find by name (repeatable), e.g. --map PARTNER_ID=vendor")
    p.add_argument("--backend", default="local",
                   help="'local' (default), 'vendor' (URLs and tokens from the DQKIT_* variables), or the URL of "
                        "a dqkit serve")
    p.add_argument("--by", metavar="COLUMN", help="column of lead sources (default: the PARTNER_ID column)")
    p.add_argument("--title", default="Lead quality report", help="title of the report")
    p.add_argument("--compare", type=Path, metavar="FILE",
                   help="add a shadow-run section: these results against FILE's (another dqkit verify output of "
                        "the same input, e.g. from the vendor)")
    p.add_argument("--history", nargs="?", const="", metavar="PATH",
                   help="add a drift section: each lead source's rates over the runs recorded in the history "
                        "store (PATH, or the default store)")
    p.add_argument("--price", type=float, metavar="AMOUNT",
                   help="price of one call: the pre-screen section then gives the money spent and saved")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def _verified_prefix(df: Any) -> str | None:
    from dqkit.contract.errors import InputError
    from dqkit.plots import result_prefix

    try:
        return result_prefix(df)
    except InputError:
        return None


def run(args: argparse.Namespace) -> int:
    from dqkit.cli._leadio import parse_map, read_summary, read_table
    from dqkit.report import write_report

    df = read_table(args.input)
    if read_summary(df):
        print(read_summary(df), file=sys.stderr)  # a report's footer and header block: no leads
    prefix = _verified_prefix(df)
    backend_name = ""
    if prefix is None:
        import warnings

        from dqkit.backends.select import lead_backend
        from dqkit.cli.verify_cmd import chosen_columns
        from dqkit.notebook import leads
        from dqkit.notebook.columns import ColumnWarning

        backend = lead_backend(args.backend)
        backend_name = backend.name
        prefix = leads.PREFIX
        fields = chosen_columns(df, parse_map(args.map), prefix)  # printed, and warned of, before any lead
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ColumnWarning)
            results = leads.verify(df, backend=backend, mapping=fields, prefix=prefix,
                                   cache=False if args.no_cache else None, progress=not args.quiet)
    else:
        results = df
    comparison = drift = None
    if args.compare is not None:
        from dqkit.notebook.compare import compare_results, results_of

        other = read_table(args.compare)
        comparison = compare_results(results_of(results, "lead", prefix), results_of(other, "lead"), kind="lead",
                                     names=(args.input.name, args.compare.name))
    if args.history is not None:
        from dqkit.notebook.drift import drift as drift_of_history

        drift = drift_of_history(args.history or True)
    out = write_report(results, args.output, title=args.title, source=args.input.name, backend=backend_name,
                       by=args.by, prefix=prefix, comparison=comparison, drift=drift, price=args.price)
    print(f"report of {len(results):,} leads written to {out.resolve()}")
    if not args.quiet:
        print(f"open it in a browser: file://{out.resolve()}", file=sys.stderr)
    return 0
