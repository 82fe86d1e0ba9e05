"""Requests built to confuse: duplicate keys, hidden characters, deep nesting; and no lead data in the server log."""

from __future__ import annotations

import httpx
import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.contract.lead_wire import WireProblem, decode_lead_json, decode_lead_xml
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.server.testing import serve_process


@pytest.mark.parametrize("body", [
    b'{"CUSTOMER": {"CLIENT_ID": "C1", "CLIENT_ID": "C2"}, "FULL_NAME": "Ann Lee", "ZIP": "62701"}',
    b'{"CLIENT_ID": "C1", "client_id": "C2", "FULL_NAME": "Ann Lee", "ZIP": "62701"}',
    b'{"CUSTOMER": {"CLIENT_ID": "C1"}, "CLIENT_ID": "C2", "FULL_NAME": "Ann Lee", "ZIP": "62701"}',
])
def test_duplicate_json_keys_are_e300_not_merged(body: bytes) -> None:
    got = decode_lead_json(body)
    assert isinstance(got, WireProblem) and got.code == "E300" and "CLIENT_ID" in got.value.upper()


def test_duplicate_xml_elements_are_e300() -> None:
    got = decode_lead_xml(b"<elsgenericmessage><customer><client_id>a</client_id><client_id>b</client_id>"
                          b"</customer></elsgenericmessage>")
    assert isinstance(got, WireProblem) and got.code == "E300"


@pytest.mark.parametrize("ch", ["\x00", "\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\ufeff",
                                "\u2060"])
@pytest.mark.parametrize("field", ["first_name", "last_name", "full_name"])
def test_hidden_characters_in_names_are_e200_naming_field_and_code_point(ch: str, field: str) -> None:
    kw = {"first_name": "Ann", "last_name": "Lee", "full_name": "", "zip": "62701"}
    kw[field] = f"A{ch}nn"
    msg = LeadEngine(LeadProfile(standardize_address=False)).verify(LeadRequest(**kw))
    assert msg.message.result_code == "E200"
    assert field.upper() in msg.message.value and f"U+{ord(ch):04X}" in msg.message.value
    assert ch not in msg.message.value


def test_server_refuses_get_deep_nesting_and_logs_no_lead_data() -> None:
    secret_name, secret_phone = "Zebulon", "3125550199"
    with serve_process() as server:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            r = http.get("/search", params={"FIRST_NAME": secret_name, "LAST_NAME": "Quux", "ZIP": "60601",
                                            "PHONE_NUMBER": secret_phone})
            assert r.status_code == 405 and r.headers["allow"] == "POST"
            r = http.get("/els/rest/enrich/v1/search", params={"FIRST_NAME": secret_name})
            assert r.status_code == 405
            nested = b'{"FIRST_NAME": ' + b"[" * 1000 + b"]" * 1000 + b', "ZIP": "60601"}'
            assert len(nested) > 2000
            r = http.post("/search", content=nested, headers={"Content-Type": "application/json"})
            assert r.status_code == 400 and r.json()["Message"]["RESULT_CODE"] == "E300"
            r = http.post("/search", json={"FIRST_NAME": secret_name, "LAST_NAME": "Quux", "ZIP": "60601",
                                           "PHONE_NUMBER": secret_phone})
            assert r.status_code == 200
        log = server.log_text()
    assert "/search" in log and "405" in log
    for needle in (secret_name, secret_phone, "Quux", "FIRST_NAME"):
        assert needle not in log, needle
