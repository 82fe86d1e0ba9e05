"""Accuracy on the real OpenAddresses points of ../shared (issue 4, "Accuracy"):

* type-down: the address typed one character at a time; the point itself (a final suggestion whose key resolves
  to it) must be among the first 7 suggestions before 60% of the text is typed, for >= 95% of sampled points;
* validate: the whole text must come back as Verified match with that very point for >= 97%.

The text is what a person would type from the row: "NUMBER STREET UNIT, CITY, ST ZIP" (the city from the ZIP
when the file leaves it empty, as for Portland). Rows without a number or street are not addresses and are not
sampled. Figures are printed (run with -s to see them).
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from dqkit.contract.address import Confidence, SearchRequest
from dqkit.engines import zipdata
from dqkit.engines.address import AddressEngine

pytestmark = [pytest.mark.shared, pytest.mark.slow]
TYPING_SAMPLE = 400
VALIDATE_SAMPLE = 1500
STATE_OF_FILE = {"alameda": "CA", "santa_clara": "CA", "portland_metro": "OR"}


def _points(shared_dir: Path) -> list[tuple[str, str]]:
    """(text a person would type, the point's id) of every row that is an address."""
    out: list[tuple[str, str]] = []
    for f in sorted((shared_dir / "data" / "openaddresses").glob("*.csv")):
        with open(f, newline="") as fh:
            for r in csv.DictReader(fh):
                number, street = r["NUMBER"].strip(), r["STREET"].strip()
                if not number or not street:
                    continue
                zip5 = r["POSTCODE"].strip()[:5]
                info = zipdata.zip_info(zip5)
                city = r["CITY"].strip() or (info.city if info else "")
                unit = f" {r['UNIT'].strip()}" if r["UNIT"].strip() else ""
                text = f"{number} {street}{unit}, {city}, {STATE_OF_FILE[f.stem]} {zip5}"
                out.append((text, r.get("ID") or r.get("HASH") or ""))
    return out


def _is_point(engine: AddressEngine, key: str, point_id: str) -> bool:
    parts = engine.keys.decode(key)
    return parts[0] == "a" and engine.index.source_ids[int(parts[2])] == point_id


def test_typedown_finds_the_point_before_60_percent(oa_engine: AddressEngine, shared_dir: Path) -> None:
    sample = random.Random(4).sample(_points(shared_dir), TYPING_SAMPLE)
    found = 0
    missed: list[str] = []
    keystrokes = []
    for text, pid in sample:
        limit = int(len(text) * 0.6)
        for n in range(1, limit + 1):
            res = oa_engine.search(SearchRequest.of(text[:n])).result
            if any(s.format and _is_point(oa_engine, s.global_address_key, pid) for s in res.suggestions[:7]):
                found += 1
                keystrokes.append(n / len(text))
                break
        else:
            missed.append(text)
    rate = found / len(sample)
    mean_typed = sum(keystrokes) / max(len(keystrokes), 1)
    print(f"\ntype-down: {found}/{len(sample)} = {rate:.1%} found before 60% typed "
          f"(found after {mean_typed:.0%} of the text on average); missed e.g. {missed[:5]}")
    assert rate >= 0.95, missed[:20]


def test_validate_returns_the_point(oa_engine: AddressEngine, shared_dir: Path) -> None:
    sample = random.Random(5).sample(_points(shared_dir), VALIDATE_SAMPLE)
    ok = 0
    wrong: list[tuple[str, str]] = []
    for text, pid in sample:
        r = oa_engine.validate(SearchRequest.of(text)).result
        if r.confidence == Confidence.VERIFIED_MATCH and _is_point(oa_engine, r.global_address_key, pid):
            ok += 1
        else:
            wrong.append((text, r.confidence))
    rate = ok / len(sample)
    print(f"\nvalidate: {ok}/{len(sample)} = {rate:.1%} Verified match with the point; not e.g. {wrong[:5]}")
    assert rate >= 0.97, wrong[:20]
