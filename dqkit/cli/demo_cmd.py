"""`dqkit demo`: verify the bundled synthetic sample leads on the local engine and say where the results are."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dqkit.backends.base import BatchItem
    from dqkit.contract.lead import ELSGenericMessage, LeadRequest

DESCRIPTION = """\
Verify the 10,000 synthetic sample leads that ship with dqkit (data/sample_leads.csv) on the local engine, which
needs no account and no network. Prints how many leads got each result code, then writes every lead with its
result columns (sample_leads_verified.csv) and an HTML report (report.html) into the output folder.

Answers are kept in a result cache, so a second run takes a fraction of a second and says so.
"""


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="verify the bundled synthetic sample leads and write the results and a report",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("dqkit-demo"),
                   help="folder to write into (default: ./dqkit-demo, which git ignores)")
    p.add_argument("--no-cache", action="store_true", help="verify every lead again instead of reading the cache")
    p.set_defaults(handler=run)


def _counting_backend() -> Any:
    """The local backend, counting the leads it really verifies (the rest of the rows came from the cache), in
    this process and in the worker processes `dqkit verify` forks (the count lives in shared memory)."""
    import multiprocessing

    from dqkit.backends.local import LocalBackend

    class CountingBackend(LocalBackend):
        def __init__(self) -> None:
            super().__init__()
            self._count = multiprocessing.Value("q", 0)

        @property
        def verified(self) -> int:
            return int(self._count.value)

        def _add(self, n: int) -> None:
            with self._count.get_lock():
                self._count.value += n

        def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage:
            self._add(1)
            return super().verify_lead(lead)

        def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
            self._add(len(leads))
            return super().verify_leads(leads)

    return CountingBackend()


def _ignore_in_git(folder: Path) -> None:
    """A `.gitignore` of `*` in the output folder keeps it out of `git status` wherever the demo runs."""
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("# written by dqkit demo: its output is not source\n*\n", encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    import time

    from dqkit._resources import data_file
    from dqkit.cli._leadio import read_table, write_table
    from dqkit.cli.verify_cmd import summary, verify_frame

    src = data_file("sample_leads.csv")
    df = read_table(src)
    backend = _counting_backend()
    t0 = time.perf_counter()
    out = verify_frame(df, backend, cache=not args.no_cache, progress=False)
    elapsed = time.perf_counter() - t0
    args.out.mkdir(parents=True, exist_ok=True)
    _ignore_in_git(args.out)
    verified = args.out / "sample_leads_verified.csv"
    write_table(out, verified)
    n = len(out)
    engine = min(int(backend.verified), n)
    if engine >= n:
        how = "on the local engine"
    elif engine == 0:
        how = f"({n:,} from the result cache; --no-cache verifies them again)"
    else:
        how = f"({engine:,} on the local engine, {n - engine:,} from the result cache or repeats of another row)"
    print(f"{n:,} synthetic sample leads verified {how} in {elapsed:.1f} s.\n")
    print(summary(out["result_code"]))
    print(f"\nResults: {verified.resolve()}")
    from dqkit.report import write_report

    report = args.out / "report.html"
    write_report(out, report, title="dqkit demo: sample lead audit", source=src.name, backend="local engine")
    print(f"Report:  {report.resolve()}", file=sys.stdout)
    return 0
