"""One ELSGenericMessage -> flat result columns, for every group of the response (seed 000 sections 2.2-2.5).

Columns come in groups. The core columns are in every row; a group's columns are in a row when the message holds
that group (Stage 1, the reverse phone append, the StandardizedAddress, consumer Stage 2, business Stage 2, and
`unparsed`, the members a vendor answer held that dqkit could not place). Every code column whose seed table
exists has a `_meaning` column beside it. Lists become text: codes joined by spaces or "; ", list members of a
repeated group joined by " | " in the same order in every column of the group.

Frames leave out the columns no row filled (`dqkit.notebook.leads`), so a profile that answers PHONE_STATUS shows
no SCORE_* columns and a local answer no Stage 2 columns.
"""

from __future__ import annotations

import functools
import operator
import re
import typing
from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec

from dqkit.contract import codes
from dqkit.contract.lead import (
    BusinessData,
    Coded,
    ELSGenericMessage,
    Livu,
    Person,
    StandardizedAddress,
    ZipData,
)


@functools.cache
def _fields(cls: type) -> tuple[msgspec.structs.FieldInfo, ...]:
    """A struct class's fields, read once per class: `msgspec.structs.fields` resolves every annotation anew
    on each call (about 0.3 ms for StandardizedAddress, 40% of a whole `dqkit verify` when done per lead)."""
    return msgspec.structs.fields(cls)


# Columns in every row; the plots and the report read the code columns among them.
CORE_COLUMNS: Final[dict[str, str]] = {
    "result_code": "Message.RESULT_CODE (E100..S102)",
    "result_type": "Message.TYPE: ERROR or STATUS",
    "result_category": "Message.CATEGORY (SPOOF SOFT FAILURE for E100)",
    "result_value": "Message.VALUE: the service's text, naming what was wrong",
    "result_meaning": "meaning of the result code (seed section 7)",
    "outcome": "outcome class: caller fault, account configuration, service fault, lead quality, "
               "verified negative, success",
    "transaction_id": "TRANSACTION_ID",
}

STAGE1_COLUMNS: Final[dict[str, str]] = {
    "phone_status": "Stage1Data.PHONE_STATUS (E800..E810)",
    "score_result": "Stage1Data.SCORE_RESULT",
    "phone_desc": "meaning of PHONE_STATUS",
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
    "business_name_ind_meaning": "meaning of BUSINESS_NAME_IND",
    "business_name": "NameParser.BUSINESS_NAME",
    "business_title": "NameParser.BUSINESS_TITLE",
    "els_address_verification": "ELSResidentialAddressVerificationResult",
    "els_address_verification_meaning": "meaning of ELSResidentialAddressVerificationResult",
    "els_address_high_risk": "ELSResidentialAddressHighRisk (Y/N/U)",
    "els_address_high_risk_meaning": "meaning of ELSResidentialAddressHighRisk",
    "els_phone_verification": "ELSResidentialPhoneVerificationResult (SCORE_RESULT codes)",
    "els_phone_verification_meaning": "meaning of ELSResidentialPhoneVerificationResult",
    "els_phone_high_risk": "ELSResidentialPhoneHighRisk (Y/N/U)",
    "els_phone_high_risk_meaning": "meaning of ELSResidentialPhoneHighRisk",
    "els_residential_phone_append": "ELSResidentialPhoneAppend",
    "els_business_phone_append": "ELSBusinessPhoneAppend",
}

RPA_COLUMNS: Final[dict[str, str]] = {
    "rpa_status": "REVERSE_PHONE_APPEND.EXECUTION_STATUS_FLAG (A, B, E, P, N)",
    "rpa_status_meaning": "meaning of EXECUTION_STATUS_FLAG",
    "rpa_first_name": "REVERSE_PHONE_APPEND.FIRST_NAME",
    "rpa_last_name": "REVERSE_PHONE_APPEND.LAST_NAME",
    "rpa_street1": "REVERSE_PHONE_APPEND.ADDRESS.STREET1",
    "rpa_street2": "REVERSE_PHONE_APPEND.ADDRESS.STREET2",
    "rpa_city": "REVERSE_PHONE_APPEND.ADDRESS.CITY",
    "rpa_state": "REVERSE_PHONE_APPEND.ADDRESS.STATE",
    "rpa_zip": "REVERSE_PHONE_APPEND.ADDRESS.ZIP",
    "rpa_zipplus": "REVERSE_PHONE_APPEND.ADDRESS.ZIPPLUS",
}

