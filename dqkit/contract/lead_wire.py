"""The lead service's three request representations (JSON, XML, form) and its response, both directions.

Clients encode with these functions and the server decodes with them (and the reverse for responses), so a lead
goes through the same code on both sides. Decoding a request never raises: bad input becomes a `WireProblem`
carrying the seed's result code (E300 for anything that is not the right form) and a VALUE naming what was wrong.

XML is parsed with defusedxml: a document type declaration, any entity and any external reference are refused
before anything is expanded or read.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Iterable
from typing import Any, Final, Literal
from urllib.parse import parse_qsl, urlencode
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
import msgspec
from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

from dqkit.contract.errors import ProtocolError
from dqkit.contract.lead import (
    ADDRESS_FIELDS,
    CUSTOMER_FIELDS,
    FIELD_MAX_LENGTH,
    MAX_ATTRIBUTES,
    NAME_FIELDS,
    PHONE_FIELDS,
    TYPE_WORDS,
    Attribute,
    ELSGenericMessage,
    LeadRequest,
    Phone,
)
from dqkit.contract.lead_decode import message_from_document

RequestFormat = Literal["json", "xml", "form"]
ResponseFormat = Literal["json", "xml"]

CONTENT_TYPES: Final[dict[str, str]] = {
    "json": "application/json",
    "xml": "application/xml",
    "form": "application/x-www-form-urlencoded",
}
# Characters the seed reserves in RESTful JSON input (E300), and the E200 syntax set.
JSON_RESERVED: Final = ('"', "&")
# A lone surrogate escape ("\\ud800") decodes to a str that is not Unicode text: no answer could echo it.
_LONE_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
MAX_FORM_FIELDS: Final = 200


class WireProblem(msgspec.Struct, frozen=True):
    """Why a request could not be read: the result code to answer with and the Message.VALUE text."""

    code: str
    value: str


# Groups of the JSON/XML layouts and the flat fields each holds.
_GROUPS: Final[dict[str, tuple[str, ...]]] = {
    "LEAD_TRANS_DETAILS": NAME_FIELDS,
    "LEAD_ADDRESS": ADDRESS_FIELDS,
    "CUSTOMER": CUSTOMER_FIELDS,
}
_FLAT_FIELDS: Final = frozenset(NAME_FIELDS + ADDRESS_FIELDS + CUSTOMER_FIELDS)
_ATTR_FIELDS: Final = ("ATTRIBUTE_NAME", "ATTRIBUTE_VALUE")
_TYPE_FIELDS: Final = ("ADDRESS_TYPE", "PHONE_TYPE")
_CODE_WORD: Final = {"H": "Home", "B": "Business"}


class _Bad(Exception):
    """Internal: carries a WireProblem out of the nested decoding helpers."""

    def __init__(self, value: str, code: str = "E300") -> None:
        super().__init__(value)
        self.problem = WireProblem(code, value)


# ------------------------------------------------------------------ building a LeadRequest from flat parts


def _type_code(field: str, value: str) -> str:
    if not value:
        return ""
    code = TYPE_WORDS.get(value.strip().upper())
    if code is None:
        raise _Bad(f"{field} must be H, B, Home or Business, not {value!r}")
    return code


def _build(fields: dict[str, str], phones: list[dict[str, str]], attrs: list[tuple[str, str]]) -> LeadRequest:
    if len(attrs) > MAX_ATTRIBUTES:
        raise _Bad(f"{len(attrs)} ATTRIBUTE_NAME/ATTRIBUTE_VALUE pairs; at most {MAX_ATTRIBUTES} are allowed")
    kw: dict[str, Any] = {k.lower(): v for k, v in fields.items()}
    if "ADDRESS_TYPE" in fields:
        kw["address_type"] = _type_code("ADDRESS_TYPE", fields["ADDRESS_TYPE"])
    kw["phones"] = tuple(
        Phone(
            phone_type=_type_code("PHONE_TYPE", p.get("PHONE_TYPE", "")),
            phone_number=p.get("PHONE_NUMBER", ""),
            phone_extension=p.get("PHONE_EXTENSION", ""),
            phone_country_code=p.get("PHONE_COUNTRY_CODE", ""),
        )
        for p in phones
        if any(p.values())
    )
    kw["attributes"] = tuple(Attribute(n, v) for n, v in attrs)
    return LeadRequest(**kw)


# (FIELD, attribute, limit) of every field check_lead measures, in FIELD_MAX_LENGTH's order: worked out once.
_LENGTH_CHECKS: Final = tuple((f, f.lower(), limit) for f, limit in FIELD_MAX_LENGTH.items() if limit is not None
                              and f not in ("PHONE_TYPE", "PHONE_NUMBER", "ATTRIBUTE_NAME", "ATTRIBUTE_VALUE"))


_LENGTH_VALUES: Final = operator.attrgetter(*(attr for _, attr, _ in _LENGTH_CHECKS))
_LENGTH_LIMITS: Final = tuple(limit for _, _, limit in _LENGTH_CHECKS)


def check_lead(lead: LeadRequest) -> WireProblem | None:
    """Schema checks shared by every entry point: field lengths, attribute count, type codes (E300)."""
    if not all(map(operator.le, map(len, _LENGTH_VALUES(lead)), _LENGTH_LIMITS)):  # every length at once
        for field, attr, limit in _LENGTH_CHECKS:  # then the first one too long, named
            value = getattr(lead, attr)
            if len(value) > limit:
                return WireProblem("E300", f"{field} is longer than {limit} characters: {value!r}")
    for phone in lead.phones:
        if len(phone.phone_number) > 12:
            return WireProblem("E300", f"PHONE_NUMBER is longer than 12 characters: {phone.phone_number!r}")
        if phone.phone_type not in ("", "H", "B"):
            return WireProblem("E300", f"PHONE_TYPE must be H or B, not {phone.phone_type!r}")
    if lead.address_type not in ("", "H", "B"):
        return WireProblem("E300", f"ADDRESS_TYPE must be H or B, not {lead.address_type!r}")
    if len(lead.attributes) > MAX_ATTRIBUTES:
        return WireProblem(
            "E300", f"{len(lead.attributes)} ATTRIBUTE_NAME/ATTRIBUTE_VALUE pairs; at most {MAX_ATTRIBUTES} allowed"
        )
    return None


# ------------------------------------------------------------------ JSON


def _json_scalar(where: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _Bad(f"{where} must be a string, not {type(value).__name__}")
    text = value if isinstance(value, str) else str(value)
    lone = _LONE_SURROGATE.search(text)
    if lone:
        raise _Bad(f"{where} holds the lone surrogate \\u{ord(lone.group()):04x}: not Unicode text")
    for ch in JSON_RESERVED:
        if ch in text:
            keep = "; write 'and' to keep the value" if ch == "&" else ""
            raise _Bad(f"the character {ch!r} is not allowed in JSON input ({where}: {text!r}){keep}")
    return text


def _json_object(where: str, value: Any, allowed: Iterable[str]) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _Bad(f"{where} must be an object")
    allowed_set = set(allowed)
    out: dict[str, str] = {}
    for key, v in value.items():
        name = str(key).upper()
        if name not in allowed_set:
            raise _Bad(f"unknown field {key!r} in {where}")
        out[name] = _json_scalar(f"{where}.{name}", v)
    return out


def _json_list(where: str, value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value]
    if not isinstance(value, list):
        raise _Bad(f"{where} must be an array of objects")
    return value


def decode_lead_json(body: bytes | str) -> LeadRequest | WireProblem:
    """Decode the JSON representation: LEAD_TRANS_DETAILS, LEAD_PHONE[], LEAD_ADDRESS, CUSTOMER, LEAD_ATTRIBUTE[].

    Flat field names at the top level are accepted too (as on the form). Field names are case-insensitive.
    """
    try:
        doc = json.loads(body, object_pairs_hook=_unique_pairs)
    except _Bad as bad:
        return bad.problem
    except RecursionError:
        return WireProblem("E300", "malformed JSON: nested too deeply")
    except (ValueError, UnicodeDecodeError) as exc:  # json.JSONDecodeError is a ValueError
        return WireProblem("E300", f"malformed JSON: {exc}")
    try:
        if not isinstance(doc, dict):
            raise _Bad("the JSON request must be an object")
        fields: dict[str, str] = {}
        phones: list[dict[str, str]] = []
        attrs: list[tuple[str, str]] = []
        for key, value in doc.items():
            name = str(key).upper()
            if name in _GROUPS:
                _merge(fields, _json_object(name, value, _GROUPS[name]))
            elif name == "LEAD_PHONE":
                phones += [_json_object("LEAD_PHONE", p, PHONE_FIELDS) for p in _json_list(name, value)]
            elif name == "LEAD_ATTRIBUTE":
                for a in _json_list(name, value):
                    pair = _json_object("LEAD_ATTRIBUTE", a, _ATTR_FIELDS)
                    attrs.append((pair.get("ATTRIBUTE_NAME", ""), pair.get("ATTRIBUTE_VALUE", "")))
            elif name in _FLAT_FIELDS:
                _merge(fields, {name: _json_scalar(name, value)})
            elif name in PHONE_FIELDS:
                if not phones:
                    phones.append({})
                phones[0][name] = _json_scalar(name, value)
            else:
                raise _Bad(f"unknown field {key!r}")
        return _build(fields, phones, attrs)
    except _Bad as bad:
        return bad.problem


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are unique (field names compare case-insensitively): two CLIENT_IDs are a
    request that does not match the schema (E300), never silently merged."""
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for key, value in pairs:
        folded = key.upper()
        if folded in seen:
            raise _Bad(f"field {key!r} is given more than once")
        seen.add(folded)
        out[key] = value
    return out


