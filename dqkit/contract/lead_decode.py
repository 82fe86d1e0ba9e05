"""Tolerant decoding of ELSGenericMessage answers: whatever shape the vendor sends, nothing is lost.

The seed types some members loosely ("String or number", "String (10), up to 2") and its samples differ from its
tables (dotted names such as `NameParser.FIRST_NAME` beside nested groups, `ScoreInfo.Score` beside a nested
`ScoreInfo`, XML attributes such as `<SIC code="1">Name</SIC>`). The converter walks the decoded document along
the models' own field types:

- a member is found by its wire name, case-insensitively; `A.B` keys are nested, and a nested `A: {B: ...}` is
  read for a field named `A.B`;
- a string field takes a string, a number or a boolean (as text), a one-element list, or an object with only
  text (`{"content": ...}`, `{"code": ...}`, `#text`);
- a list field takes a list or a single item; a code object (`Coded`) takes a bare code string;
- anything else (an unknown member, a value of the wrong shape, `TRANSACTION_ID` as an object) is kept raw under
  its dotted path in the message's `unparsed` member and named in a `DecodeWarning`, never dropped and never fatal;
- one field sent twice with different values (a dotted `NameParser.FIRST_NAME` beside a nested
  `NameParser{FIRST_NAME}`, or one member in two spellings of case) keeps the first in the field and the other in
  `unparsed` under its path, named in the `DecodeWarning` as a conflict: neither is dropped.

Only an answer that holds no Message at all is a ProtocolError.
"""

from __future__ import annotations

import types
import typing
import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any, Final, Union

import msgspec

from dqkit.contract.errors import ProtocolError
from dqkit.contract.lead import TYPE_WORDS, ELSGenericMessage, LeadRequest

# Groups of the JSON request layout that an echo (InputData) may carry; their members are flat fields.
_ECHO_GROUPS: Final = frozenset({"LEAD_TRANS_DETAILS", "LEAD_ADDRESS", "CUSTOMER"})


_TEXT_KEYS: Final = frozenset({"content", "#text", "text", "value", "code"})


class DecodeWarning(UserWarning):
    """A member of a vendor answer that dqkit could not place: kept raw in `ELSGenericMessage.unparsed`."""


class _Odd:
    """Collects the members that could not be placed, by dotted path, and which of them lost a conflict."""

    def __init__(self) -> None:
        self.raw: dict[str, Any] = {}
        self.conflicts: list[str] = []

    def keep(self, path: str, value: Any) -> None:
        while path in self.raw and self.raw[path] != value:  # two raw values on one path: both kept
            path += "~"
        self.raw[path] = value

    def conflict(self, path: str, value: Any) -> None:
        """A second, different value of a field already set: kept raw, and named as a conflict."""
        self.keep(path, value)
        self.conflicts.append(path)