# StandardizedAddress attribute -> flat name (std_<attribute> unless named here), and the code tables.
_STD_NAMES: Final = {"geo_lat": "std_lat", "geo_lng": "std_lng", "address_error_status": "std_error_status"}
_STD_TABLES: Final[dict[str, Callable[[str], str]]] = {
    "address_code": codes.address_code_meaning,
    "geomatch": lambda v: codes.meaning("GEOMATCH", v),
    "address_type": lambda v: codes.meaning("ADDRESS_TYPE", v),
    "ziptype": lambda v: codes.meaning("ZIPTYPE", v) if v else "",
    "matchzipfive": lambda v: codes.meaning("MATCHZIP", v),
    "matchzipnine": lambda v: codes.meaning("MATCHZIP", v),
}


def _std_columns() -> dict[str, str]:
    out: dict[str, str] = {}
    for f in _fields(StandardizedAddress):
        name = _STD_NAMES.get(f.name, f"std_{f.name}")
        out[name] = f"StandardizedAddress.{f.encode_name}"
        if f.name in _STD_TABLES:
            out[f"{name}_meaning"] = f"meaning of {f.encode_name}"
    out["std_error_codes"] = "the two-byte codes of ADDRESS_ERROR_STATUS, space-separated"
    out["std_error_meanings"] = "meanings of the ADDRESS_ERROR_STATUS codes, '; '-separated"
    return out


STD_COLUMNS: Final = _std_columns()
# (column, its meaning's column or None, the meaning table or None, else the meaning function) of every
# StandardizedAddress field in column order, and the fields' values in that order at once.
_STD_MEANING_TABLES: Final = {"geomatch": "GEOMATCH", "address_type": "ADDRESS_TYPE", "ziptype": "ZIPTYPE",
                              "matchzipfive": "MATCHZIP", "matchzipnine": "MATCHZIP"}
_STD_PLAN: Final = tuple((_STD_NAMES.get(f.name, f"std_{f.name}"),
                          f"{_STD_NAMES.get(f.name, f'std_{f.name}')}_meaning" if f.name in _STD_TABLES else None,
                          codes.meanings(_STD_MEANING_TABLES[f.name]) if f.name in _STD_MEANING_TABLES else None,
                          _STD_TABLES.get(f.name))
                         for f in _fields(StandardizedAddress))
_STD_VALUES: Final = operator.attrgetter(*(f.name for f in _fields(StandardizedAddress)))
_BUSINESS_NAME_IND: Final = codes.meanings("BUSINESS_NAME_IND")
_ADDRESS_VERIFICATION: Final = codes.meanings("ELSResidentialAddressVerificationResult")
_HIGH_RISK: Final = codes.meanings("HighRisk")
_SCORE_RESULT: Final = codes.meanings("SCORE_RESULT")
_EXECUTION_STATUS: Final = codes.meanings("EXECUTION_STATUS_FLAG")

_S2_GROUPS: Final = (("livu", Livu), ("zip", ZipData), ("person", Person))


def _s2_columns() -> dict[str, str]:
    out = {"s2_data_type": "Stage2Data.Data_Type", "s2_match_type": "Stage2Data.Match_Type (E, F, I, N)",
           "s2_match_type_meaning": "meaning of Match_Type"}
    for group, cls in _S2_GROUPS:
        for f in _fields(cls):
            out[f"s2_{group}_{f.name}"] = f"Stage2Data.{group.capitalize()}.{f.encode_name}"
    out["s2_geo"] = "Stage2Data.Geo, as JSON (the seed does not list its attributes)"
    return out


S2_COLUMNS: Final = _s2_columns()

# Business data: the struct tree of BusinessData walked into columns. Group attributes that only wrap another
# group add nothing to the name; repeated groups get a short name.
_SKIP_NAME: Final = frozenset({"demographic", "corporate_linkage_summary", "intelli_score_summary",
                               "model_information"})
_SHORT: Final = {"business_facts": "facts", "corporate_linkage": "linkage", "intelli_score": "intelliscore",
                 "public_record": "public", "summary": "summary", "sic_codes": "sic", "naics_codes": "naics"}
_CODED_TABLES: Final = {"biz_linkage_record_type": codes.LINKAGE_RECORD_TYPES}


def _struct_type(tp: Any) -> type | None:
    args = typing.get_args(tp) or (tp,)
    for a in args:
        if isinstance(a, type) and issubclass(a, msgspec.Struct):
            return a
    return None


