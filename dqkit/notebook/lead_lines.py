"""Verified leads straight to CSV lines, without the typed result frame: what each `dqkit verify --workers N`
worker writes for its chunk of rows (`dqkit.cli._verify_chunks`).

The lines are the ones `escape_frame` and `DataFrame.to_csv(index=False, header=False)` write for the frame
`leads.verify()` returns, cell for cell. What decides a cell there is its column's type (`dqkit.notebook.dtypes`),
and so here:
- a code column (categorical): the code as answered, missing when "", never formula-escaped (the frame's writer
  escapes text columns only);
- std_lat / std_lng (floats): `dtypes.number` of the answers, written as numpy writes a float, missing as "";
- every other result column (text): missing when "", formula-escaped (`escape_cell`) unless escape=False;
each then quoted as Python's csv writer quotes (`dqkit._csv_lines`). Result columns no row filled are left out as
`leads.without_empty_columns` leaves them out, PHONE_EXTENSION goes after the phone numbers as
`leads.add_extension_column` puts it, and the reference columns come last, as `leads.verify` adds them.

This skips building ~90 typed columns, the frame around them, and converting them back to text: ~15% of a
worker's CPU. Whatever it cannot write the same way for certain (an answer value that is not text, an input column
named like one it adds, a remote backend, a NUL character) gets None, and the caller takes the frame path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from dqkit.backends.base import LeadBackend
    from dqkit.notebook.frames import CacheArg


def verified_lines(df: pd.DataFrame, backend: LeadBackend, mapping: Mapping[str, str], prefix: str, *,
                   cache: CacheArg, escape: bool, line_end: str) -> tuple[str, list[str], list[str | None]] | None:
    """(the CSV lines of `leads.verify(df, ...)` as written with or without formula escaping, its column names,
    each row's result code or None), or None when they are to be made from the frame (see the module)."""
    from dqkit._cell_escape import escape_frame
    from dqkit._csv_lines import column_cells, joined_lines, quoted_cells
    from dqkit.backends.select import is_remote, lead_backend
    from dqkit.contract.lead_columns import EXTENSION_COLUMN, phone_extensions
    from dqkit.notebook.frames import flat_results
    from dqkit.notebook.leads import REFERENCE_NAMES, RESULT_NAMES, SERVICE_NAME, lead_fields, lead_job, lead_reference

    backend = lead_backend(backend)
    n = len(df)
    names_in = [str(c) for c in df.columns]
    added = {f"{prefix}{c}" for c in (*RESULT_NAMES, *REFERENCE_NAMES, SERVICE_NAME, EXTENSION_COLUMN)}
    if not n or is_remote(backend) or not added.isdisjoint(names_in):
        return None
    piece = df.copy(deep=False)
    piece.attrs = {}  # pandas deep-copies a frame's attrs into every column it hands out
    given = _text_input_cells(piece, escape)
    if given is None:  # a column that is not text: the frame's own steps
        if escape:
            piece = escape_frame(piece)
        given = [column_cells(piece.iloc[:, i]) for i in range(piece.shape[1])]  # as the frame's writer makes them
    if any(c is None for c in given):
        return None  # before any lead is answered: the frame path answers them
    fields = lead_fields(df.columns, mapping, prefix)
    flats, row_to_unique = flat_results(df, lead_job(backend, fields), cache=cache, progress=False)
    results = result_cells(flats, row_to_unique, escape=escape)
    if results is None:
        return None
    names, cells, codes = results
    out_names = [f"{prefix}{c}" for c in names]

    first: dict[object, int] = {}
    for i, label in enumerate(df.columns):
        first.setdefault(label, i)  # the first of columns that share a name, as the leads are read from
    extensions = phone_extensions({c: df.iloc[:, first[c]].tolist() for c in set(fields.values()) if c in first},
                                  fields)
    if extensions is not None and any(extensions):
        after = f"{prefix}phone_numbers"
        at = out_names.index(after) + 1 if after in out_names else len(out_names)
        out_names.insert(at, f"{prefix}{EXTENSION_COLUMN}")
        cells.insert(at, _given_text(extensions, escape))
    named = lead_reference(backend)
    if named is not None:
        for name, value in zip(REFERENCE_NAMES, named, strict=True):
            out_names.append(f"{prefix}{name}")
            cells.append(_given_text([value] * n, escape))
    quoted = [quoted_cells(c) for c in cells]
    if any(c is None for c in quoted):
        return None  # a NUL: what the csv writer does with it depends on the Python version
    return joined_lines([*given, *quoted], line_end), [*names_in, *out_names], codes


def _text_input_cells(piece: pd.DataFrame, escape: bool) -> list[Any] | None:
    """The input's cells as `escape_frame` and `column_cells` make them (escaped, missing as "", quoted where the
    csv writer quotes; None for a column holding NUL), from each column's Arrow text; None when a column is not
    text (every column of a CSV read by `dqkit verify` is)."""
    import pandas as pd

    from dqkit._csv_lines import text_cells

    out: list[Any] = []
    for i in range(piece.shape[1]):
        column = piece.iloc[:, i]
        dtype = column.dtype
        if isinstance(dtype, pd.CategoricalDtype) or not (pd.api.types.is_object_dtype(dtype)
                                                          or pd.api.types.is_string_dtype(dtype)):
            return None
        cells = text_cells(column, _escaped if escape else None)
        if cells is None:  # not text, or a NUL: the frame's own steps say which (and then None)
            return None
        out.append(cells)
    return out


def result_cells(flats: Sequence[Mapping[str, Any]], row_to_unique: Sequence[int], *,
                 escape: bool) -> tuple[list[str], list[Any], list[str | None]] | None:
    """(the result columns `leads.verify` shows for these flat rows, unprefixed; each one's cells as Arrow text,
    unquoted, one a row of the table; each row's result code or None): the frame `without_empty_columns(
    typed_results(flats))` spread over the rows by `row_to_unique`, as its writer writes it. None when a value is
    not text (the typed frame decides what becomes of it)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from dqkit.contract.lead_columns import CORE_COLUMNS
    from dqkit.notebook.dtypes import LEAD_CATEGORIES, LEAD_NUMBERS
    from dqkit.notebook.leads import DERIVED_FROM, RESULT_NAMES

    read = _columns(flats)
    if read is None:
        return None
    columns, order = read
    names = [c for c in RESULT_NAMES if c in columns or c in CORE_COLUMNS]
    n = len(flats)
    cells: dict[str, Any] = {}
    filled: set[str] = set()
    for name in names:
        text = columns[name] if name in columns else pa.nulls(n, type=pa.large_string())
        if name in LEAD_NUMBERS and name not in LEAD_CATEGORIES:
            cells[name], any_value = _number_cells(text)
        else:
            any_value = bool(pc.any(pc.greater(pc.binary_length(text), 0)).as_py())
            text = pc.fill_null(text, "")
            cells[name] = text if name in LEAD_CATEGORIES or not escape else _escaped(text)
        if any_value:
            filled.add(name)
    names = [c for c in names if c in CORE_COLUMNS or c in filled or DERIVED_FROM.get(c) in filled]
    codes: list[str | None] = [c or None for c in columns["result_code"].to_pylist()] if "result_code" in columns else \
        [None] * n
    # The cells are in `order` (the flat rows grouped by their shape); row r of the table is flat row
    # row_to_unique[r] (identical rows were answered once).
    at = np.empty(n, dtype=np.intp)
    at[np.asarray(order, dtype=np.intp)] = np.arange(n, dtype=np.intp)
    pick = at[np.asarray(row_to_unique, dtype=np.intp)] if len(row_to_unique) else np.zeros(0, dtype=np.intp)
    codes = [codes[i] for i in pick.tolist()]
    if len(pick) == n and bool((pick == np.arange(n)).all()):
        return names, [cells[c] for c in names], codes
    taken = pa.array(pick)
    return names, [cells[c].take(taken) for c in names], codes


def _columns(flats: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], list[int]] | None:
    """(name -> the values of every flat row as Arrow text, missing where a row lacks it; the flat row of each
    value), or None when a value is neither text nor None (bytes, a number: the typed frame decides what becomes of
    it). The rows are read grouped by their shape (their names in order: which groups of columns their answer
    holds, a few): the values of a shape's rows are converted in one go, and each name's are every width-th."""
    import itertools

    import numpy as np
    import pyarrow as pa

    shapes: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(flats):
        shapes.setdefault(tuple(row), []).append(i)
    names = list(dict.fromkeys(k for keys in shapes for k in keys))
    pieces: dict[str, list[Any]] = {name: [] for name in names}
    order: list[int] = []
    text = pa.large_string()
    for keys, rows in shapes.items():
        order += rows
        values = list(itertools.chain.from_iterable(flats[i].values() for i in rows))
        try:
            "".join(values)  # every value text: at C speed
        except TypeError:
            if not all(v is None or isinstance(v, str) for v in values):
                return None
        try:
            arrow = pa.array(values, type=text)
        except (pa.ArrowException, ValueError):  # a lone surrogate
            return None
        width = len(keys)
        starts = np.arange(len(rows), dtype=np.int64) * width
        held = {k: j for j, k in enumerate(keys)}
        for name in names:
            j = held.get(name)
            pieces[name].append(arrow.take(pa.array(starts + j)) if j is not None else pa.nulls(len(rows), type=text))
    columns = {name: parts[0] if len(parts) == 1 else pa.concat_arrays(parts) for name, parts in pieces.items()}
    return columns, order


def _number_cells(values: Any) -> tuple[Any, bool]:
    """A float column's cells (`dtypes.number` of its text, written as numpy writes the float, NaN as "") and
    whether any row holds a number."""
    import numpy as np
    import pyarrow as pa

    from dqkit.notebook.dtypes import number

    numbers = number(values.to_numpy(zero_copy_only=False))
    missing = np.isnan(numbers)
    text = numbers.astype(str).astype(object)
    text[missing] = ""
    return pa.array(text, type=pa.large_string()), not bool(missing.all())


def _escaped(values: Any) -> Any:
    """Arrow text with `escape_cell` applied to the cells it may change (`suspect_cells`)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from dqkit._cell_escape import escape_cell, suspect_cells

    suspects = suspect_cells(values)
    at = np.flatnonzero(suspects)
    if not len(at):
        return values
    escaped = [escape_cell(v) for v in values.take(pa.array(at)).to_pylist()]
    return pc.replace_with_mask(values, pa.array(suspects), pa.array(escaped, type=pa.large_string()))


def _given_text(values: list[str], escape: bool) -> Any:
    """A text column `leads.verify` adds whole (PHONE_EXTENSION, the reference): Arrow text, escaped."""
    import pyarrow as pa

    arrow = pa.array(values, type=pa.large_string())
    return _escaped(arrow) if escape else arrow

