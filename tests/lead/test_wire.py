"""The three request representations and the response, both directions, and bad input of every kind."""

from __future__ import annotations

import pytest

from dqkit.contract.errors import ProtocolError
from dqkit.contract.lead import Attribute, ELSGenericMessage, LeadRequest, Message, NameParser, Phone, Stage1Data
from dqkit.contract.lead_decode import DecodeWarning
from dqkit.contract.lead_wire import (
    WireProblem,
    decode_lead,
    decode_lead_form,
    decode_lead_json,
    decode_lead_xml,
    decode_message,
    encode_lead,
    encode_message,
)
from dqkit.engines.lead.engine import LeadEngine, LeadProfile

LEAD = LeadRequest(
    prefix="Dr", first_name="Jane", middle_name="Q", last_name="Roe", suffix="Jr", address_type="H",
    street1="1200 N Main St", street2="Apt 4", city="Springfield", state="IL", zip="62704", zipplus="1234",
    phones=(Phone(phone_type="H", phone_number="2175550123"), Phone(phone_type="B", phone_number="2175550199",
                                                                    phone_extension="12")),
    partner_id="P1", client_id="C1", cust_ref_no="R-9", attributes=(Attribute("campaign", "fall"), Attribute("x", "")),
)


@pytest.mark.parametrize("fmt", ["json", "xml", "form"])
def test_round_trip(fmt: str) -> None:
    body, ctype = encode_lead(LEAD, fmt)  # type: ignore[arg-type]
    assert decode_lead(body, ctype) == LEAD
    assert decode_lead(body, "") == LEAD  # sniffed without a content type


def test_same_result_in_all_three_formats() -> None:
    engine = LeadEngine(LeadProfile(standardize_address=False))
    answers = []
    for fmt in ("json", "xml", "form"):
        body, ctype = encode_lead(LEAD, fmt)  # type: ignore[arg-type]
        lead = decode_lead(body, ctype)
        assert isinstance(lead, LeadRequest)
        msg = engine.verify(lead)
        answers.append((msg.message, msg.stage1_data, msg.input_data))
    assert answers[0] == answers[1] == answers[2]


def test_json_accepts_words_and_letters_for_types() -> None:
    doc = (b'{"LEAD_TRANS_DETAILS":{"FIRST_NAME":"A","LAST_NAME":"B","FULL_NAME":"A B","BUSINESS_NAME":"Co"},'
           b'"LEAD_ADDRESS":{"ADDRESS_TYPE":"business","ZIP":"10001"},'
           b'"LEAD_PHONE":[{"PHONE_TYPE":"H","PHONE_NUMBER":"2125550100"}],'
           b'"CUSTOMER":{"PARTNER_ID":"P","CLIENT_ID":"C","CUST_REF_NO":"R"},'
           b'"LEAD_ATTRIBUTE":[{"ATTRIBUTE_NAME":"k","ATTRIBUTE_VALUE":"v"}]}')
    lead = decode_lead_json(doc)
    assert isinstance(lead, LeadRequest)
    assert lead.address_type == "B" and lead.phones[0].phone_type == "H"
    assert lead.full_name == "A B" and lead.business_name == "Co" and lead.client_id == "C"
    assert lead.attributes == (Attribute("k", "v"),)


def test_xml_case_and_repeated_groups() -> None:
    doc = (b"<ELSGenericMessage><CUSTOMER><CLIENT_ID>C</CLIENT_ID></CUSTOMER>"
           b"<lead_trans_details><full_name>Ann Lee</full_name></lead_trans_details>"
           b"<lead_phone><phone_number>1</phone_number></lead_phone><lead_phone><phone_number>2</phone_number>"
           b"</lead_phone><lead_address><zip>10001</zip><address_type>Home</address_type></lead_address>"
           b"<lead_attribute><attribute_name>a</attribute_name><attribute_value>1</attribute_value></lead_attribute>"
           b"</ELSGenericMessage>")
    lead = decode_lead_xml(doc)
    assert isinstance(lead, LeadRequest)
    assert [p.phone_number for p in lead.phones] == ["1", "2"]
    assert lead.address_type == "H" and lead.client_id == "C" and lead.attributes == (Attribute("a", "1"),)


def test_form_pairs_repeated_attributes_in_order() -> None:
    lead = decode_lead_form("FULL_NAME=A+B&ZIP=10001&ATTRIBUTE_NAME=a&ATTRIBUTE_VALUE=1&ATTRIBUTE_NAME=b"
                            "&ATTRIBUTE_VALUE=2&PHONE_NUMBER=1&PHONE_NUMBER=2")
    assert isinstance(lead, LeadRequest)
    assert lead.attributes == (Attribute("a", "1"), Attribute("b", "2"))
    assert [p.phone_number for p in lead.phones] == ["1", "2"]