def _column_name(prefix: str, field: str) -> str:
    short = field
    group = prefix.rsplit("_", 1)[-1] if prefix != "biz" else ""
    if group and short.startswith(f"{group}_"):
        short = short[len(group) + 1:]
    return f"{prefix}_{short}"


def _walk_types(cls: type, prefix: str) -> Iterator[tuple[str, str]]:
    for f in _fields(cls):
        origin = typing.get_origin(f.type)
        inner = _struct_type(f.type)
        if origin is list and inner is Coded:
            name = f"{prefix}_{_SHORT.get(f.name, f.name)}"
            yield f"{name}_codes", f"{f.encode_name}: codes, space-separated"
            yield f"{name}_descriptions", f"{f.encode_name}: descriptions, '; '-separated"
        elif inner is Coded:
            name = _column_name(prefix, f.name)
            yield name, f"{f.encode_name}.code"
            yield f"{name}_meaning", f"{f.encode_name}: its content (meaning)"
        elif inner is not None:
            sub = prefix if f.name in _SKIP_NAME else f"{prefix}_{_SHORT.get(f.name, f.name)}"
            yield from _walk_types(inner, sub)
        else:
            yield _column_name(prefix, f.name), f.encode_name + (" (list, '; '-separated)" if origin is list
                                                                  else "")


BUSINESS_COLUMNS: Final = {name: f"Stage2Data.BusinessData: {desc}" for name, desc in
                           _walk_types(BusinessData, "biz")}

OTHER_COLUMNS: Final = {"unparsed": "members of a vendor answer dqkit could not place, as JSON (kept, not lost)"}

# Why an E100 was answered, read from its VALUE when dqkit's engine wrote it ("... (field F; why: RULE: ...)"), so
# an analyst can sort, filter and overrule flags by rule; a vendor's E100 carries no reason and leaves them empty.
SPOOF_COLUMNS: Final[dict[str, str]] = {
    "spoof_field": "E100: the field(s) holding the spoof (FIRST_NAME+LAST_NAME, FULL_NAME, STREET1, ...)",
    "spoof_rule": "E100: the rule that flagged it (a bundled list, or the name model's rule)",
    "spoof_why": "E100: the rule, the word and its scores (name weights, English word size, reading)",
}
_SPOOF_WHY: Final = re.compile(r"\(field ([A-Z0-9_+]+); why: (.*)\)\Z", re.S)

RESULT_COLUMNS: Final[dict[str, str]] = {**CORE_COLUMNS, **STAGE1_COLUMNS, **RPA_COLUMNS, **STD_COLUMNS,
                                         **S2_COLUMNS, **BUSINESS_COLUMNS, **OTHER_COLUMNS, **SPOOF_COLUMNS}


def _walk_values(obj: Any, cls: type, prefix: str, out: dict[str, str]) -> None:
    for f in _fields(cls):
        value = getattr(obj, f.name) if obj is not None else None
        origin = typing.get_origin(f.type)
        inner = _struct_type(f.type)
        if origin is list and inner is Coded:
            name = f"{prefix}_{_SHORT.get(f.name, f.name)}"
            items = value or []
            out[f"{name}_codes"] = " ".join(c.code for c in items if c.code)
            out[f"{name}_descriptions"] = "; ".join(c.content for c in items if c.content)
        elif inner is Coded:
            name = _column_name(prefix, f.name)
            code = value.code if value is not None else ""
            content = value.content if value is not None else ""
            table = _CODED_TABLES.get(name)
            out[name] = code
            out[f"{name}_meaning"] = content or (table.get(code, "") if table and code else "")
        elif inner is not None and origin is list:
            sub = f"{prefix}_{_SHORT.get(f.name, f.name)}"
            parts: list[dict[str, str]] = []
            for item in value or []:
                one: dict[str, str] = {}
                _walk_values(item, inner, sub, one)
                parts.append(one)
            for name, _ in _walk_types(inner, sub):
                out[name] = " | ".join(p.get(name, "") for p in parts) if any(p.get(name) for p in parts) else ""
        elif inner is not None:
            sub = prefix if f.name in _SKIP_NAME else f"{prefix}_{_SHORT.get(f.name, f.name)}"
            _walk_values(value, inner, sub, out)
        elif origin is list:
            out[_column_name(prefix, f.name)] = "; ".join(str(v) for v in value or [])
        else:
            out[_column_name(prefix, f.name)] = "" if value is None else str(value)


