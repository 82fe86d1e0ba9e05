"""Flat rows <-> leads: forgiving column names in, flat result columns out.

The CLI (`dqkit verify`) and the DataFrame accessors both go through these functions, so `First Name`, `fname`
and `FIRST_NAME` mean the same field everywhere, and a result column has one name and one meaning.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_flat import CORE_COLUMNS, RESULT_COLUMNS, error_row, flatten_message
from dqkit.contract.lead_input import normalize_lead

# Seed field -> accepted spellings (compared after lower-casing and dropping everything but letters and digits).
# Besides the plain names, the default headers of the common CRM and marketing exports (Salesforce, HubSpot,
# Dynamics 365, Zoho, Pipedrive, Marketo, Mailchimp; one fixture each in tests/lead/crm_exports/). Split names
# ("State/Province", "Mailing Zip/Postal Code", "Address 1: City", "Person - Phone - Work") are read by
# `header_forms`. "title" is not a name prefix: in every CRM export it is the job title; a lead's "region" is not
# its state: Mailchimp's REGION is where the subscriber's IP address was placed.
ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "PREFIX": ("prefix", "salutation", "nameprefix"),
    "FIRST_NAME": ("firstname", "first", "fname", "givenname", "forename"),
    "MIDDLE_NAME": ("middlename", "middle", "mname", "middleinitial", "mi"),
    "LAST_NAME": ("lastname", "last", "lname", "surname", "familyname"),
    "SUFFIX": ("suffix", "namesuffix", "generation"),
    "FULL_NAME": ("fullname", "name", "contactname", "customername", "leadname", "personname"),
    "BUSINESS_NAME": ("businessname", "company", "companyname", "business", "organization", "organisation",
                      "firm", "employer", "accountname", "organizationname", "organisationname", "companyaccount"),
    "ADDRESS_TYPE": ("addresstype",),
    "STREET1": ("street1", "street", "address", "address1", "addressline1", "addr1", "streetaddress",
                "addressline", "addressstreet", "streetline1", "mailingaddress", "streetroadname", "streetname"),
    "STREET2": ("street2", "address2", "addressline2", "addr2", "apt", "apartment", "unit", "suite",
                "streetline2", "apartmentsuiteno"),
    "HOUSE_NUMBER": ("housenumber", "streetnumber", "buildingnumber"),
    "CITY": ("city", "town", "locality", "municipality", "citytownvillagelocality"),
    "STATE": ("state", "st", "statecode", "province", "stateprovince", "stateregion", "statecounty"),
    "ZIP": ("zip", "zipcode", "zip5", "postalcode", "postcode", "postal", "zippostalcode", "billingcode"),
    "ZIPPLUS": ("zipplus", "zip4", "zipplus4", "plus4"),
    "COUNTY": ("county",),
    "COUNTRY": ("country", "countrycode", "countryregion"),
    "PHONE_TYPE": ("phonetype",),
    "PHONE_NUMBER": ("phonenumber", "phone", "telephone", "tel", "phone1", "businessphone", "workphone",
                     "mainphone", "phonework", "officephone", "mobile", "mobilephone", "mobilephonenumber",
                     "phonemobile", "cell", "cellphone", "homephone", "phonehome", "phoneother"),
    "PHONE_OTHER": ("mobile", "mobilephone", "mobilephonenumber", "phonemobile", "cell", "cellphone", "homephone",
                    "phonehome", "phoneother", "otherphone"),
    "PHONE_EXTENSION": ("phoneextension", "extension", "ext"),
    "PHONE_COUNTRY_CODE": ("phonecountrycode",),
    "PARTNER_ID": ("partnerid",),
    "CLIENT_ID": ("clientid",),
    "LEAD_SOURCE": ("partnerid", "partner", "leadsource", "source", "vendor", "vendorid", "originalsource"),
    "CUST_REF_NO": ("custrefno", "customerreference", "customerref", "reference", "refno", "leadid", "id",
                    "recordid", "contactid", "personid"),
}
# HOUSE_NUMBER and PHONE_OTHER are no fields of the service: a house number kept apart from its street
# (Pipedrive's "House number" beside "Street/road name") is put before STREET1; a second phone column (Salesforce's
# "Mobile" beside "Phone") answers for a lead whose first is empty. LEAD_SOURCE is the analyst's (audits, drift,
# reports) and is never sent.
_COMPOSED: Final = frozenset({"HOUSE_NUMBER", "PHONE_OTHER", "LEAD_SOURCE"})
# The account's ids are the user's, not a column's: sent only when a mapping names their column ("--map
# PARTNER_ID=...", mapping={"PARTNER_ID": ...}); a "Lead Source" or even a "PARTNER_ID" column is found as LEAD_SOURCE.
EXPLICIT_ONLY: Final = frozenset({"PARTNER_ID", "CLIENT_ID"})
# Leading header segments that only say whose field it is ("Person - Name", "Address 1: City").
_RECORD_SEGMENTS: Final = frozenset({"person", "lead", "contact", "address", "address1", "postaladdress",
                                     "primaryaddress"})
# Leading words that only say which of a record's addresses it is ("Mailing Street", "Billing Zip/Postal Code").
_ADDRESS_ROLES: Final = ("mailing", "billing", "primary", "main", "business")
# Leading words of a record's other addresses: such a header is read whole only ("Shipping Zip/Postal Code" is
# not the ZIP).
_OTHER_ROLES: Final = ("shipping", "other", "alternate", "alternative", "secondary", "previous")
_FIELD_SET: Final = frozenset(ALIASES)
__all__ = [
    "ALIASES",
    "CORE_COLUMNS",
    "EXTENSION_COLUMN",
    "RESULT_COLUMNS",
    "cell_text",
    "error_row",
    "flatten_message",
    "header_forms",
    "lead_from_row",
    "match_by_alias",
    "one_line_address",
    "phone_extensions",
    "resolve_columns",
]
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
    by_name = {f: names for f, names in ALIASES.items() if f not in EXPLICIT_ONLY}
    return match_by_alias(columns, by_name, result)


def match_by_alias(columns: Sequence[str], aliases: Mapping[str, tuple[str, ...]],
                   found: dict[str, str]) -> dict[str, str]:
    """Add to `found` (field -> column) every field not in it yet whose own name or alias names a free column.

    Names are compared lower-cased with everything but letters and digits dropped; earlier aliases win, and a
    column feeds one field only. Whole headers are matched first; then the forms `header_forms` reads from split
    headers ("State/Province" -> state, "Mailing Street" -> street), so a header that names a field outright
    always wins. Shared by the lead and the address column finders.
    """
    taken = set(found.values())
    whole: dict[str, str] = {}
    derived: dict[str, str] = {}
    for c in columns:
        whole.setdefault(_norm(str(c)), str(c))
    headers = [str(c) for c in columns]
    for c in headers:
        if any(o.startswith(c + " - ") for o in headers):
            continue  # a whole value whose parts have columns of their own ("Person - Postal address")
        for form in header_forms(c)[1:]:
            derived.setdefault(form, c)
    for by_norm in (whole, derived):
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


def header_forms(header: str) -> list[str]:
    """The names a column header may be read as, whole header first: "Mailing Zip/Postal Code" -> mailingzip
    postalcode, mailingzip, postalcode, zip; "Address 1: State/Province" -> ..., state, province; "Person - Phone
    - Work" -> ..., phonework. Leading segments that name the record ("Person - ", "Address 1: ") and words that
    name which address ("Mailing", "Billing") are dropped; "Other Street" and "Shipping City" keep theirs."""
    forms = [_norm(header)]
    if forms[0].startswith(_OTHER_ROLES):
        return forms
    segments = [s for s in re.split(r"\s+-\s+|:", header) if _norm(s)]
    while len(segments) > 1 and _norm(segments[0]) in _RECORD_SEGMENTS:
        segments.pop(0)
    tail = [*segments]
    candidates = [_norm("".join(tail)), *(_norm(p) for p in tail[-1].split("/"))] if tail else []
    for form in candidates:
        forms.append(form)
        for role in _ADDRESS_ROLES:
            if form.startswith(role) and len(form) > len(role):
                forms.append(form[len(role):])
    return list(dict.fromkeys(f for f in forms if f))


def cell_text(value: Any) -> str:
    """A table cell as text: None, NaN and pandas' NA are "", 94110.0 is "94110", surrounding blanks dropped."""
    if type(value) is str:  # the common case, first
        return value.strip()
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
    other_phone = values.pop("PHONE_OTHER", "")
    if other_phone and not values.get("PHONE_NUMBER"):
        values["PHONE_NUMBER"] = other_phone
    house = values.pop("HOUSE_NUMBER", "")
    if house and values.get("STREET1") and not values["STREET1"].startswith(house):
        values["STREET1"] = f"{house} {values['STREET1']}"
    if values.get("STREET1") and not values.get("ZIP"):
        values.update(one_line_address(values["STREET1"]))
    phone = {k: values.pop(k) for k in _PHONE_KEYS if k in values}
    kw: dict[str, Any] = {_ATTRIBUTE.get(k) or k.lower(): v for k, v in values.items() if k not in _COMPOSED}
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


