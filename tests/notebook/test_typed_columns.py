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


def test_empty_result_columns_are_found_frame_wide_as_column_by_column() -> None:
    """without_empty_columns tests the whole frame at once (issue 31): it keeps what the per-column test kept, for
    text, categorical and number columns, full, partly and wholly missing, core and derived ones."""
    from dqkit.contract.lead_columns import CORE_COLUMNS
    from dqkit.notebook.dtypes import LEAD_CATEGORIES, LEAD_NUMBERS, typed_columns
    from dqkit.notebook.leads import DERIVED_FROM, RESULT_NAMES, without_empty_columns

    rows = [{"result_code": "S100", "phone_status": "E801", "std_geo_lat": "37.27", "std_city": "SAN JOSE"},
            {"result_code": "E100", "spoof_field": "LAST_NAME", "std_geo_lat": ""},
            {"result_code": "S102", "score_result": "", "std_zip": "95124"}]
    frame = typed_columns(rows, RESULT_NAMES, LEAD_CATEGORIES, LEAD_NUMBERS)
    filled = {c for c in frame.columns if frame[c].notna().any()}
    want = [c for c in frame.columns
            if c in CORE_COLUMNS or c in filled or DERIVED_FROM.get(str(c)) in filled]
    assert list(without_empty_columns(frame).columns) == want
    assert {"phone_status", "phone_desc", "spoof_field", "std_zip"} <= set(want)
    assert "score_result" not in want and "std_county" not in want
    assert list(without_empty_columns(frame.iloc[:0]).columns) == [c for c in frame.columns if c in CORE_COLUMNS]
