"""Delivery lines to Publication 28 parts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dqkit.engines.usaddr import Street, parse_street
from dqkit.engines.usaddr.parser import parse_unit
from dqkit.engines.usaddr.tokens import tokenize


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("1200 North Main Street Apartment 4", "1200 N MAIN ST APT 4"),
        ("1600 Pennsylvania Ave. N.W.", "1600 PENNSYLVANIA AVE NW"),
        ("123 n.main st., apt.4", "123 N MAIN ST APT 4"),
        ("14824 SW SCHOLLS FERRY RD # 101", "14824 SW SCHOLLS FERRY RD # 101"),
        ("1811 THOUSAND OAKS BL M", "1811 THOUSAND OAKS BLVD # M"),
        ("516 Centre Court", "516 CENTRE CT"),
        ("42 Twenty-First Street", "42 21ST ST"),
        ("10 Second Avenue", "10 2ND AVE"),
        ("55 3d St", "55 3RD ST"),
        ("123 1/2 Elm St", "123 1/2 ELM ST"),
        ("456 Ave B", "456 AVENUE B"),
        ("100 Hwy 101 N", "100 HIGHWAY 101 N"),
        ("12 County Rd 5", "12 COUNTY ROAD 5"),
        ("5 US Hwy 1", "5 US HIGHWAY 1"),
        ("7 I-95", "7 INTERSTATE 95"),
        ("123 N St", "123 N ST"),
        ("123 North Ave", "123 NORTH AVE"),
        ("123 E St NW", "123 E ST NW"),
        ("123 Broadway", "123 BROADWAY"),
        ("123 The Alameda", "123 THE ALAMEDA"),
        ("123 Via La Paz", "123 VIA LA PAZ"),
        ("123 Main St Rear", "123 MAIN ST REAR"),
        ("123 Main St, Ste 200", "123 MAIN ST STE 200"),
        ("123 Main St Suite #200", "123 MAIN ST STE 200"),
        ("Apt 4 123 Main St", "123 MAIN ST APT 4"),
        ("219 S Dearborn St 2nd Floor", "219 S DEARBORN ST FL 2"),
        ("N123W456 Main St", "N123W456 MAIN ST"),
        ("300 Post Office Dr", "300 POST OFFICE DR"),
        ("One S Dearborn St", "1 S DEARBORN ST"),
    ],
)
def test_street_lines(text: str, line: str) -> None:
    assert parse_street(text).line == line


def test_parts() -> None:
    s = parse_street("1200 north main street apartment 4")
    assert (s.number, s.predir, s.name, s.suffix, s.postdir, s.unit_desig, s.unit) == (
        "1200", "N", "MAIN", "ST", "", "APT", "4")
    assert s.street == "N MAIN ST"
    assert s.kind == "H"
    assert parse_street("1200 N Main St").kind == "S"


@pytest.mark.parametrize(
    ("text", "line", "kind"),
    [
        ("PO Box 123", "PO BOX 123", "P"),
        ("P.O. Box 12", "PO BOX 12", "P"),
        ("Post Office Box 77", "PO BOX 77", "P"),
        ("box 9", "PO BOX 9", "P"),
        ("POB 5", "PO BOX 5", "P"),
        ("RR 2 Box 152", "RR 2 BOX 152", "R"),
        ("Rural Route 2 Box 152", "RR 2 BOX 152", "R"),
        ("Box 152 RR 2", "RR 2 BOX 152", "R"),
        ("HC 68 Box 23A", "HC 68 BOX 23A", "R"),
        ("Star Route 68 Box 23", "HC 68 BOX 23", "R"),
        ("PSC 802 Box 74", "PSC 802 BOX 74", "R"),
        ("Unit 2050 Box 4190", "UNIT 2050 BOX 4190", "R"),
        ("General Delivery", "GENERAL DELIVERY", "G"),
    ],
)
def test_boxes_routes_military(text: str, line: str, kind: str) -> None:
    s = parse_street(text)
    assert (s.line, s.kind) == (line, kind)


def test_route_66_is_a_street_not_a_rural_route() -> None:
    s = parse_street("100 Route 66")
    assert (s.number, s.name, s.rr_type) == ("100", "ROUTE 66", "")


def test_extraneous_text_is_dropped_from_the_parts() -> None:
    from dqkit.engines.usaddr.parser import parse_tokens

    p = parse_tokens(tokenize("123 Main St Apt 4 leave at back door"))
    assert p.street.line == "123 MAIN ST APT 4"
    assert p.extraneous == ["LEAVE", "AT", "BACK", "DOOR"]
    p = parse_tokens(tokenize("ATTN Billing 12 Oak St"))
    assert (p.street.line, p.extraneous) == ("12 OAK ST", ["ATTN", "BILLING"])


def test_units_on_their_own() -> None:
    assert parse_unit("# 101") == ("#", "101")
    assert parse_unit("Apt 4") == ("APT", "4")
    assert parse_unit("Suite 200") == ("STE", "200")
    assert parse_unit("R B") == ("#", "RB")
    assert parse_unit("") == ("", "")


def test_tokens() -> None:
    assert tokenize("P.O. Box 12, N.E. O'Farrell St.\nSan Jose") == [
        "PO", "BOX", "12", ",", "NE", "OFARRELL", "ST", ",", "SAN", "JOSE"]
    assert tokenize(",,, ,") == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_never_raises(text: str) -> None:
    assert isinstance(parse_street(text), Street)
