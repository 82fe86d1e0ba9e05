"""`dqkit demo`: verify the bundled sample leads on the local engine and say where the results are."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="verify the bundled synthetic sample leads and write the results")
    p.add_argument("--out", type=Path, default=Path("dqkit-demo"), help="folder to write into (default ./dqkit-demo)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import time

    from dqkit._resources import data_file
    from dqkit.backends.local import LocalBackend
    from dqkit.cli._leadio import read_table, write_table
    from dqkit.cli.verify_cmd import summary, verify_frame

    src = data_file("sample_leads.csv")
    df = read_table(src)
    t0 = time.perf_counter()
    out = verify_frame(df, LocalBackend())
    elapsed = time.perf_counter() - t0
    args.out.mkdir(parents=True, exist_ok=True)
    verified = args.out / "sample_leads_verified.csv"
    write_table(out, verified)
    print(f"Verified {len(out)} synthetic sample leads on the local engine in {elapsed:.1f} s.\n")
    print(summary(out["result_code"]))
    print(f"\nResults: {verified.resolve()}")
    try:
        from dqkit.report import write_report  # the HTML report, when this build has it
    except ImportError:
        return 0
    report = args.out / "report.html"
    write_report(out, report, title="dqkit demo: sample lead audit")
    print(f"Report:  {report.resolve()}", file=sys.stdout)
    return 0
