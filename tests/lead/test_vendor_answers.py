"""Part 3: full vendor-shaped answers (JSON and XML, consumer and business), built from every field the seed lists,
survive decoding, flattening, the server and the clients, and the report; odd shapes are read or kept raw."""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any

import msgspec
import pandas as pd
import pytest

from dqkit.backends.base import BatchItem
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.contract.lead_decode import DecodeWarning, message_from_document
from dqkit.contract.lead_flat import flatten_message
from dqkit.contract.lead_wire import decode_message, encode_message
from dqkit.server.config import ServerConfig
from dqkit.server.engines import Loaded, load_local
from tests.http.inthread import served_in_thread


def _section(seed: str, title: str) -> str:
    start = seed.index(title)
    return seed[start:seed.index("\n### ", start + 5) if "\n### " in seed[start + 5:] else len(seed)]


def seed_table_names(seed: str, title: str) -> list[str]:
    """The first-column names of the attribute table under a section title."""
    text = _section(seed, title)
    return [m.group(1) for m in re.finditer(r"^\| ([A-Za-z_.0-9]+) \| (?:String|Group|Object)", text, re.M)]


def _value(name: str, i: int) -> str:
    codes = {"ADDRESS_CODE": "1", "GEOMATCH": "0", "ADDRESS_TYPE": "S", "MATCHZIPFIVE": "T", "MATCHZIPNINE": "T",
             "GEO_LAT": "37.774929", "GEO_LNG": "-122.419416", "ZIPTYPE": "U", "SUITABLEFORDELIVERY": "F",
             "LACSCODE": "F", "ADDRESS_ERROR_STATUS": "0416",
             "SCORE_RESULT": "840", "PHONE_STATUS": "E800", "ELSResidentialAddressVerificationResult": "850",
             "ELSResidentialPhoneVerificationResult": "840", "ELSResidentialAddressHighRisk": "N",
             "ELSResidentialPhoneHighRisk": "U", "NameParser.BUSINESS_NAME_IND": "Y"}
    return codes.get(name, f"v{i:03d}")


def consumer_answer(seed: str) -> dict[str, Any]:
    """A vendor answer holding every StandardizedAddress, Stage1Data and consumer Stage2Data field of the seed."""
    std_names = [*seed_table_names(seed, "### 2.3 StandardizedAddress"), "SUFFIX", "UNIT_DESIG", "POSTDIR"]
    std = {n: _value(n, i) for i, n in enumerate(std_names)}
    s1_names = seed_table_names(seed, "### 2.4 Stage1Data")
    assert len(std_names) >= 38 and len(s1_names) >= 20
    stage1: dict[str, Any] = {}
    for i, n in enumerate(s1_names, start=100):
        if n == "REVERSE_PHONE_APPEND":
            stage1[n] = {"EXECUTION_STATUS_FLAG": "P", "FIRST_NAME": "v901", "LAST_NAME": "v902",
                         "ADDRESS": {"STREET1": "v903", "CITY": "v904", "STATE": "v905", "ZIP": "v906"}}
        elif n == "PHONE_NUMBER":
            stage1[n] = ["v907", "v908"]
        else:
            stage1[n] = _value(n, i)  # NameParser.* in the dotted form the seed's table uses
    consumer = re.search(r"Consumer shape: (.*)", seed)
    assert consumer is not None
    stage2: dict[str, Any] = {"Data_Type": "v950", "Match_Type": "I"}
    k = 960
    for group, members in re.findall(r"(Livu|Zip|Person) \(([^)]*)\)", consumer.group(1)):
        stage2[group] = {}
        for m in members.split(", "):
            stage2[group][m] = f"v{k}"
            k += 1
    return {"TRANSACTION_ID": 123456789, "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100", "VALUE": "ok"},
            "StandardizedAddress": std, "Stage1Data": stage1, "Stage2Data": stage2}


