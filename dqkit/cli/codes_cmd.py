"""`dqkit codes [TABLE]`: print the lead service's code tables, so analysts can look a code up without the spec."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("codes", help="print what each code of the lead service means (RESULT_CODE, PHONE_STATUS, ...)",
                       description="Print the code tables of the lead service: every code with its meaning. "
                                   "Give one TABLE name to print only that table.",
                       epilog="example: dqkit codes PHONE_STATUS")
    p.add_argument("table", nargs="?", metavar="TABLE",
                   help="one table, e.g. RESULT_CODE or PHONE_STATUS; all tables when omitted")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dqkit.contract import codes
    from dqkit.contract.errors import InputError

    by_key = {_key(n): n for n in codes.TABLES}  # result_code, Result-Code and RESULT_CODE name one table
    if args.table and _key(args.table) not in by_key:
        raise InputError(f"unknown table {args.table!r}; known: {', '.join(codes.TABLES)}")
    names = [by_key[_key(args.table)]] if args.table else list(codes.TABLES)
    for name in names:
        print(f"{name}")
        for code in codes.TABLES[name]:
            print(f"  {code:<6} {codes.meaning(name, code)}")
    return 0


def _key(name: str) -> str:
    return name.strip().upper().replace("-", "_").replace(" ", "_")