def _merge(fields: dict[str, str], more: dict[str, str]) -> None:
    """Add a group's fields; a field given twice (at the top level and in a group) is E300."""
    for name, value in more.items():
        if name in fields:
            raise _Bad(f"field {name} is given more than once")
        fields[name] = value


def encode_lead_json(lead: LeadRequest) -> bytes:
    """The JSON representation, with empty fields left out and type codes as the words Home / Business."""
    doc: dict[str, Any] = {}
    for group, names in _GROUPS.items():
        part = {n: _wire_value(lead, n) for n in names if getattr(lead, n.lower())}
        if part:
            doc[group] = part
    if lead.phones:
        doc["LEAD_PHONE"] = [_phone_dict(p, words=True) for p in lead.phones]
    if lead.attributes:
        doc["LEAD_ATTRIBUTE"] = [{"ATTRIBUTE_NAME": a.name, "ATTRIBUTE_VALUE": a.value} for a in lead.attributes]
    return msgspec.json.encode(doc)


def _wire_value(lead: LeadRequest, field: str, words: bool = True) -> str:
    value: str = getattr(lead, field.lower())
    if words and field in _TYPE_FIELDS:
        return _CODE_WORD.get(value, value)
    return value


def _phone_dict(p: Phone, words: bool) -> dict[str, str]:
    d = {n: getattr(p, n.lower()) for n in PHONE_FIELDS if getattr(p, n.lower())}
    if words and "PHONE_TYPE" in d:
        d["PHONE_TYPE"] = _CODE_WORD.get(d["PHONE_TYPE"], d["PHONE_TYPE"])
    return d