BUSINESS = {
    "Demographic": {
        "BusinessFacts": {"FileEstablishedDate": "b01", "EmployeeSizeIndicator": {"code": "A", "content": "b02"},
                          "BusinessTypeIndicator": {"code": "C", "content": "b03"},
                          "NonProfitIndicator": {"code": "N", "content": "b04"}, "YearsInBusiness": "b05",
                          "PublicIndicator": {"code": "P", "content": "b06"}, "SalesRevenue": "b07",
                          "EmployeeSize": "b08", "SalesIndicator": {"code": "S", "content": "b09"},
                          "YearsInBusinessIndicator": {"code": "Y", "content": "b10"}},
        "SICCodes": [{"code": "b11", "content": "b12"}, {"code": "b13", "content": "b14"}],
        "NAICSCodes": [{"code": "b15", "content": "b16"}],
    },
    "CorporateLinkageSummary": {"CorporateLinkage": [
        {"LinkageCompanyAddress": "b17", "LinkageRecordBIN": "b18",
         "LinkageRecordType": {"code": "1", "content": "Ultimate Parent"}, "LinkageCompanyState": "b19",
         "LinkageCompanyCity": "b20", "LinkageCountryCode": "b21", "LinkageCompanyName": "b22"},
        {"LinkageCompanyName": "b23", "LinkageRecordType": {"code": "4"}}]},
    "Summary": {"Zip": "b24", "ZipExtension": "b25", "StreetAddress": "b26", "BusinessName": "b27", "State": "b28",
                "City": "b29", "WebsiteURL": "b30", "PhoneNumber": "b31", "ExperianBIN": "b32",
                "DoingBusinessAs": [{"DBAName": "b33"}, {"DBAName": "b34"}]},
    "IntelliScoreSummary": {"IntelliScore": [
        {"ScoreInfo": {"Score": "b35"}, "Action": "b36", "PercentileRanking": "b37",
         "ModelInformation": {"ModelCode": "b38", "ModelTitle": "b39", "CustomModelCode": "b40"},
         "PubliclyHeldCompany.code": "b41", "ProfileNumber": "b42"}]},
    "PublicRecord": {n: f"p{i:02d}" for i, n in enumerate((
        "BankruptcyFilingCount", "UCCDerogCount", "OldestTaxLienDate", "CollectionCount", "TaxID",
        "JudgmentFilingCount", "TradeCollectionCount", "TaxLienFilingCount", "MostRecentTaxLienDate", "LegalBalance",
        "CollectionCountPast24Months", "CollectionBalance", "OldestUCCFilingDate", "MostRecentUCCFilingDate",
        "UCCFilings", "TaxLienFlag", "JudgmentFlag"))},
}


def business_answer() -> dict[str, Any]:
    return {"TRANSACTION_ID": "T-9", "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"},
            "StandardizedAddress": {"STREET1": "v001", "FIRMLINE": "v002"}, "Stage2Data": {"BusinessData": BUSINESS}}


def _leaves(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set().union(*(_leaves(v) for v in doc.values())) if doc else set()
    if isinstance(doc, list):
        return set().union(*(_leaves(v) for v in doc)) if doc else set()
    return {str(doc)}


def test_business_fixture_holds_every_business_field_of_the_seed(seed_lead_text: str) -> None:
    text = seed_lead_text[seed_lead_text.index("Business shape"):seed_lead_text.index("Meaning of Data_Type")]
    names = set(re.findall(r"\b([A-Z][a-z]+(?:[A-Z][A-Za-z0-9]*)+|DBAName|BIN)\b", text))
    names -= {"BusinessData", "ScoreInfo", "CorporateLinkageSummary", "IntelliScoreSummary", "ModelInformation",
              "BusinessFacts", "PubliclyHeldCompany"}
    written = msgspec.json.encode(BUSINESS).decode()
    assert not [n for n in names if n not in written]


def _to_xml(name: str, value: Any, out: list[str]) -> None:
    """XML the vendor's way: code objects as attributes (<SIC code="1">Name</SIC>), lists as repeated elements."""
    if isinstance(value, dict) and set(value) <= {"code", "content"}:
        out.append(f'<{name} code="{value.get("code", "")}">{value.get("content", "")}</{name}>')
    elif isinstance(value, dict):
        out.append(f"<{name}>")
        for k, v in value.items():
            _to_xml(k, v, out)
        out.append(f"</{name}>")
    elif isinstance(value, list):
        for item in value:
            _to_xml(name, item, out)
    else:
        out.append(f"<{name}>{value}</{name}>")


def as_xml(doc: dict[str, Any]) -> bytes:
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    _to_xml("ELSGenericMessage", doc, out)
    return "".join(out).encode()


def answers(seed: str) -> list[tuple[str, dict[str, Any]]]:
    return [("consumer", consumer_answer(seed)), ("business", business_answer())]


@pytest.mark.parametrize("kind", ["consumer", "business"])
@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_full_answer_decodes_and_flattens_without_losing_a_value(kind: str, fmt: str, seed_lead_text: str) -> None:
    doc = dict(answers(seed_lead_text))[kind]
    body = msgspec.json.encode({"ELSGenericMessage": doc}) if fmt == "json" else as_xml(doc)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DecodeWarning)  # every member placed: no warning
        msg = decode_message(body, f"application/{fmt}")
    assert msg.unparsed is None
    flat = flatten_message(msg)
    shown = " ".join(flat.values())
    missing = sorted(v for v in _leaves(doc) - {"S100", "STATUS", "ok"} if v not in shown)
    assert not missing
    if kind == "consumer":
        assert flat["els_address_verification_meaning"] == "Full name match, residential address"
        assert flat["rpa_status_meaning"] == "Append successful" and flat["rpa_zip"] == "v906"
        assert flat["s2_match_type_meaning"] == "Person level" and flat["std_geomatch_meaning"]
        assert flat["phone_numbers"] == "v907 v908" and flat["name_first"]
    else:
        assert flat["biz_sic_codes"] == "b11 b13" and flat["biz_sic_descriptions"] == "b12; b14"
        assert flat["biz_linkage_company_name"] == "b22 | b23"
        assert flat["biz_linkage_record_type_meaning"] == "Ultimate Parent | Branch"
        assert flat["biz_intelliscore_score_info_score"] == "b35"
        assert flat["biz_summary_doing_business_as"] == "b33; b34"