EXTENSION_COLUMN: Final = "phone_extension"  # result column: PHONE_EXTENSION as read and sent


def phone_extensions(columns: Mapping[str, Sequence[Any]], fields: Mapping[str, str]) -> list[str] | None:
    """PHONE_EXTENSION of each row as `lead_from_row` reads it and sends it ("x12" after the number, or its own
    column), so the extension stays beside the results (the service answers with the number only); None when
    the rows hold no phone column."""
    from dqkit.contract.lead_input import split_phone

    ext_col = columns.get(fields.get("PHONE_EXTENSION", ""))
    number_col = columns.get(fields.get("PHONE_NUMBER", ""))
    other_col = columns.get(fields.get("PHONE_OTHER", ""))
    if ext_col is None and number_col is None and other_col is None:
        return None
    n = len(next(c for c in (ext_col, number_col, other_col) if c is not None))
    read = functools.lru_cache(maxsize=65536)(split_phone)
    out: list[str] = []
    for i in range(n):
        own = cell_text(ext_col[i]) if ext_col is not None else ""
        number = cell_text(number_col[i]) if number_col is not None else ""
        if not number and other_col is not None:
            number = cell_text(other_col[i])
        out.append(own or (read(number)[1] if number else ""))  # its own column wins, as in `normalize_lead`
    return out


