"""Suffix and direction as the vendors treat them (issue 28, part 1): one rule (`dqkit.engines.usaddr.street_forms`)
for validate, the standardizer and the lead engine, on the real county samples of ../shared.

* a valid suffix the name lacks in the ZIP, the number on the name's one form there: corrected, flagged, said,
  where the reference holds every street of the ZIP (`--complete`); from a sample, corrected less sure (Interaction
  required: the typed street may be one the sample lacks, 1511 MONTEVAL LN and PL are both real; see
  test_partial_corrections.py);
* a direction left out or wrong where the typed street exists too (SUNSET BLVD and W SUNSET BLVD in 94541): two
  readings, both listed, neither verified; where the name has one form: corrected, flagged, said;
* a typed suffix the name has there is never corrected into another street;
* notes never say "not found" of a street the reference holds.
Each of these answered otherwise on the start commit (d2f9bb8): a refusal with "street DOOLITTLE DR not found in ZIP
94577", a silent Verified match on W SUNSET BLVD, an unflagged direction.
"""

from __future__ import annotations

import pytest

from dqkit.contract.address import Confidence, SearchRequest, SearchType, ValidateResponse
from dqkit.contract.lead import LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.covered import CoveredPoints
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.usaddr import MatchLevel, standardize
from dqkit.engines.usaddr.street_forms import AMBIGUOUS, CORRECTED, REFUSED, SAME, FormFacts, check_form

pytestmark = [pytest.mark.shared]
CONFIDENT = (Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED)


def answer(engine: AddressEngine, text: str) -> ValidateResponse:
    return engine.validate(SearchRequest.of(text))


def line1(r: ValidateResponse) -> str:
    return r.result.address.address_line_1.upper() if r.result.address is not None else ""


def test_a_valid_suffix_the_name_lacks_is_corrected_flagged_and_said(oa_complete: AddressEngine) -> None:
    oa_engine = oa_complete  # the vendors' data: every street of the ZIP
    got = answer(oa_engine, "1906 Doolittle Ave, San Leandro, CA 94577")  # the ZIP has only DOOLITTLE DR
    r = got.result
    assert r.confidence in CONFIDENT and line1(got) == "1906 DOOLITTLE DR", r
    assert r.validation_detail is not None and r.validation_detail.street_corrected
    assert r.match_confidence == "medium"  # a corrected street is never "high"
    assert "suffix AVE corrected to DR" in got.note and "not found" not in got.note, got.note
    # spelled out, lower case: the same
    got = answer(oa_engine, "1906 doolittle avenue san leandro ca 94577")
    assert got.result.confidence in CONFIDENT and line1(got) == "1906 DOOLITTLE DR"


def test_a_typed_suffix_the_name_has_is_never_corrected_into_another_street(oa_engine: AddressEngine) -> None:
    # HEYER AVE and HEYER PL are both in 94546; 4597 is on HEYER PL only
    got = answer(oa_engine, "4597 Heyer Ave, Castro Valley, CA 94546")
    assert got.result.confidence not in CONFIDENT, got.result
    assert "HEYER PL" not in line1(got)


def test_a_missing_direction_where_both_streets_exist_lists_both_and_verifies_neither(
        oa_engine: AddressEngine) -> None:
    # SUNSET BLVD and W SUNSET BLVD are both in 94541; 752 is on W SUNSET BLVD only (in this sample)
    got = answer(oa_engine, "752 Sunset Blvd, Hayward, CA 94541")
    r = got.result
    assert r.confidence == Confidence.MULTIPLE_MATCHES, r
    texts = [s.text.upper() for s in r.suggestions]
    assert any(t.startswith("752 W SUNSET BLVD") for t in texts) and any(" SUNSET BLVD" in t and " W " not in t
                                                                        for t in texts), texts
    assert "two streets fit" in got.note and "W SUNSET BLVD" in got.note
    # the typed street holding the number is the answer, never the directed one (744 is on both)
    exact = answer(oa_engine, "744 Sunset Blvd, Hayward 94541")
    assert exact.result.confidence == Confidence.VERIFIED_MATCH and line1(exact) == "744 SUNSET BLVD"
    # a typed direction the number is not on, the plain street holding it: both listed, neither verified
    typed_w = answer(oa_engine, "696 W Sunset Blvd, Hayward, CA 94541")
    assert typed_w.result.confidence == Confidence.MULTIPLE_MATCHES, typed_w.result
    # a wrong direction where the plain street exists too: two readings (drop it, or change it)
    wrong = answer(oa_engine, "240 E Dana St, Mountain View, CA 94041")  # DANA ST and W DANA ST
    assert wrong.result.confidence not in CONFIDENT, wrong.result