def test_a_grouped_echo_with_type_words_is_read() -> None:
    msg = message_from_document({
        "TRANSACTION_ID": 1, "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"},
        "InputData": {"LEAD_TRANS_DETAILS": {"FIRST_NAME": "Ann"}, "LEAD_ADDRESS": {"ZIP": "62701",
                                                                                   "ADDRESS_TYPE": "Business"},
                      "LEAD_PHONE": {"PHONE_NUMBER": "2175550142", "PHONE_TYPE": "Home"}, "CLIENT_ID": "C1"}})
    echo = msg.input_data
    assert echo is not None and (echo.first_name, echo.zip, echo.client_id, echo.address_type) == (
        "Ann", "62701", "C1", "B")
    assert echo.phones[0].phone_type == "H" and msg.unparsed is None


def test_odd_shapes_are_read_or_kept_raw_never_fatal() -> None:
    doc = {"TRANSACTION_ID": "1", "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100"},
           "Stage1Data": {"PHONE_NUMBER": "2175550142", "NameParser": {"FIRST_NAME": "ANN"},
                          "NameParser.LAST_NAME": "LEE", "SCORE_RESULT": 840, "Mystery": {"x": [1, 2]}},
           "StandardizedAddress": {"ZIP": 62701, "GEO_LAT": 39.8, "CITY": ["SPRINGFIELD"], "STATE": {"a": "b"}}}
    with pytest.warns(DecodeWarning, match=r"Stage1Data\.Mystery"):
        msg = message_from_document(doc)
    assert msg.stage1_data is not None and msg.stage1_data.phone_number == ["2175550142"]
    assert msg.stage1_data.name_parser is not None
    assert (msg.stage1_data.name_parser.first_name, msg.stage1_data.name_parser.last_name) == ("ANN", "LEE")
    assert msg.stage1_data.score_result == "840"
    assert msg.standardized_address is not None and msg.standardized_address.zip == "62701"
    assert msg.standardized_address.city == "SPRINGFIELD"
    assert msg.unparsed == {"Stage1Data.Mystery": {"x": [1, 2]}, "StandardizedAddress.STATE": {"a": "b"}}
    flat = flatten_message(msg)
    assert "Mystery" in flat["unparsed"] and flat["score_desc"] == "" and flat["score_match_level"]
    # survives a cache round trip (the stored form is the message's own JSON)
    again = message_from_document(msgspec.json.decode(msgspec.json.encode(msg)), warn=False)
    assert again == msg


class Replay:
    """A lead backend that answers every lead with one recorded vendor answer (the server's codec is real)."""

    def __init__(self, msg: ELSGenericMessage) -> None:
        self.msg = msg

    @property
    def name(self) -> str:
        return "replay"

    def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage:
        return msgspec.structs.replace(self.msg, input_data=lead)

    def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        return [BatchItem(i, self.verify_lead(lead)) for i, lead in enumerate(leads)]


@pytest.mark.parametrize("kind", ["consumer", "business"])
def test_full_answers_round_trip_through_the_server_clients_and_report(kind: str, seed_lead_text: str) -> None:
    from dqkit.client import LeadClient
    from dqkit.report.html import build_report

    msg = message_from_document(dict(answers(seed_lead_text))[kind])
    msg = msgspec.structs.replace(msg, transaction_id=str(msg.transaction_id))  # XML carries no number type

    def loader(cfg: ServerConfig) -> Loaded:
        loaded = load_local(cfg)
        return Loaded(loaded.lead_engine, Replay(msg), loaded.address, loaded.dataset_ids)

    lead = LeadRequest(full_name="Ann Lee", zip="62701")
    for fmt in ("json", "xml"):
        body, ctype = encode_message(msg, fmt)  # type: ignore[arg-type]
        assert decode_message(body, ctype) == msg
    with served_in_thread(ServerConfig(), loader) as url:
        for fmt in ("json", "xml", "form"):
            with LeadClient(url, fmt=fmt) as client:  # type: ignore[arg-type]
                got = client.verify_lead(lead)
            assert msgspec.structs.replace(got, input_data=None) == msg
        frame = pd.DataFrame({"name": ["Ann Lee", "Bo Diaz"], "zip": ["62701", "62702"], "source": ["A", "B"]})
        with LeadClient(url) as client:
            out = frame.leads.verify(backend=client, cache=False)
    expected = {k for k, v in flatten_message(msg).items() if v}
    assert {f"lead_{k}" for k in expected} <= set(out.columns)
    assert (out[[f"lead_{k}" for k in sorted(expected) if k != "transaction_id"]].iloc[0].astype(str)
            == out[[f"lead_{k}" for k in sorted(expected) if k != "transaction_id"]].iloc[1].astype(str)).all()
    html = build_report(out)
    assert "<html" in html.lower()
