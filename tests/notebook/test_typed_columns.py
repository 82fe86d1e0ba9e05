"""`typed_columns` builds the frame the plain way would (issue 31 made it faster): rows of several shapes, rows
lacking a name ("" there, as `row.get(name, "")` gives), rows holding names that are not asked for, text,
categories with values outside them, numbers, flags."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from dqkit.notebook.dtypes import categorical, number, text, typed_columns

NAMES = ["code", "t1", "t2", "num", "flag"]
CATEGORIES = {"code": ["S100", "E100", "E200"]}


def _plain(rows: list[dict[str, object]], names: list[str]) -> pd.DataFrame:
    data: dict[str, object] = {}
    for name in names:
        values = np.array([r.get(name, "") for r in rows], dtype=object)
        if name in CATEGORIES:
            data[name] = categorical(values, CATEGORIES[name])
        elif name == "num":
            data[name] = number(values)
        elif name == "flag":
            data[name] = pd.array([None if v is None else bool(v) for v in values.tolist()], dtype="boolean")
        else:
            data[name] = text(values)
    return pd.DataFrame(data, index=pd.RangeIndex(len(rows)))


def _row(rnd: random.Random) -> dict[str, object]:
    pool: dict[str, object] = {"code": rnd.choice(["S100", "E100", "E999", "", None]),
                               "t1": rnd.choice(["a", "", "b,c", None]), "t2": rnd.choice(["x", "y é"]),
                               "num": rnd.choice(["37.5", "", "-122.25"]), "flag": rnd.choice(["1", ""]),
                               "extra": "not asked for"}
    keys = [k for k in pool if rnd.random() < 0.8]
    rnd.shuffle(keys)
    return {k: pool[k] for k in keys}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rows_of_every_shape_give_the_plain_frame(seed: int) -> None:
    rnd = random.Random(seed)
    rows = [_row(rnd) for _ in range(500)]
    got = typed_columns(rows, NAMES, CATEGORIES, numbers=frozenset({"num"}), flags=frozenset({"flag"}))
    pd.testing.assert_frame_equal(got, _plain(rows, NAMES))


def test_one_shape_that_lacks_a_name_gives_empty_cells_not_none() -> None:
    rows: list[dict[str, object]] = [{"code": "S100", "t1": "a", "extra": "x"}] * 3  # as many keys as names asked
    got = typed_columns(rows, ["code", "t1", "flag"], CATEGORIES, flags=frozenset({"flag"}))
    assert got["flag"].tolist() == [False, False, False]
    pd.testing.assert_frame_equal(got, _plain(rows, ["code", "t1", "flag"]))
