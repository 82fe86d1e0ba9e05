"""`dqkit._csv_lines` writes a frame's CSV lines as pandas' `to_csv` does (issue 31): byte for byte, for every kind
of column verified leads hold, with the characters that make the csv writer quote, and missing values."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from dqkit._cell_escape import CSV_LINE_END
from dqkit._csv_lines import csv_lines

_CHARS = [",", '"', "\r", "\n", "\r\n", "'", "=", " ", "\t", "é", "日", "\U0001f600", "\u2028", "a", "Z", "0", ";", "|"]


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(_CHARS) if rnd.random() < 0.4 else rnd.choice("abc 12") for _ in range(rnd.randint(0, 8)))


def _pandas(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, header=False, lineterminator=CSV_LINE_END)


def test_random_frames_write_as_pandas_writes_them() -> None:
    rnd = random.Random(31)
    n = 3000
    texts = [_text(rnd) for _ in range(n)]
    floats = np.array([rnd.choice([0.0, -0.0, 1e-5, 1e16, 37.7749, -122.4194, np.inf, -np.inf, np.nan, 1 / 3])
                       for _ in range(n)])
    frame = pd.DataFrame({
        "object": pd.Series(texts, dtype=object),
        "object_missing": pd.Series([t if i % 4 else (None if i % 8 else np.nan) for i, t in enumerate(texts)],
                                    dtype=object),
        "str": pd.array([t if i % 5 else None for i, t in enumerate(texts)], dtype="str"),
        "category": pd.Categorical([t if i % 3 else None for i, t in enumerate(texts[:50] * (n // 50))],
                                   categories=list(dict.fromkeys([*texts[:50], "unused, \"x\""]))),
        "float": floats,
        "empty": pd.Series([None] * n, dtype=object),
        "blank": pd.Series([""] * n, dtype=object),
    })
    for part in (frame, frame.iloc[777:2345], frame.iloc[::7], frame[["float", "blank"]], frame.iloc[:0]):
        assert csv_lines(part, CSV_LINE_END) == _pandas(part)


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"one": ["a", "b"]}),  # a row of one empty cell is written "" by the csv writer
    pd.DataFrame({"n": [1, 2], "t": ["a", "b"]}),
    pd.DataFrame({"nul": ["a\x00b", "c"], "t": ["a", "b"]}),
    pd.DataFrame({"mixed": ["a", 1], "t": ["a", "b"]}),
])
def test_what_it_cannot_write_the_same_way_is_left_to_pandas(frame: pd.DataFrame) -> None:
    assert csv_lines(frame, CSV_LINE_END) is None
