"""`dqkit index build FILE... [-o OUT] [--country XX]`: import OpenAddresses CSV files into a reference index.

`dqkit index info INDEX` prints what an index holds; `dqkit index upgrade INDEX` adds the sections an index built by
an earlier dqkit lacks (`derived.py`), without its input files. The index file is what `dqkit serve --reference`, the
Python API (`AddressEngine.open`) and the standardizer's point matching read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="build or inspect an address reference index (OpenAddresses CSV files)",
                       description="An address reference is the list of real addresses that address search and "
                                   "validation match against. OpenAddresses (openaddresses.io) publishes such lists "
                                   "as CSV files per county or city. `dqkit index build` turns them into one index "
                                   "file; `dqkit index info` says what an index holds.",
                       epilog="example: dqkit index build us/ca/alameda.csv -o alameda.dqidx")
    isub = p.add_subparsers(dest="index_command", metavar="ACTION")
    b = isub.add_parser("build", help="import OpenAddresses-format CSV / CSV.gz files into one index file",
                        description="Import address points from OpenAddresses-format CSV files (columns LON, LAT, "
                                    "NUMBER, STREET, UNIT, CITY, REGION, POSTCODE, ...; .csv or .csv.gz) into one "
                                    "index file that dqkit serve --index and the Python API read.",
                        epilog="example: dqkit index build data/demo_reference.csv.gz -o demo.dqidx --synthetic")
    b.add_argument("files", nargs="+", metavar="FILE",
                   help="OpenAddresses CSV files; country from their points (US ZIPs at their coordinates), "
                        "else --country, else the path (<country>/<region>/<source>.csv), else US")
    b.add_argument("-o", "--out", default="reference.dqidx", help="index file to write (default: %(default)s)")
    b.add_argument("--country", help="two-letter country code of every file (overrides the paths; refused when the "
                                     "points say otherwise)")
    b.add_argument("--synthetic", action="store_true", help="mark the datasets as synthetic (demo data)")
    b.add_argument("--keep-every-row", dest="clean", action="store_false", default=None,
                   help="keep the rows that are dropped by default (no postcode, no or impossible coordinates, "
                        "placeholder streets such as FAKE ST or ANYTOWN, exact duplicates; --synthetic data is "
                        "kept whole); only for test data")
    b.add_argument("--memory", metavar="SIZE", default=None,
                   help="memory the build may use, e.g. 2.5G (default: 2.5G): a larger input is built in runs on "
                        "temporary files beside the output and merged, so the whole country fits on a laptop")
    b.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes building runs at once (default: the cores; files are shared out, one file is "
                        "read by one process)")
    b.add_argument("--tmp-dir", metavar="DIR", help="where the runs go (default: beside the output; about as much "
                                                   "disk as the index, deleted at the end)")
    b.set_defaults(handler=run_build)
    i = isub.add_parser("info", help="print the datasets, sizes and build id of an index",
                        description="Print what an index file holds: its datasets (country, number of addresses "
                                    "and streets, whether synthetic), its size, build id and source files.")
    i.add_argument("index", metavar="INDEX", help="index file written by dqkit index build")
    i.set_defaults(handler=run_info)
    u = isub.add_parser("upgrade", help="add the sections a newer dqkit reads to an index, without rebuilding it",
                        description="Add to an index built by an earlier dqkit the sections this one computes from "
                                    "the index itself (they make type-down faster; an index without them answers "
                                    "the same, more slowly). The input files are not needed. The index is copied: "
                                    "it needs as much free disk as the index while it writes.",
                        epilog="example: dqkit index upgrade national.dqidx")
    u.add_argument("index", metavar="INDEX", help="index file written by dqkit index build")
    u.add_argument("-o", "--out", help="write the upgraded index here (default: replace INDEX when complete)")
    u.set_defaults(handler=run_upgrade)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def run_build(args: argparse.Namespace) -> int:
    from dqkit.contract.errors import InputError
    from dqkit.engines.address_index import build_index
    from dqkit.engines.address_index.external import parse_memory

    try:
        memory = parse_memory(args.memory) if args.memory else None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers: give 1 or more")
    report = build_index(args.files, args.out, country_iso2=args.country, synthetic=args.synthetic,
                         progress=lambda msg: print(msg, file=sys.stderr), clean=args.clean, memory=memory,
                         workers=args.workers, tmp_dir=args.tmp_dir)
    per = ", ".join(f"{k}: {v:,}" for k, v in report.datasets.items())
    print(f"{report.path}: {report.addresses:,} addresses on {report.streets:,} streets ({per}); "
          f"{report.size_bytes / 1e6:.1f} MB, built in {report.seconds:.1f} s")
    if report.runs > 1:
        print(f"built in {report.runs} runs, merged; {report.temp_bytes / 1e6:,.0f} MB of temporary files at the "
              "most (removed)")
    if report.dropped:
        from dqkit.engines.address_index.hygiene import summary

        print(summary(report.dropped))
    return 0


def run_info(args: argparse.Namespace) -> int:
    from dqkit.engines.address_index import ReferenceIndex

    ix = ReferenceIndex(args.index)
    print(f"{ix.path}  build {ix.build_id}  built {ix.meta.get('built_at', '?')}  "
          f"{ix.container.size / 1e6:.1f} MB")
    for d in ix.datasets:
        print(f"  {d.id:<12} {d.iso2}  {d.addresses:>10,} addresses  {d.street_hi - d.street_lo:>8,} streets"
              + ("  (synthetic)" if d.synthetic else ""))
    for s in ix.meta.get("sources", []):
        print(f"  source: {s}")
    from dqkit.engines.address_index.derived import missing

    lacking = missing(args.index)
    if lacking:
        print(f"  built by an earlier dqkit: lacks {', '.join(lacking)} (answers the same, type-down slower; "
              "`dqkit index upgrade` adds them)")
    return 0


def run_upgrade(args: argparse.Namespace) -> int:
    import time

    from dqkit.engines.address_index import ReferenceIndex
    from dqkit.engines.address_index.derived import add_derived, missing

    ReferenceIndex(args.index)  # a readable index of this format, or a clear error
    out = args.out or args.index
    lacking = missing(args.index)
    if not lacking:
        print(f"{args.index}: nothing to add (it has every section this dqkit reads)")
        return 0
    t = time.perf_counter()
    added = add_derived(args.index, out)
    print(f"{out}: added {', '.join(added)} in {time.perf_counter() - t:.1f} s "
          f"({ReferenceIndex(out).container.size / 1e6:.1f} MB)")
    return 0
