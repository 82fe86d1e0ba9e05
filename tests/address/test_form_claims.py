"""What a typed street form may be changed into, and how a typed unit is read (issue 28, parts 1 and 2), on the
real county samples of ../shared:

* a typed suffix or direction is verified corrected only where the reference holds every street of the ZIP: from
  a sample, the typed street may be one it lacks. 1511 MONTEVAL LN and 1511 MONTEVAL PL are both real (95120, 60 m
  apart); with the LN row held out of the reference (as bench_precision's corpus (a) holds out 20% of the rows),
  "1511 Monteval Ln" was Verified match 1511 MONTEVAL PL "suffix LN corrected to PL" on the start commit (58338f9):
  a confident wrong answer about a real address. Since issue 28 part 1 (session 3) the sample's answer is the
  vendors' correction made less sure: Interaction required, flagged, and the note says the typed street may be one
  the sample lacks (with both rows held, it is never corrected: tests/address/test_partial_corrections.py);
  vouched whole (`--complete`), it is a Verified match, corrected and flagged, as the vendors do;
* a direction typed on the other side of the name (VALLEY CIR SW for SW VALLEY CIR) is flagged and said (the start
  commit answered it unflagged: a correction always says so);
* a unit value written with a hyphen ("Apt 22-W", "Apt E-242") is one value (the start commit read "22" and left
  "W" as a street word, so the listed unit was not found).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dqkit.contract.address import Confidence, SearchRequest, SearchType
from dqkit.contract.lead import LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.lead.engine import LeadEngine, LeadProfile

pytestmark = [pytest.mark.shared]
CONFIDENT = (Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED)


def _zip_rows(shared_dir: Path, county: str, zip5: str, drop: str, out: Path) -> Path:
    """The county sample's rows of one ZIP, without the rows of street `drop` (a real street the file lacks)."""
    with open(shared_dir / "data" / "openaddresses" / f"{county}.csv", newline="") as f:
        rows = list(csv.reader(f))
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(rows[0])
        w.writerows(r for r in rows[1:] if r[8][:5] == zip5 and r[3] != drop)
    return out


