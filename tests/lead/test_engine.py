"""The local Stage 1 engine: the order of the seed's rules and the codes they answer with."""

from __future__ import annotations

import pytest

from dqkit.contract.codes import PHONE_STATUSES, RESULT_CODES, SCORE_RESULTS
from dqkit.contract.lead import Attribute, LeadRequest, Phone
from dqkit.engines.lead import engine as engine_module
from dqkit.engines.lead.engine import INVALID_CHARACTERS, LeadEngine, LeadProfile

GOOD = LeadRequest(first_name="Maria", last_name="Garcia", street1="1600 Pennsylvania Ave NW", city="Washington",
                   state="DC", zip="20500", phones=(Phone(phone_number="2024561111"),), client_id="C1")


@pytest.fixture(scope="module")
def engine() -> LeadEngine:
    return LeadEngine(LeadProfile(standardize_address=False))


def code(engine: LeadEngine, lead: LeadRequest) -> str:
    return engine.verify(lead).message.result_code


def test_clean_lead_succeeds_with_stage1(engine: LeadEngine) -> None:
    msg = engine.verify(GOOD)
    assert msg.message.result_code == "S100" and msg.message.type == "STATUS"
    assert msg.message.value == RESULT_CODES["S100"].value
    s1 = msg.stage1_data
    assert s1 is not None and s1.name_parser is not None
    assert (s1.name_parser.first_name, s1.name_parser.last_name) == ("MARIA", "GARCIA")
    assert s1.phone_status in PHONE_STATUSES and s1.phone_desc == PHONE_STATUSES[s1.phone_status]
    assert not s1.score_result  # never both
    assert msg.input_data == GOOD and msg.input_data.client_id == "C1"
    assert msg.standardized_address is None  # standardization off in this profile: absent, not faked


def test_score_profile_answers_score_not_status() -> None:
    msg = LeadEngine(LeadProfile(stage1="score", standardize_address=False)).verify(GOOD)
    s1 = msg.stage1_data
    assert s1 is not None and s1.score_result in SCORE_RESULTS and s1.score_desc
    assert not s1.phone_status and not s1.phone_desc
    no_phone = LeadEngine(LeadProfile(stage1="score", standardize_address=False)).verify(
        LeadRequest(first_name="Maria", last_name="Garcia", zip="20500"))
    assert no_phone.stage1_data is not None and no_phone.stage1_data.score_result == "450"


def test_transaction_ids_are_unique(engine: LeadEngine) -> None:
    ids = {engine.verify(GOOD).transaction_id for _ in range(2000)}
    ids |= {LeadEngine(engine.profile).verify(GOOD).transaction_id for _ in range(50)}
    assert len(ids) == 2050


def test_apostrophes_removed_before_anything_else(engine: LeadEngine) -> None:
    lead = LeadRequest(first_name="D'Arcy", middle_name="O'Neil", last_name="O'Brien", zip="20500")
    msg = engine.verify(lead)
    assert msg.message.result_code == "S100"
    assert msg.stage1_data is not None and msg.stage1_data.name_parser is not None
    assert msg.stage1_data.name_parser.last_name == "OBRIEN"
    assert msg.input_data == lead  # the echo is the input as received
    full = engine.verify(LeadRequest(full_name="Shaquille O'Neal", zip="20500"))
    assert full.stage1_data is not None and full.stage1_data.name_parser is not None
    assert full.stage1_data.name_parser.last_name == "ONEAL"


@pytest.mark.parametrize("ch", list(INVALID_CHARACTERS))
def test_e200_names_the_value(engine: LeadEngine, ch: str) -> None:
    lead = LeadRequest(first_name="Maria", last_name=f"Gar{ch}cia", zip="20500")
    msg = engine.verify(lead)
    assert msg.message.result_code == "E200" and msg.message.type == "ERROR"
    assert f"Gar{ch}cia" in msg.message.value and "LAST_NAME" in msg.message.value


