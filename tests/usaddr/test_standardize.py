"""standardize(): last-line reconciliation codes, the StandardizedAddress it fills, `valid`, and robustness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dqkit.contract.lead import StandardizedAddress
from dqkit.engines import zipdata
from dqkit.engines.usaddr import AddressInput, MatchLevel, Standardized, standardize


def test_clean_address_fills_the_seed_fields() -> None:
    r = standardize(AddressInput(street1="1200 north main street apartment 4", city="san jose", state="California",
                                 zip="95124"))
    a = r.address
    assert isinstance(a, StandardizedAddress)
    assert (a.street1, a.full_address, a.prim_range, a.predir, a.prim_name, a.suffix, a.unit_desig,
            a.sec_range) == ("1200 N MAIN ST APT 4", "1200 N MAIN ST APT 4", "1200", "N", "MAIN", "ST", "APT", "4")
    assert (a.city, a.state, a.zip, a.country) == ("SAN JOSE", "CA", "95124", "US")
    assert (a.county, a.county_code, a.fipscode) == ("SANTA CLARA COUNTY", "085", "06085")
    assert (a.geomatch, a.matchzipfive, a.matchzipnine, a.ziptype, a.address_type) == ("5", "T", "F", "", "H")
    assert a.geo_lat.startswith("37.") and a.geo_lng.startswith("-121.")
    assert a.zipplus == a.carrier_route == a.dpbc == a.checkdigit == a.lacscode == a.geo_msa == ""
    assert r.codes == [] and r.valid and r.match == MatchLevel.LAST_LINE


def test_one_line_equals_fields() -> None:
    one = standardize("1200 North Main Street Apt 4, San Jose, CA 95124")
    fields = standardize(AddressInput(street1="1200 North Main Street Apt 4", city="San Jose", state="CA",
                                      zip="95124"))
    assert one.address == fields.address


def test_city_misspelt_is_corrected_04() -> None:
    r = standardize("100 Main St, San Jsoe, CA 95124")
    assert r.address.city == "SAN JOSE" and "04" in r.codes and "city" in r.corrected and r.valid


def test_alias_city_gets_the_preferred_name_16() -> None:
    info = zipdata.zip_info("97007")
    assert info is not None and "ALOHA" in info.acceptable_cities
    r = standardize("100 Main St, Aloha, OR 97007")
    assert r.address.city == info.city and "16" in r.codes and r.alias


def test_missing_zip_is_supplied_from_a_single_zip_city_01() -> None:
    r = standardize("100 Main St, Alameda, CA")
    # Alameda has two ordinary ZIPs: without address points the ZIP stays unknown and the address is not valid
    assert r.address.zip == "" and not r.valid
    city = next(c for (c, s), zips in zipdata.tables().by_city_state.items()
                if s == "VT" and len(zips) == 1 and zipdata.zip_info(zips[0]).kind == "STANDARD")  # type: ignore[union-attr]
    r = standardize(f"100 Main St, {city}, VT")
    assert len(r.address.zip) == 5 and "01" in r.codes and "zip" in r.added and r.valid


def test_invalid_zip_58() -> None:
    r = standardize("100 Main St, Nowhere Town, CA 00000")
    assert "58" in r.codes and not r.valid


def test_zip_of_another_state_is_corrected_from_city_and_state() -> None:
    r = standardize("100 Main St, Cupertino, CA 10001")
    assert (r.address.city, r.address.zip) == ("CUPERTINO", "95014") and "01" in r.codes


def test_unique_zip_that_does_not_match_the_city_23() -> None:
    unique = next(i for i in zipdata.tables().by_zip.values() if i.kind == "UNIQUE" and i.state == "CA")
    r = standardize(f"100 Main St, Cupertino, CA {unique.zip}")
    assert "23" in r.codes and r.address.zip == "95014"


def test_territory_59_foreign_30_military_13() -> None:
    pr = standardize("1 Calle Sol, San Juan, PR 00901")
    assert "59" in pr.codes and not pr.valid and pr.address.state == "PR"
    ca = standardize("123 Main St, Toronto, ON M5V 2T6, Canada")
    assert "30" in ca.codes and not ca.valid and ca.address.country == ""
    mil = standardize("PSC 802 Box 74, APO, AE 09499")
    assert "13" in mil.codes and mil.address.ziptype == "M" and mil.address.address_type == "R"
    assert mil.address.rr_num == "PSC 802" and mil.address.rr_box_num == "74"


def test_city_in_several_counties_10() -> None:
    r = standardize("100 Main St, Portland, OR 97201")
    assert "10" in r.codes and r.address.county == "MULTNOMAH COUNTY" and r.address.fipscode == "41051"


def test_po_box_nonstandard_form_05_and_extraneous_44() -> None:
    r = standardize("Post Office Box 12, Boston, MA 02134")
    assert "05" in r.codes and r.address.po_box_num == "12" and r.address.address_type == "P"
    assert r.address.address_code == "-3"
    r = standardize(AddressInput(street1="ATTN Billing", street2="12 Oak St", city="Cupertino", state="CA"))
    assert "44" in r.codes and r.address.street1 == "12 OAK ST" and r.extraneous == "ATTN BILLING"


def test_other_lines() -> None:
    r = standardize(AddressInput(street1="Acme Corp", street2="12 Oak St", city="Cupertino", state="CA",
                                 zip="95014", firm="Acme Corporation"))
    assert (r.address.street1, r.address.street2, r.address.firmline) == ("12 OAK ST", "ACME CORP",
                                                                          "ACME CORPORATION")
    r = standardize(AddressInput(street1="12 Oak St", street2="Suite 5", city="Cupertino", state="CA"))
    assert r.address.street1 == "12 OAK ST STE 5" and r.address.street2 == ""


def test_four_digit_zip_gets_its_zero() -> None:
    assert standardize("1 Main St, Boston MA 2134").address.zip == "02134"


@pytest.mark.parametrize("text", ["", "   ", "asdf", "!!!", "12345", ", , ,", "NULL", "n/a"])
def test_unusable_input_is_57_and_returned(text: str) -> None:
    r = standardize(text)
    assert "57" in r.codes and not r.valid and r.address.address_code == "-99"
    assert r.address.street1 == " ".join(text.upper().split()) or r.street


def test_street_without_last_line_is_57_but_standardized() -> None:
    r = standardize("1200 north main street")
    assert r.codes == ["57"] and r.address.street1 == "1200 N MAIN ST" and not r.valid


def test_field_lengths_respect_the_seed() -> None:
    r = standardize("12345678901234 Very Long Street Name That Goes On And On And On Boulevard Apartment 12345678901,"
                    " San Jose, CA 95124")
    a = r.address
    assert len(a.street1) <= 60 and len(a.prim_range) <= 10 and len(a.sec_range) <= 10 and len(a.prim_name) <= 28
    assert len(a.geo_lat) <= 10 and len(a.geo_lng) <= 11


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120), st.text(max_size=30), st.text(max_size=12))
def test_never_raises(street: str, city: str, zip_: str) -> None:
    for r in (standardize(street), standardize(AddressInput(street1=street, city=city, zip=zip_, state=city[:2]))):
        assert isinstance(r, Standardized)
        assert not any(c == "64" for c in r.codes), r.notes
