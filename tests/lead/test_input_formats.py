"""Part 1: leads written the way people write them verify; the wire stays strict for encoded requests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dqkit.backends.local import LocalBackend
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_columns import lead_from_row, resolve_columns
from dqkit.contract.lead_input import normalize_lead, split_phone
from dqkit.contract.lead_wire import decode_lead_json, encode_lead_json
from dqkit.engines.lead.engine import LeadEngine, LeadProfile

PHONES = {
    "(217) 555-0142": ("2175550142", ""),
    "+1 217-555-0142": ("2175550142", ""),
    "217.555.0142": ("2175550142", ""),
    "217-555-0142 x12": ("2175550142", "12"),
    "217-555-0142 ext. 12": ("2175550142", "12"),
    "217 555 0142, extension 7": ("2175550142", "7"),
    "1-217-555-0142": ("2175550142", ""),
    "\u00a0(217) 555-0142\u00a0": ("2175550142", ""),
    "(214)6472512": ("2146472512", ""),
}


@pytest.mark.parametrize(("written", "expected"), PHONES.items())
def test_phone_forms_become_digits_and_extension(written: str, expected: tuple[str, str]) -> None:
    number, ext, country = split_phone(written)
    assert (number, ext, country) == (*expected, "")


def test_foreign_and_unusable_numbers() -> None:
    assert split_phone("+44 20 7946 0958") == ("2079460958", "", "44")
    assert split_phone("555-CALL-NOW") == ("555-CALL-NOW", "", "")  # kept: the engine answers E808
    msg = LeadEngine(LeadProfile(standardize_address=False)).verify(normalize_lead(LeadRequest(
        full_name="Ann Lee", zip="62701", phones=(Phone(phone_number="+44 20 7946 0958"),))))
    assert msg.stage1_data is not None and msg.stage1_data.phone_status == "E808"


@pytest.mark.parametrize("written", list(PHONES))
def test_every_phone_form_verifies_through_the_accessor(written: str) -> None:
    df = pd.DataFrame({"first_name": ["Ann"], "last_name": ["Lee"], "street": ["1 Old State Capitol Plz"],
                       "city": ["Springfield"], "state": [" Illinois "], "zip": ["62701-1234"], "phone": [written]})
    out = df.leads.verify(backend=LocalBackend(), cache=False)
    row = out.iloc[0]
    assert row["lead_result_code"] in ("S100", "S102"), row["lead_result_value"]
    assert row["lead_phone_numbers"] == PHONES[written][0]
    assert row["phone"] == written  # the raw text stays in the output
    assert row["lead_std_state"] == "IL"


def test_row_normalization_zip4_state_names_blanks() -> None:
    cols = resolve_columns(["First Name", "Last Name", "Zip", "State", "Phone", "City"])
    lead = lead_from_row({"First Name": "\u00a0Ann ", "Last Name": " Lee", "Zip": "94501-1234",
                          "State": "california", "Phone": "(510) 555-0142 x9", "City": " Alameda\t"}, cols)
    assert (lead.first_name, lead.last_name, lead.city) == ("Ann", "Lee", "Alameda")
    assert (lead.zip, lead.zipplus, lead.state) == ("94501", "1234", "CA")
    assert lead.phones == (Phone(phone_number="5105550142", phone_extension="9"),)
    assert normalize_lead(LeadRequest(state="Washington D.C.", zip="2134")).state == "DC"
    assert normalize_lead(LeadRequest(zip="2134")).zip == "02134"


@pytest.mark.parametrize(("written", "code"), [("Calif.", "CA"), ("Mass.", "MA"), ("Penn.", "PA"), ("N.Y.", "NY"),
                                              ("W. Va.", "WV"), ("Wash.", "WA"), ("Fla", "FL"), ("D.C.", "DC")])
def test_traditional_state_abbreviations_are_states_not_e300(written: str, code: str) -> None:
    assert normalize_lead(LeadRequest(state=written)).state == code
    frame = pd.DataFrame({"name": ["Maria Garcia"], "state": [written], "zip": ["20500"]})
    out = frame.leads.verify(backend=LocalBackend(), cache=False, progress=False)
    assert out.loc[0, "lead_result_code"] != "E300", out.loc[0, "lead_result_value"]


def test_the_wire_stays_strict_for_encoded_requests() -> None:
    body = encode_lead_json(LeadRequest(full_name="Ann Lee", zip="62701",
                                        phones=(Phone(phone_number="(217) 555-0142"),)))
    lead = decode_lead_json(body)
    assert isinstance(lead, LeadRequest)
    msg = LeadEngine(LeadProfile(standardize_address=False)).verify(lead)
    assert msg.message.result_code == "E300" and "PHONE_NUMBER" in msg.message.value


def test_client_normalizes_before_encoding(tmp_path: Path) -> None:
    from dqkit.client import LeadClient
    from dqkit.server.testing import serve_process

    with serve_process() as server, LeadClient(server.url, token=server.token) as client:
        msg = client.verify_lead(LeadRequest(full_name="Ann Lee", zip="62701",
                                             phones=(Phone(phone_number="+1 (217) 555-0142 ext. 3"),)))
    assert msg.message.result_code != "E300"
    assert msg.input_data is not None and msg.input_data.phones[0] == Phone(phone_number="2175550142",
                                                                             phone_extension="3")
