"""`dqkit history`: the recorded verify runs, and the changes per lead source that are statistically real."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    from dqkit.notebook.drift import ALPHA, WINDOW

    p = sub.add_parser("history", help="list recorded verify runs; --drift flags real changes per lead source",
                       description="List the runs recorded by dqkit verify --history (or DQKIT_HISTORY=1), grouped "
                                   "by what they measured (the input's columns and the backend that answered). With "
                                   "--drift, test each new run of a group, per lead source and rate, against the "
                                   "group's previous runs (a change from their pooled rate, and a trend over them), "
                                   "with the false discovery rate controlled at --alpha across that run's tests, and "
                                   "print the changes that are statistically real. A flag, once shown, never "
                                   "changes as runs are added.",
                       epilog="example: dqkit history --drift")
    p.add_argument("--history", type=Path, metavar="PATH",
                   help="the history store (default: the one in the user data directory, or $DQKIT_HISTORY)")
    p.add_argument("--drift", action="store_true", help="print the flagged changes per lead source")
    p.add_argument("--alpha", type=float, default=ALPHA,
                   help="false discovery rate per run (default: %(default)s: under 1 false flag per 100 runs with "
                        "no real change)")
    p.add_argument("--window", type=int, default=WINDOW, help="runs in the baseline (default: %(default)s)")
    p.add_argument("--source", metavar="NAME", help="only this lead source (the tests are the same)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from dqkit.notebook.drift import drift
    from dqkit.notebook.history import run_groups, runs, store_path

    where = args.history if args.history is not None else True
    listed = runs(where)
    print(f"history store: {store_path(where)}")
    if listed.empty:
        print("no runs recorded yet: dqkit verify IN -o OUT --history")
        return 0
    groups = run_groups(where)
    number = {g: i for i, g in enumerate(groups["group"], 1)}
    shown = listed.assign(group=listed["group"].map(number), fingerprint=listed["fingerprint"].str[:12],
                          engine_build=listed["engine_build"].str[:24],
                          references_used=listed["references_used"].str[:60])
    shown = shown[["id", "at", "group", "rows", "sources", "label", "backend", "fingerprint", "engine_build",
                   "version", "references_used"]]
    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.max_colwidth", 60):
        print(shown.to_string(index=False))
        print(f"\n{len(groups)} group{'s' if len(groups) != 1 else ''} of runs (runs are compared only within their "
              "group: the same input columns, the same backend):")
        for g in groups.itertuples(index=False):
            print(f"  group {number[g.group]}: {g.label}; {g.runs} run{'s' if g.runs != 1 else ''} "
                  f"({g.first_run}-{g.last_run}, {str(g.first_at)[:10]} to {str(g.last_at)[:10]})")
        if args.drift:
            d = drift(where, alpha=args.alpha, source=args.source, window=args.window)
            flagged = d.flagged
            print(f"\n{d.tests} tests, {len(flagged)} flagged: each run against its group's previous {d.window} runs "
                  f"(change and trend), false discovery rate {args.alpha:g} across that run's tests")
            if len(flagged):
                view = flagged.assign(group=flagged["group"].map(number),
                                      baseline_pct=(flagged["baseline_rate"] * 100).round(1),
                                      pct=(flagged["rate"] * 100).round(1), at=flagged["at"].astype(str).str[:10],
                                      slope_pts=(flagged["slope"] * 100).round(2))
                print(view[["run", "at", "group", "source", "metric", "baseline_runs", "baseline_pct", "pct", "total",
                            "flag", "slope_pts", "q_value"]].to_string(index=False))
    return 0