# ------------------------------------------------------------------ XML


def _xml_text(el: Element, where: str) -> str:
    if len(el):
        raise _Bad(f"element <{where}> must hold text, not elements")
    return (el.text or "").strip()


def _xml_group(el: Element, where: str, allowed: Iterable[str]) -> dict[str, str]:
    allowed_set = set(allowed)
    out: dict[str, str] = {}
    for child in el:
        name = _tag(child).upper()
        if name not in allowed_set:
            raise _Bad(f"unknown element <{_tag(child)}> in <{where}>")
        if name in out:
            raise _Bad(f"element <{_tag(child)}> is given more than once in <{where}>")
        out[name] = _xml_text(child, name.lower())
    return out


def _tag(el: Element) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.rsplit("}", 1)[-1]


def decode_lead_xml(body: bytes | str) -> LeadRequest | WireProblem:
    """Decode `<elsgenericmessage>` with customer, lead_trans_details, lead_phone*, lead_address, lead_attribute*."""
    try:
        root = SafeET.fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DTDForbidden:
        return WireProblem("E300", "XML document type declarations are not allowed")
    except EntitiesForbidden:
        return WireProblem("E300", "XML entity declarations are not allowed")
    except ExternalReferenceForbidden:
        return WireProblem("E300", "XML external references are not allowed")
    except (ParseError, DefusedXmlException, ValueError) as exc:
        return WireProblem("E300", f"malformed XML: {exc}")
    try:
        if _tag(root).lower() != "elsgenericmessage":
            raise _Bad(f"the XML root element must be <elsgenericmessage>, not <{_tag(root)}>")
        fields: dict[str, str] = {}
        phones: list[dict[str, str]] = []
        attrs: list[tuple[str, str]] = []
        for child in root:
            name = _tag(child).upper()
            if name in _GROUPS:
                _merge(fields, _xml_group(child, name.lower(), _GROUPS[name]))
            elif name == "LEAD_PHONE":
                phones.append(_xml_group(child, "lead_phone", PHONE_FIELDS))
            elif name == "LEAD_ATTRIBUTE":
                pair = _xml_group(child, "lead_attribute", _ATTR_FIELDS)
                attrs.append((pair.get("ATTRIBUTE_NAME", ""), pair.get("ATTRIBUTE_VALUE", "")))
            elif name in _FLAT_FIELDS:
                _merge(fields, {name: _xml_text(child, name.lower())})
            else:
                raise _Bad(f"unknown element <{_tag(child)}> in <elsgenericmessage>")
        return _build(fields, phones, attrs)
    except _Bad as bad:
        return bad.problem


