"""Cells a spreadsheet would run as a formula, made inert (OWASP's CSV-injection guidance), for every table writer.

CSV: `escape_cell` decides (the `--no-escape-formulas` switch turns it off):
- a cell whose text starts with `=`, `+`, `-`, `@`, a tab, CR or LF (or their full-width forms, which some
  spreadsheets fold) gets a leading `'`, so Excel and LibreOffice show it as text; so does one where such a character
  follows leading blanks or invisible characters a spreadsheet skips (space, no-break space, zero-width space and
  joiners, byte-order mark, vertical tab, form feed, line and paragraph separators: issue 30 found `\u00a0=cmd|...`
  written live);
- the same after every line break inside the cell: a reader that splits a cell on a bare CR must not find a live
  formula at the start of the next line (`web form\\r=cmd|...`);
- only a plain number is left alone (`-12.5`, `+3`, `1e5`): `-1-1`, `+1 (202) 456-1111` or `-2+3` are expressions
  a spreadsheet computes, so they are escaped too (the `'` is all they gain).
`CSV_LINE_END` is CRLF (RFC 4180): Python's csv writer quotes a cell holding any character of the line ending, so
with CRLF every cell holding a CR or an LF is quoted and a bare CR can never end a row.

Excel (.xlsx): a cell stored as text never runs as a formula, whatever it starts with, so text is written as text
cells (`xlsx_text`) exactly as it is: "+1 510 555 0100" and "=HYPERLINK(...)" keep their first character (issue 29).
Only a cell stored as a formula runs, and none is written.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pandas as pd

FORMULA_PREFIXES: Final = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
CSV_LINE_END: Final = "\r\n"
_PLAIN_NUMBER: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LINE_BREAK: Final = re.compile(r"(\r\n|\r|\n)")
# What a spreadsheet may skip before it reads a formula: any blank (\s: space, no-break space, VT, FF, U+2028, ...)
# and the invisible format characters (soft hyphen, zero-width space and joiners, bidi marks, word joiner, BOM).
_INVISIBLE_LEAD: Final = re.compile(r"[\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]+")


def _escape_line(line: str) -> str:
    if line.startswith(FORMULA_PREFIXES):
        return line if _PLAIN_NUMBER.fullmatch(line) else "'" + line
    lead = _INVISIBLE_LEAD.match(line)
    if lead is not None:
        rest = line[lead.end():]
        if rest.startswith(FORMULA_PREFIXES) and not _PLAIN_NUMBER.fullmatch(rest):
            return "'" + line
    return line


def escape_cell(value: Any) -> Any:
    """`value` made inert when it is text a spreadsheet would evaluate (see the module); anything else unchanged."""
    if not isinstance(value, str) or not value:
        return value
    if "\r" not in value and "\n" not in value:
        return _escape_line(value)
    if value.startswith(("\r", "\n")):  # a leading line break is itself a formula prefix (OWASP: CR)
        value = "'" + value
    parts = _LINE_BREAK.split(value)  # text, break, text, break, ...
    return "".join(p if i % 2 else _escape_line(p) for i, p in enumerate(parts))


def xlsx_text(sheet: Any, value: Any) -> Any:
    """`value` for openpyxl's write-only `sheet.append`: text as a text cell (openpyxl would store text starting with
    `=` as a formula), anything else as it is."""
    if not isinstance(value, str):
        return value
    from openpyxl.cell import WriteOnlyCell

    cell = WriteOnlyCell(sheet, value=value)
    cell.data_type = "s"
    return cell


def escape_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of `df` whose text cells and column names cannot run as spreadsheet formulas (see the module).

    Only the cells `escape_cell` could change are handed to it (`_suspects`): a cell that starts with a plain ASCII
    letter or digit and holds no line break is left as it is by every rule above, and that is nearly every cell."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    out = df.copy()
    attrs, out.attrs = out.attrs, {}  # pandas deep-copies a frame's attrs into every column it hands out
    for i, dtype in enumerate(out.dtypes.tolist()):
        if is_object_dtype(dtype) or is_string_dtype(dtype):
            column = out.iloc[:, i]
            escaped = _escaped(column)
            if escaped is not column:
                out.isetitem(i, escaped.array)
    out.columns = [escape_cell(c) for c in out.columns]
    out.attrs = attrs
    return out


# A cell whose first byte (UTF-8) is none of these, or that holds a line break, is a suspect.
_SAFE_FIRST: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _escaped(column: pd.Series) -> pd.Series:
    """`column` with `escape_cell` applied to its suspect cells (every cell when they cannot be told apart)."""
    import numpy as np

    suspects = _suspects(column)
    if suspects is None:
        return column.map(escape_cell)
    at = np.flatnonzero(suspects)
    if not len(at):
        return column
    out = column.copy()
    out.iloc[at] = [escape_cell(v) for v in column.iloc[at].tolist()]
    return out


def _suspects(column: pd.Series) -> Any:
    """A boolean array: the cells `escape_cell` may change, read from the column's UTF-8 bytes at once (missing
    cells are not text: never); None when the column holds something other than text and missing values."""
    import pyarrow as pa

    try:
        values = pa.array(column, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):  # numbers, lists, bytes among the text
        return None
    return suspect_cells(values)


def suspect_cells(values: Any) -> Any:
    """`_suspects` of an Arrow array (a boolean array, or None when it is not text)."""
    import numpy as np
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    n = len(values)
    if pa.types.is_null(values.type):
        return np.zeros(n, dtype=bool)
    large = pa.types.is_large_string(values.type)
    if not (large or pa.types.is_string(values.type)):
        return None
    _, offsets_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if large else np.int32)[values.offset:values.offset + n + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, dtype=np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    filled = np.greater(ends, starts)
    first = np.zeros(n, dtype=np.uint8)
    first[filled] = data[starts[filled]]
    suspect = filled & ~_safe_bytes()[first]
    lo, hi = int(offsets[0]), int(offsets[-1])
    text = data[lo:hi]
    breaks = np.flatnonzero((text == 10) | (text == 13)) + lo
    if len(breaks):
        suspect[np.searchsorted(offsets, breaks, side="right") - 1] = True
    if values.null_count:
        suspect &= values.is_valid().to_numpy(zero_copy_only=False)
    return suspect


@functools.cache
def _safe_bytes() -> Any:
    import numpy as np

    safe = np.zeros(256, dtype=bool)
    safe[list(_SAFE_FIRST)] = True
    return safe
