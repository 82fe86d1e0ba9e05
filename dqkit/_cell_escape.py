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
    """A copy of `df` whose text cells and column names cannot run as spreadsheet formulas (see the module)."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    out = df.copy()
    for col in out.columns:
        if is_object_dtype(out[col].dtype) or is_string_dtype(out[col].dtype):
            out[col] = out[col].map(escape_cell)
    out.columns = [escape_cell(c) for c in out.columns]
    return out