_ZIP_PART: Final = re.compile(r"^\d{5}(?:-?\d{4})?$")


def one_line_address(street1: str) -> dict[str, str]:
    """The parts of an address exported in one cell with its parts apart (Mailchimp's "Address": street, line 2,
    city, state, ZIP and country joined by two spaces): STREET1, STREET2, CITY, STATE and ZIP, when the cell has a
    ZIP at its place; else nothing, and the cell stays the street."""
    parts = [p.strip() for p in re.split(r"\s{2,}|\t", street1) if p.strip()]
    if len(parts) < 3:
        return {}
    if parts[-1].isalpha() and len(parts[-1]) in (2, 3) and not _ZIP_PART.match(parts[-1]):
        parts = parts[:-1]  # the country ("US", "USA")
    if len(parts) < 3 or not _ZIP_PART.match(parts[-1]):
        return {}
    zip_, state, city, street = parts[-1], parts[-2], parts[-3], parts[:-3]
    if not street:
        return {}
    out = {"STREET1": street[0], "ZIP": zip_, "STATE": state, "CITY": city}
    if len(street) > 1:
        out["STREET2"] = " ".join(street[1:])
    return out


_TYPE_WORD: Final = {"HOME": "H", "BUSINESS": "B", "RESIDENTIAL": "H", "WORK": "B"}
_ATTRIBUTE: Final = {f: f.lower() for f in ALIASES}  # FIRST_NAME -> first_name, the LeadRequest attribute
