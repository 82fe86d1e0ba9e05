"""Typed result columns: codes as categoricals whose categories are the seed's whole table, numbers as floats,
the rest as text; "" (no value) becomes a missing value, so `value_counts()` counts only what was answered.

Categories come from the code tables, not from the data, so every result frame (and every Dask partition) has the
same dtypes and the categories list what *could* have happened, zeros included. A value outside the table (a
newer vendor code) is kept: it is appended to the categories rather than lost.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd

from dqkit.contract import codes
from dqkit.contract.address import CONFIDENCE_MEANINGS, Confidence, MatchConfidence, MatchType

NOT_PROCESSED: Final = "not processed"  # the outcome of a row that got no answer (see lead_columns.error_row)


def text_dtype() -> pd.api.extensions.ExtensionDtype:
    """pandas' own text dtype: "str" (NaN for missing) on pandas 3, the "string" extension type before."""
    if int(pd.__version__.split(".")[0]) >= 3:
        return pd.StringDtype(na_value=np.nan)
    return pd.StringDtype()


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _blanks_missing(values: Sequence[Any] | np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """An object array of `values` with "" turned into None."""
    out = np.array(values, dtype=object) if not isinstance(values, np.ndarray) else values.astype(object, copy=True)
    if out.size:
        out[out == ""] = None
    return out


def categorical(values: Sequence[Any] | np.ndarray[Any, Any], categories: Sequence[str]) -> pd.Categorical:
    """`values` as a categorical over `categories`; "" and None are missing; unknown values are appended."""
    clean = _blanks_missing(values)
    dtype, lookup = _category_plan(tuple(categories))
    codes = lookup.get_indexer(clean)  # type: ignore[arg-type]  # an array is what it takes
    if all(v is None for v in clean[codes < 0]):  # every value in the table, or missing: no value to append
        return pd.Categorical.from_codes(codes, dtype=dtype)
    cats = list(categories)
    known = set(cats)
    extra = sorted({str(v) for v in pd.unique(clean) if v is not None and v not in known})
    if extra:
        clean = np.array([None if v is None else (v if v in known else str(v)) for v in clean], dtype=object)
    return pd.Categorical(clean, categories=cats + extra)


@functools.lru_cache(maxsize=256)
def _category_plan(categories: tuple[str, ...]) -> tuple[pd.CategoricalDtype, pd.Index]:
    """The dtype of a code table's categoricals, and an index of plain objects to look values up in (an index of
    Arrow text would convert itself for every look-up)."""
    return pd.CategoricalDtype(categories=list(categories)), pd.Index(list(categories), dtype=object)


def text(values: Sequence[Any] | np.ndarray[Any, Any]) -> Any:
    """Text values as pandas' text dtype ("" is missing)."""
    dtype: Any = text_dtype()
    clean = _blanks_missing(values)
    arrow = _arrow_text(clean) if getattr(dtype, "storage", None) == "pyarrow" else None
    if arrow is not None:
        return pd.array(arrow, dtype=dtype)
    try:
        return pd.array(clean, dtype=dtype)
    except (TypeError, ValueError):  # a non-text value: keep its text
        return pd.array([None if v is None else str(v) for v in clean], dtype=dtype)


def _arrow_text(clean: np.ndarray[Any, Any]) -> Any:
    """`clean` as an Arrow text array when it holds text and missing values only (what `pd.array` would build,
    20 times faster: it need not look at every value in Python); None otherwise (numbers, bytes, ...)."""
    import pyarrow as pa

    try:
        arrow = pa.array(clean, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    if pa.types.is_null(arrow.type) or pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type):
        return arrow.cast(pa.large_string())
    return None


def number(values: Sequence[Any] | np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
    return pd.to_numeric(pd.Series(_blanks_missing(values), dtype=object), errors="coerce")\
        .to_numpy(dtype=np.float64, na_value=np.nan)


# ---- lead results: flat names of dqkit.contract.lead_columns.RESULT_COLUMNS

LEAD_CATEGORIES: Final[Mapping[str, tuple[str, ...]]] = {
    "result_code": tuple(codes.RESULT_CODES),
    "result_type": ("STATUS", "ERROR", "FAILED"),
    "result_category": (codes.SPOOF_CATEGORY,),
    "result_meaning": _unique(rc.condition for rc in codes.RESULT_CODES.values()),
    "outcome": (*(o.value for o in codes.Outcome), NOT_PROCESSED),
    "phone_status": tuple(codes.PHONE_STATUSES),
    "phone_desc": _unique(codes.PHONE_STATUSES.values()),
    "score_result": tuple(codes.SCORE_RESULTS),
    "score_desc": _unique(s.meaning for s in codes.SCORE_RESULTS.values()),
    "score_match_level": _unique(m.value for m in codes.MatchLevel),
    "score_line_class": _unique(c.value for c in codes.LineClass),
    "score_validity": _unique(v.value for v in codes.Validity),
    "business_name_ind": tuple(codes.BUSINESS_NAME_IND),
    "std_geomatch": tuple(codes.GEOMATCH),
    "std_address_type": tuple(codes.ADDRESS_TYPES),
    "std_address_code_meaning": _unique(codes.ADDRESS_CODES.values()),
    "std_geomatch_meaning": _unique(codes.GEOMATCH.values()),
    "std_address_type_meaning": _unique(codes.ADDRESS_TYPES.values()),
    "std_ziptype": _unique(codes.ZIPTYPES),
    "std_matchzipfive": tuple(codes.MATCHZIP_FLAGS),
    "std_matchzipnine": tuple(codes.MATCHZIP_FLAGS),
    "business_name_ind_meaning": _unique(codes.BUSINESS_NAME_IND.values()),
    "els_address_verification": tuple(codes.RESIDENTIAL_ADDRESS_VERIFICATION),
    "els_address_verification_meaning": _unique(codes.RESIDENTIAL_ADDRESS_VERIFICATION.values()),
    "els_phone_verification": tuple(codes.SCORE_RESULTS),
    "els_phone_verification_meaning": _unique(s.meaning for s in codes.SCORE_RESULTS.values()),
    "els_address_high_risk": tuple(codes.HIGH_RISK_FLAGS),
    "els_phone_high_risk": tuple(codes.HIGH_RISK_FLAGS),
    "rpa_status": tuple(codes.EXECUTION_STATUS_FLAGS),
    "rpa_status_meaning": _unique(codes.EXECUTION_STATUS_FLAGS.values()),
    "s2_match_type": tuple(codes.MATCH_TYPES),
    "s2_match_type_meaning": _unique(codes.MATCH_TYPES.values()),
}
LEAD_NUMBERS: Final = frozenset({"std_lat", "std_lng"})


def transpose_rows(rows: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, np.ndarray[Any, Any]]:
    """Column name -> object array of its values ("" where a row lacks it)."""
    n, width = len(rows), len(names)
    column = {name: k for k, name in enumerate(names)}
    if not n or width < 2 or len(column) < width:  # (a name given twice: each gets its column)
        return {name: np.array([r.get(name, "") for r in rows], dtype=object) for name in names}
    # Rows come in a few shapes (which groups of columns their answer holds): the rows of one shape fill their
    # block of a 2-D array row by row (numpy need not discover a shape), with the values picked in one go.
    shapes: dict[tuple[str, ...], list[int]] = {}
    for i, r in enumerate(rows):
        shapes.setdefault(tuple(r), []).append(i)
    matrix = np.empty((n, width), dtype=object)
    if len(shapes) > 1 or not column.keys() <= set(next(iter(shapes))):
        matrix.fill("")  # some row lacks a name: its cell is ""
    for keys, at in shapes.items():
        present = [k for k in keys if k in column]
        if not present:
            continue
        pick = operator.itemgetter(*present)
        block = np.empty((len(at), len(present)), dtype=object)
        for j, i in enumerate(at):
            block[j] = pick(rows[i])
        matrix[np.ix_(at, [column[k] for k in present])] = block
    return {name: matrix[:, k] for k, name in enumerate(names)}


def typed_columns(rows: Sequence[Mapping[str, Any]], names: Sequence[str],
                  categories: Mapping[str, Sequence[str]], numbers: frozenset[str] = frozenset(),
                  flags: frozenset[str] = frozenset(), integers: frozenset[str] = frozenset()) -> pd.DataFrame:
    """A frame of `names` (in that order) from flat `rows`, each column typed as the module docstring says."""
    columns = transpose_rows(rows, names)
    data: dict[str, Any] = {}
    for name in names:
        values = columns[name]
        if name in categories:
            data[name] = categorical(values, categories[name])
        elif name in numbers:
            data[name] = number(values)
        elif name in integers:
            data[name] = pd.array([None if v in ("", None) else int(v) for v in values.tolist()], dtype="Int64")
        elif name in flags:
            data[name] = pd.array([None if v is None else bool(v) for v in values.tolist()], dtype="boolean")
        else:
            data[name] = text(values)
    return pd.DataFrame(data, index=pd.RangeIndex(len(rows)))


# ---- address results

ADDRESS_CATEGORIES: Final[Mapping[str, tuple[str, ...]]] = {
    "confidence": tuple(c.value for c in Confidence),
    "confidence_meaning": _unique(CONFIDENCE_MEANINGS.values()),
    "match_type": tuple(m.value for m in MatchType),
    "match_confidence": tuple(m.value for m in MatchConfidence),
}
