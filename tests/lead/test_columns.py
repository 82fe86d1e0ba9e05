"""Forgiving column names, row -> lead, and the flat result columns."""

from __future__ import annotations

import pytest

from dqkit.contract.errors import InputError
from dqkit.contract.lead import ELSGenericMessage, Message, StandardizedAddress
from dqkit.contract.lead_columns import (
    CORE_COLUMNS,
    RESULT_COLUMNS,
    error_row,
    flatten_message,
    lead_from_row,
    resolve_columns,
)
from dqkit.contract.lead_flat import STD_COLUMNS


def test_forgiving_names() -> None:
    cols = ["First Name", "last_name", "Zip Code", "Phone", "E-mail", "Street Address", "City", "ST", "Lead Source"]
    m = resolve_columns(cols)
    assert m == {"FIRST_NAME": "First Name", "LAST_NAME": "last_name", "ZIP": "Zip Code", "PHONE_NUMBER": "Phone",
                 "STREET1": "Street Address", "CITY": "City", "STATE": "ST", "LEAD_SOURCE": "Lead Source"}


def test_explicit_mapping_wins_and_is_checked() -> None:
    m = resolve_columns(["phone", "cell"], {"phone_number": "cell"})
    assert m["PHONE_NUMBER"] == "cell"
    with pytest.raises(InputError, match="not in the input"):
        resolve_columns(["a"], {"ZIP": "zipcode"})
    with pytest.raises(InputError, match="unknown lead field"):
        resolve_columns(["a"], {"SHOE_SIZE": "a"})


def test_row_to_lead_cleans_values() -> None:
    cols = resolve_columns(["fname", "lname", "zip", "phone", "address_type"])
    lead = lead_from_row({"fname": " Ann ", "lname": "Lee", "zip": 2134.0, "phone": None, "address_type": "Home"},
                         cols)
    assert (lead.first_name, lead.last_name, lead.zip, lead.phones, lead.address_type) == ("Ann", "Lee", "02134",
                                                                                           (), "H")
    nine = lead_from_row({"zip": "94110-1234"}, resolve_columns(["zip"]))
    assert (nine.zip, nine.zipplus) == ("94110", "1234")
    nan = lead_from_row({"fname": float("nan")}, resolve_columns(["fname"]))
    assert nan.first_name == ""


def test_flatten_has_the_core_and_each_present_group_in_order() -> None:
    msg = ELSGenericMessage(transaction_id=7, message=Message(type="ERROR", result_code="E600", value="x"),
                            standardized_address=StandardizedAddress(address_error_status="0416", address_code="3"))
    row = flatten_message(msg)
    assert set(CORE_COLUMNS) <= set(row) and set(STD_COLUMNS) <= set(row)
    assert not any(k.startswith(("s2_", "biz_", "rpa_", "name_")) for k in row)  # groups the message lacks
    assert sorted(row, key=list(RESULT_COLUMNS).index) == list(row)
    assert row["std_geomatch_meaning"] == "" and row["std_address_type_meaning"] == ""
    assert row["outcome"] == "caller fault" and row["transaction_id"] == "7"
    assert row["std_error_codes"] == "04 16" and "Several" in row["std_address_code_meaning"]
    err = error_row(TimeoutError("slow"))
    assert list(err) == list(CORE_COLUMNS) and "slow" in err["result_value"]
