"""A frame's CSV lines, byte for byte as `DataFrame.to_csv(index=False, header=False)` writes them, made a column at
a time in Arrow: about six times faster for the result columns of verified leads (text, code categoricals and two
float columns), which `dqkit verify --workers N` writes in every worker (`dqkit.cli._verify_chunks`).

pandas hands its cells to Python's csv writer (QUOTE_MINIMAL, `"` doubled): a cell is quoted when it holds the
delimiter, a quote, CR or LF, and written as it is otherwise; a missing value is an empty cell; a float is numpy's
text of it. Here the same rules are applied to whole columns, and only the cells that need quotes are handled one
by one. A frame this cannot write the same way (another kind of column, one column, a NUL character) gets None, and
the caller uses pandas.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pandas as pd

_QUOTED: Final = b',"\r\n'


def csv_lines(frame: pd.DataFrame, line_end: str) -> str | None:
    """The lines `frame.to_csv(index=False, header=False, lineterminator=line_end)` writes, or None (see the
    module)."""
    if frame.shape[1] < 2:
        return None
    if not len(frame):
        return ""
    frame = frame.copy(deep=False)
    frame.attrs = {}  # pandas deep-copies a frame's attrs into every column it hands out
    cells = []
    for i in range(frame.shape[1]):
        column = column_cells(frame.iloc[:, i])
        if column is None:
            return None
        cells.append(column)
    return joined_lines(cells, line_end)


def joined_lines(cells: list[Any], line_end: str) -> str:
    """The CSV lines of columns of cells (Arrow text, each quoted as the csv writer quotes, one array a column)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pa.large_string()
    rows = pc.binary_join_element_wise(*cells, pa.scalar(",", type=text))
    rows = pc.binary_join_element_wise(rows, pa.scalar("", type=text), pa.scalar(line_end, type=text))
    _, offsets, data = rows.buffers()
    at = np.frombuffer(offsets, dtype=np.int64 if pa.types.is_large_string(rows.type) else np.int32)
    start, stop = int(at[rows.offset]), int(at[rows.offset + len(rows)])
    return bytes(memoryview(data)[start:stop]).decode("utf-8")


def column_cells(column: pd.Series) -> Any:
    """The column's cells as Arrow text, missing as "", quoted where the csv writer quotes; None when they cannot
    be made here."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        texts = _category_texts(dtype)
        if texts is None:
            return None
        codes = np.asarray(column.array.codes, dtype=np.int32) + 1  # 0: missing, written ""
        return texts.take(pa.array(codes))
    if dtype == np.float64:
        numbers = column.to_numpy()
        missing = np.isnan(numbers)
        text = numbers.astype(str).astype(object)
        text[missing] = None
        return arrow_cells(pa.array(text, type=pa.large_string(), from_pandas=True))
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        return text_cells(column)
    return None


def text_cells(column: pd.Series, edit: Callable[[Any], Any] | None = None) -> Any:
    """A text (object or string) column's cells as `column_cells` makes them, `edit` applied to its Arrow text
    first (missing cells stay missing there); None when they cannot be made here."""
    import pyarrow as pa

    try:
        values = pa.array(column, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    return arrow_cells(values, edit)


def arrow_cells(values: Any, edit: Callable[[Any], Any] | None = None) -> Any:
    """Arrow values as text cells: missing as "", quoted where the csv writer quotes, `edit` applied to the text
    first; None when they are not text or one holds NUL."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_null(values.type):
        return pa.array([""] * len(values), type=pa.large_string())
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return None
    values = values.cast(pa.large_string())
    if edit is not None:
        values = edit(values)
    return quoted_cells(pc.fill_null(values, ""))


def quoted_cells(values: Any) -> Any:
    """Arrow text cells, those the csv writer quotes quoted; None when one holds NUL."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    _, offsets_buffer, data_buffer = values.buffers()
    n = len(values)
    if data_buffer is None:
        return values
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[values.offset:values.offset + n + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8)[int(offsets[0]):int(offsets[-1])]
    kind = _byte_kinds()[data]
    if (kind == 2).any():
        return None  # what the csv writer does with NUL depends on the Python version: it decides
    special = np.flatnonzero(kind)
    if not len(special):
        return values
    rows = np.unique(np.searchsorted(offsets, special + offsets[0], side="right") - 1)
    quoted = ['"' + v.replace('"', '""') + '"' for v in values.take(pa.array(rows)).to_pylist()]
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return pc.replace_with_mask(values, pa.array(mask), pa.array(quoted, type=pa.large_string()))


@functools.cache
def _byte_kinds() -> Any:
    """0 for a byte written as it is, 1 for one that makes the csv writer quote its cell, 2 for NUL."""
    import numpy as np

    kinds = np.zeros(256, dtype=np.uint8)
    kinds[list(_QUOTED)] = 1
    kinds[0] = 2
    return kinds


_CATEGORY_TEXTS: dict[int, tuple[Any, Any]] = {}


def _category_texts(dtype: pd.CategoricalDtype) -> Any:
    """"" and then the categories, as cells (Arrow text, quoted where the csv writer quotes; kept per dtype: the code
    tables' dtypes are made once); None when a category is not text or holds NUL."""
    import pyarrow as pa

    kept = _CATEGORY_TEXTS.get(id(dtype))
    if kept is not None and kept[0] is dtype:
        return kept[1]
    categories = list(dtype.categories)
    if not all(isinstance(c, str) for c in categories):
        return None
    texts = quoted_cells(pa.array(["", *categories], type=pa.large_string()))
    if texts is None:
        return None
    if len(_CATEGORY_TEXTS) > 1024:
        _CATEGORY_TEXTS.clear()
    _CATEGORY_TEXTS[id(dtype)] = (dtype, texts)
    return texts
