"""`s.addr.standardize()` and `df.addr.standardize()`: USPS Publication 28 form of US addresses, offline.

The US standardizer (`dqkit.engines.usaddr.standardize`) runs in-process on each distinct address; its
StandardizedAddress is flattened into `std_*` columns named as in `dqkit verify` and `df.leads.verify()`
(`std_full_address`, `std_city`, `std_error_status`, ...), plus the Publication 28 parts of the delivery line,
`std_valid`, `std_reason` (why an address is not valid, in words) and what was corrected. No cache:
standardizing is cheaper than looking an answer up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import pandas as pd

from dqkit.contract import codes
from dqkit.contract.errors import InputError
from dqkit.notebook.columns import cell_text, resolve_address_columns
from dqkit.notebook.dtypes import LEAD_CATEGORIES, typed_columns
from dqkit.notebook.frames import attach, input_columns
from dqkit.notebook.progress import Progress
from dqkit.notebook.settings import options

PREFIX: Final = "std_"
# Two-byte ADDRESS_ERROR_STATUS codes that make an address not valid (as the standardizer decides).
_INVALIDATING: Final = ("57", "58", "59", "30", "61", "64")
# (column, StandardizedAddress attribute), in output order.
_FIELDS: Final = (
    ("full_address", "full_address"), ("street1", "street1"), ("street2", "street2"),
    ("prim_range", "prim_range"), ("predir", "predir"), ("prim_name", "prim_name"), ("suffix", "suffix"),
    ("postdir", "postdir"), ("unit_desig", "unit_desig"), ("sec_range", "sec_range"),
    ("po_box_num", "po_box_num"), ("rr_num", "rr_num"), ("rr_box_num", "rr_box_num"),
    ("city", "city"), ("state", "state"), ("zip", "zip"), ("zipplus", "zipplus"), ("county", "county"),
    ("fipscode", "fipscode"), ("lat", "geo_lat"), ("lng", "geo_lng"), ("geomatch", "geomatch"),
    ("address_type", "address_type"), ("ziptype", "ziptype"), ("address_code", "address_code"),
)
NAMES: Final = (*(c for c, _ in _FIELDS), "address_code_meaning", "error_status", "error_codes",
                "error_meanings", "valid", "reason", "corrected")
_CATEGORIES: Final = {
    "geomatch": LEAD_CATEGORIES["std_geomatch"],
    "address_type": LEAD_CATEGORIES["std_address_type"],
    "address_code_meaning": LEAD_CATEGORIES["std_address_code_meaning"],
    "ziptype": tuple(k for k in codes.ZIPTYPES if k),
}


def reason(result: Any) -> str:
    """Why a standardized address is not valid, in words ("" when it is valid): what was missing, then the
    meanings of the status codes that made it not valid."""
    if result.valid:
        return ""
    a = result.address
    why: list[str] = []
    if not ((a.prim_range and a.prim_name) or a.po_box_num or a.rr_num or a.rr_box_num):
        why.append("no house number and street name")
    if not a.zip:
        if a.city and not a.state:
            why.append("no ZIP, and no state for the city: add either")
        elif not a.city:
            why.append("no ZIP and no city")
        else:
            why.append("no ZIP, and the city and state do not give one")
    parts = codes.split_address_error_status(a.address_error_status)
    why += [f"{c}: {codes.ADDRESS_ERROR_STATUSES.get(c, 'unknown code')}" for c in parts if c in _INVALIDATING]
    if not why:
        why.append("the house number is not on this street in the address reference"
                   if "61" in parts or a.address_code else "the address could not be confirmed")
    return "; ".join(why)


def _flat(text_or_fields: str | Mapping[str, str]) -> dict[str, Any]:
    from dqkit.engines.usaddr import AddressInput, standardize

    if isinstance(text_or_fields, str):
        result = standardize(text_or_fields)
    else:
        f = text_or_fields
        result = standardize(AddressInput(street1=f.get("STREET1", ""), street2=f.get("STREET2", ""),
                                          city=f.get("CITY", ""), state=f.get("STATE", ""), zip=f.get("ZIP", ""),
                                          country=f.get("COUNTRY", "")))
    a = result.address
    out: dict[str, Any] = {col: getattr(a, attr) for col, attr in _FIELDS}
    parts = codes.split_address_error_status(a.address_error_status)
    out.update(
        address_code_meaning=codes.address_code_meaning(a.address_code) if a.address_code else "",
        error_status=a.address_error_status,
        error_codes=" ".join(parts),
        error_meanings="; ".join(codes.ADDRESS_ERROR_STATUSES.get(c, "unknown code") for c in parts),
        valid=result.valid,
        reason=reason(result),
        corrected=", ".join(sorted(result.corrected)),
    )
    return out


def _typed(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return typed_columns(rows, NAMES, _CATEGORIES, numbers=frozenset({"lat", "lng"}), flags=frozenset({"valid"}))


def _run(keys: list[Any], make: Any, n: int) -> pd.DataFrame:
    """Standardize each distinct key once and spread the answers over the `n` rows."""
    index: dict[Any, int] = {}
    positions = [index.setdefault(k, len(index)) for k in keys]
    distinct = list(index)
    rows: list[dict[str, Any]] = []
    with Progress(len(distinct), "standardize addresses", enabled=options.show_progress(None) and n > 5000,
                  unit="address") as bar:
        for k in distinct:
            rows.append(make(k))
            bar.update(1)
    typed = _typed(rows)
    return typed if len(distinct) == n else typed.take(positions).reset_index(drop=True)


def standardize_series(s: pd.Series, *, prefix: str = PREFIX) -> pd.DataFrame:
    """Each value of `s` (a one-line US address) standardized; the Series as the first column, then `std_*`."""
    name = s.name if s.name is not None else "address"
    frame = s.to_frame(name=name)
    texts = [cell_text(v) for v in s.to_numpy(dtype=object)]
    return attach(frame, _run(texts, _flat, len(texts)), prefix)


def standardize_frame(df: pd.DataFrame, *, mapping: Mapping[str, str] | None = None,
                      prefix: str = PREFIX) -> pd.DataFrame:
    """Each row's address (street, city, state, zip columns, found by forgiving names) standardized."""
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    results = {f"{prefix}{n}" for n in NAMES}
    fields = resolve_address_columns([c for c in df.columns if str(c) not in results], mapping)
    sub = input_columns(df, fields)
    arrays = [sub.iloc[:, k].to_numpy(dtype=object) for k in range(sub.shape[1])]
    names = list(fields)
    keys = [tuple(cell_text(v) for v in row) for row in zip(*arrays, strict=True)]
    return attach(df, _run(keys, lambda k: _flat(dict(zip(names, k, strict=True))), len(keys)), prefix)
