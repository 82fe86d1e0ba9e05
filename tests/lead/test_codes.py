"""Every code of the seed is in dqkit's tables, with the seed's meaning; the extra columns are consistent."""

from __future__ import annotations

import re

import pytest

from dqkit.contract import codes


def _section(text: str, start: str, end: str) -> str:
    i = text.index(start)
    j = text.index(end, i + len(start))
    return text[i:j]


def test_result_codes_match_section_7(seed_lead_text: str) -> None:
    sec = _section(seed_lead_text, "## 7. Errors", "## 8.")
    rows = re.findall(r"^\| ([ES]\d{3}) \| ([^|]+) \| ([^|]+) \|", sec, re.M)
    assert {c for c, _, _ in rows} == set(codes.RESULT_CODES)
    for code, feature, _condition in rows:
        rc = codes.RESULT_CODES[code]
        assert rc.feature == feature.strip()
        assert rc.condition in {cond.strip() for c, _, cond in rows if c == code}
        assert rc.type == ("STATUS" if code.startswith("S") else "ERROR")
    assert codes.RESULT_CODES["E100"].category == "SPOOF SOFT FAILURE"


@pytest.mark.parametrize(
    ("code", "outcome"),
    [("E200", "caller fault"), ("E300", "caller fault"), ("E600", "caller fault"), ("E602", "caller fault"),
     ("E500", "account configuration"), ("E501", "account configuration"), ("E400", "service fault"),
     ("E100", "lead quality"), ("S101", "verified negative"), ("S102", "verified negative"), ("S100", "success")],
)
def test_outcome_classes(code: str, outcome: str) -> None:
    assert codes.RESULT_CODES[code].outcome.value == outcome


def test_score_results_match_seed(seed_lead_text: str) -> None:
    para = next(line for line in seed_lead_text.splitlines() if line.startswith("SCORE_RESULT codes:"))
    seed_codes = re.findall(r"\b(\d{3}) ", para)
    assert set(seed_codes) == set(codes.SCORE_RESULTS)
    for code in seed_codes:
        assert codes.SCORE_RESULTS[code].meaning


@pytest.mark.parametrize(
    ("code", "level", "line", "validity"),
    [("840", "full name and address", "residential", "valid"), ("820", "full name and address", "mixed use", "valid"),
     ("770", "surname and address", "business", "valid"), ("610", "address only", "mixed use", "valid"),
     ("640", "business name", "business", "valid"), ("590", "", "", "probable cellular"),
     ("530", "", "", "prefix-ZIP mismatch"), ("450", "", "", "missing"), ("104", "", "", "system")],
)
def test_score_decoding(code: str, level: str, line: str, validity: str) -> None:
    sc = codes.SCORE_RESULTS[code]
    assert (sc.match_level.value, sc.line_class.value, sc.validity.value) == (level, line, validity)


def test_phone_statuses_match_seed(seed_lead_text: str) -> None:
    para = next(line for line in seed_lead_text.splitlines() if line.startswith("PHONE_STATUS codes:"))
    assert set(re.findall(r"E8\d\d", para)) == set(codes.PHONE_STATUSES) == {f"E8{n:02d}" for n in range(11)}


def test_address_error_statuses_match_seed(seed_lead_text: str) -> None:
    sec = _section(seed_lead_text, "ADDRESS_ERROR_STATUS is a 30-character", "### 2.4")
    seed = set(re.findall(r"^\| (\d\d) \|", sec, re.M)) | {f"{n:02d}" for n in range(64, 82)}
    assert seed == set(codes.ADDRESS_ERROR_STATUSES)


def test_small_tables_match_seed(seed_lead_text: str) -> None:
    sec = _section(seed_lead_text, "ADDRESS_CODE values:", "ADDRESS_ERROR_STATUS is")
    assert {"1", "-1", "-3", "-99"} <= set(codes.ADDRESS_CODES)
    assert "several possible results" in codes.address_code_meaning("4").lower()
    assert "absolute value" in codes.address_code_meaning("-5")
    assert sec
    geomatch = re.findall(r"(\d) = ", next(ln for ln in seed_lead_text.splitlines() if ln.startswith("| GEOMATCH")))
    assert set(geomatch) == set(codes.GEOMATCH)
    lines = seed_lead_text.splitlines()
    addr_type = re.findall(r"([A-Z]) = ", next(ln for ln in lines if ln.startswith("| ADDRESS_TYPE | String (1) | F")))
    assert set(addr_type) == set(codes.ADDRESS_TYPES)
    flags = next(ln for ln in seed_lead_text.splitlines() if ln.startswith("EXECUTION_STATUS_FLAG values:"))
    assert set(re.findall(r"([A-Z]) = ", flags)) == set(codes.EXECUTION_STATUS_FLAGS)
    res = next(ln for ln in lines if ln.startswith("ELSResidentialAddressVerificationResult codes"))
    assert set(re.findall(r"\b(\d{3}) ", res)) == set(codes.RESIDENTIAL_ADDRESS_VERIFICATION)
    mt = next(ln for ln in seed_lead_text.splitlines() if "Match_Type (Char)" in ln)
    assert set(re.findall(r"([A-Z]) = ", mt)) == set(codes.MATCH_TYPES)
    assert set(codes.ZIPTYPES) == {"M", "U", ""}


def test_every_table_has_meanings() -> None:
    for name, table in codes.TABLES.items():
        assert table, name
        for code in table:
            assert codes.meaning(name, code), (name, code)


def test_address_error_status_split_and_join() -> None:
    assert codes.split_address_error_status("0416  44") == ["04", "16", "44"]
    assert codes.join_address_error_status(["04", "16", "04"]) == "0416"
    assert len(codes.join_address_error_status([f"{n:02d}" for n in range(40)])) == 30
