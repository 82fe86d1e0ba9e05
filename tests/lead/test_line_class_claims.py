"""Claims only from data in the phone scores (issue 28 part 3): SCORE_RESULT and ELSResidentialPhoneVerificationResult
name a line class (residential, business, mixed use) only from a record that says it.

On the start commit (main at 726bfc6) a record with a blank line class was read as residential by the phone scores
(ELS already was not): a full name and address match answered 840 "..., residential phone", a business lead 690
"business name and address, residential phone", and `dqkit verify` wrote score_line_class "residential".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

from dqkit.contract.codes import SCORE_RESULTS, LineClass, MatchLevel
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.lead.names import parse_name
from dqkit.engines.lead.phones import check_phone
from dqkit.engines.lead.records import LeadRecords

ANN = {"first_name": "Ann", "last_name": "Lee", "street1": "1906 Doolittle Dr", "zip": "94577",
       "phone": "5103572000"}
ACME = {"business_name": "Acme Inc", "street1": "1616 Doolittle Dr", "zip": "94577", "phone": "5103572001"}


def _records(line_class: str, *more: dict[str, str]) -> LeadRecords:
    return LeadRecords.from_rows([{**ANN, "line_class": line_class}, {**ACME, "line_class": line_class}, *more])


def _lead(**kw: str) -> LeadRequest:
    phone = kw.pop("phone")
    base = {"city": "San Leandro", "state": "CA", "zip": "94577"}
    return LeadRequest(**{**base, **kw}, phones=(Phone(phone_number=phone),))  # type: ignore[arg-type]


def _person() -> LeadRequest:
    return _lead(first_name="Ann", last_name="Lee", street1="1906 Doolittle Dr", phone="5103572000")


def _business() -> LeadRequest:
    return _lead(business_name="Acme Inc", address_type="B", street1="1616 Doolittle Dr", phone="5103572001")


def _scored(records: LeadRecords, lead: LeadRequest) -> tuple[str, str, str]:
    """(SCORE_RESULT, ELSResidentialPhoneVerificationResult, result code) of the score profile."""
    msg = LeadEngine(LeadProfile(records=records, stage1="score")).verify(lead)
    s1 = msg.stage1_data
    assert s1 is not None and msg.message is not None
    return s1.score_result, s1.residential_phone_verification_result, msg.message.result_code


def test_a_blank_line_class_is_no_residential_phone() -> None:
    blank = _records("")
    score, els_phone, result = _scored(blank, _person())
    assert (score, els_phone) == ("101", "101"), score  # 840 "full name and address, residential phone" before
    assert SCORE_RESULTS[score].line_class == LineClass.NONE
    assert result == "S100"  # the match still counts: the person and the phone are known
    score, els_phone, result = _scored(blank, _business())
    assert (score, els_phone, result) == ("101", "101", "S100")  # 690 "..., residential phone" before
    # a phone in a blank record matching nothing of the lead: no "no match, residential phone" (570) either
    other = _lead(first_name="Bo", last_name="Chan", street1="1 Far Rd", phone="5103572000")
    score, _, result = _scored(blank, other)
    assert (score, result) == ("101", "S101")


def test_the_class_comes_from_a_record_that_says_it() -> None:
    assert _scored(_records("R"), _person())[0] == "840"
    assert _scored(_records("B"), _business())[0] == "680"
    assert _scored(_records("M"), _person())[0] == "820"
    # the matching record is blank, another record of the same number says B: the number's class is B
    said = _records("", {"first_name": "Cy", "last_name": "Ng", "street1": "9 Elm St", "zip": "94577",
                         "phone": "5103572000", "line_class": "B"})
    sc = SCORE_RESULTS[_scored(said, _person())[0]]
    assert (sc.code, sc.match_level, sc.line_class) == ("830", MatchLevel.FULL_NAME_ADDRESS, LineClass.BUSINESS)
    # no record says R, B or M; one says the number is a cell phone
    cell = _records("", {"last_name": "Ng", "zip": "94577", "phone": "5103572000", "line_class": "C"})
    assert _scored(cell, _person())[0] == "590"


def test_the_phone_check_claims_no_class_from_a_blank_record() -> None:
    """PHONE_STATUS's own score of a number a record holds without a class (the default profile's path)."""
    blank = _records("")
    got = check_phone("5103572000", "94577", records=blank)
    assert got.status == "E800" and got.score == "101", got  # matches the database; class not said
    assert check_phone("5103572000", "94577", records=_records("R")).score == "570"
    lead = _person()
    assert blank.score(lead, parse_name(lead), got) == "101"


def test_verify_writes_no_residential_line_class_from_a_blank_record(tmp_path: Path) -> None:
    """Through `dqkit verify --records ... --stage1 score`: the flat columns follow the code."""
    recs = tmp_path / "records.csv"
    pd.DataFrame([{**ANN, "business_name": "", "line_class": ""}]).to_csv(recs, index=False)
    leads = tmp_path / "leads.csv"
    pd.DataFrame({"first_name": ["Ann"], "last_name": ["Lee"], "street": ["1906 Doolittle Dr"],
                  "city": ["San Leandro"], "state": ["CA"], "zip": ["94577"], "phone": ["510-357-2000"]}
                 ).to_csv(leads, index=False)
    out = tmp_path / "out.csv"
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(leads), "-o", str(out), "--quiet",
                           "--no-cache", "--records", str(recs), "--stage1", "score"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    row = got.iloc[0]
    assert row["result_code"] == "S100" and row["score_result"] == "101", row.to_dict()
    assert row.get("score_line_class", "") != "residential", row.to_dict()
