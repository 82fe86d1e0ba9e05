"""Suggestion text and highlight ranges in every country the engine serves, as the vendor's published examples show
(issue 22 part 1): the text reads as the format answer of the same address ("line, city ST zip" in the US), and
highlight tags inserted range by range in the order given (the vendor's front-end library) render right."""

from __future__ import annotations

import pytest

from dqkit.contract.address import SearchRequest, SearchType
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.picklist import suggestion_text

# the vendor's one-line form per country, from the 7 lines of its format answer
ONE_LINE = {
    "USA": "{address_line_1}, {locality} {region} {postal_code}",
    "CAN": "{address_line_1}, {locality} {region} {postal_code}",
    "GBR": "{address_line_1}, {locality}, {postal_code}",
}
TYPED = [("USA", "77 massachusetts ave cambridge"), ("USA", "1600 pennsylvania av"), ("USA", "350 fifth"),
         ("CAN", "24 sussex"), ("CAN", "111 wellington"), ("GBR", "10 downing"), ("GBR", "1 high street oxford")]


def tag(text: str, matched: list[tuple[int, int]]) -> str:
    for start, end in matched:
        text = text[:start] + "<b>" + text[start:end] + "</b>" + text[end:]
    return text


def right(text: str, matched: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for start, end in sorted(matched):
        out += [text[pos:start], "<b>", text[start:end], "</b>"]
        pos = end
    return "".join([*out, text[pos:]])


@pytest.mark.parametrize(("country", "typed"), TYPED)
def test_text_reads_as_the_format_answer(engine: AddressEngine, country: str, typed: str) -> None:
    s = next(s for s in engine.search(SearchRequest.of(typed, country)).result.suggestions if s.is_final)
    a = engine.format(s.global_address_key).result.address
    assert a is not None
    lines = {k: getattr(a, k) for k in ("address_line_1", "locality", "region", "postal_code")}
    assert s.text == ONE_LINE[country].format(**lines)
    assert s.attribute("picklist_display") == s.text


@pytest.mark.parametrize("stype", [None, SearchType.SINGLELINE, SearchType.TYPEDOWN])
@pytest.mark.parametrize(("country", "typed"), [*TYPED, ("USA", "arch st"), ("USA", "1200 main st apt"),
                                                ("CAN", "301 front st w 1"), ("GBR", "221 baker")])
def test_tags_inserted_in_the_order_given_render_right(engine: AddressEngine, country: str, typed: str,
                                                         stype: SearchType | None) -> None:
    found = engine.search(SearchRequest.of(typed, country, search_type=stype)).result.suggestions
    assert found
    for s in found:
        assert s.matched == sorted(s.matched, reverse=True)  # from the end of the text to its start
        assert tag(s.text, s.matched) == right(s.text, s.matched), (s.text, s.matched)


def test_ranges_move_with_the_comma_before_the_state() -> None:
    text = "77 MASSACHUSETTS AVE, CAMBRIDGE, MA 02139"
    ranges = [(0, 2), (3, 16), (22, 31), (33, 35), (36, 41)]
    out, moved = suggestion_text("US", text, "CAMBRIDGE", "MA", "02139", ranges)
    assert out == "77 Massachusetts Ave, Cambridge MA 02139"
    assert [out[a:b] for a, b in moved] == ["02139", "MA", "Cambridge", "Massachusetts", "77"]
