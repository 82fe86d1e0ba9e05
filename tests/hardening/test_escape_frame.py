"""`escape_frame` hands only suspect cells to `escape_cell` (issue 31): the frame it writes must be the one the
cell-by-cell rule gives, for every kind of column and every character a cell may start with."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd

from dqkit._cell_escape import FORMULA_PREFIXES, escape_cell, escape_frame

# Characters the rules look at, and some they do not.
_SPECIAL = [*FORMULA_PREFIXES, " ", "\u00a0", "\u200b", "\u200d", "\ufeff", "\u2028", "\u2029", "\x0b", "\x0c",
            "\u180e", "\u00ad", "\u2060", "\u202e", "\u3000", "\r\n", "'", '"', ",", "(", ".", "#", "1", "9", "e",
            "E", "a", "Z", "é", "ß", "日", "\U0001f600", "\U000e0001", "|", "!", "%"]


def _cell(rnd: random.Random) -> str:
    return "".join(rnd.choice(_SPECIAL) if rnd.random() < 0.5 else rnd.choice("ab1-+=. ")
                   for _ in range(rnd.randint(0, 6)))


def _by_hand(column: pd.Series) -> list[object]:
    return [escape_cell(v) for v in column.tolist()]


def _same(got: pd.Series, want: list[object]) -> None:
    for g, w in zip(got.tolist(), want, strict=True):
        assert (g == w) or (g is w) or (isinstance(g, float) and isinstance(w, float) and g != g and w != w), \
            (g, w)


def test_random_cells_escape_as_one_by_one() -> None:
    rnd = random.Random(31)
    cells = [_cell(rnd) for _ in range(20_000)]
    frame = pd.DataFrame({
        "text": pd.array(cells, dtype="str"),
        "object": pd.Series(cells, dtype=object),
        "with_missing": pd.array([c if i % 7 else None for i, c in enumerate(cells)], dtype="str"),
        "mixed": pd.Series([c if i % 5 else i for i, c in enumerate(cells)], dtype=object),
        "numbers": np.arange(len(cells), dtype=float),
    })
    for part in (frame, frame.iloc[1234:5678], frame.iloc[::3]):  # sliced Arrow arrays keep an offset
        out = escape_frame(part)
        for name in ("text", "object", "with_missing", "mixed"):
            _same(out[name], _by_hand(part[name]))
        assert out["numbers"].equals(part["numbers"])


def test_every_first_character_of_the_basic_plane_and_some_beyond() -> None:
    firsts = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    firsts += [chr(c) for c in (0x10000, 0x1D173, 0x1F600, 0xE0001, 0xE0020, 0xE007F, 0x10FFFF)]
    for tail in ("", "=1", "1", "x\n=2", "+1 (202) 456-1111"):
        cells = [f + tail for f in firsts]
        frame = pd.DataFrame({"text": pd.array(cells, dtype="str"), "object": pd.Series(cells, dtype=object)})
        out = escape_frame(frame)
        want = _by_hand(frame["text"])
        _same(out["text"], want)
        _same(out["object"], want)


def test_column_names_attrs_and_untouched_kinds() -> None:
    frame = pd.DataFrame({"=name": ["=1", "ok"], "n": [1, 2], "cat": pd.Categorical(["=x", "y"])})
    frame.attrs["kept"] = {"a": 1}
    out = escape_frame(frame)
    assert list(out.columns) == ["'=name", "n", "cat"]
    assert out["'=name"].tolist() == ["'=1", "ok"]
    assert out["cat"].tolist() == ["=x", "y"]  # categoricals were never escaped: unchanged behaviour
    assert out.attrs == {"kept": {"a": 1}} and frame.attrs == {"kept": {"a": 1}}
    assert frame["=name"].tolist() == ["=1", "ok"]  # the caller's frame is not changed