def test_search_never_verifies_one_of_two_real_streets(oa_engine: AddressEngine) -> None:
    """A single-line (or type-down) search follows the same rule: with SUNSET BLVD and W SUNSET BLVD both in
    94541, "752 Sunset Blvd" is Multiple matches listing both (752 W SUNSET BLVD and the plain street), never a
    Verified match on W SUNSET BLVD (as it was before: a silent switch to another street)."""
    for stype, typed in ((SearchType.SINGLELINE, "752 Sunset Blvd, Hayward, CA 94541"),
                         (SearchType.TYPEDOWN, "752 Sunset Blvd"),
                         (SearchType.AUTOCOMPLETE, "752 Sunset Blvd Hayward")):
        r = oa_engine.search(SearchRequest.of(typed, search_type=stype)).result
        assert r.confidence == Confidence.MULTIPLE_MATCHES, (stype, r)
        texts = [s.text.upper() for s in r.suggestions]
        assert any(t.startswith("752 W SUNSET BLVD") for t in texts), texts
        assert any(" SUNSET BLVD" in t and " W " not in t for t in texts), texts
    # where the name has one form in the ZIP, the completed direction is still the one address (E WARREN AVE)
    one = oa_engine.search(SearchRequest.of("610 Warren Ave, Fremont, CA 94539",
                                            search_type=SearchType.SINGLELINE)).result
    assert one.confidence == Confidence.VERIFIED_MATCH and one.suggestions[0].text.upper().startswith(
        "610 E WARREN AVE"), one
    # typed with its direction, the street holding the number is the one answer
    assert oa_engine.search(SearchRequest.of("752 W Sunset Blvd, Hayward, CA 94541",
                                             search_type=SearchType.SINGLELINE)).result.confidence == \
        Confidence.VERIFIED_MATCH


def test_a_direction_the_name_has_one_form_of_is_added_or_changed_flagged_and_said(
        oa_engine: AddressEngine, oa_complete: AddressEngine) -> None:
    for typed, note, on in (("610 Warren Ave, Fremont, CA 94539", "direction E added", oa_engine),
                            ("610 W Warren Ave, Fremont, CA 94539", "direction W corrected to E", oa_complete)):
        got = answer(on, typed)
        r = got.result
        assert r.confidence in CONFIDENT and line1(got) == "610 E WARREN AVE", (typed, r)
        assert r.validation_detail is not None and r.validation_detail.street_corrected, typed
        assert note in got.note, got.note
    # no ZIP typed: the city holds N MARY AVE (94085) and S MARY AVE (94086, 94087): not verified
    city = answer(oa_engine, "755 Mary Ave, Sunnyvale, CA")
    assert city.result.confidence not in CONFIDENT, city.result
    zip_typed = answer(oa_engine, "755 Mary Ave, Sunnyvale, CA 94085")  # 94085 holds only N MARY AVE
    assert zip_typed.result.confidence in CONFIDENT and line1(zip_typed) == "755 N MARY AVE"


def test_the_standardizer_follows_the_same_rule(oa_engine: AddressEngine) -> None:
    both = standardize("752 Sunset Blvd, Hayward, CA 94541", points=oa_engine.index)
    assert both.match == MatchLevel.MULTIPLE and both.street.predir == "", both  # not W SUNSET BLVD, code 46
    assert both.address.address_code not in ("", "1")
    whole = CoveredPoints(oa_engine.index, lambda _: True)  # vouched complete
    suffix = standardize("1906 Doolittle Ave, San Leandro, CA 94577", points=whole)
    assert suffix.match == MatchLevel.ADDRESS and suffix.street.suffix == "DR" and "45" in suffix.codes
    sample = standardize("1906 Doolittle Ave, San Leandro, CA 94577", points=oa_engine.index)
    assert sample.street.suffix == "DR" and "45" in sample.codes, sample  # from the sample too (issue 28 part 1)
    typed_exists = standardize("4597 Heyer Ave, Castro Valley, CA 94546", points=oa_engine.index)
    assert (typed_exists.street.suffix, typed_exists.valid) == ("AVE", False) and "61" in typed_exists.codes


def test_the_lead_engine_follows_the_same_rule(oa_engine: AddressEngine) -> None:
    leads = LeadEngine(LeadProfile(points=CoveredPoints(oa_engine.index, lambda _: True)))  # vouched complete

    def lead(street1: str, city: str, zip5: str) -> LeadRequest:
        return LeadRequest(first_name="Ann", last_name="Lee", street1=street1, city=city, state="CA", zip=zip5)

    # a corrected suffix is the street, not "street DOOLITTLE DR not found" (S102 on the start commit)
    msg = leads.verify(lead("1906 Doolittle Ave", "San Leandro", "94577"))
    sa = msg.standardized_address
    assert msg.message.result_code == "S100", msg.message
    assert sa is not None and (sa.prim_name, sa.suffix) == ("DOOLITTLE", "DR") and "45" in sa.address_error_status
    # where the reference holds every street, SUNSET BLVD's numbers (696-744) do not reach 752: W added, said (46)
    added = leads.verify(lead("752 Sunset Blvd", "Hayward", "94541"))
    sa = added.standardized_address
    assert sa is not None and sa.predir == "W" and "46" in sa.address_error_status.split(","), sa
    # from a sample, SUNSET BLVD may hold 752 too: two readings, ambiguous (ELS 450), never a silent W SUNSET BLVD
    sample = LeadEngine(LeadProfile(points=CoveredPoints(oa_engine.index, lambda _: False)))
    both = sample.verify(lead("752 Sunset Blvd", "Hayward", "94541"))
    sa, s1 = both.standardized_address, both.stage1_data
    assert sa is not None and s1 is not None
    assert sa.predir != "W" and s1.residential_address_verification_result == "450", (sa, s1)


