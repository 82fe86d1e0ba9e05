"""Shared data for the Stage 1 rule tests: the Census 1990 name lists of the `names` package (a development
dependency) and the labelled spoof set of this folder."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def census() -> dict[str, list[tuple[str, float]]]:
    """{"first": [(NAME, frequency %)], "last": [...]} from the Census 1990 lists bundled by `names`."""
    names = pytest.importorskip("names", reason="the `names` package (dev dependency) bundles the Census lists")
    folder = Path(names.__file__).resolve().parent

    def load(file: str) -> list[tuple[str, float]]:
        rows = []
        for line in (folder / file).read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                rows.append((parts[0], float(parts[1])))
        return rows

    return {"first": load("dist.female.first") + load("dist.male.first"), "last": load("dist.all.last")}


@pytest.fixture(scope="session")
def labelled_spoofs() -> list[dict[str, str]]:
    """The hand-built labelled spoof set: one lead per row, `kind` says which rule family it belongs to."""
    with (HERE / "spoof_labelled.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
