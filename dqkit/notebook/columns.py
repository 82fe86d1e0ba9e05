"""Forgiving column names for address tables, built on the lead aliases so that `zip`, `Zip Code` and `postcode`
mean the same column in `df.leads.verify()`, `df.addr.validate()` and `dqkit verify`.

An address is read from STREET1 (which may hold the whole address on one line: `address`, `full_address`,
`single_line`), STREET2, CITY, STATE, ZIP and COUNTRY. The parts present are sent, in that order, as the free-text
`components.unspecified` of the address service (seed 001 section 2.1).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from dqkit.contract.address import ISO3_BY_ISO2
from dqkit.contract.errors import InputError
from dqkit.contract.lead_columns import ALIASES, match_by_alias
from dqkit.contract.lead_columns import cell_text as lead_cell_text

ADDRESS_FIELDS: Final = ("STREET1", "STREET2", "CITY", "STATE", "ZIP", "COUNTRY")
ADDRESS_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "STREET1": (*ALIASES["STREET1"], "fulladdress", "singleline", "oneline", "addresstext", "searchtext",
                "query", "text", "line1"),
    "STREET2": (*ALIASES["STREET2"], "line2"),
    "CITY": ALIASES["CITY"],
    "STATE": (*ALIASES["STATE"], "region"),  # OpenAddresses' name for the state
    "ZIP": ALIASES["ZIP"],
    "COUNTRY": (*ALIASES["COUNTRY"], "countryiso", "iso3", "countryiso3"),
}
# Names a caller may use in `mapping` for a field, besides the field itself.
_MAPPING_SYNONYMS: Final = {"ADDRESS": "STREET1", "LINE1": "STREET1", "LINE2": "STREET2", "POSTAL_CODE": "ZIP",
                            "POSTCODE": "ZIP", "REGION": "STATE", "LOCALITY": "CITY", "COUNTRY_ISO": "COUNTRY"}
_COUNTRY_NAMES: Final = {"UNITED STATES": "USA", "UNITED STATES OF AMERICA": "USA", "US": "USA", "U S": "USA",
                         "CANADA": "CAN", "UNITED KINGDOM": "GBR", "UK": "GBR", "GREAT BRITAIN": "GBR",
                         "ENGLAND": "GBR", "SCOTLAND": "GBR", "WALES": "GBR"}


def resolve_address_columns(columns: Iterable[object], mapping: Mapping[str, str] | None = None) -> dict[str, str]:
    """Address field -> input column: `mapping` first (field or synonym -> column), then forgiving names.

    Raises InputError when the mapping names an unknown field or column, or when no column holds a street or a
    single-line address.
    """
    names = [str(c) for c in columns]
    result: dict[str, str] = {}
    for field, column in (mapping or {}).items():
        key = field.upper().strip()
        key = _MAPPING_SYNONYMS.get(key, key)
        if key not in ADDRESS_ALIASES:
            raise InputError(f"unknown address field {field!r} in the column mapping; known: "
                             f"{', '.join(ADDRESS_FIELDS)} (or ADDRESS for a single-line address)")
        if column not in names:
            raise InputError(f"column {column!r} (mapped to {key}) is not in the input")
        result[key] = column
    match_by_alias(names, ADDRESS_ALIASES, result)
    if "STREET1" not in result and not ({"CITY", "ZIP"} & set(result)):
        shown = ", ".join(map(repr, names[:12])) + (" ..." if len(names) > 12 else "")
        raise InputError(f"no address columns found among {shown or 'no columns'}: name them like address, "
                         "street, city, state, zip, or pass mapping={'ADDRESS': 'your column', ...}")
    return {f: result[f] for f in ADDRESS_FIELDS if f in result}


def cell_text(value: Any) -> str:
    """A cell as text (see `lead_columns.cell_text`); address cells also treat the texts pandas writes for
    missing values ("nan", "None", "<NA>", "NaT", e.g. after `astype(str)`) as missing: no address reads so."""
    text = lead_cell_text(value)
    return "" if text in ("nan", "NaN", "None", "<NA>", "NaT") else text


def country_iso3(value: str, default: str) -> str:
    """A country cell as the three-letter code the service takes ("US", "United States" -> "USA")."""
    v = re.sub(r"[^A-Z ]", " ", value.upper()).strip()
    v = re.sub(r"\s+", " ", v)
    if not v:
        return default
    if v in _COUNTRY_NAMES:
        return _COUNTRY_NAMES[v]
    if len(v) == 2:
        return ISO3_BY_ISO2.get(v, v)
    return v


def address_parts(row: Mapping[str, Any]) -> list[str]:
    """The free-text parts of one row, in address order: street, secondary, city, "STATE ZIP"."""
    street1, street2, city, state, zip_ = (cell_text(row.get(f)) for f in ("STREET1", "STREET2", "CITY", "STATE",
                                                                           "ZIP"))
    if zip_.isdigit() and 3 <= len(zip_) < 5:  # a ZIP that lost its leading zeros in a numeric column
        zip_ = zip_.zfill(5)
    last = " ".join(p for p in (state, zip_) if p)
    return [p for p in (street1, street2, city, last) if p]


class ColumnWarning(UserWarning):
    """A lead field the checks need (ZIP, state, street) has no column: said before any lead is run."""


# Lead fields whose absence makes every lead fail or go unchecked: E601 without a ZIP; no street check without a
# street; the state cross-check without a state.
NEEDED_LEAD_FIELDS: Final = {"ZIP": "ZIP", "STATE": "state", "STREET1": "street"}


# How to name a column, in the caller's terms ({field}: the first field missing).
PYTHON_MAP_HINT: Final = "mapping={{'{field}': 'your column', ...}}"
CLI_MAP_HINT: Final = "--map {field}='your column' (repeatable, one per field)"


def missing_lead_columns(fields: Mapping[str, str], columns: Iterable[object],
                         map_hint: str = PYTHON_MAP_HINT) -> str | None:
    """One warning naming the needed lead fields no column was found for, and the columns present; None when
    all are found. (A ZIP, state and city inside a one-line street column are read from it per row.)"""
    missing_fields = [field for field in NEEDED_LEAD_FIELDS if field not in fields]
    missing = [NEEDED_LEAD_FIELDS[f] for f in missing_fields]
    if not missing:
        return None
    names = [str(c) for c in columns]
    shown = ", ".join(map(repr, names[:40])) + (f" and {len(names) - 40} more" if len(names) > 40 else "")
    also = (f" (a one-line address in {fields['STREET1']!r} with its ZIP is read whole)"
            if "STREET1" in fields and "ZIP" not in fields else "")
    how = map_hint.format(field=missing_fields[0])
    return f"no {' or '.join(missing)} column found{also}; columns present: {shown or 'none'}. Name it with {how}"


def describe_lead_columns(fields: Mapping[str, str]) -> str:
    """The chosen mapping, one `FIELD <- 'column'` a line, as `dqkit verify` prints it."""
    width = max((len(f) for f in fields), default=0)
    notes = {"LEAD_SOURCE": "  (kept for audits and drift; never sent)"}
    return "\n".join(f"  {field:<{width}} <- {column!r}{notes.get(field, '')}" for field, column in fields.items())