@pytest.mark.parametrize("company", ["Zhang & Co", "AT&T"])
def test_e200_for_an_ampersand_says_how_to_keep_the_company(engine: LeadEngine, company: str) -> None:
    """The service's rule stays (E200 for '&'); the VALUE says what to write instead."""
    msg = engine.verify(LeadRequest(business_name=company, address_type="B", zip="20500"))
    assert msg.message.result_code == "E200" and company in msg.message.value
    assert "write 'and'" in msg.message.value
    kept = engine.verify(LeadRequest(business_name=company.replace("&", " and "), address_type="B", zip="20500"))
    assert kept.message.result_code == "S100"


def test_e200_checks_every_field(engine: LeadEngine) -> None:
    assert code(engine, LeadRequest(full_name="Ann Lee", zip="20500", city="Spring=field")) == "E200"
    assert code(engine, LeadRequest(full_name="Ann Lee", zip="20500", phones=(Phone(phone_number="555*1"),))) == "E200"
    assert code(engine, LeadRequest(full_name="Ann Lee", zip="20500", attributes=(Attribute("a", "50%"),))) == "E200"


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        (LeadRequest(zip="20500"), "E600"),
        (LeadRequest(first_name="Maria", zip="20500"), "E600"),
        (LeadRequest(last_name="Garcia", zip="20500"), "E600"),
        (LeadRequest(first_name="  ", last_name="Garcia", zip="20500"), "E600"),
        (LeadRequest(full_name="Maria Garcia"), "E601"),
        (LeadRequest(first_name="Maria", last_name="Garcia", street1="1 Main St"), "E601"),
        (LeadRequest(business_name="Acme Plumbing LLC", address_type="B", zip="20500"), "S100"),
        (LeadRequest(full_name="Maria Garcia", zip="20500"), "S100"),
    ],
)
def test_required_fields(engine: LeadEngine, lead: LeadRequest, expected: str) -> None:
    assert code(engine, lead) == expected


def test_phone_required_only_when_profile_asks() -> None:
    lead = LeadRequest(full_name="Maria Garcia", zip="20500")
    assert code(LeadEngine(LeadProfile(standardize_address=False)), lead) == "S100"
    strict = LeadEngine(LeadProfile(require_phone=True, standardize_address=False))
    assert code(strict, lead) == "E602"
    assert code(strict, LeadRequest(full_name="Maria Garcia", zip="20500", phones=(Phone(phone_number=" "),))) == "E602"


@pytest.mark.parametrize(
    "lead",
    [
        LeadRequest(first_name="Mickey", last_name="Mouse", zip="20500"),
        LeadRequest(full_name="John Doe", zip="20500"),
        LeadRequest(first_name="asdf", last_name="qwerty", zip="20500"),
    ],
)
def test_e100_spoof(engine: LeadEngine, lead: LeadRequest) -> None:
    msg = engine.verify(lead)
    assert msg.message.result_code == "E100"
    assert msg.message.category == "SPOOF SOFT FAILURE"
    assert RESULT_CODES["E100"].value in msg.message.value and "'" in msg.message.value


@pytest.mark.parametrize("surname", ["Dickson", "Hancock", "Sexton", "Cockburn", "Babcock"])
def test_real_surnames_are_not_spoofs(engine: LeadEngine, surname: str) -> None:
    assert code(engine, LeadRequest(first_name="Robert", last_name=surname, zip="20500")) == "S100"


def test_schema_problems_are_e300(engine: LeadEngine) -> None:
    long_first = engine.verify(LeadRequest(first_name="A" * 31, last_name="B", zip="20500"))
    assert long_first.message.result_code == "E300" and "FIRST_NAME" in long_first.message.value
    many = LeadRequest(full_name="Ann Lee", zip="20500", attributes=tuple(Attribute(f"a{i}", "v") for i in range(11)))
    assert code(engine, many) == "E300"
    assert code(engine, LeadRequest(full_name="Ann Lee", zip="205001")) == "E300"


