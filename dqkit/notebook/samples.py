"""Bundled SYNTHETIC tables to try the accessors on: the sample leads, and addresses typed the way people type.

Nothing here describes a real person or a real delivery point: the leads are `data/sample_leads.csv` (made by
`dqkit.datagen.leads`), the addresses are points of the synthetic demo reference (`data/demo_reference.csv.gz`)
with mistakes added by a seeded generator, so the same arguments always give the same table.
"""

from __future__ import annotations

import csv
import gzip
import random
from typing import Final

import pandas as pd

from dqkit._resources import data_file

# Share of each kind of mistake in `messy_addresses` (the rest are typed correctly, in mixed case).
MISTAKES: Final = {
    "city misspelt": 0.12,
    "wrong ZIP": 0.10,
    "no ZIP": 0.10,
    "suffix spelt out": 0.10,
    "house number not on street": 0.06,
    "unit missing": 0.04,
    "not an address": 0.04,
}
_SUFFIX_WORDS: Final = {"ST": "Street", "AVE": "Avenue", "RD": "Road", "DR": "Drive", "LN": "Lane", "CT": "Court",
                        "BLVD": "Boulevard", "PL": "Place", "WAY": "Way", "CIR": "Circle", "TER": "Terrace",
                        "PKWY": "Parkway", "HWY": "Highway", "TRL": "Trail", "LOOP": "Loop", "SQ": "Square"}


def sample_leads() -> pd.DataFrame:
    """The bundled sample leads (about 10,000), every column as text so that ZIP codes keep their zeros."""
    return pd.read_csv(data_file("sample_leads.csv"), dtype=str, keep_default_na=False)


def _points() -> list[dict[str, str]]:
    with gzip.open(data_file("demo_reference.csv.gz"), "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _cap(text: str) -> str:
    """Mixed case as people type it: "10TH ST" -> "10th St", "APT 4" -> "Apt 4"."""
    return " ".join(w.capitalize() for w in text.split())


def _misspell(word: str, rng: random.Random) -> str:
    if len(word) < 4:
        return word + word[-1]
    i = rng.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def messy_addresses(n: int = 300, seed: int = 7) -> pd.DataFrame:
    """`n` addresses of the demo reference as people type them, columns id, address, city, state, zip and
    `mistake` (what was done to it, "" when typed correctly), in a fixed order for a given seed."""
    rng = random.Random(seed)
    points = _points()
    by_building: dict[tuple[str, str, str], int] = {}
    for p in points:
        key = (p["NUMBER"], p["STREET"], p["POSTCODE"])
        by_building[key] = by_building.get(key, 0) + 1
    rows = []
    kinds = list(MISTAKES)
    weights = [*MISTAKES.values(), 1.0 - sum(MISTAKES.values())]
    for i, p in enumerate(rng.sample(points, n), 1):
        mistake = rng.choices([*kinds, ""], weights)[0]
        number, street, unit = p["NUMBER"], _cap(p["STREET"]), p["UNIT"]
        city, state, zip_ = _cap(p["CITY"]), p["REGION"], p["POSTCODE"]
        if mistake == "city misspelt":
            city = _misspell(city, rng)
        elif mistake == "wrong ZIP":
            zip_ = zip_[:4] + str((int(zip_[4]) + rng.randrange(1, 9)) % 10)
        elif mistake == "no ZIP":
            zip_ = ""
        elif mistake == "suffix spelt out":
            head, _, last = street.rpartition(" ")
            street = f"{head} {_SUFFIX_WORDS.get(last.upper(), last)}".strip()
        elif mistake == "house number not on street":
            number = str(int("".join(c for c in number if c.isdigit()) or "1") + 7919)
        elif mistake == "unit missing" and unit and by_building[(p["NUMBER"], p["STREET"], p["POSTCODE"])] > 1:
            unit = ""
        elif mistake == "not an address":
            number, street, unit = "", rng.choice(["see attached", "n/a", "same as billing", "xxxxx"]), ""
        elif mistake == "unit missing":
            mistake = ""
        line = " ".join(x for x in (number, street) if x)
        if unit:
            line += f" {_cap(unit)}" if unit[0].isalpha() else f" # {unit}"
        rows.append({"id": f"A{i:04d}", "address": line, "city": city, "state": state, "zip": zip_,
                     "mistake": mistake})
    return pd.DataFrame(rows, columns=["id", "address", "city", "state", "zip", "mistake"])