def test_no_note_says_not_found_of_a_street_the_reference_holds(oa_complete: AddressEngine) -> None:
    for typed in ("1906 Doolittle Ave, San Leandro, CA 94577", "99999 Doolittle Dr, San Leandro, CA 94577",
                  "752 Sunset Blvd, Hayward, CA 94541", "4597 Heyer Ave, Castro Valley, CA 94546"):
        got = answer(oa_complete, typed)
        assert "DOOLITTLE DR not found" not in got.note and "SUNSET BLVD not found" not in got.note, got.note
        assert "HEYER AVE not found" not in got.note and "HEYER PL not found" not in got.note, got.note


def test_the_rule_itself() -> None:
    """`check_form` on its own (no data needed): the cases above, and the bounds complete data gives."""
    sunset = {("", "BLVD", ""): FormFacts(False, 696, 744), ("W", "BLVD", ""): FormFacts(True, 744, 752)}
    assert check_form(("", "BLVD", ""), ("W", "BLVD", ""), sunset, 752).verdict == AMBIGUOUS
    # where the reference holds every street, SUNSET BLVD's numbers stop at 744: 752 is W SUNSET BLVD's
    got = check_form(("", "BLVD", ""), ("W", "BLVD", ""), sunset, 752, complete=True)
    assert (got.verdict, got.changes) == (CORRECTED, ("direction W added",))
    assert check_form(("W", "BLVD", ""), ("W", "BLVD", ""), sunset, 752).verdict == SAME
    heyer = {("", "AVE", ""): FormFacts(False, 4108, 4784), ("", "PL", ""): FormFacts(True, 4597, 4597)}
    assert check_form(("", "AVE", ""), ("", "PL", ""), heyer, 4597).verdict == REFUSED
    got = check_form(("", "WAY", ""), ("", "PL", ""), heyer, 4597, complete=True)
    assert (got.verdict, got.changes) == (CORRECTED, ("suffix WAY corrected to PL",))
    # from a sample the typed street may be one it lacks: corrected less sure (`partial`) when no form of the name
    # in the city has the typed suffix, else refused with the change it would have made kept
    got = check_form(("", "WAY", ""), ("", "PL", ""), heyer, 4597)
    assert (got.verdict, got.partial, got.changes) == (CORRECTED, True, ("suffix WAY corrected to PL",))
    city = {*heyer, ("", "WAY", "")}  # HEYER WAY in another ZIP of the city
    got = check_form(("", "WAY", ""), ("", "PL", ""), heyer, 4597, city_forms=lambda: city)
    assert (got.verdict, got.partial, got.changes) == (REFUSED, True, ("suffix WAY corrected to PL",))
    warren = {("E", "AVE", ""): FormFacts(True, 610, 620)}
    got = check_form(("W", "AVE", ""), ("E", "AVE", ""), warren, 610)  # the name's one direction in the city
    assert (got.verdict, got.partial, got.changes) == (CORRECTED, True, ("direction W corrected to E",))
    got = check_form(("W", "AVE", ""), ("E", "AVE", ""), warren, 610, city_forms=lambda: {*warren, ("", "CT", "")})
    assert got.verdict == REFUSED  # the name without a direction in the city: not the one direction there
    both_parts = check_form(("W", "CT", ""), ("E", "AVE", ""), warren, 610)
    assert (both_parts.verdict, both_parts.partial) == (REFUSED, True)  # two typed parts changed: two guesses
    # a typed direction the reference lacks, the plain street holding the number: dropped only from complete data
    plain = {("", "BLVD", ""): FormFacts(True, 696, 744)}
    assert check_form(("W", "BLVD", ""), ("", "BLVD", ""), plain, 744).verdict == REFUSED
    assert check_form(("W", "BLVD", ""), ("", "BLVD", ""), plain, 744, complete=True).verdict == CORRECTED
    both = {("", "CT", ""): FormFacts(True), ("", "ST", ""): FormFacts(True)}
    assert check_form(("", "WAY", ""), ("", "CT", ""), both, 1).verdict == AMBIGUOUS  # two forms hold it
    assert check_form(("", "", ""), ("", "CT", ""), {("", "CT", ""): FormFacts(True)}, 1).verdict == SAME