@cache
def _fields(cls: type) -> tuple[dict[str, tuple[str, Any]], frozenset[str]]:
    """{upper-case wire name: (attribute, type)} of a struct, and its dotted wire names' first parts."""
    out: dict[str, tuple[str, Any]] = {}
    for f in msgspec.structs.fields(cls):
        out[f.encode_name.upper()] = (f.name, f.type)
    heads = frozenset(k.split(".", 1)[0] for k in out if "." in k)
    return out, heads


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _strip_optional(tp: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
        if set(args) == {str, int}:
            return str
    return tp


def _text(value: Any) -> str | None:
    """A scalar as text, or None when the value is not text-like."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Y" if value else "N"
    if isinstance(value, (str, int, float)):
        return str(value)
    if isinstance(value, list) and len(value) == 1:
        return _text(value[0])
    if isinstance(value, list) and not value:
        return ""
    if isinstance(value, Mapping):
        keys = [k for k in value if k not in ("@xmlns",)]
        if not keys:
            return ""
        key = str(keys[0]).lower()
        if len(keys) == 1 and (key in _TEXT_KEYS or key.endswith("name")):  # {"content": "x"}, {"DBAName": "x"}
            inner = value[keys[0]]
            return _text(inner) if not isinstance(inner, (Mapping, list)) else None
    return None


def _convert(value: Any, tp: Any, path: str, odd: _Odd) -> tuple[bool, Any]:
    """(ok, value converted to `tp`); not ok means the caller keeps the raw value."""
    tp = _strip_optional(tp)
    if tp is str:
        text = _text(value)
        return (True, text) if text is not None else (False, None)
    if _is_struct(tp):
        if isinstance(value, (str, int)) and "CODE" in _fields(tp)[0]:  # a bare code for a code object
            return True, msgspec.convert({"code": str(value)}, tp)
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, Mapping):
            return False, None
        return True, _struct(value, tp, path, odd)
    origin = typing.get_origin(tp)
    if origin in (list, tuple):
        (item_tp, *_) = typing.get_args(tp)
        items = value if isinstance(value, list) else [value]
        out = []
        for i, item in enumerate(items):
            ok, got = _convert(item, item_tp, f"{path}[{i}]", odd)
            if not ok:
                odd.keep(f"{path}[{i}]", item)
            elif got is not None:  # None: an item lacking a required member, already kept raw by _struct
                out.append(got)
        return True, tuple(out) if origin is tuple else out
    if origin is dict:
        if not isinstance(value, Mapping):
            return False, None
        flat: dict[str, str] = {}
        for k, v in value.items():
            text = _text(v)
            if text is None:
                odd.keep(f"{path}.{k}", v)
            else:
                flat[str(k)] = text
        return True, flat
    return False, None


def _struct(doc: Mapping[str, Any], cls: type, path: str, odd: _Odd) -> Any:
    fields, heads = _fields(cls)
    kw: dict[str, Any] = {}
    pending: list[tuple[str, Any]] = list(doc.items())
    while pending:
        key, value = pending.pop(0)
        key = str(key)
        if key.startswith("@xmlns"):
            continue
        upper = key.lstrip("@").upper()
        where = f"{path}.{key}" if path else key
        if cls is LeadRequest and upper in _ECHO_GROUPS and isinstance(value, Mapping):
            pending.extend(value.items())
            continue
        if upper in fields:
            name, tp = fields[upper]
            ok, got = _convert(value, tp, where, odd)
            if not ok:
                odd.keep(where, value)
            elif name in kw and kw[name] != got:  # the same field twice (an echo group and a flat member)
                odd.conflict(where, value)
            else:
                kw[name] = got
            continue
        if upper in heads and isinstance(value, Mapping):  # {"ScoreInfo": {"Score": 1}} for "ScoreInfo.Score"
            pending.extend((f"{key}.{k}", v) for k, v in value.items())
            continue
        odd.keep(where, value)
    try:
        return cls(**kw)
    except (TypeError, msgspec.ValidationError):
        odd.keep(path or cls.__name__, dict(doc))
        return cls() if not _required(cls) else None


@cache
def _required(cls: type) -> bool:
    return any(f.required for f in msgspec.structs.fields(cls))


def _same_key(node: Mapping[str, Any], key: str) -> str:
    """The key of `node` that is `key` but for case, or `key` itself."""
    if key in node:
        return key
    upper = key.upper()
    return next((k for k in node if k.upper() == upper), key)


def _place(node: dict[str, Any], parts: list[str], value: Any, where: str, conflicts: list[tuple[str, Any]]) -> None:
    """Put `value` at `parts` under `node` (objects made as needed, keys matched whatever their case); a value
    that meets a different one there (or a non-object on the way) goes to `conflicts` under its path instead."""
    for part in parts[:-1]:
        key = _same_key(node, part)
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            conflicts.append((where, value))
            return
        node = child
    key = _same_key(node, parts[-1])
    if key not in node:
        node[key] = value
    elif isinstance(node[key], dict) and isinstance(value, Mapping):
        for sub, v in value.items():
            _place(node[key], [str(sub)], v, f"{where}.{sub}", conflicts)
    elif node[key] != value:
        conflicts.append((where, value))


def _merge_dotted(doc: Mapping[str, Any], path: str, conflicts: list[tuple[str, Any]]) -> dict[str, Any]:
    """Members written "A.B" merged into a nested A (so "NameParser.FIRST_NAME" and "NameParser": {...} meet), and
    members that differ only by case merged; where two forms disagree, the later one goes to `conflicts`."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        k = str(key)
        where = f"{path}.{k}" if path else k
        if k.upper() == "DQKITUNPARSED":  # dqkit's own record of raw members: keys are paths, kept as they are
            out[k] = value
            continue
        if isinstance(value, Mapping):
            value = _merge_dotted(value, where, conflicts)
        elif isinstance(value, list):
            value = [_merge_dotted(v, f"{where}[{i}]", conflicts) if isinstance(v, Mapping) else v
                     for i, v in enumerate(value)]
        if "." in k and not k.upper().startswith("SCOREINFO."):
            _place(out, k.split("."), value, where, conflicts)
        else:
            _place(out, [k], value, where, conflicts)
    return out


def message_from_document(doc: Any, *, warn: bool = True) -> ELSGenericMessage:
    """An ELSGenericMessage from a decoded JSON or XML document of any tolerated shape (see the module docstring).

    Raises ProtocolError only when the document holds no Message (the outcome) at all.
    """
    if isinstance(doc, Mapping) and len(doc) == 1:
        (only,) = doc.keys()
        if str(only).upper() == "ELSGENERICMESSAGE" and isinstance(doc[only], Mapping):
            doc = doc[only]
    if not isinstance(doc, Mapping):
        raise ProtocolError("not an ELSGenericMessage: the answer is not an object")
    conflicts: list[tuple[str, Any]] = []
    doc = _merge_dotted(doc, "", conflicts)
    odd = _Odd()
    for where, value in conflicts:
        odd.conflict(where, value)
    fields, _ = _fields(ELSGenericMessage)
    kw: dict[str, Any] = {}
    for key, value in doc.items():
        upper = str(key).upper()
        if upper == "DQKITUNPARSED" and isinstance(value, Mapping):
            odd.raw.update(value)
            continue
        if upper not in fields:
            odd.keep(str(key), value)
            continue
        name, tp = fields[upper]
        if name == "transaction_id":  # "String or number": kept as sent
            text = _text(value)
            if text is None:  # an object or a list: not an id dqkit can show, kept raw
                odd.keep(str(key), value)
            else:
                kw[name] = value if isinstance(value, int) and not isinstance(value, bool) else text
            continue
        ok, got = _convert(value, tp, str(key), odd)
        if ok and got is not None:
            kw[name] = got
        else:
            odd.keep(str(key), value)
    if "message" not in kw or kw["message"] is None:
        raise ProtocolError("not an ELSGenericMessage: no Message (TYPE, RESULT_CODE) in the answer")
    kw.setdefault("transaction_id", "")
    echo = kw.get("input_data")
    if isinstance(echo, LeadRequest):  # the echo may carry the words Home / Business: the model holds H / B
        kw["input_data"] = msgspec.structs.replace(
            echo, address_type=TYPE_WORDS.get(echo.address_type.upper(), echo.address_type),
            phones=tuple(msgspec.structs.replace(p, phone_type=TYPE_WORDS.get(p.phone_type.upper(), p.phone_type))
                         for p in echo.phones))
    if odd.raw:
        kw["unparsed"] = odd.raw
        if warn:
            clash = set(odd.conflicts)
            odd_ones = sorted(p for p in odd.raw if p not in clash)
            parts = [f"kept raw, not understood: {', '.join(odd_ones)}"] if odd_ones else []
            if clash:
                parts.append(f"kept raw, a second value that disagrees with the one read: {', '.join(sorted(clash))}")
            warnings.warn(f"dqkit: {'; '.join(parts)}", DecodeWarning, stacklevel=3)
    return ELSGenericMessage(**kw)
