"""Flat rows <-> leads: forgiving column names in, flat result columns out.

The CLI (`dqkit verify`) and the DataFrame accessors both go through these functions, so `First Name`, `fname`
and `FIRST_NAME` mean the same field everywhere, and a result column has one name and one meaning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_flat import CORE_COLUMNS, RESULT_COLUMNS, error_row, flatten_message
from dqkit.contract.lead_input import normalize_lead

# Seed field -> accepted spellings (compared after lower-casing and dropping everything but letters and digits).
ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "PREFIX": ("prefix", "title", "salutation", "nameprefix"),
    "FIRST_NAME": ("firstname", "first", "fname", "givenname", "forename"),
    "MIDDLE_NAME": ("middlename", "middle", "mname", "middleinitial", "mi"),
    "LAST_NAME": ("lastname", "last", "lname", "surname", "familyname"),
    "SUFFIX": ("suffix", "namesuffix", "generation"),
    "FULL_NAME": ("fullname", "name", "contactname", "customername", "leadname"),
    "BUSINESS_NAME": ("businessname", "company", "companyname", "business", "organization", "organisation",
                      "firm", "employer"),
    "ADDRESS_TYPE": ("addresstype",),
    "STREET1": ("street1", "street", "address", "address1", "addressline1", "addr1", "streetaddress",
                "addressline"),
    "STREET2": ("street2", "address2", "addressline2", "addr2", "apt", "apartment", "unit", "suite"),
    "CITY": ("city", "town", "locality", "municipality"),
    "STATE": ("state", "st", "statecode", "province", "region"),
    "ZIP": ("zip", "zipcode", "zip5", "postalcode", "postcode", "postal"),
    "ZIPPLUS": ("zipplus", "zip4", "zipplus4", "plus4"),
    "COUNTY": ("county",),
    "COUNTRY": ("country", "countrycode"),
    "PHONE_TYPE": ("phonetype",),
    "PHONE_NUMBER": ("phonenumber", "phone", "telephone", "tel", "phone1", "mobile", "cell", "cellphone",
                     "homephone", "workphone"),
    "PHONE_EXTENSION": ("phoneextension", "extension", "ext"),
    "PHONE_COUNTRY_CODE": ("phonecountrycode",),
    "PARTNER_ID": ("partnerid", "partner", "leadsource", "source", "vendor", "vendorid"),
    "CLIENT_ID": ("clientid", "client"),
    "CUST_REF_NO": ("custrefno", "customerreference", "customerref", "reference", "refno", "leadid", "id"),
}
_FIELD_SET: Final = frozenset(ALIASES)
__all__ = ["ALIASES", "CORE_COLUMNS", "RESULT_COLUMNS", "cell_text", "error_row", "flatten_message", "lead_from_row",
           "match_by_alias", "resolve_columns"]
_PHONE_KEYS: Final = ("PHONE_TYPE", "PHONE_NUMBER", "PHONE_EXTENSION", "PHONE_COUNTRY_CODE")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def resolve_columns(columns: Sequence[str], mapping: Mapping[str, str] | None = None) -> dict[str, str]:
    """Map seed fields to input columns: explicit `mapping` (field -> column) first, then forgiving names.

    A field is matched by the first column whose normalized name is the field's own name or one of its aliases,
    aliases earlier in the list winning. Raises InputError for a mapping that names an unknown field or column.
    """
    result: dict[str, str] = {}
    for field, column in (mapping or {}).items():
        key = field.upper()
        if key not in _FIELD_SET:
            raise InputError(f"unknown lead field {field!r} in the column mapping; known: {', '.join(ALIASES)}")
        if column not in columns:
            raise InputError(f"column {column!r} (mapped to {key}) is not in the input")
        result[key] = column
    return match_by_alias(columns, ALIASES, result)


def match_by_alias(columns: Sequence[str], aliases: Mapping[str, tuple[str, ...]],
                   found: dict[str, str]) -> dict[str, str]:
    """Add to `found` (field -> column) every field not in it yet whose own name or alias names a free column.

    Names are compared lower-cased with everything but letters and digits dropped; earlier aliases win, and a
    column feeds one field only. Shared by the lead and the address column finders.
    """
    taken = set(found.values())
    by_norm: dict[str, str] = {}
    for c in columns:
        by_norm.setdefault(_norm(str(c)), str(c))
    for field, names in aliases.items():
        if field in found:
            continue
        for alias in (_norm(field), *names):
            col = by_norm.get(alias)
            if col is not None and col not in taken:
                found[field] = col
                taken.add(col)
                break
    return found


def cell_text(value: Any) -> str:
    """A table cell as text: None, NaN and pandas' NA are "", 94110.0 is "94110", surrounding blanks dropped."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if value.is_integer():
            return str(int(value))
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing markers, without importing pandas
        return ""
    return str(value).strip()  # the text "None" or "nan" typed into a form is a value, not a missing one


def lead_from_row(row: Mapping[str, Any], columns: Mapping[str, str]) -> LeadRequest:
    """Build a LeadRequest from one flat row, given the field -> column map of `resolve_columns`.

    Fields are put in the schema's form by `dqkit.contract.lead_input.normalize_lead` (phones as digits with the
    extension apart, "94110-1234" split into ZIP and ZIPPLUS, state names as codes, blanks trimmed); the input
    row itself is never changed, so its raw text stays beside the results.
    """
    values = {f: cell_text(row.get(c)) for f, c in columns.items()}
    phone = {k: values.pop(k) for k in _PHONE_KEYS if k in values}
    kw: dict[str, Any] = {k.lower(): v for k, v in values.items()}
    for k in ("address_type",):
        if kw.get(k):
            kw[k] = _TYPE_WORD.get(kw[k].strip().upper(), kw[k].strip().upper())
    phones: tuple[Phone, ...] = ()
    if any(phone.values()):
        ptype = phone.get("PHONE_TYPE", "").strip()
        phones = (Phone(phone_type=_TYPE_WORD.get(ptype.upper(), ptype.upper()),
                        phone_number=phone.get("PHONE_NUMBER", ""),
                        phone_extension=phone.get("PHONE_EXTENSION", ""),
                        phone_country_code=phone.get("PHONE_COUNTRY_CODE", "")),)
    return normalize_lead(LeadRequest(**kw, phones=phones))


_TYPE_WORD: Final = {"HOME": "H", "BUSINESS": "B", "RESIDENTIAL": "H", "WORK": "B"}