def flatten_message(msg: ELSGenericMessage) -> dict[str, str]:
    """The flat result columns of one message: the core columns, and every column of each group it holds."""
    m = msg.message
    rc = codes.RESULT_CODES.get(m.result_code)
    out = dict.fromkeys(CORE_COLUMNS, "")
    out.update(result_code=m.result_code, result_type=m.type, result_category=m.category, result_value=m.value,
               result_meaning=rc.condition if rc else "", outcome=rc.outcome.value if rc else "",
               transaction_id=str(msg.transaction_id))
    if m.result_code == "E100":
        why = _SPOOF_WHY.search(m.value)
        if why is not None:
            out.update(spoof_field=why.group(1), spoof_rule=why.group(2).split(":", 1)[0], spoof_why=why.group(2))
    s1 = msg.stage1_data
    if s1 is not None:
        out.update(dict.fromkeys(STAGE1_COLUMNS, ""))
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
                       business_name_ind_meaning=_BUSINESS_NAME_IND.get(n.business_name_ind, ""),
                       business_name=n.business_name, business_title=n.business_title)
        av, pv = s1.residential_address_verification_result, s1.residential_phone_verification_result
        out.update(
            els_address_verification=av,
            els_address_verification_meaning=_ADDRESS_VERIFICATION.get(av, ""),
            els_address_high_risk=s1.residential_address_high_risk,
            els_address_high_risk_meaning=_HIGH_RISK.get(s1.residential_address_high_risk, ""),
            els_phone_verification=pv,
            els_phone_verification_meaning=_SCORE_RESULT.get(pv, ""),
            els_phone_high_risk=s1.residential_phone_high_risk,
            els_phone_high_risk_meaning=_HIGH_RISK.get(s1.residential_phone_high_risk, ""),
            els_residential_phone_append=s1.residential_phone_append,
            els_business_phone_append=s1.business_phone_append,
        )
        rpa = s1.reverse_phone_append
        if rpa is not None:
            a = rpa.address
            out.update(rpa_status=rpa.execution_status_flag,
                       rpa_status_meaning=_EXECUTION_STATUS.get(rpa.execution_status_flag, ""),
                       rpa_first_name=rpa.first_name, rpa_last_name=rpa.last_name,
                       rpa_street1=a.street1 if a else "", rpa_street2=a.street2 if a else "",
                       rpa_city=a.city if a else "", rpa_state=a.state if a else "", rpa_zip=a.zip if a else "",
                       rpa_zipplus=a.zipplus if a else "")
    sa = msg.standardized_address
    if sa is not None:
        for (name, meaning_name, table, meaning), value in zip(_STD_PLAN, _STD_VALUES(sa), strict=True):
            out[name] = value
            if meaning_name is not None:
                out[meaning_name] = "" if not value else table.get(value, "") if table is not None else \
                    meaning(value)  # type: ignore[misc]  # a field with a meaning column has one or the other
        found = codes.split_address_error_status(sa.address_error_status)
        out["std_error_codes"] = " ".join(found)
        out["std_error_meanings"] = "; ".join(codes.ADDRESS_ERROR_STATUSES.get(c, c) for c in found)
    s2 = msg.stage2_data
    if s2 is not None:
        if s2.business_data is not None:
            _walk_values(s2.business_data, BusinessData, "biz", out)
        if s2.data_type or s2.match_type or s2.livu or s2.zip or s2.person or s2.geo:
            out.update(s2_data_type=s2.data_type, s2_match_type=s2.match_type,
                       s2_match_type_meaning=codes.meaning("Match_Type", s2.match_type) if s2.match_type else "",
                       s2_geo=msgspec.json.encode(s2.geo).decode() if s2.geo else "")
            for group, cls in _S2_GROUPS:
                part = getattr(s2, group)
                for f in _fields(cls):
                    out[f"s2_{group}_{f.name}"] = getattr(part, f.name) if part is not None else ""
    if msg.unparsed:
        out["unparsed"] = msgspec.json.encode(msg.unparsed).decode()
    return out


def error_row(exc: BaseException) -> dict[str, str]:
    """The flat columns of a lead that got no message (transport failure, ...): the error is recorded."""
    out = dict.fromkeys(CORE_COLUMNS, "")
    out.update(result_type="FAILED", result_value=f"{type(exc).__name__}: {exc}", outcome="not processed")
    return out
