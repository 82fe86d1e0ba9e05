"""dqkit held to the vendor's published examples where its schema is silent (issue 22).

Clients written the way the vendor's own front-end library and a client generated from its search docs are, against
a real `dqkit serve --reference alameda.csv`:
- highlight tags inserted range by range in the order given, offsets not shifted, render every suggestion right
  (the published examples list `matched` from the end of the text to its start: [[18, 20], [4, 8], [0, 3]]);
- a client that looks for its address by comparing suggestion text with "line, city ST zip" finds it (the published
  US text: "20 W Main St, Alhambra CA 91801", "1 Main St Ste 101, Andover MA 01810");
- the search confidence is one of the four the search documentation lists (a building with several units:
  Multiple matches, as the published US example);
- the key of a format URL is its last path segment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import pytest
from conformance_helpers import TOKEN
from vendor_customer import SEARCH_CONFIDENCES, SearchResult, VendorAddressClient

from dqkit.server.testing import ServedProcess

pytestmark = pytest.mark.shared

PUBLISHED_RANGES: Final = [[18, 20], [4, 8], [0, 3]]  # the vendor's example, in its order
TYPED: Final = ("1216 santa cl", "1216 santa clara av alameda", "1543 santa clara", "santa clara av alameda",
                "hill", "park st alam", "94501 1216", "1216 santa clra")


def tag(text: str, matched: list[list[int]]) -> str:
    """What the vendor's front-end library does with a suggestion: wrap each range in <b>…</b> in the order
    given, offsets never shifted for the tags already inserted."""
    out = text
    for start, end in matched:
        out = out[:start] + "<b>" + out[start:end] + "</b>" + out[end:]
    return out


def right(text: str, matched: list[list[int]]) -> str:
    """The rendering a reader expects: the characters of every range in bold, nothing else changed."""
    out, pos = [], 0
    for start, end in sorted(matched):
        out += [text[pos:start], "<b>", text[start:end], "</b>"]
        pos = end
    return "".join([*out, text[pos:]])


def test_the_tag_client_renders_the_published_example_and_garbles_start_first_ranges() -> None:
    text = "123 Main Street, Anytown"
    assert tag(text, PUBLISHED_RANGES) == right(text, PUBLISHED_RANGES) == "<b>123</b> <b>Main</b> Street, A" \
        "<b>ny</b>town"
    assert tag(text, sorted(PUBLISHED_RANGES)) != right(text, PUBLISHED_RANGES)  # what dqkit sent before


@pytest.fixture(scope="module")
def customer(served: ServedProcess) -> Iterator[VendorAddressClient]:
    client = VendorAddressClient(served.url, TOKEN)
    yield client
    client.close()


@pytest.fixture(scope="module")
def answers(customer: VendorAddressClient) -> list[SearchResult]:
    """Autocomplete, singleline and typedown answers for what people type (parsed with the four documented
    search confidences: any other value fails here)."""
    return [customer.search(t, st) for t in TYPED for st in (None, "singleline", "typedown")]


def test_highlight_tags_inserted_in_the_order_given_render_every_suggestion_right(
        answers: list[SearchResult]) -> None:
    seen = 0
    for result in answers:
        for s in result.suggestions or []:
            assert s.text is not None
            matched = s.matched or []
            assert tag(s.text, matched) == right(s.text, matched), (s.text, matched)
            seen += bool(matched)
    assert seen >= 20  # the ranges were there to render


def test_search_confidence_is_one_of_the_documented_four(customer: VendorAddressClient,
                                                           answers: list[SearchResult]) -> None:
    assert {r.confidence for r in answers} <= set(SEARCH_CONFIDENCES)
    building = customer.search("2000 walnut av")  # one building, several units
    assert building.suggestions and building.suggestions[0].attr("multiples") == "true", building
    assert building.confidence == "Multiple matches"
    assert customer.search("1").confidence == "Insufficient search terms"
    assert customer.search("zzzz qqqq").confidence == "No matches"
    assert customer.search("1216 santa clara av alameda").confidence in ("Verified match", "Multiple matches")


def test_format_url_key_is_its_last_path_segment(answers: list[SearchResult]) -> None:
    finals = [s for r in answers for s in r.suggestions or [] if s.format]
    assert len(finals) >= 10
    for s in finals:
        assert s.format is not None and s.format.rsplit("/", 1)[-1] == s.global_address_key


def _line_city_st_zip(customer: VendorAddressClient, url: str) -> str:
    a = customer.format(url).result
    assert a is not None and a.address is not None
    x = a.address
    return f"{x.address_line_1}, {x.locality} {x.region} {x.postal_code}"


@pytest.mark.parametrize("typed", ["1216 santa clara av alameda", "516 centre ct", "1543 santa clara av # a"])
def test_a_client_comparing_text_with_line_city_st_zip_finds_its_address(customer: VendorAddressClient,
                                                                         typed: str) -> None:
    """The rescue a public client does on Multiple matches: the address it holds (as the service formats it) is
    the suggestion whose text reads "line, city ST zip"."""
    first = next(s for s in customer.search(typed).suggestions or [] if s.format)
    assert first.format is not None
    wanted = _line_city_st_zip(customer, first.format)
    assert re.fullmatch(r".+, [A-Z][a-z]+(?: [A-Z][a-z]+)* [A-Z]{2} \d{5}(-\d{4})?", wanted), wanted
    looked = customer.search(wanted.split(",")[0])
    texts = [s.text for s in looked.suggestions or []]
    assert wanted in texts, (wanted, texts)