def _xml_el(name: str, text: str) -> str:
    # xml.sax.saxutils.escape's three replacements, written out: importing it imports urllib.request (and with it
    # http.client, ssl and email), a fifth of the lead engine's import time
    return f"<{name}>{text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</{name}>"


def encode_lead_xml(lead: LeadRequest) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', "<elsgenericmessage>"]
    for group in ("CUSTOMER", "LEAD_TRANS_DETAILS"):
        inner = "".join(_xml_el(n.lower(), _wire_value(lead, n)) for n in _GROUPS[group] if getattr(lead, n.lower()))
        if inner:
            parts.append(f"<{group.lower()}>{inner}</{group.lower()}>")
    for p in lead.phones:
        inner = "".join(_xml_el(k.lower(), v) for k, v in _phone_dict(p, words=True).items())
        parts.append(f"<lead_phone>{inner}</lead_phone>")
    inner = "".join(_xml_el(n.lower(), _wire_value(lead, n)) for n in ADDRESS_FIELDS if getattr(lead, n.lower()))
    if inner:
        parts.append(f"<lead_address>{inner}</lead_address>")
    for a in lead.attributes:
        parts.append(
            f"<lead_attribute>{_xml_el('attribute_name', a.name)}{_xml_el('attribute_value', a.value)}</lead_attribute>"
        )
    parts.append("</elsgenericmessage>")
    return "".join(parts).encode()


# ------------------------------------------------------------------ form


