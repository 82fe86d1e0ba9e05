"""A client written for the vendor (pydantic models of the published shapes, no dqkit models) completes the
published flow against `dqkit serve --reference alameda.csv`: search, step in, refine, format."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from conformance_helpers import TOKEN
from vendor_customer import SearchResult, Suggestion, VendorAddressClient

from dqkit.server.testing import ServedProcess

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def customer(served: ServedProcess) -> Iterator[VendorAddressClient]:
    client = VendorAddressClient(served.url, TOKEN)
    yield client
    client.close()


def _final(result: SearchResult) -> Suggestion:
    finals = [s for s in result.suggestions or [] if s.format]
    assert finals, result
    return finals[0]


def test_search_then_format_with_components(customer: VendorAddressClient, served: ServedProcess) -> None:
    found = customer.search("1216 santa cl")
    chosen = _final(found)
    assert chosen.format is not None and chosen.format.startswith(served.url + "/address/format/v1/")
    answer = customer.format(chosen.format)
    assert answer.result is not None and answer.result.address is not None
    a = answer.result.address
    assert (a.address_line_1, a.locality, a.region, a.postal_code, a.country) == (
        "1216 Santa Clara Ave", "Alameda", "CA", "94501", "UNITED STATES OF AMERICA")
    c = answer.result.components
    assert c is not None and c.street is not None and c.building is not None and c.locality is not None
    assert (c.street.name, c.street.type, c.building.building_number) == ("Santa Clara", "Ave", "1216")
    assert c.locality.town is not None and c.locality.town.name == "Alameda"
    assert (c.country_iso_3, c.country_iso_2) == ("USA", "US")
    assert answer.metadata is not None and answer.metadata.address_classification is not None


def test_typedown_step_in_then_format(customer: VendorAddressClient) -> None:
    found = customer.search("hill", "typedown")
    group = next(s for s in found.suggestions or [] if not s.format)
    assert group.attr("multiples") == "true" and group.global_address_key and group.stepin
    inside = customer.step_in(group.global_address_key)
    chosen = _final(inside)
    assert chosen.format is not None
    answer = customer.format(chosen.format)
    assert answer.result is not None and answer.result.global_address_key == chosen.global_address_key


def test_refine_a_range_to_one_address_then_format(customer: VendorAddressClient) -> None:
    found = customer.search("santa clara av alameda", "singleline")
    ranges = [s for s in found.suggestions or [] if s.attr("unresolvable_range") == "true"]
    if not ranges:
        found = customer.search("santa clara av", "typedown")
        ranges = [s for s in found.suggestions or [] if s.attr("unresolvable_range") == "true"]
    assert ranges, found
    rng = ranges[0]
    assert rng.text is not None and rng.global_address_key
    low = re.match(r"\d+", rng.text)
    assert low is not None, rng.text
    refined = customer.refine(rng.global_address_key, low.group(0))
    assert refined.suggestions and refined.suggestions[0].attr("full_address") == "true"
    chosen = _final(refined)
    assert chosen.format is not None
    answer = customer.format(chosen.format)
    assert answer.result is not None and answer.result.address is not None
    assert (answer.result.address.address_line_1 or "").startswith(low.group(0) + " ")
