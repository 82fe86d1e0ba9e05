"""Claims only from data, "not found" only from complete data, confidence that filters right (issue 28 parts 2 and
3, issue 29 part 4). Each test answered otherwise on the start commit (d2f9bb8):

* `dqkit verify --reference FILE` took any file as complete: a 3-point file made two real San Leandro addresses
  S102 / ELS 490;
* a record with a blank line class counted as residential (ELS 850; a business lead 690 "... residential address");
* a reference ZIP+4 of "ABCD" became ADDRESS_CODE 1 / MATCHZIPNINE T, and a unit the reference does not list got
  the building's ZIP+4 (and, on 726bfc6 still, in validate's components and barcode; a building of units or a
  street answered with a ZIP+4 of one of its rows; a carrier route "ZZZZ" or delivery point "123" was passed on);
* an address whose unit was not checked was "Verified match / high";
* with no reference, "5770 balboa drive, oakland ca" was "No matches" while "San Jose, CA" was a place.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.address_components import AddOns
from dqkit.contract.lead import LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.openonly import OpenOnlyEngine
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.lead.records import LeadRecords
from dqkit.engines.usaddr import InMemoryPoints, MatchLevel, standardize
from dqkit.engines.usaddr.points import point_from_row

HEADER = ["LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID", "ZIP4"]
# three real San Leandro points of the Alameda County sample
THREE = [("-122.1560", "37.7260", "1305", "ESTUDILLO AV", "", "SAN LEANDRO", "94577", "t-1", ""),
         ("-122.1561", "37.7261", "465", "ESTUDILLO AV", "", "SAN LEANDRO", "94577", "t-2", ""),
         ("-122.1562", "37.7262", "176", "JUANA AV", "", "SAN LEANDRO", "94577", "t-3", "")]


def _oa(path: Path, rows: list[tuple[str, ...]]) -> Path:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for lon, lat, num, street, unit, city, pc, rid, zip4 in rows:
            w.writerow([lon, lat, num, street, unit, city, "", "CA", pc, rid, zip4])
    return path


def _verify(tmp_path: Path, *extra: str) -> pd.DataFrame:
    leads = pd.DataFrame({"name": ["Ann Lee", "Bo Chan"], "street": ["1906 Doolittle Dr", "1616 Doolittle Dr"],
                          "city": ["San Leandro"] * 2, "state": ["CA"] * 2, "zip": ["94577"] * 2})
    src, out = tmp_path / "leads.csv", tmp_path / f"out{len(extra)}.csv"
    leads.to_csv(src, index=False)
    ref = _oa(tmp_path / "three.csv", THREE)
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(src), "-o", str(out), "--quiet",
                           "--no-cache", "--reference", str(ref), *extra], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(out, dtype=str, keep_default_na=False)


def test_a_reference_file_is_partial_unless_the_user_vouches_for_it(tmp_path: Path) -> None:
    got = _verify(tmp_path)
    assert list(got["result_code"]) == ["S100", "S100"], got[["result_code", "result_value"]]
    assert list(got["els_address_verification"]) == ["103", "103"]  # not checked, never "road name mismatch"
    vouched = _verify(tmp_path, "--complete")
    assert list(vouched["result_code"]) == ["S102", "S102"]
    assert list(vouched["els_address_verification"]) == ["490", "490"]


def test_a_reference_file_engine_says_not_checked_not_not_found(tmp_path: Path) -> None:
    engine = AddressEngine.from_files([_oa(tmp_path / "three.csv", THREE)], out=tmp_path / "three.idx")
    got = engine.validate(SearchRequest.of("1906 Doolittle Dr, San Leandro, CA 94577"))
    assert got.result.confidence == Confidence.VERIFIED_PLACE
    assert "not checked" in got.note and "holds only part of ZIP 94577" in got.note and "not found" not in got.note


def _records(line_class: str) -> LeadRecords:
    return LeadRecords.from_rows([
        {"first_name": "Ann", "last_name": "Lee", "street1": "1906 Doolittle Dr", "zip": "94577",
         "phone": "5105550100", "line_class": line_class},
        {"business_name": "Acme Inc", "street1": "1616 Doolittle Dr", "zip": "94577", "phone": "5105550101",
         "line_class": line_class},
    ])


def _els(engine: LeadEngine, **kw: str) -> str:
    base = dict(street1="1906 Doolittle Dr", city="San Leandro", state="CA", zip="94577")
    msg = engine.verify(LeadRequest(**{**base, **kw}))  # type: ignore[arg-type]
    assert msg.stage1_data is not None
    return msg.stage1_data.residential_address_verification_result


def test_residential_only_from_a_record_that_says_so() -> None:
    blank = LeadEngine(LeadProfile(records=_records("")))
    assert _els(blank, first_name="Ann", last_name="Lee") == "101"  # full name at the address, use not said
    business = dict(business_name="Acme Inc", address_type="B", street1="1616 Doolittle Dr")
    assert _els(blank, **business) == "101"  # never 690 "business name match, residential address"
    cell = LeadEngine(LeadProfile(records=_records("C")))  # a phone's line class says nothing of the address
    assert _els(cell, first_name="Ann", last_name="Lee") == "101"
    said = LeadEngine(LeadProfile(records=_records("R")))
    assert _els(said, first_name="Ann", last_name="Lee") == "850"  # the record says residential
    assert _els(LeadEngine(LeadProfile(records=_records("B"))), **business) == "680"


def _points(zip4: str, unit: str = "") -> InMemoryPoints:
    row = {"LON": "-122.16", "LAT": "37.72", "NUMBER": "1906", "STREET": "DOOLITTLE DR", "UNIT": unit,
           "CITY": "SAN LEANDRO", "POSTCODE": "94577", "ID": "z-1", "ZIP4": zip4}
    p = point_from_row(row, state="CA")
    assert p is not None
    return InMemoryPoints([p])


def test_address_code_1_only_with_a_well_formed_zip4_of_that_delivery_point() -> None:
    ok = standardize("1906 Doolittle Dr, San Leandro, CA 94577", points=_points("4321")).address
    assert (ok.address_code, ok.zipplus, ok.matchzipnine) == ("1", "4321", "T")
    for bad in ("ABCD", "12", "0000"):
        got = standardize("1906 Doolittle Dr, San Leandro, CA 94577", points=_points(bad))
        assert got.match == MatchLevel.ADDRESS
        assert (got.address.address_code, got.address.zipplus, got.address.matchzipnine) == ("", "", "F"), bad
    # a unit the reference does not list at the building: the building's add-on is not the unit's
    unit = standardize("1906 Doolittle Dr Apt 5, San Leandro, CA 94577", points=_points("4321")).address
    assert (unit.address_code, unit.zipplus, unit.matchzipnine) == ("", "", "F"), unit


def test_validate_never_shows_a_zip4_that_is_none_or_not_the_units(tmp_path: Path) -> None:
    rows = [("-122.16", "37.72", "1906", "DOOLITTLE DR", "", "SAN LEANDRO", "94577", "z-1", "ABCD"),
            ("-122.17", "37.73", "1616", "DOOLITTLE DR", "", "SAN LEANDRO", "94577", "z-2", "4321")]
    engine = AddressEngine.from_files([_oa(tmp_path / "zip4.csv", rows)], out=tmp_path / "zip4.idx")
    bad = engine.validate(SearchRequest.of("1906 Doolittle Dr, San Leandro, CA 94577")).result
    assert bad.address is not None and bad.address.postal_code == "94577"
    good = engine.validate(SearchRequest.of("1616 Doolittle Dr, San Leandro, CA 94577")).result
    assert good.address is not None and good.address.postal_code == "94577-4321"
    unit = engine.validate(SearchRequest.of("1616 Doolittle Dr Apt 5, San Leandro, CA 94577")).result
    assert unit.address is not None and unit.address.postal_code == "94577", unit.address


@pytest.mark.shared
def test_an_unchecked_unit_never_reads_as_verified_to_a_filter_on_confidence(oa_engine: AddressEngine) -> None:
    """Issue 29 part 4: a building the reference lists no units at, typed with a unit."""
    got = oa_engine.validate(SearchRequest.of("1906 Doolittle Dr Apt 5, San Leandro, CA 94577"))
    r = got.result
    assert r.confidence == Confidence.PREMISES_PARTIAL and r.match_confidence != "high", r
    assert r.address is not None and r.address.address_line_1.upper() == "1906 DOOLITTLE DR APT 5"
    assert got.note.startswith("unit APT 5 not checked")
    frame = pd.DataFrame({"address": ["1906 Doolittle Dr Apt 5, San Leandro, CA 94577",
                                      "1906 Doolittle Dr, San Leandro, CA 94577"]})
    out = frame.addr.validate(backend=oa_engine, cache=False, progress=False)
    verified = out[out["addr_confidence"] == Confidence.VERIFIED_MATCH.value]
    assert list(verified["address"]) == ["1906 Doolittle Dr, San Leandro, CA 94577"]


@pytest.mark.parametrize(("typed", "city", "zip5"), [
    ("5770 balboa drive, oakland ca", "Oakland", ""),
    ("5770 Balboa Dr, Oaklnd, CA", "Oakland", ""),
    ("San Jose, CA", "San Jose", ""),
    ("5770 balboa drive, oakland ca 94611", "Oakland", "94611"),
])
def test_with_no_reference_a_street_and_city_are_answered_as_the_place(typed: str, city: str, zip5: str) -> None:
    r = OpenOnlyEngine(quiet=True).validate(SearchRequest.of(typed)).result
    assert r.confidence == Confidence.VERIFIED_PLACE, (typed, r)
    assert r.address is not None and (r.address.locality, r.address.region, r.address.postal_code) == (city, "CA",
                                                                                                        zip5)
    assert not r.address.address_line_1  # no street claimed
    none = OpenOnlyEngine(quiet=True).validate(SearchRequest.of("5770 Balboa Dr, Zzyzxville CA")).result
    assert none.confidence == Confidence.NO_MATCHES


def test_a_city_spelled_like_a_unit_is_the_city(tmp_path: Path) -> None:
    """"Tutor Key, KY": KEY is a Publication 28 unit designator; with KY after it, it read as unit "KEY KY" (a note
    "unit KEY KY not checked" on the start commit; with unchecked units now Premises partial, it would have cost the
    verified answer: found on the 1M-address synthetic reference of bench_scale)."""
    rows = [("-82.95", "37.45", "2426", "LAKE DR", "", "TUTOR KEY", "41263", "k-1", "")]
    path = tmp_path / "ky.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for lon, lat, num, street, unit, city, pc, rid, zip4 in rows:
            w.writerow([lon, lat, num, street, unit, city, "", "KY", pc, rid, zip4])
    engine = AddressEngine.from_files([path], out=tmp_path / "ky.idx")
    got = engine.validate(SearchRequest.of("2426 lake dr, tutor key, ky 41263"))
    assert got.result.confidence == Confidence.VERIFIED_MATCH and "unit" not in got.note, (got.result, got.note)


ROUTED = ["LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID", "ZIP4", "CRRT",
          "DP"]
# real San Leandro street, routing columns as a reference file may carry them, some malformed
ROUTED_ROWS = [("1906", "", "ABCD", "C0X1", "XY"), ("1616", "", "4321", "ZZZZ", "123"),
               ("1620", "", "4322", "C012", "45"),  # a point without units
               ("1700", "APT 1", "4401", "C012", "01"), ("1700", "APT 2", "4402", "C012", "02")]


@pytest.fixture(scope="module")
def routed(tmp_path_factory: pytest.TempPathFactory) -> AddressEngine:
    d = tmp_path_factory.mktemp("routed")
    with open(d / "routed.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ROUTED)
        for i, (num, unit, zip4, crrt, dp) in enumerate(ROUTED_ROWS):
            w.writerow(["-122.16", "37.72", num, "DOOLITTLE DR", unit, "SAN LEANDRO", "", "CA", "94577", f"r-{i}",
                        zip4, crrt, dp])
    return AddressEngine.from_files([d / "routed.csv"], out=d / "routed.idx")


ALL_ADD_ONS = AddOns(components=True, metadata=True, enrichment=True)


def test_malformed_routing_codes_are_claimed_nowhere(routed: AddressEngine) -> None:
    """A carrier route that is none ("ZZZZ", "C0X1") or a delivery point that is none ("123") was passed on as it
    was (validate's metadata, the lead's CARRIER_ROUTE and DPBC) on the start commit."""
    for number in ("1906", "1616"):
        typed = f"{number} Doolittle Dr, San Leandro, CA 94577"
        got = routed.validate(SearchRequest.of(typed), ALL_ADD_ONS)
        assert got.result.confidence == Confidence.VERIFIED_MATCH
        md = got.metadata
        assert md is None or (md.route_classification is None and md.barcode is None), md
        fmt = routed.format(got.result.global_address_key, None, ALL_ADD_ONS)
        assert fmt.metadata is None or fmt.metadata.route_classification is None, fmt.metadata
        std = standardize(typed, points=routed.index).address
        assert (std.carrier_route, std.dpbc, std.checkdigit) == ("", "", ""), std
    lead = LeadEngine(LeadProfile(points=routed.points())).verify(LeadRequest(
        first_name="Ann", last_name="Lee", street1="1616 Doolittle Dr", city="San Leandro", state="CA", zip="94577"))
    sa = lead.standardized_address
    assert sa is not None and (sa.zipplus, sa.carrier_route, sa.dpbc) == ("4321", "", ""), sa
    good = standardize("1620 Doolittle Dr, San Leandro, CA 94577", points=routed.index).address
    assert (good.zipplus, good.carrier_route, good.dpbc, good.address_code) == ("4322", "C012", "45", "1")


def test_a_zip4_is_one_delivery_points_never_a_units_a_buildings_or_a_streets(routed: AddressEngine) -> None:
    """Start commit: an unlisted unit typed at a point without units got the point's ZIP+4 and barcode in the
    components and metadata of validate; a building of units answered without a unit showed its first unit's
    ZIP+4 (94577-4401); a house number the street lacks (Street partial) showed its first row's."""
    unit = routed.validate(SearchRequest.of("1620 Doolittle Dr Apt 5, San Leandro, CA 94577"), ALL_ADD_ONS)
    r = unit.result
    assert r.confidence == Confidence.PREMISES_PARTIAL and r.address is not None
    assert r.address.postal_code == "94577"
    assert r.components is not None and r.components.postal_code is not None
    assert r.components.postal_code.full_name == "94577", r.components.postal_code
    assert unit.metadata is None or unit.metadata.barcode is None, unit.metadata
    # the point itself keeps its own
    own = routed.validate(SearchRequest.of("1620 Doolittle Dr, San Leandro, CA 94577"), ALL_ADD_ONS)
    assert own.result.address is not None and own.result.address.postal_code == "94577-4322"
    assert own.metadata is not None and own.metadata.barcode is not None
    building = routed.validate(SearchRequest.of("1700 Doolittle Dr, San Leandro, CA 94577")).result
    assert building.confidence == Confidence.PREMISES_PARTIAL and building.address is not None
    assert building.address.postal_code == "94577", building.address
    street = routed.validate(SearchRequest.of("1750 Doolittle Dr, San Leandro, CA 94577")).result
    assert street.address is not None and street.address.postal_code in ("94577", ""), (street.confidence,
                                                                                       street.address)
    listed = routed.validate(SearchRequest.of("1700 Doolittle Dr Apt 2, San Leandro, CA 94577")).result
    assert listed.address is not None and listed.address.postal_code == "94577-4402"