@pytest.fixture(scope="module")
def without_ln(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[AddressEngine, AddressEngine]:
    """95120 of the Santa Clara sample without 1511 MONTEVAL LN: as it is (a sample) and vouched whole."""
    d = tmp_path_factory.mktemp("monteval")
    path = _zip_rows(shared_dir, "santa_clara", "95120", "MONTEVAL LN", d / "95120.csv")
    return (AddressEngine.from_files([path], out=d / "sample.idx", country_iso2="US"),
            AddressEngine.from_files([path], out=d / "whole.idx", country_iso2="US", complete=True))


def test_a_typed_suffix_is_not_verified_corrected_from_a_sample(
        without_ln: tuple[AddressEngine, AddressEngine]) -> None:
    sample, whole = without_ln
    typed = "1511 Monteval Ln, San Jose, CA 95120"
    got = sample.validate(SearchRequest.of(typed))
    r = got.result
    # issue 28 part 1: the vendors' correction, less sure (it was offered, not made, from 943b3e0 to this change)
    assert r.confidence == Confidence.INTERACTION_REQUIRED and r.match_confidence != "high", (r.confidence, r.address)
    assert r.validation_detail is not None and r.validation_detail.street_corrected
    assert "suffix LN corrected to PL" in got.note and "MONTEVAL LN is not in ZIP 95120" in got.note, got.note
    assert "may be one it lacks" in got.note and "not found" not in got.note, got.note
    search = sample.search(SearchRequest.of(typed, search_type=SearchType.SINGLELINE)).result
    assert search.confidence != Confidence.VERIFIED_MATCH, search
    lead = LeadEngine(LeadProfile(points=sample.points())).verify(LeadRequest(
        first_name="Ann", last_name="Lee", street1="1511 Monteval Ln", city="San Jose", state="CA", zip="95120"))
    sa = lead.standardized_address
    assert sa is not None and lead.message.result_code != "S102", (sa, lead.message)
    assert sa.suffix == "LN" or "45" in sa.address_error_status.split(","), sa  # a change is always flagged
    # the street as typed where it is held is the answer, as ever
    assert sample.validate(SearchRequest.of("1511 Monteval Pl, San Jose, CA 95120")).result.confidence == \
        Confidence.VERIFIED_MATCH
    # vouched whole, MONTEVAL LN is not in 95120: corrected and flagged, as the vendors do
    got = whole.validate(SearchRequest.of(typed))
    r = got.result
    assert r.confidence in CONFIDENT and r.address is not None, r
    assert r.address.address_line_1.upper() == "1511 MONTEVAL PL", r.address
    assert r.validation_detail is not None and r.validation_detail.street_corrected
    assert "suffix LN corrected to PL" in got.note, got.note


def test_a_wrong_typed_direction_is_not_verified_changed_from_a_sample(oa_engine: AddressEngine) -> None:
    """610 W Warren Ave (Fremont holds WARREN only as E WARREN AVE): from the sample, a W WARREN AVE it lacks may be
    real, so the correction is less sure (Interaction required, flagged, said; issue 28 part 1)."""
    got = oa_engine.validate(SearchRequest.of("610 W Warren Ave, Fremont, CA 94539"))
    assert got.result.confidence == Confidence.INTERACTION_REQUIRED, got.result
    assert "direction W corrected to E" in got.note and "W WARREN AVE is not in ZIP 94539" in got.note, got.note


def test_a_direction_typed_after_the_name_is_flagged(oa_engine: AddressEngine) -> None:
    got = oa_engine.validate(SearchRequest.of("6216 Valley Cir SW, Beaverton, OR 97008"))
    r = got.result
    assert r.confidence in CONFIDENT and r.address is not None, r
    assert r.address.address_line_1.upper() == "6216 SW VALLEY CIR", r.address
    assert r.validation_detail is not None and r.validation_detail.street_corrected, r.validation_detail
    assert "direction SW moved before the name" in got.note, got.note
    same = oa_engine.validate(SearchRequest.of("6216 SW Valley Cir, Beaverton, OR 97008")).result
    assert same.validation_detail is not None and not same.validation_detail.street_corrected


@pytest.mark.parametrize(("typed", "line1"), [
    ("13820 SW Electric St Apt 22-W, Beaverton, OR 97005", "13820 SW ELECTRIC ST # 22-W"),
    ("43555 Grimmer Blvd Apt E-242, Fremont, CA 94538", "43555 GRIMMER BLVD APT E242"),
])
def test_a_hyphenated_unit_is_one_value(oa_engine: AddressEngine, typed: str, line1: str) -> None:
    r = oa_engine.validate(SearchRequest.of(typed)).result
    assert r.confidence == Confidence.VERIFIED_MATCH and r.address is not None, (r.confidence, r.address)
    assert r.address.address_line_1.upper() == line1, r.address
    assert r.validation_detail is not None and not r.validation_detail.city_name_corrected


def test_name_words_written_apart_are_read_joined_and_said(oa_engine: AddressEngine) -> None:
    """DELMAR ST (Alameda 94501) typed "Del Mar St": no street fits the words as typed, the joined reading does;
    it is flagged and said. On the start commit: Verified place, "street DEL MAR ST not checked"."""
    got = oa_engine.validate(SearchRequest.of("921 Del Mar St, Alameda, CA 94501"))
    r = got.result
    assert r.confidence == Confidence.VERIFIED_MATCH and r.address is not None, (r.confidence, r.address)
    assert r.address.address_line_1.upper() == "921 DELMAR ST", r.address
    assert r.validation_detail is not None and r.validation_detail.street_corrected
    assert "street name DEL MAR read as DELMAR" in got.note, got.note
    # a word dropped is not a join: nothing claimed
    assert oa_engine.validate(SearchRequest.of("921 Mar St, Alameda, CA 94501")).result.confidence not in CONFIDENT
