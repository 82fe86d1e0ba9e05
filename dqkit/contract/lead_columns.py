"""Flat rows <-> leads: forgiving column names in, flat result columns out.

The CLI (`dqkit verify`) and the DataFrame accessors both go through these functions, so `First Name`, `fname`
and `FIRST_NAME` mean the same field everywhere, and a result column has one name and one meaning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from dqkit.contract import codes
from dqkit.contract.errors import InputError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest, Phone
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


# Flat result columns, in output order, with what each holds (for docs and the report).
RESULT_COLUMNS: Final[dict[str, str]] = {
    "result_code": "Message.RESULT_CODE (E100..S102)",
    "result_type": "Message.TYPE: ERROR or STATUS",
    "result_category": "Message.CATEGORY (SPOOF SOFT FAILURE for E100)",
    "result_value": "Message.VALUE: the service's text, naming what was wrong",
    "result_meaning": "meaning of the result code (seed section 7)",
    "outcome": "outcome class: caller fault, account configuration, service fault, lead quality, "
               "verified negative, success",
    "transaction_id": "TRANSACTION_ID",
    "phone_status": "Stage1Data.PHONE_STATUS (E800..E810)",
    "phone_desc": "meaning of PHONE_STATUS",
    "score_result": "Stage1Data.SCORE_RESULT",
    "score_desc": "meaning of SCORE_RESULT",
    "score_match_level": "SCORE_RESULT decoded: what matched",
    "score_line_class": "SCORE_RESULT decoded: residential, business, mixed use",
    "score_validity": "SCORE_RESULT decoded: valid, or why the phone could not be scored",
    "phone_numbers": "Stage1Data.PHONE_NUMBER, space-separated",
    "name_prefix_cd": "NameParser.PREFIX_CD",
    "name_first": "NameParser.FIRST_NAME",
    "name_middle": "NameParser.MIDDLE_NAME",
    "name_last": "NameParser.LAST_NAME",
    "name_suffix_cd": "NameParser.SUFFIX_CD",
    "business_name_ind": "NameParser.BUSINESS_NAME_IND (Y/N)",
    "business_name": "NameParser.BUSINESS_NAME",
    "business_title": "NameParser.BUSINESS_TITLE",
    "std_full_address": "StandardizedAddress.FULL_ADDRESS",
    "std_street1": "StandardizedAddress.STREET1",
    "std_street2": "StandardizedAddress.STREET2",
    "std_city": "StandardizedAddress.CITY",
    "std_state": "StandardizedAddress.STATE",
    "std_zip": "StandardizedAddress.ZIP",
    "std_zipplus": "StandardizedAddress.ZIPPLUS",
    "std_county": "StandardizedAddress.COUNTY",
    "std_fipscode": "StandardizedAddress.FIPSCODE",
    "std_lat": "StandardizedAddress.GEO_LAT",
    "std_lng": "StandardizedAddress.GEO_LNG",
    "std_geomatch": "StandardizedAddress.GEOMATCH",
    "std_address_type": "StandardizedAddress.ADDRESS_TYPE",
    "std_address_code": "StandardizedAddress.ADDRESS_CODE",
    "std_address_code_meaning": "meaning of ADDRESS_CODE",
    "std_error_status": "StandardizedAddress.ADDRESS_ERROR_STATUS (two-byte codes)",
    "std_error_codes": "the two-byte codes of ADDRESS_ERROR_STATUS, space-separated",
}


def flatten_message(msg: ELSGenericMessage) -> dict[str, str]:
    """The flat result columns of one message (see RESULT_COLUMNS); "" where the message has no value."""
    m = msg.message
    rc = codes.RESULT_CODES.get(m.result_code)
    out = dict.fromkeys(RESULT_COLUMNS, "")
    out.update(
        result_code=m.result_code,
        result_type=m.type,
        result_category=m.category,
        result_value=m.value,
        result_meaning=rc.condition if rc else "",
        outcome=rc.outcome.value if rc else "",
        transaction_id=str(msg.transaction_id),
    )
    s1 = msg.stage1_data
    if s1 is not None:
        out.update(phone_status=s1.phone_status, phone_desc=s1.phone_desc, score_result=s1.score_result,
                   score_desc=s1.score_desc, phone_numbers=" ".join(s1.phone_number))
        sc = codes.SCORE_RESULTS.get(s1.score_result)
        if sc is not None:
            out.update(score_match_level=sc.match_level.value, score_line_class=sc.line_class.value,
                       score_validity=sc.validity.value)
        n = s1.name_parser
        if n is not None:
            out.update(name_prefix_cd=n.prefix_cd, name_first=n.first_name, name_middle=n.middle_name,
                       name_last=n.last_name, name_suffix_cd=n.suffix_cd, business_name_ind=n.business_name_ind,
                       business_name=n.business_name, business_title=n.business_title)
    sa = msg.standardized_address
    if sa is not None:
        out.update(
            std_full_address=sa.full_address, std_street1=sa.street1, std_street2=sa.street2, std_city=sa.city,
            std_state=sa.state, std_zip=sa.zip, std_zipplus=sa.zipplus, std_county=sa.county,
            std_fipscode=sa.fipscode, std_lat=sa.geo_lat, std_lng=sa.geo_lng, std_geomatch=sa.geomatch,
            std_address_type=sa.address_type, std_address_code=sa.address_code,
            std_address_code_meaning=codes.address_code_meaning(sa.address_code) if sa.address_code else "",
            std_error_status=sa.address_error_status,
            std_error_codes=" ".join(codes.split_address_error_status(sa.address_error_status)),
        )
    return out


def error_row(exc: BaseException) -> dict[str, str]:
    """The flat columns of a lead that got no message (transport failure, ...): the error is recorded."""
    out = dict.fromkeys(RESULT_COLUMNS, "")
    out.update(result_type="FAILED", result_value=f"{type(exc).__name__}: {exc}", outcome="not processed")
    return out
