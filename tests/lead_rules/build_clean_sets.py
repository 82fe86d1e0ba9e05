"""Build `data/spoof_heldout_clean.csv`: the rows of both held-out spoof sets that are no entry of a bundled
whole-name list and near none (`listed.near_list_entry`), so that their recall measures rules, not lookups.

Run: `.venv/bin/python tests/lead_rules/build_clean_sets.py` after a change to the lists; then
`test_spoof_clean.py` checks the file is still clean (a list that gains a held-out name fails it, on purpose: the
name then leaves the clean set and the figures say so).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from listed import near_list_entry  # noqa: E402

DATA = HERE / "data"
OUT = DATA / "spoof_heldout_clean.csv"
COLUMNS = ["set", "source", "kind", "first_name", "last_name", "full_name"]


def heldout_rows() -> list[dict[str, str]]:
    """Held-out set 1 (the held-out split of spoof_published.csv) and set 2, with a `set` column."""
    with (DATA / "spoof_published.csv").open(newline="", encoding="utf-8") as fh:
        one = [{**r, "set": "1"} for r in csv.DictReader(fh) if r["split"] == "heldout"]
    with (DATA / "spoof_heldout2.csv").open(newline="", encoding="utf-8") as fh:
        two = [{**r, "set": "2"} for r in csv.DictReader(fh)]
    return [{c: r.get(c, "") for c in COLUMNS} for r in one + two]


def main() -> None:
    rows = [r for r in heldout_rows() if near_list_entry(r) is None]
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} clean held-out rows -> {OUT}")


if __name__ == "__main__":
    main()
