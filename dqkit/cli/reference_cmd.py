"""`dqkit reference add | list | info | remove`: the real address data every surface answers from.

    dqkit reference add us/ca/alameda.csv                  an OpenAddresses download (.csv, .geojson, .gz, .zip)
    dqkit reference add NAD_r18_TXT.zip --state CA --county Alameda
    dqkit reference add s3 --source overture --country US --region CA
    dqkit reference add points.parquet --map number=house_no --map street=st_name --map postcode=zip
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("reference", help="add, list, inspect or remove installed address references",
                       description="Installed references are what `df.addr.validate()`, `dqkit serve` and the lead "
                                   "engine's address checks answer from. Without one, only ZIP / city / state are "
                                   "checked.")
    rsub = p.add_subparsers(dest="reference_command", metavar="ACTION")
    a = rsub.add_parser("add", help="import address data as an installed reference (one per source and region)",
                        description="Import OpenAddresses files (CSV, GeoJSON lines, .gz, .zip bundles), the US "
                                    "National Address Database text release, Overture Maps addresses (GeoParquet, "
                                    "local or from the public release: input 's3'), or any CSV / Parquet with "
                                    "--map. Interrupted? Run the same command again: finished inputs are kept.")
    a.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="files or folders; for Overture's public release: s3 (or an s3:// URL)")
    a.add_argument("--source", default="auto", choices=["auto", "openaddresses", "nad", "overture", "tabular"],
                   help="kind of input (default: guessed from the files)")
    a.add_argument("--country", help="two-letter country code (default: read from the points, US ZIPs at their "
                                     "coordinates; else the path, e.g. de/...; else US); refused when the points "
                                     "say otherwise")
    a.add_argument("--region", help="region / state code (default: the state the points lie in, else the path, "
                                    "e.g. us/ca/...); refused when the points say otherwise")
    a.add_argument("--id", help="reference id (default: <source>-<country>[-<region>][-<county or city of the "
                                "file, or the county its points lie in>], e.g. openaddresses-us-ca-alameda)")
    how = a.add_mutually_exclusive_group()
    how.add_argument("--replace", action="store_true", help="build an installed reference of that id anew")
    how.add_argument("--append", action="store_true", help="add these rows to the installed reference of that id")
    cover = a.add_mutually_exclusive_group()
    cover.add_argument("--partial", action="store_true",
                       help="the inputs are extracts (a sample, a box): a street they lack is 'not checked', never "
                            "'not found'")
    cover.add_argument("--complete", action="store_true",
                       help="you vouch that the inputs hold every street of every ZIP they hold: a street they lack "
                            "there is 'not found' (by default only a whole county source whose rows look whole "
                            "counts as complete in its county's ZIPs)")
    a.add_argument("--map", action="append", default=[], metavar="FIELD=COLUMN",
                   help="column mapping for your own CSV / Parquet (number, street, unit, city, region, postcode, "
                        "lon, lat, id; join columns with +)")
    a.add_argument("--state", help="NAD: keep this state only (two-letter code)")
    a.add_argument("--county", help="NAD: keep this county only (with --state)")
    a.add_argument("--bbox", metavar="MINLON,MINLAT,MAXLON,MAXLAT", help="Overture: keep this box only")
    a.add_argument("--release", help="Overture: release version (default: the newest)")
    a.add_argument("--endpoint", help="Overture: S3 endpoint URL (a mirror or a local S3)")
    a.add_argument("--quiet", action="store_true", help="no progress bars")
    a.set_defaults(handler=run_add)
    ls = rsub.add_parser("list", help="list the installed references",
                         description="The installed references: id, source, region, rows, build and source dates. "
                                     "Unfinished adds are named on stderr; `reference remove ID` discards one.")
    ls.add_argument("--json", action="store_true", help="print the manifests as JSON")
    ls.set_defaults(handler=run_list)
    i = rsub.add_parser("info", help="print the manifest of one installed reference",
                        description="The manifest of one installed reference: source, licence, rows, dates, the "
                                    "command that made it, its inputs, the rows dropped on add (and why) and the "
                                    "ZIPs it covers completely.")
    i.add_argument("id")
    i.set_defaults(handler=run_info)
    r = rsub.add_parser("remove", help="uninstall a reference, or discard an unfinished add",
                        description="Uninstall an installed reference (ID as `reference list` shows it), or discard "
                                    "the kept inputs of an add that stopped (its id, or .staging-ID).")
    r.add_argument("id")
    r.add_argument("--part", action="append", default=[], metavar="INPUT",
                   help="take only this input out (a county file, by name as `reference info` lists it); the rest "
                        "stays installed and is not read again")
    r.add_argument("--region", action="append", default=[], metavar="STATE",
                   help="take only this region (state) out of the reference")
    r.add_argument("--quiet", action="store_true", help="no progress lines")
    r.set_defaults(handler=run_remove)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def _bbox(text: str | None) -> tuple[float, float, float, float] | None:
    from dqkit.contract.errors import InputError

    if not text:
        return None
    try:
        a, b, c, d = (float(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"--bbox {text!r}: write MINLON,MINLAT,MAXLON,MAXLAT (four numbers)") from None
    if not (a < c and b < d):
        raise InputError(f"--bbox {text!r}: the minimum must be below the maximum")
    return a, b, c, d


def _command(args: argparse.Namespace) -> str:
    """The command line that made a reference, rebuilt from its options (for the manifest)."""
    import shlex

    words = ["dqkit", "reference", "add", *args.inputs]
    for flag in ("source", "country", "region", "id", "state", "county", "bbox", "release", "endpoint"):
        value = getattr(args, flag)
        if value and not (flag == "source" and value == "auto"):
            words += [f"--{flag}", str(value)]
    words += [f"--{flag}" for flag in ("partial", "complete") if getattr(args, flag)]
    for item in args.map:
        words += ["--map", item]
    return shlex.join(words)


def run_add(args: argparse.Namespace) -> int:
    from dqkit import reference

    added = reference.add(*args.inputs, source=args.source, country=args.country, region=args.region, id=args.id,
                          mapping=args.map or None, state=args.state, county=args.county, bbox=_bbox(args.bbox),
                          release=args.release, endpoint=args.endpoint, progress=False if args.quiet else None,
                          command=_command(args), replace=args.replace, append=args.append, partial=args.partial,
                          complete=args.complete)
    for m in added:
        rate = m.rows / m.seconds if m.seconds else 0
        print(f"installed {m.id}: {m.rows:,} addresses on {m.streets:,} streets ({m.source}, "
              f"{'/'.join(x for x in (m.country, m.region) if x)}) in {m.seconds:.1f} s ({rate:,.0f} rows/s)")
        for line in _facts(m):
            print(f"  {line}")
    return 0


def _facts(m: Any) -> list[str]:
    """What an add dropped and what it covers completely, one line each."""
    from dqkit.engines.address_index.hygiene import summary

    dropped = summary(m.dropped)
    if m.partial:
        cover = "coverage: partial (--partial): a street it lacks is not checked, never not found"
    elif m.complete_zips:
        cover = (f"coverage: complete in {len(m.complete_zips):,} ZIP(s) "
                 f"({', '.join(m.complete_zips[:6])}{' ...' if len(m.complete_zips) > 6 else ''}); elsewhere partial")
    else:
        cover = ("coverage: partial (not a whole county source, or too few addresses per street to be one; "
                 "--complete to vouch for it): a street it lacks is not checked")
    return [x for x in (dropped or "dropped 0 rows", cover) if x]


def run_list(args: argparse.Namespace) -> int:
    from dqkit import reference
    from dqkit.engines.address_index.countries import country
    from dqkit.reference.store import unfinished

    items = reference.list_installed()
    for ref_id in unfinished():
        print(f"unfinished add of {ref_id!r}: run the same `dqkit reference add` again to resume, or "
              f"`dqkit reference remove {ref_id}` to discard it", file=sys.stderr)
    if args.json:
        print(json.dumps([json.loads(m.to_json()) for m in items], indent=2))
        return 0
    if not items:
        print("no reference installed: only ZIP / city / state are checked. Add one with "
              "`dqkit reference add <file>`.", file=sys.stderr)
        return 0
    width = max(28, *(len(m.id) + 1 for m in items))
    print(f"{'id':<{width}} {'source':<14} {'region':<8} {'rows':>12}  {'built':<10}  {'source date':<11}  "
          f"{'dropped':>8}  answers")
    for m in items:
        where = "/".join(x for x in (m.country, m.region) if x)
        countries, us_points = _countries(m)
        names = ", ".join(country(c).name.title() for c in countries) or "nothing (unreadable index)"
        print(f"{m.id:<{width}} {m.source:<14} {where:<8} {m.rows:>12,}  {m.built[:10]:<10}  "
              f"{m.source_date or '-':<11}  {sum(m.dropped.values()):>8,}  addresses in {names}")
        if countries and "US" not in countries and us_points:
            print(f"warning: {m.id} is tagged {'/'.join(countries)} but holds US addresses ({us_points}): it "
                  f"answers no US address. `dqkit reference remove {m.id}` and add its file again (the country is "
                  "now read from the points)", file=sys.stderr)
    return 0


_LIST_SAMPLE = 400  # points of an index read to see whether a reference tagged another country holds US addresses


def _countries(m: Any) -> tuple[list[str], str]:
    """The countries the engine asks this reference about (its index's datasets, as `ReferenceSet` routes), and,
    for an index with no US dataset, what shows its points are US addresses ("" when they are not)."""
    from dqkit.contract.errors import DqkitError
    from dqkit.engines.address_index import ReferenceIndex
    from dqkit.engines.address_index.located import locate

    try:
        ix = ReferenceIndex(m.index_path)
        countries = sorted({d.iso2 for d in ix.datasets})
        if "US" in countries:
            return countries, ""
        total = sum(d.addresses for d in ix.datasets)
        rows = []
        for a in range(0, total, max(1, total // _LIST_SAMPLE)):
            row = ix.address(a)
            rows.append({"LON": str(row.lon), "LAT": str(row.lat), "POSTCODE": row.street.postcode})
    except (DqkitError, OSError, ValueError, IndexError):
        return [], ""
    found = locate(rows)
    return countries, found.evidence() if found.us else ""


def run_info(args: argparse.Namespace) -> int:
    from dqkit import reference

    m = reference.info(args.id)
    print(m.to_json())
    print(f"path: {m.path}")
    for line in _facts(m):
        print(line)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from dqkit import reference

    if args.part or args.region:
        m = reference.remove(args.id, part=args.part, region=args.region, progress=False if args.quiet else None)
        print(f"removed {', '.join([*args.part, *args.region])} from {m.id}: {m.rows:,} addresses on "
              f"{m.streets:,} streets left ({len(m.inputs)} inputs), in {m.seconds:.1f} s")
        return 0
    m = reference.remove(args.id)
    what = "the unfinished add of " if m.source == "unfinished add" else ""
    print(f"removed {what}{m.id} ({m.rows:,} addresses)")
    return 0