def decode_lead_pairs(pairs: Iterable[tuple[str, str]]) -> LeadRequest | WireProblem:
    """Decode flat name=value pairs (form data, multipart fields, query-style input).

    Repeated PHONE_* fields make one phone per occurrence, and repeated ATTRIBUTE_NAME / ATTRIBUTE_VALUE pair up
    in order; any other repeated field is an error.
    """
    fields: dict[str, str] = {}
    phones: list[dict[str, str]] = []
    names: list[str] = []
    values: list[str] = []
    try:
        for key, value in pairs:
            name = key.strip().upper()
            if name in _FLAT_FIELDS:
                if name in fields:
                    raise _Bad(f"field {name} is given more than once")
                fields[name] = value
            elif name in PHONE_FIELDS:
                if not phones or name in phones[-1]:
                    phones.append({})
                phones[-1][name] = value
            elif name == "ATTRIBUTE_NAME":
                names.append(value)
            elif name == "ATTRIBUTE_VALUE":
                values.append(value)
            else:
                raise _Bad(f"unknown field {key!r}")
        if len(values) > len(names):
            raise _Bad("ATTRIBUTE_VALUE given without a matching ATTRIBUTE_NAME")
        attrs = [(n, values[i] if i < len(values) else "") for i, n in enumerate(names)]
        return _build(fields, phones, attrs)
    except _Bad as bad:
        return bad.problem


def decode_lead_form(body: bytes | str) -> LeadRequest | WireProblem:
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=False, max_num_fields=MAX_FORM_FIELDS)
    except UnicodeDecodeError as exc:
        return WireProblem("E300", f"form data is not UTF-8: {exc}")
    except ValueError as exc:
        return WireProblem("E300", f"malformed form data: {exc}")
    return decode_lead_pairs(pairs)


def lead_pairs(lead: LeadRequest) -> list[tuple[str, str]]:
    """The flat name/value pairs of the form representation, type fields as one-letter codes."""
    pairs = [(n, _wire_value(lead, n, words=False)) for n in (*NAME_FIELDS, *ADDRESS_FIELDS, *CUSTOMER_FIELDS)
             if getattr(lead, n.lower())]
    for p in lead.phones:
        pairs += list(_phone_dict(p, words=False).items())
    for a in lead.attributes:
        pairs += [("ATTRIBUTE_NAME", a.name), ("ATTRIBUTE_VALUE", a.value)]
    return pairs


def encode_lead_form(lead: LeadRequest) -> bytes:
    return urlencode(lead_pairs(lead)).encode()


# ------------------------------------------------------------------ dispatch by content type


def sniff_format(body: bytes, content_type: str = "") -> RequestFormat:
    """The representation of a request body: from its Content-Type, else from its first character."""
    ct = content_type.split(";", 1)[0].strip().lower()
    if ct.endswith("json"):
        return "json"
    if ct.endswith("xml"):
        return "xml"
    if ct in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return "form"
    head = body.lstrip()[:1]
    return "json" if head in (b"{", b"[") else "xml" if head == b"<" else "form"


def decode_lead(body: bytes, content_type: str = "") -> LeadRequest | WireProblem:
    """Decode a lead request in any of the three representations. Never raises."""
    fmt = sniff_format(body, content_type)
    if fmt == "json":
        return decode_lead_json(body)
    if fmt == "xml":
        return decode_lead_xml(body)
    return decode_lead_form(body)


def encode_lead(lead: LeadRequest, fmt: RequestFormat = "json") -> tuple[bytes, str]:
    """Body and Content-Type of a lead request in the chosen representation."""
    encoders = {"json": encode_lead_json, "xml": encode_lead_xml, "form": encode_lead_form}
    return encoders[fmt](lead), CONTENT_TYPES[fmt]


# ------------------------------------------------------------------ responses

