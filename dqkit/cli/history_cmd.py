"""`dqkit history`: the recorded verify runs, and the changes per lead source that are statistically real."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("history", help="list recorded verify runs; --drift flags real changes per lead source",
                       description="List the runs recorded by dqkit verify --history (or DQKIT_HISTORY=1). With "
                                   "--drift, compare each lead source's rates with its previous run "
                                   "(two-proportion z-tests, false discovery rate controlled at --alpha) and print "
                                   "the changes that are statistically real.",
                       epilog="example: dqkit history --drift --alpha 0.05")
    p.add_argument("--history", type=Path, metavar="PATH",
                   help="the history store (default: the one in the user data directory, or $DQKIT_HISTORY)")
    p.add_argument("--drift", action="store_true", help="print the flagged changes per lead source")
    p.add_argument("--alpha", type=float, default=0.05, help="false discovery rate (default: %(default)s)")
    p.add_argument("--source", metavar="NAME", help="only this lead source")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from dqkit.notebook.drift import drift
    from dqkit.notebook.history import runs, store_path

    where = args.history if args.history is not None else True
    listed = runs(where)
    print(f"history store: {store_path(where)}")
    if listed.empty:
        print("no runs recorded yet: dqkit verify IN -o OUT --history")
        return 0
    shown = listed.assign(fingerprint=listed["fingerprint"].str[:12], engine_build=listed["engine_build"].str[:24],
                          references_used=listed["references_used"].str[:60])
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(shown.to_string(index=False))
        if args.drift:
            d = drift(where, alpha=args.alpha, source=args.source)
            flagged = d.flagged
            print(f"\n{d.tests} changes tested, {len(flagged)} flagged at a false discovery rate of {args.alpha:g}")
            if len(flagged):
                view = flagged.assign(previous_pct=(flagged["previous_rate"] * 100).round(1),
                                      pct=(flagged["rate"] * 100).round(1))
                print(view[["run", "at", "source", "metric", "previous_pct", "pct", "total", "q_value"]]
                      .to_string(index=False))
    return 0
