"""Spoof recall measured honestly (issue 23 part 2): names the bundled lists hold apart from names only rules can
catch.

`data/spoof_heldout_clean.csv` holds the rows of both held-out sets that are no entry of a bundled whole-name list
and near none (`listed.py` says what "near" means; `build_clean_sets.py` made the file). Their recall is what the
rules catch on names nobody listed. The other held-out rows are reported apart as "found by the lists": a lookup,
which says the lists hold what they were filled with, not that anything generalises.

Figures are printed with -s. The assertions are floors below the measured values, with the margin stated at each;
the goal (issue 12: 90% held-out recall) is far above them, and said so.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead.spoof import explain_spoof

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_clean_sets import COLUMNS, OUT, heldout_rows  # noqa: E402
from listed import list_keys, near_list_entry  # noqa: E402


def _clean() -> list[dict[str, str]]:
    with OUT.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _flagged(row: dict[str, str]) -> bool:
    lead = LeadRequest(first_name=row["first_name"], last_name=row["last_name"], full_name=row["full_name"],
                       zip="20500")
    return explain_spoof(lead) is not None


def test_the_proximity_check_sees_entries_and_their_variants() -> None:
    entry = next(iter(list_keys()))
    assert entry
    assert near_list_entry({"full_name": "Mickey Mouse"}) is not None  # fictional_names.txt
    assert near_list_entry({"first_name": "Mouse", "last_name": "Mickey", "full_name": ""}) is not None  # swapped
    assert near_list_entry({"full_name": "Mickey Mousse"}) is not None  # one edit away
    assert near_list_entry({"full_name": "Ann Lee"}) is None


def test_no_clean_row_is_a_list_entry_or_near_one() -> None:
    near = [n for r in _clean() if (n := near_list_entry(r)) is not None]
    assert not near, (f"{len(near)} clean held-out rows are (near) bundled list entries: rebuild the clean set "
                      "with build_clean_sets.py, and report the change")


def test_clean_rows_are_the_heldout_rows_less_the_listed_ones() -> None:
    clean = [tuple(r[c] for c in COLUMNS) for r in _clean()]
    assert len(clean) == len(set(clean))
    expected = [tuple(r[c] for c in COLUMNS) for r in heldout_rows() if near_list_entry(r) is None]
    assert clean == expected


def _recall(rows: list[dict[str, str]]) -> tuple[int, int]:
    return sum(_flagged(r) for r in rows), len(rows)


def test_recall_in_two_parts(capsys: pytest.CaptureFixture[str]) -> None:
    clean = _clean()
    listed = [r for r in heldout_rows() if near_list_entry(r) is not None]
    figures = {}
    for which in ("1", "2"):
        figures[f"set {which} found by the lists"] = _recall([r for r in listed if r["set"] == which])
        figures[f"set {which} found by rules"] = _recall([r for r in clean if r["set"] == which])
    with capsys.disabled():
        print("\nspoof recall, held-out sets in two parts:")
        for label, (hit, n) in figures.items():
            print(f"  {label:<32} {hit:>4}/{n:<4} {hit / n:6.1%}")
    # Lists: measured 29/30 and 93/101; a list lookup should find its own entries (floors: 27/30, 85/101).
    assert figures["set 1 found by the lists"][0] >= 27
    assert figures["set 2 found by the lists"][0] >= 85
    # Rules, on names no list holds: measured 9/18 (set 1) and 5/337 (set 2) on 2026-11-25. Floors a few names
    # below (7 and 3), room for a precision fix that costs a name; the goal, 90%, is not met and not asserted.
    assert figures["set 1 found by rules"][0] >= 7
    assert figures["set 2 found by rules"][0] >= 3