BAD = [
    ("json", b"{not json", "malformed JSON"),
    ("json", b"[1, 2]", "must be an object"),
    ("json", b'{"LEAD_TRANS_DETAILS": {"FIRST_NAME": "Tom \\"T\\""}}', "not allowed in JSON"),
    ("json", b'{"LEAD_TRANS_DETAILS": {"FIRST_NAME": "Tom & Jerry"}}', "'&' is not allowed"),
    ("json", b'{"BUSINESS_NAME": "AT&T"}', "write 'and' to keep the value"),
    ("json", b'{"LEAD_TRANS_DETAILS": {"NICKNAME": "x"}}', "unknown field 'NICKNAME'"),
    ("json", b'{"COLOUR": "red"}', "unknown field 'COLOUR'"),
    ("json", b'{"LEAD_TRANS_DETAILS": {"FIRST_NAME": {"a": 1}}}', "must be a string"),
    ("json", b'{"LEAD_ADDRESS": {"ADDRESS_TYPE": "Castle"}}', "ADDRESS_TYPE must be"),
    ("json", b'{"LEAD_ATTRIBUTE": [' + b",".join([b'{"ATTRIBUTE_NAME":"a","ATTRIBUTE_VALUE":"b"}'] * 11) + b"]}",
     "at most 10"),
    ("xml", b"<elsgenericmessage><oops></elsgenericmessage>", "malformed XML"),
    ("xml", b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "boom">]><elsgenericmessage/>', "not allowed"),
    ("xml", b'<!DOCTYPE r SYSTEM "file:///etc/passwd"><elsgenericmessage/>', "not allowed"),
    ("xml", b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
            b"<elsgenericmessage><lead_trans_details><first_name>&lol2;</first_name></lead_trans_details>"
            b"</elsgenericmessage>", "not allowed"),
    ("xml", b"<lead><x/></lead>", "root element"),
    ("xml", b"<elsgenericmessage><lead_trans_details><first_name><b>x</b></first_name></lead_trans_details>"
            b"</elsgenericmessage>", "must hold text"),
    ("xml", b"<elsgenericmessage><secret>1</secret></elsgenericmessage>", "unknown element"),
    ("form", b"FIRST_NAME=a&FIRST_NAME=b", "more than once"),
    ("form", b"FOO=1", "unknown field"),
    ("form", b"ATTRIBUTE_VALUE=1", "without a matching ATTRIBUTE_NAME"),
    ("form", b"\xff\xfe=1", "not UTF-8"),
]


@pytest.mark.parametrize(("fmt", "body", "text"), BAD)
def test_bad_input_gets_e300_naming_the_problem(fmt: str, body: bytes, text: str) -> None:
    ctype = {"json": "application/json", "xml": "text/xml", "form": "application/x-www-form-urlencoded"}[fmt]
    result = decode_lead(body, ctype)
    assert isinstance(result, WireProblem), result
    assert result.code == "E300"
    assert text in result.value
    msg = LeadEngine().reject(result)
    assert msg.message.result_code == "E300" and msg.message.type == "ERROR" and text in msg.message.value


def test_no_entity_is_ever_expanded() -> None:
    body = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/hostname">]>'
            b"<elsgenericmessage><lead_trans_details><first_name>&e;</first_name></lead_trans_details>"
            b"</elsgenericmessage>")
    result = decode_lead(body, "application/xml")
    assert isinstance(result, WireProblem)


def test_message_round_trip_json_and_xml() -> None:
    msg = ELSGenericMessage(
        transaction_id="T1", message=Message(type="STATUS", result_code="S100", value="ok"), input_data=LEAD,
        stage1_data=Stage1Data(name_parser=NameParser(first_name="JANE", last_name="ROE"),
                               phone_number=["2175550123"], phone_status="E801", phone_desc="d"),
    )
    for fmt in ("json", "xml"):
        body, ctype = encode_message(msg, fmt)  # type: ignore[arg-type]
        assert decode_message(body, ctype) == msg


def test_vendor_numeric_transaction_id_and_unknown_members() -> None:
    body = b'{"TRANSACTION_ID": 12345, "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"}, "Extra": {"a": 1}}'
    with pytest.warns(DecodeWarning, match="Extra"):
        msg = decode_message(body, "application/json")
    assert msg.transaction_id == 12345 and msg.result_code == "S100"
    assert msg.unparsed == {"Extra": {"a": 1}}  # kept raw, never dropped


@pytest.mark.parametrize("body", [b"", b"<html>oops</html>", b'{"Message": 3}', b"\x00\x01"])
def test_bad_response_raises_protocol_error(body: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_message(body, "application/json" if body[:1] != b"<" else "text/html+xml")
