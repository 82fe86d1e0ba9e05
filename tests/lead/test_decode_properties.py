"""Decoding a vendor answer keeps everything it was sent: property tests over generated answers (Hypothesis).

The generator walks the message models' own fields and writes each the ways vendors do (a string, a number, a
one-element list, `{"content": ...}`, a dotted `A.B` member beside a nested `A`, any case), and adds what dqkit
cannot place: unknown members, objects where text belongs, `TRANSACTION_ID` as an object, one field written twice
with different values. Every value (a unique token) must then be found in the encoded message (fields or
`unparsed`) and, outside the echo, in the flat row; the encoded message decodes back to itself. The same answers
written as XML (the layout `encode_message` writes) lose nothing either.
"""

from __future__ import annotations

import itertools
import typing
import warnings
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dqkit.contract.lead import ELSGenericMessage, Message, NameParser, Stage1Data
from dqkit.contract.lead_decode import DecodeWarning, message_from_document
from dqkit.contract.lead_flat import flatten_message
from dqkit.contract.lead_wire import _to_xml, decode_message, encode_message

_counter = itertools.count(1)


def _token() -> st.SearchStrategy[str]:
    return st.builds(lambda: f"t{next(_counter)}z")


def _text_shapes(token: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """A value of a text field, in the shapes vendors send it."""
    return st.one_of(token, token.map(lambda t: [t]), token.map(lambda t: {"content": t}),
                     token.map(lambda t: {"#text": t}), st.integers(10**6, 10**7))


def _odd_value(token: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Something dqkit cannot place in a text field: an object of two members, a list of two."""
    return st.one_of(st.builds(lambda a, b: {"a": a, "b": b}, token, token),
                     st.builds(lambda a, b: [a, b], token, token))


def _case(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.upper(), name.lower()])


def _unwrap(tp: Any) -> Any:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    return args[0] if typing.get_origin(tp) in (typing.Union, __import__("types").UnionType) and len(args) == 1 else tp


@st.composite
def _struct_doc(draw: st.DrawFn, cls: type, depth: int = 0) -> dict[str, Any]:
    token = _token()
    out: dict[str, Any] = {}
    for f in msgspec.structs.fields(cls):
        if not f.required and not draw(st.booleans()):
            continue
        key = draw(_case(f.encode_name)) if not f.required else f.encode_name
        tp = _unwrap(f.type)
        origin = typing.get_origin(tp)
        if tp is str or tp == (str | int):
            out[key] = draw(_text_shapes(token)) if f.encode_name != "TYPE" else "STATUS"
        elif isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            if depth < 4:
                out[key] = draw(_struct_doc(tp, depth + 1))
        elif origin in (list, tuple):
            (item,) = typing.get_args(tp)[:1]
            if item is str:
                out[key] = draw(st.lists(token, min_size=1, max_size=3))
            elif depth < 4:
                out[key] = draw(st.lists(_struct_doc(item, depth + 1), min_size=1, max_size=2))
        elif origin is dict and f.encode_name != "dqkitUnparsed":
            out[key] = draw(st.dictionaries(st.sampled_from(["K1", "K2", "K3"]), token, max_size=3))
    if draw(st.integers(0, 3)) == 0:  # a member dqkit does not know
        out[f"Mystery{next(_counter)}"] = draw(st.one_of(token, _odd_value(token)))
    text_fields = [f.encode_name for f in msgspec.structs.fields(cls) if _unwrap(f.type) is str]
    if text_fields and draw(st.integers(0, 4)) == 0:  # an object where text belongs
        out[draw(st.sampled_from(text_fields))] = draw(_odd_value(token))
    return out


@st.composite
def vendor_answers(draw: st.DrawFn) -> dict[str, Any]:
    doc = draw(_struct_doc(ELSGenericMessage))
    doc.pop("dqkitUnparsed", None)
    doc["Message"] = draw(_struct_doc(Message)) | {"TYPE": "STATUS", "RESULT_CODE": "S100"}
    if draw(st.booleans()):  # TRANSACTION_ID as an object
        doc["TRANSACTION_ID"] = draw(_odd_value(_token()))
    stage1 = doc.get("Stage1Data")
    if isinstance(stage1, dict) and draw(st.booleans()):  # the dotted form of NameParser beside (or instead of) it
        name = draw(st.sampled_from([f.encode_name for f in msgspec.structs.fields(NameParser)]))
        stage1[f"{draw(_case('NameParser'))}.{draw(_case(name))}"] = draw(_token())
    return doc


def _leaves(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_leaves(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_leaves(v) for v in value)) if value else set()
    return {str(value)}


def _decode(doc: dict[str, Any]) -> tuple[ELSGenericMessage, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DecodeWarning)
        msg = message_from_document(doc)
    return msg, [str(w.message) for w in caught if issubclass(w.category, DecodeWarning)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(vendor_answers())
def test_decode_flatten_encode_loses_nothing(doc: dict[str, Any]) -> None:
    msg, said = _decode(doc)
    body, _ = encode_message(msg)
    encoded = body.decode()
    lost = sorted(v for v in _leaves(doc) - {"STATUS", "S100"} if v not in encoded)
    assert not lost, f"values of the answer in neither a field nor unparsed: {lost}"
    flat = " ".join(flatten_message(msg).values())
    echo = _leaves(next((v for k, v in doc.items() if k.upper() == "INPUTDATA"), {}))
    hidden = sorted(v for v in _leaves(doc) - echo - {"STATUS", "S100"} if v not in flat)
    assert not hidden, f"values of the answer missing from the flat row: {hidden}"
    if msg.unparsed:  # every raw member is named in the warning
        assert said and all(path in said[0] for path in msg.unparsed)
    else:
        assert not said
    assert decode_message(body, "application/json") == msg  # the encoded message reads back as itself


def test_a_dotted_and_a_nested_name_that_disagree_keep_both() -> None:
    doc = {"TRANSACTION_ID": 1, "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"},
           "Stage1Data": {"NameParser.FIRST_NAME": "ANN", "NameParser": {"FIRST_NAME": "ANNE", "LAST_NAME": "LEE"}}}
    msg, said = _decode(doc)
    assert msg.stage1_data is not None and msg.stage1_data.name_parser is not None
    assert (msg.stage1_data.name_parser.first_name, msg.stage1_data.name_parser.last_name) == ("ANN", "LEE")
    assert msg.unparsed == {"Stage1Data.NameParser.FIRST_NAME": "ANNE"}
    assert "disagrees" in said[0] and "Stage1Data.NameParser.FIRST_NAME" in said[0]


def test_the_same_member_in_two_cases_keeps_both() -> None:
    doc = {"TRANSACTION_ID": 1, "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"},
           "Stage1Data": {"SCORE_RESULT": "840", "score_result": "510"}}
    msg, said = _decode(doc)
    assert msg.stage1_data == Stage1Data(score_result="840")
    assert msg.unparsed == {"Stage1Data.score_result": "510"} and said


@pytest.mark.parametrize("sent", [{"id": 7}, [1, 2]])
def test_a_transaction_id_that_is_no_id_is_kept_raw(sent: Any) -> None:
    msg, said = _decode({"TRANSACTION_ID": sent, "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"}})
    assert msg.transaction_id == "" and msg.unparsed == {"TRANSACTION_ID": sent}
    assert said and "TRANSACTION_ID" in said[0]


def _xml_safe(value: Any) -> Any:
    """The answer as XML can carry it: `#text` is no element name (XML's own text is the `content` member)."""
    if isinstance(value, dict):
        return {("content" if k == "#text" else k): _xml_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_xml_safe(v) for v in value]
    return value


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(vendor_answers())
def test_the_xml_form_of_an_answer_loses_nothing_either(doc: dict[str, Any]) -> None:
    doc = _xml_safe(doc)
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    _to_xml("ELSGenericMessage", doc, out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DecodeWarning)
        msg = decode_message("".join(out).encode(), "application/xml")
    encoded = encode_message(msg)[0].decode()
    lost = sorted(v for v in _leaves(doc) - {"STATUS", "S100"} if v not in encoded)
    assert not lost, f"values of the XML answer in neither a field nor unparsed: {lost}"
