"""Addresses as people type them (issue 18, parts 1, 2, 3 and 7): a slip in any word of the street, a firm or
attention line, a house number written another way, on every surface that reads a typed street. Each found
address names its correction; a made-up street or a different suffix stays refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dqkit.contract.address import Components, Confidence, SearchRequest, ValidationResult
from dqkit.contract.address_components import AddOns
from dqkit.contract.lead import LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.covered import CoveredPoints
from dqkit.engines.address.firm_lines import set_aside
from dqkit.engines.address.query import number_forms, parse_query
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.usaddr.pub28_typos import ordinal_typo, pub28_typo

CONFIDENT = (Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED)
ROWS = [
    (3780, "WEBSTER ST", "", "OAKLAND", "CA", "94609"),
    (3790, "WEBSTER ST", "", "OAKLAND", "CA", "94609"),
    (404, "LEE ST", "", "OAKLAND", "CA", "94610"),
    (1207, "24TH AVE", "", "OAKLAND", "CA", "94601"),
    (500, "11TH ST", "", "OAKLAND", "CA", "94607"),
    (408, "N 1ST ST", "", "SAN JOSE", "CA", "95112"),
    (1437, "HOWARD RD", "", "SAN JOSE", "CA", "95112"),
    (3, "CREEK LOOP", "", "SAN JOSE", "CA", "95112"),
    ("3536.5", "DAVIS ST", "", "OAKLAND", "CA", "94601"),
    ("4208-L", "RICKEYS WAY", "", "PALO ALTO", "CA", "94306"),
    (12, "B ST", "", "HAYWARD", "CA", "94541"),
    *[(2614, "BATON ROUGE DR", f"APT {u}", "SAN JOSE", "CA", "95133") for u in (1, 2, 5)],
    (58, "PLAZA RD", "", "TAMPA", "FL", "33647"),
    (2754, "SOMERSET PARK CIR", "2754", "SAN JOSE", "CA", "95132"),  # county rows that repeat the number as unit
    ("800-227", "S ABEL ST", "227", "MILPITAS", "CA", "95035"),
    (36919, "2ND ST", "", "FREMONT", "CA", "94536"),
]


@pytest.fixture(scope="module")
def engine(oa_writer: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> AddressEngine:
    root = tmp_path_factory.mktemp("typed")
    return AddressEngine.from_files([oa_writer(root / "us" / "ca" / "typed.csv", ROWS)], out=root / "typed.dqidx")


def validate(engine: AddressEngine, *lines: str, add: AddOns | None = None) -> ValidationResult:
    req = SearchRequest(components=Components(list(lines)))
    return (engine.validate(req, add) if add is not None else engine.validate(req)).result


def line1(r: ValidationResult) -> str:
    return r.address.address_line_1 if r.address is not None else ""


@pytest.mark.parametrize(("typed", "found"), [
    ("3780 Webster tS, Oakland, CA 94609", "3780 Webster St"),  # a swap in a two-letter suffix
    ("3780 Webster Srteet, Oakland, CA 94609", "3780 Webster St"),  # a swap in a spelled-out suffix
    ("3780 Webster Stt, Oakland, CA 94609", "3780 Webster St"),  # a doubled letter
    ("3780 Webster Sx, Oakland, CA 94609", "3780 Webster St"),  # a wrong letter, the street has ST
    ("1437 Howard Raod, San Jose, CA 95112", "1437 Howard Rd"),
    ("3 Creek oLop, San Jose, CA 95112", "3 Creek Loop"),
    ("408 Norht 1st Street, San Jose, CA 95112", "408 N 1st St"),  # a direction
    ("1207 24ht Ave, Oakland, CA 94601", "1207 24th Ave"),  # an ordinal: digits kept, letters forgiven
    ("1207 2T4h Ave, Oakland, CA 94601", "1207 24th Ave"),  # a digit swapped with a letter of the ordinal
    ("36919 Secnod St, Fremont, CA 94536", "36919 2nd St"),  # a slip in a numbered street written out
    ("500 11st St, Oakland, CA 94607", "500 11th St"),
    ("404 Ele St, Oakland, CA 94610", "404 Lee St"),  # a swap in a three-letter name, the locality agrees
])
def test_a_slip_in_any_word_of_the_street_is_found_and_named(engine: AddressEngine, typed: str, found: str) -> None:
    r = validate(engine, typed)
    assert r.confidence in CONFIDENT and line1(r) == found, (typed, r)
    assert r.validation_detail is not None and r.validation_detail.street_corrected, typed


def test_a_valid_suffix_the_name_lacks_is_verified_only_from_whole_data(
        engine: AddressEngine, oa_writer: Callable[..., Path], tmp_path: Path) -> None:
    """WEBSTER has only WEBSTER ST in 94609 (issue 28): from files taken as part of the ZIP, a WEBSTER PL they lack
    may be real, so it is corrected less sure (Interaction required, flagged); vouched whole (`--complete`),
    corrected and flagged."""
    typed = "3780 Webster Pl, Oakland, CA 94609"
    r = validate(engine, typed)
    assert r.confidence == Confidence.INTERACTION_REQUIRED and line1(r) == "3780 Webster St", r
    assert r.validation_detail is not None and r.validation_detail.street_corrected
    whole = AddressEngine.from_files([oa_writer(tmp_path / "us" / "ca" / "typed.csv", ROWS)],
                                     out=tmp_path / "whole.dqidx", complete=True)
    r = validate(whole, typed)
    assert r.confidence in CONFIDENT and line1(r) == "3780 Webster St", r
    assert r.validation_detail is not None and r.validation_detail.street_corrected


@pytest.mark.parametrize("typed", [
    "3780 Zanpelquo Stt, Oakland, CA 94609",  # a made-up name beside a slipped suffix
    "500 12st St, Oakland, CA 94607",  # 12TH is not the street: the digits are never forgiven
    "404 Ele St",  # a three-letter swap needs the locality to agree
    "404 Eel St, Oakland, CA 94609",  # ... and the typed locality is the street's (94610)
])
def test_a_slip_never_makes_another_street(engine: AddressEngine, typed: str) -> None:
    r = validate(engine, typed)
    assert r.confidence not in CONFIDENT, (typed, r)


def test_a_slipped_unit_designator_is_the_unit(engine: AddressEngine) -> None:
    r = validate(engine, "2614 Baton Rouge Dr Aptt 5, San Jose, CA 95133")
    assert r.confidence == Confidence.VERIFIED_MATCH and line1(r) == "2614 Baton Rouge Dr Apt 5", r


@pytest.mark.parametrize(("lines", "org_line"), [
    (("Acme Inc, 3780 Webster St, Oakland, CA 94609",), "Acme Inc"),
    (("Attn: Accounts Payable, 3780 Webster St, Oakland, CA 94609",), "Attn: Accounts Payable"),
    (("c/o Jane Smith", "3780 Webster St", "Oakland, CA 94609"), "C/O Jane Smith"),
    (("3780 Webster St", "ATTN: Billing", "Oakland CA 94609"), "Attn: Billing"),
    (("Bay Area Plumbing 3780 Webster St, Oakland, CA 94609",), "Bay Area Plumbing"),
])
def test_firm_and_attention_lines_are_set_aside_and_returned(engine: AddressEngine, lines: tuple[str, ...],
                                                             org_line: str) -> None:
    r = validate(engine, *lines)
    assert r.confidence == Confidence.VERIFIED_MATCH, (lines, r)
    assert r.address is not None and (r.address.address_line_1, r.address.address_line_2) == (
        org_line, "3780 Webster St")
    assert r.components is None  # not asked for


def test_the_organization_is_a_component_when_asked(engine: AddressEngine) -> None:
    r = validate(engine, "Acme Inc, Attn: Billing, 3780 Webster St, Oakland, CA 94609", add=AddOns(components=True))
    assert r.components is not None and r.components.organization is not None
    assert (r.components.organization.company_name, r.components.organization.department_name) == (
        "Acme Inc", "Attn: Billing")
    assert r.components.street is not None  # the reference's components are still there


def test_a_firm_line_never_carries_a_made_up_street(engine: AddressEngine) -> None:
    r = validate(engine, "Acme Inc, 3780 Zanpelquo St, Oakland, CA 94609")
    assert r.confidence not in CONFIDENT, r


@pytest.mark.parametrize(("typed", "found"), [
    ("3536 1/2 Davis St, Oakland, CA 94601", "3536.5 Davis St"),  # the reference's form of the number
    ("3536-1/2 Davis St, Oakland, CA 94601", "3536.5 Davis St"),
    ("3536½ Davis St, Oakland, CA 94601", "3536.5 Davis St"),
    ("4208L Rickeys Way, Palo Alto, CA 94306", "4208-L Rickeys Way"),
    ("4208 L Rickeys Way, Palo Alto, CA 94306", "4208-L Rickeys Way"),
    ("12 B St, Hayward, CA 94541", "12 B St"),  # B is the street, not a letter of the number
])
def test_house_number_forms_find_the_reference_form(engine: AddressEngine, typed: str, found: str) -> None:
    r = validate(engine, typed)
    assert r.confidence == Confidence.VERIFIED_MATCH and line1(r) == found, (typed, r)


@pytest.mark.parametrize("typed", ["3780A Webster St, Oakland, CA 94609", "3780-A Webster St, Oakland, CA 94609",
                                   "3780 A Webster St, Oakland, CA 94609", "3780 1/2 Webster St, Oakland, CA 94609"])
def test_a_number_form_the_reference_lacks_is_not_the_plain_number(engine: AddressEngine, typed: str) -> None:
    r = validate(engine, typed)
    assert r.confidence not in CONFIDENT, (typed, r)
    assert r.confidence == Confidence.STREET_PARTIAL and line1(r) == "Webster St", (typed, r)


def test_the_lead_engine_reads_a_slipped_suffix_as_the_street(engine: AddressEngine) -> None:
    leads = LeadEngine(LeadProfile(points=CoveredPoints(engine.index, lambda _: True)))  # vouched: S102 may be said

    def lead(street1: str) -> LeadRequest:
        return LeadRequest(first_name="Ann", last_name="Okafor", street1=street1, city="Oakland", state="CA",
                           zip="94609")

    msg = leads.verify(lead("3780 Webster Srteet"))
    sa = msg.standardized_address
    assert msg.message.result_code != "S102", msg.message
    assert sa is not None and (sa.prim_name, sa.suffix, sa.geomatch) == ("WEBSTER", "ST", "0"), sa
    assert sa.address_code != "-99", sa
    made_up = leads.verify(lead("3780 Zanpelquo Srteet"))
    assert made_up.message.result_code == "S102", made_up.message
    # a firm or attention line in front of the street in the same field, as CRM exports write it: set aside by
    # the address engine's rule, not a stray word that makes a real street "not found"
    for street1 in ("Attn: Billing 3780 Webster St", "Acme Inc 3780 Webster St", "c/o Jane Smith 3780 Webster St"):
        got = leads.verify(lead(street1))
        assert got.message.result_code != "S102", (street1, got.message)
    assert leads.verify(lead("Attn: Billing 3780 Zanpelquo St")).message.result_code == "S102"


@pytest.mark.parametrize("typed", ["58 Plaza Rd, Tampa, FL 33647", "58 Plaza Rd Tampa FL 33647",
                                   "58 Plaza Rd, Tampa, FL, 33647-1234", "58 Plaza Rd, Tampa FL"])
def test_fl_before_a_zip_is_the_state_not_a_floor(engine: AddressEngine, typed: str) -> None:
    """FL is also Publication 28's floor: "Tampa FL 33647" must not become unit "FL 33647" (found in the demo
    notebook: every Florida address carried a note about an unchecked unit)."""
    out = engine.validate(SearchRequest(components=Components([typed])))
    r = out.result
    assert r.confidence == Confidence.VERIFIED_MATCH, r
    assert line1(r) == "58 Plaza Rd" and r.address is not None and r.address.postal_code.startswith("33647"), r
    assert "unit" not in out.note, out.note


@pytest.mark.parametrize(("typed", "line"), [
    ("2754 Somerset Park Cir Apt 4A, San Jose, CA 95132", "2754 Somerset Park Cir Apt 4A"),
    ("800-227 S Abel St Apt 310, Milpitas, CA 95035", "800-227 S Abel St Apt 310"),
])
def test_the_house_number_is_not_read_as_the_typed_unit(engine: AddressEngine, typed: str, line: str) -> None:
    """bench_precision (g): where a county row's UNIT repeats its house number, the number in the typed text was
    taken for that unit, and "Apt 4A" came back Verified match with unit 2754."""
    r = validate(engine, typed)
    assert r.confidence == Confidence.PREMISES_PARTIAL, r
    assert line1(r) == line, line1(r)  # the building, with the typed unit kept


def test_readings() -> None:
    q = parse_query("58 Plaza Rd Fl 3 Tampa FL 33647 ")  # a floor typed as FL is still a floor
    assert (q.unit_desig, q.unit) == ("FL", "3") and [w.text for w in q.words][-2:] == ["FL", "33647"]
    assert pub28_typo("AEV") == {("suffix", "AVE")}
    assert pub28_typo("NORHT") == {("direction", "N")}
    assert pub28_typo("PL") == frozenset() and pub28_typo("AVENUE") == frozenset()  # valid forms are not slips
    assert ("suffix", "DR") in pub28_typo("TR") and ("suffix", "TER") in pub28_typo("TR")
    assert (ordinal_typo("24HT"), ordinal_typo("1TS"), ordinal_typo("11ST"), ordinal_typo("4TH")) == (
        "24TH", "1ST", "11TH", "")
    assert ordinal_typo("4B") == ""  # a number and a letter, not an ordinal
    # the last digit swapped with the first letter: the digits kept in order, the letters must fit the number
    assert (ordinal_typo("1T4H"), ordinal_typo("2N2D"), ordinal_typo("1T4S")) == ("14TH", "22ND", "")
    assert number_forms("2653.5") == ("2653.5", "2653 1/2", "2653-1/2", "26531/2")
    assert set(number_forms("2653-A")) == {"2653-A", "2653A", "2653 A"}
    q = parse_query("123-45 Main St ")
    assert (q.number, [w.text for w in q.words]) == ("123-45", ["MAIN", "ST"])
    kept, org = set_aside(["Apt 4, 1200 Main St, Springfield, IL"])  # a unit line is part of the address
    assert not org and kept == ["Apt 4, 1200 Main St, Springfield, IL"]
    kept, org = set_aside(["PO Box 12, Springfield, IL 62701"])  # no house number line: nothing is guessed
    assert not org


def test_over_http_the_same_rules_and_the_organization(oa_writer: Callable[..., Path], tmp_path: Path) -> None:
    """A real `dqkit serve` on the test's reference file: a slipped suffix behind a firm line is found, the firm
    comes back as its own line and, asked for, as `components.organization`."""
    import httpx

    from dqkit.server.testing import serve_process

    ref = oa_writer(tmp_path / "us" / "ca" / "typed.csv", ROWS)
    body = {"country_iso": "USA", "components": {"unspecified": ["Acme Inc, 3780 Webster Stt, Oakland, CA 94609"]}}
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    with serve_process(references=[ref], env=env) as served, httpx.Client(base_url=served.url, timeout=30) as http:
        plain = http.post("/address/validate/v1", json=body)
        asked = http.post("/address/validate/v1", json=body, headers={"Add-Components": "true"})
    assert plain.status_code == 200 and asked.status_code == 200, (plain.text, asked.text)
    r = plain.json()["result"]
    assert r["confidence"] == "Verified match" and r["validation_detail"]["street_corrected"] is True, r
    assert (r["address"]["address_line_1"], r["address"]["address_line_2"]) == ("Acme Inc", "3780 Webster St")
    assert "components" not in r
    org = asked.json()["result"]["components"]["organization"]
    assert org == {"company_name": "Acme Inc"}, org
