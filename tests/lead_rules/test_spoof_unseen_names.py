"""False positives on real names the allowlist was not made from (issue 23 part 2).

`data/unseen_real_names.csv` (built by `build_unseen_names.py` from mimesis's person data) holds real given names
and surnames that collide with an English vulgar word, none of them an entry of the allowlist
(`wordlists/name_collisions.txt`, built from faker's lists). The flagged count is reported as shipped and with the
allowlist emptied: on names it was not built from, the two show what the rules do on their own.
"""

from __future__ import annotations

import csv
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead import spoof

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_unseen_names import OUT, allowlist  # noqa: E402


def _rows() -> list[dict[str, str]]:
    with OUT.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _flagged_names(rows: list[dict[str, str]]) -> list[str]:
    out = []
    for r in rows:
        first, last = (r["name"], "Okafor") if r["role"] == "given" else ("Anna", r["name"])
        for lead in (LeadRequest(first_name=first, last_name=last, zip="20500"),
                     LeadRequest(full_name=f"{first} {last}", zip="20500")):
            if spoof.explain_spoof(lead) is not None:
                out.append(r["name"])
                break
    return out


def _clear_caches() -> None:
    for value in vars(spoof).values():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()


@pytest.fixture
def no_allowlist(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The detector with `name_collisions.txt` emptied (its caches cleared before and after)."""
    tables = dataclasses.replace(spoof._tables(), collisions=frozenset())
    _clear_caches()
    monkeypatch.setattr(spoof, "_tables", lambda: tables)
    yield
    monkeypatch.undo()
    _clear_caches()


def test_the_set_is_disjoint_from_the_allowlist_and_its_source() -> None:
    rows = _rows()
    assert len(rows) >= 1000
    allowed = allowlist()
    inside = [r["name"] for r in rows
              if r["name"].lower() in allowed or set(r["name"].lower().replace("-", " ").split()) & allowed]
    assert not inside, inside
    assert {r["source"] for r in rows} == {"mimesis 22.2.0"}  # not faker, which the allowlist is built from
    assert "mimesis" not in (HERE / "build_name_sets.py").read_text(encoding="utf-8")


def test_unseen_real_names_with_the_allowlist(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows()
    flagged = _flagged_names(rows)
    with capsys.disabled():
        print(f"\nunseen real names flagged, allowlist as shipped: {len(flagged)}/{len(rows)} {flagged}")
    # The goal is 0. Measured 3/1,898 on 2026-11-25 (Aarse, Fuckinck, Peedo: a vulgar word once a doubled
    # vowel is read as one, a vulgar root inside a surname); 1/1,898 (Fuckinck) once a doubled a, e or o was
    # no longer read as one letter. The ceiling, 3, leaves room for two; more fails.
    assert len(flagged) <= 3


def test_unseen_real_names_without_the_allowlist(no_allowlist: None, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows()
    flagged = _flagged_names(rows)
    with capsys.disabled():
        print(f"\nunseen real names flagged, allowlist emptied: {len(flagged)}/{len(rows)} {flagged}")
    # Measured the same (3, then 1): on names it was not built from, the allowlist changes nothing.
    assert len(flagged) <= 3


@pytest.mark.parametrize(("first", "last", "spoof_"), [
    ("Anna", "Aarse", False), ("Peedo", "Okafor", False), ("Anna", "Koopman", False),  # Dutch, Estonian names
    ("Shiit", "Head", True), ("Fuuck", "You", True), ("Anna", "Fuuuck", True), ("Baaastard", "Okafor", True),
])
def test_a_doubled_a_e_or_o_is_a_spelling_not_an_obfuscation(first: str, last: str, spoof_: bool) -> None:
    lead = LeadRequest(first_name=first, last_name=last, zip="20500")
    assert (spoof.explain_spoof(lead) is not None) is spoof_