def test_e501_unknown_client_or_partner() -> None:
    eng = LeadEngine(LeadProfile(standardize_address=False, allowed_client_ids=frozenset({"C1"}),
                                 allowed_partner_ids=frozenset({"P1"})))
    assert code(eng, GOOD) == "S100"
    assert code(eng, LeadRequest(full_name="Ann Lee", zip="20500", client_id="C2")) == "E501"
    assert code(eng, LeadRequest(full_name="Ann Lee", zip="20500", client_id="C1", partner_id="P9")) == "E501"


def test_internal_failure_is_e400_not_an_exception(engine: LeadEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(lead: LeadRequest) -> None:  # fault injection
        raise RuntimeError("name table corrupt")

    monkeypatch.setattr(engine_module, "parse_name", boom)
    msg = engine.verify(GOOD)
    assert msg.message.result_code == "E400" and "name table corrupt" in msg.message.value
    assert msg.input_data == GOOD


def test_error_message_and_reject() -> None:
    eng = LeadEngine()
    msg = eng.error_message("E500", "from 10.0.0.1")
    assert msg.message.result_code == "E500" and "account representative" in msg.message.value
    assert "10.0.0.1" in msg.message.value


def test_standardized_address_and_s102() -> None:
    eng = LeadEngine()
    ok = eng.verify(LeadRequest(full_name="Ann Lee", zip="94110", street1="123 Valencia Street",
                                city="san fransisco", state="CA"))
    sa = ok.standardized_address
    assert ok.message.result_code == "S100" and sa is not None
    assert (sa.street1, sa.city, sa.zip) == ("123 VALENCIA ST", "SAN FRANCISCO", "94110")
    assert "04" in sa.address_error_status and sa.geomatch == "5" and sa.county_code == "075"
    bad_zip = eng.verify(LeadRequest(full_name="Ann Lee", zip="99999", street1="1 Main St"))
    assert bad_zip.message.result_code == "S102" and bad_zip.message.type == "STATUS"
    assert "58" in bad_zip.message.value
    no_number = eng.verify(LeadRequest(full_name="Ann Lee", zip="94110", street1="Main St"))
    assert no_number.message.result_code == "S102" and "57" in no_number.message.value
    zip_only = eng.verify(LeadRequest(full_name="Ann Lee", zip="94110"))  # no street given: judged on the ZIP
    assert zip_only.message.result_code == "S100"
    assert zip_only.standardized_address is not None and zip_only.standardized_address.city == "SAN FRANCISCO"
    assert eng.verify(LeadRequest(full_name="Ann Lee", zip="00000")).message.result_code == "S102"


def test_syntax_check_finds_a_refused_character_in_every_field() -> None:
    """The syntax check searches the whole lead once and field by field only when that finds something (issue
    31): a refused or hidden character in any field, phone part or attribute is still found and named."""
    from dqkit.contract.lead_wire import check_lead
    from dqkit.engines.lead.engine import _SCALAR_FIELDS

    engine = LeadEngine()
    base = {"first_name": "Ana", "last_name": "Lopez", "zip": "95124"}
    for ch, shown in (("%", "'%'"), ("\u202e", "U+202E"), ("\x00", "U+0000")):
        for field in _SCALAR_FIELDS:
            lead = LeadRequest(**{**base, field: f"{base.get(field, 'x')}{ch}"})
            if check_lead(lead) is not None:  # too long for the field (ZIP, ADDRESS_TYPE): E300 comes first
                continue
            msg = engine.verify(lead).message
            assert (msg.result_code, field.upper() in msg.value or shown in msg.value) == ("E200", True), field
        for phone in (Phone(phone_number=f"2175550142{ch}"), Phone(phone_number="2175550142",
                                                                   phone_extension=f"1{ch}"),
                      Phone(phone_number="2175550142", phone_country_code=f"1{ch}")):
            assert engine.verify(LeadRequest(**base, phones=(phone,))).message.result_code == "E200"
        attr = LeadRequest(**base, attributes=(Attribute("k", f"v{ch}"),))
        assert engine.verify(attr).message.result_code == "E200"
    clean = engine.verify(LeadRequest(**base, street1="1 Main St\nApt 2\t3",
                                      phones=(Phone(phone_number="2175550142"),)))
    assert clean.message.result_code != "E200"  # line breaks and tabs are blanks, joined or not