# Response members that are arrays (parent, member), so that XML with one element still decodes to a list.
_LIST_MEMBERS: Final = frozenset({
    ("InputData", "LEAD_PHONE"), ("InputData", "LEAD_ATTRIBUTE"), ("Stage1Data", "PHONE_NUMBER"),
    ("Demographic", "SICCodes"), ("Demographic", "NAICSCodes"), ("CorporateLinkageSummary", "CorporateLinkage"),
    ("Summary", "DoingBusinessAs"), ("IntelliScoreSummary", "IntelliScore"),
})
_message_encoder = msgspec.json.Encoder()


def _to_xml(name: str, value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        out.append(f"<{name}>")
        for k, v in value.items():
            _to_xml(k, v, out)
        out.append(f"</{name}>")
    elif isinstance(value, (list, tuple)):
        for item in value:
            _to_xml(name, item, out)
    else:
        out.append(_xml_el(name, "" if value is None else str(value)))


def encode_message(msg: ELSGenericMessage, fmt: ResponseFormat = "json") -> tuple[bytes, str]:
    """Body and Content-Type of an ELSGenericMessage; XML uses the JSON member names as element names."""
    if fmt == "json":
        return _message_encoder.encode(msg), CONTENT_TYPES["json"]
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    _to_xml("ELSGenericMessage", msgspec.to_builtins(msg), out)
    return "".join(out).encode(), CONTENT_TYPES["xml"]


def _from_xml(el: Element) -> Any:
    """An element as builtins: text, or an object of its attributes and children (text beside attributes or
    children is kept as "content", as in `<SIC code="1">Name</SIC>`)."""
    attrs = {k.rsplit("}", 1)[-1]: v for k, v in el.attrib.items()}
    text = (el.text or "").strip()
    if not len(el) and not attrs:
        return text
    out: dict[str, Any] = dict(attrs)
    if text:
        out["content"] = text
    for child in el:
        key = _tag(child)
        value = _from_xml(child)
        if (_tag(el), key) in _LIST_MEMBERS:
            prev_list = out.setdefault(key, [])
            if isinstance(prev_list, list):
                prev_list.append(value)
            else:
                out[key] = [prev_list, value]
        elif key in out:
            prev = out[key]
            out[key] = [*prev, value] if isinstance(prev, list) else [prev, value]
        else:
            out[key] = value
    return out


# The deepest an answer may nest (objects and arrays, or XML elements). The seed's deepest member is about 7 levels
# down (Stage2Data.BusinessData.CorporateLinkageSummary.CorporateLinkage[].LinkageRecordType.code); a vendor's
# answer nested deeper is not an ELSGenericMessage, and walking it would only cost memory and stack.
MAX_ANSWER_DEPTH: Final = 32


def _too_deep(doc: Any) -> bool:
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_ANSWER_DEPTH:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, dict | list))
    return False


def _xml_too_deep(root: Element) -> bool:
    stack = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        if depth > MAX_ANSWER_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in el)
    return False


def decode_message(body: bytes, content_type: str = "") -> ELSGenericMessage:
    """Decode an ELSGenericMessage from JSON or XML, tolerantly (see `dqkit.contract.lead_decode`): a member
    that cannot be placed is kept raw in `unparsed` with a DecodeWarning. Raises ProtocolError when the body is
    neither JSON nor XML, holds no Message, or nests deeper than MAX_ANSWER_DEPTH."""
    deep = ProtocolError(f"not an ELSGenericMessage: the answer nests deeper than {MAX_ANSWER_DEPTH} levels")
    try:
        if sniff_format(body, content_type) == "xml":
            root = SafeET.fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
            if _xml_too_deep(root):
                raise deep
            doc = _from_xml(root)
            if not isinstance(doc, dict):
                raise ProtocolError("the XML response holds no ELSGenericMessage members")
        else:
            doc = msgspec.json.decode(body)
            if _too_deep(doc):
                raise deep
    except ProtocolError:
        raise
    except RecursionError:
        raise deep from None
    except (msgspec.DecodeError, ParseError, DefusedXmlException, ValueError) as exc:
        raise ProtocolError(f"not an ELSGenericMessage: {exc}") from None
    return message_from_document(doc)
